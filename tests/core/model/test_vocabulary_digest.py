"""The shipped vocabularies are read from their digests (resources/, written by
scripts/digest_vocabularies.py): plain data equal to what parsing their Turtle gives, so
that reading them parses no RDF; a digest whose files have changed is not used."""

from __future__ import annotations

import json

import pytest
import rdflib
from paths import RESOURCES

import tklscore.core.model.vocabulary as vocabulary
from tklscore.core.errors import InputError
from tklscore.core.model.vocabulary import SHIPPED, Vocabulary, digest_document


@pytest.fixture
def fresh():
    """The shipped vocabularies read anew in the test (and again by the tests after it)."""
    vocabulary._shipped.cache_clear()
    yield
    vocabulary._shipped.cache_clear()


@pytest.fixture
def parses(monkeypatch):
    """Every RDF parse made meanwhile (the parser still runs)."""
    made, parse = [], rdflib.Graph.parse

    def counted(self, *args, **kwargs):
        made.append(kwargs.get("publicID"))
        return parse(self, *args, **kwargs)

    monkeypatch.setattr(rdflib.Graph, "parse", counted)
    return made


@pytest.mark.parametrize("key", list(SHIPPED))
def test_each_shipped_digest_is_what_parsing_its_files_gives(key):
    shipped = SHIPPED[key]
    written = json.loads((RESOURCES / shipped.digest).read_text(encoding="utf-8"))
    assert written == digest_document(key), \
        f"{shipped.digest} is not current: run scripts/digest_vocabularies.py"
    assert set(written["files"]) == set(shipped.files) and all(len(h) == 64 for h in written["files"].values())


@pytest.mark.parametrize("key", list(SHIPPED))
def test_a_shipped_vocabulary_read_from_its_digest_equals_the_parsed_one(key, fresh, parses):
    read = Vocabulary.shipped(key)
    assert parses == []   # no RDF parsed
    shipped = SHIPPED[key]
    parsed = Vocabulary.load([RESOURCES / name for name in shipped.files], predicates=shipped.predicates)
    assert len(parses) == len(shipped.files)
    assert list(read.graph.nodes(data=True)) == list(parsed.graph.nodes(data=True))
    assert list(read.graph.edges) == list(parsed.graph.edges)
    assert all(read.children(iri) == parsed.children(iri) and read.parents(iri) == parsed.parents(iri)
               for iri in parsed.classes)
    assert read.predicates == parsed.predicates and len(read.sources) == len(parsed.sources)
    assert [p.rsplit("/", 1)[-1] for p in read.sources] == [p.rsplit("/", 1)[-1] for p in parsed.sources]
    assert read.key == key and read.prefixes == dict(shipped.prefixes) and read.default_root == shipped.default_root


def test_dpv_from_its_digest_resolves_and_labels_as_parsed(fresh, parses):
    dpv = Vocabulary.shipped("dpv-2.3")
    assert parses == [] and len(dpv) == 269 and dpv.graph.number_of_edges() == 291
    assert dpv.resolve("pd:Job") == "https://w3id.org/dpv/pd#Job"
    assert dpv.label("https://w3id.org/dpv/pd#AgeExact") == "Age Exact"
    assert dpv.parents("https://w3id.org/dpv/pd#AgeExact") == ["https://w3id.org/dpv/pd#AgeRange"]


def test_a_digest_whose_files_changed_is_not_used(fresh, parses, monkeypatch):
    real = vocabulary._file_hashes
    monkeypatch.setattr(vocabulary, "_file_hashes", lambda shipped, paths: {n: "0" * 64 for n in real(shipped, paths)})
    read = Vocabulary.shipped("thesis")
    assert len(parses) == 1 and parses[0].endswith("thesis_taxonomy.ttl")   # parsed instead
    assert len(read) == 9 and read.key == "thesis"


def test_plain_data_round_trips_and_bad_plain_data_is_said():
    thesis = Vocabulary.shipped("thesis")
    again = Vocabulary.from_plain(json.loads(json.dumps(thesis.plain())))
    assert list(again.graph.nodes(data=True)) == list(thesis.graph.nodes(data=True))
    assert list(again.graph.edges) == list(thesis.graph.edges) and again.sources == thesis.sources
    with pytest.raises(InputError, match=r"odd\.json: is not a vocabulary's plain data \(KeyError"):
        Vocabulary.from_plain({"classes": [], "labels": []}, "odd.json")
    with pytest.raises(InputError, match="unknown hierarchy predicate 'sameAs'"):
        Vocabulary.from_plain({**thesis.plain(), "predicates": ["sameAs"]})
