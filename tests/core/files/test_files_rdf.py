"""The one RDF reader (core/files/rdf.py) refuses RDF/XML with a DTD before parsing
("billion laughs": rdflib would expand nested entities for minutes) and bounds the size of
every RDF file; PIA's reader (core/pia/facts.py) goes through the same guard."""

from __future__ import annotations

import pytest

from helpers import run_cli
from tklscore.core.errors import InputError
from tklscore.core.files import rdf
from tklscore.core.model.data_model import TklDataModel
from tklscore.core.model.vocabulary import Vocabulary
from tklscore.core.pia.facts import load_triples

LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [
 <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
 <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
 <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
 <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
 <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
 <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
 <!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;">
]>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
         xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#">
  <rdf:Description rdf:about="urn:x:Health"><rdfs:label>&g;</rdfs:label></rdf:Description>
</rdf:RDF>
"""

PLAIN = """<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
         xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#">
  <rdf:Description rdf:about="urn:x:HIV"><rdfs:subClassOf rdf:resource="urn:x:Health"/></rdf:Description>
</rdf:RDF>
"""


@pytest.mark.parametrize("name, encoding", [("laughs.rdf", "utf-8"), ("laughs.owl", "utf-16"),
                                            ("laughs.txt", "utf-8")])
def test_taxonomy_refuses_a_billion_laughs_file_before_parsing(tmp_path, capsys, name, encoding):
    path = tmp_path / name
    path.write_bytes(LAUGHS.encode(encoding))
    code, out, err = run_cli(capsys, ["taxonomy", "--vocabulary", path, "--map", "Disease=urn:x:Health"])
    assert code == 2, err
    assert err.startswith(f"tklscore: error: {path}: line 2 declares a DTD or entities (<!DOCTYPE)")


def test_every_reader_refuses_a_dtd(tmp_path):
    path = tmp_path / "external.rdf"
    path.write_text(PLAIN.replace('<?xml version="1.0"?>\n', '<?xml version="1.0"?>\n'
                                  '<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'))
    for read in (load_triples, TklDataModel.load, lambda p: Vocabulary.load([p])):
        with pytest.raises(InputError, match="line 2 declares a DTD or entities"):
            read(path)


def test_rdf_xml_without_a_dtd_still_reads(tmp_path):
    path = tmp_path / "plain.rdf"
    path.write_text(PLAIN)
    assert [str(t.o) for t in load_triples(path)] == ["urn:x:Health"]


def test_an_rdf_file_is_bounded_in_size(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(rdf, "MAX_RDF_BYTES", 100)
    path = tmp_path / "big.ttl"
    path.write_text("@prefix x: <urn:x:> .\n" + "x:a x:b x:c .\n" * 20)
    with pytest.raises(InputError, match="larger than 100 bytes, the most an RDF file may be"):
        load_triples(path)
    code, _, err = run_cli(capsys, ["taxonomy", "--vocabulary", path, "--map", "Disease=urn:x:a"])
    assert code == 2 and err.startswith(f"tklscore: error: {path}: is larger than")
