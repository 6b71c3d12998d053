"""Issue 19 §4–§6: hostile and unusual inputs end in a specific error or a correct result —
never a silent wrong result, a hang, unbounded work, an internal error or a traceback.
One test (at least) per item of the issue; the inputs are built in ``hostile.py``."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from helpers import run_cli
from hostile import THESIS_QI, THESIS_SA, close_window, fifo, mixed_encoding_csv
from tklscore.core import InputError, load_table
from tklscore.core.engines.backend import check_engine_file
from tklscore.core.files.text import InputNote, decode_lines, decode_text
from tklscore.core.tables.loading import _SAMPLE_BYTES


@pytest.fixture
def thesis(data_dir):
    return data_dir / "thesis_table_3_1.csv", data_dir / "thesis_table_4_2_weights.csv"


def score_argv(source, weights, *extra):
    return ["score", source, "--rows", "3,4", "--id-column", "id", "--qi", THESIS_QI, "--sa", THESIS_SA,
            "--continuous", "Age", "--weights", weights, "--format", "json", *extra]


def cli_error(capsys, argv, *fragments: str) -> str:
    """Exit status 2, one ``tklscore: error:`` line holding every fragment, no traceback."""
    code, out, err = run_cli(capsys, argv)
    assert code == 2, (code, out[:300], err)
    assert err.startswith("tklscore: error: "), err
    assert "Traceback" not in err and "internal error" not in err
    for fragment in fragments:
        assert fragment in err, f"{fragment!r} not in {err!r}"
    return err


def cli_json(capsys, argv) -> tuple[dict, str]:
    code, out, err = run_cli(capsys, argv)
    assert code == 0, err
    return json.loads(out), err


# --------------------------------------------------------------------------- §4 encodings

# Adult as shipped, cut after its first 3,500 lines: line LATE (0-based, "line 3001" of the file)
# starts at about 370 KB, past the 256 KB sample the loader and the engines guess the encoding
# from (each test asserts it), as line 30,001 of the whole file is, at a ninth of the reading.
LATE = 3000


def adult_lines(data_dir) -> list[str]:
    lines = (data_dir / "adult" / "adult_uci.csv").read_text(encoding="utf-8").splitlines(keepends=True)[:3500]
    assert len("".join(lines[:LATE]).encode("utf-8")) > _SAMPLE_BYTES and "United-States" in lines[LATE]
    return lines


def test_an_ascii_sample_with_a_cp1252_line_beyond_it_is_read_as_cp1252(tmp_path, data_dir):
    """Adult as shipped (ASCII) with one Windows-1252 line past the sample the encoding is
    guessed from: read as Windows-1252, as when that line is in the sample, never refused
    nor re-decoded."""
    lines = adult_lines(data_dir)
    path = tmp_path / "late.csv"
    path.write_bytes("".join(lines[:LATE]).encode("utf-8")
                     + lines[LATE].replace("United-States", "Montréal").encode("cp1252")
                     + "".join(lines[LATE + 1:]).encode("utf-8"))
    table = load_table(path)
    assert table.encoding == "cp1252" and len(table) == len(lines) - 1
    assert table.frame["native-country"].iloc[LATE - 1] == "Montréal"
    assert table.frame["native-country"].iloc[LATE - 2] == lines[LATE - 1].split(", ")[13]


def test_duckdb_names_a_line_that_is_not_utf8_beyond_the_checked_sample(tmp_path, capsys, data_dir):
    lines = adult_lines(data_dir)
    path = tmp_path / "late.csv"
    path.write_bytes(lines[0].encode("utf-8") + lines[1].replace("United-States", "Zürich").encode("utf-8")
                     + "".join(lines[2:LATE]).encode("utf-8")
                     + lines[LATE].replace("United-States", "Montréal").encode("cp1252")
                     + "".join(lines[LATE + 1:]).encode("utf-8"))
    with pytest.warns(InputNote, match=f"line {LATE + 1} is not"):
        assert load_table(path).frame["native-country"].iloc[LATE - 1] == "Montréal"
    cli_error(capsys, ["measures", path, "--qi", "age,sex,native-country", "--sa", "salary", "--engine", "duckdb"],
              f"late.csv, row {LATE + 1}: the line is not UTF-8, as the lines before it are; the duckdb engine reads "
              f"a file in one encoding", "read it in memory")


def test_a_utf8_file_with_one_cp1252_line_is_read_line_by_line(tmp_path, thesis):
    source = mixed_encoding_csv(tmp_path / "mixed.csv", thesis[0].read_text(encoding="utf-8"))
    with pytest.warns(InputNote, match=r"mixed.csv: the file is UTF-8 but line 9 is not; read as Windows-1252"):
        table = load_table(source)
    assert sorted(set(table.frame["City"])) == ["Edmonton", "Montréal"]  # never 'MontrÃ©al'
    assert table.encoding == "utf-8" and len(table.notes) == 1 and len(table) == 8


def test_a_cp1252_line_beyond_the_sample_is_read_in_its_own_encoding(tmp_path):
    path = tmp_path / "long.csv"
    rows = ["id,City"] + [f"{i},Montréal" for i in range(30_000)]
    path.write_bytes("\n".join(rows).encode("utf-8") + "\n30000,Montréal\n".encode("cp1252"))
    with pytest.warns(InputNote, match="line 30002 is not"):
        table = load_table(path)
    assert table.frame["City"].unique().tolist() == ["Montréal"] and len(table) == 30_001


def test_the_mixed_file_scores_as_its_utf8_twin(tmp_path, capsys, thesis):
    source, weights = thesis
    mixed = mixed_encoding_csv(tmp_path / "mixed.csv", source.read_text(encoding="utf-8"))
    twin = tmp_path / "twin.csv"
    twin.write_bytes(mixed.read_bytes().decode("utf-8", "replace").replace("Montr\ufffdal", "Montréal")
                     .encode("utf-8"))
    got, err = cli_json(capsys, score_argv(mixed, weights))
    assert err.startswith("tklscore: note: ") and "line 9 is not" in err
    expected, _ = cli_json(capsys, score_argv(twin, weights))
    assert got["scores"] == expected["scores"]


def test_valid_utf8_is_never_redecoded_and_a_cp1252_file_is_read_whole():
    assert decode_lines("Montréal\nZürich\n".encode("utf-8"), "x") is None
    assert decode_lines("Montréal\nZürich\n".encode("cp1252"), "x") is None
    assert decode_text("Montréal\nZürich\n".encode("cp1252"), "x") == ("Montréal\nZürich\n", "cp1252")
    # 'Ã©' written in cp1252 is valid UTF-8 ('é'): a valid line is never re-decoded
    text, lines = decode_lines("a,Ã©\n".encode("cp1252") + "b,é\n".encode("cp1252") + "c,ü\n".encode(), "x")
    assert text == "a,é\nb,é\nc,ü\n" and lines == [2]


def test_a_line_neither_encoding_reads_is_named():
    with pytest.raises(InputError, match=r"x, row 3: the line is neither UTF-8.*byte 0x81"):
        decode_lines("é\nb\n\x81\n".encode("utf-8").replace(b"\xc2\x81", b"\x81") + "é\n".encode("cp1252"), "x")


def test_small_text_files_are_read_line_by_line_too(tmp_path, capsys, thesis):
    source, _ = thesis
    weights = tmp_path / "weights.csv"
    weights.write_bytes("attribute,value,weight\nCity,Montréal,0.5\n".encode("utf-8")
                        + "City,Zürich,0.25\n".encode("cp1252"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputNote)
        from tklscore.core import load_weights

        loaded = load_weights(weights)
    assert loaded.weights_of("City", np.array(["Zürich", "Montréal"], dtype=object), False).tolist() == [0.25, 0.5]


def test_the_engines_refuse_a_mixed_file_naming_the_line(tmp_path, capsys, thesis):
    source, weights = thesis
    mixed = mixed_encoding_csv(tmp_path / "mixed.csv", source.read_text(encoding="utf-8"))
    cli_error(capsys, score_argv(mixed, weights, "--engine", "duckdb"),
              "mixed.csv, row 9: the file is UTF-8 but line 9 is not (Windows-1252); the duckdb engine reads a file "
              "in one encoding", "read it in memory")


# --------------------------------------------------------------------------- §4 duplicated columns

def _with_duplicate_job(frame: pd.DataFrame) -> pd.DataFrame:
    copy = frame.copy()
    copy.insert(2, "Job_copy", "X")
    return copy


def test_excel_refuses_a_repeated_column_name(tmp_path, capsys, thesis):
    import openpyxl

    source, weights = thesis
    path = tmp_path / "dup.xlsx"
    _with_duplicate_job(pd.read_csv(source, dtype=str)).to_excel(path, index=False)
    book = openpyxl.load_workbook(path)
    book.active.cell(1, 3).value = "Job"
    book.save(path)
    cli_error(capsys, score_argv(path, weights), "dup.xlsx, row 1: column name 'Job' appears twice in the header "
                                                 "(columns 2 and 3)")


def test_an_excel_header_is_read_as_written(tmp_path, thesis):
    source, _ = thesis
    path = tmp_path / "plain.xlsx"
    pd.read_csv(source, dtype=str).to_excel(path, index=False)
    table = load_table(path)
    assert table.columns == pd.read_csv(source, nrows=0).columns.tolist()
    assert table.frame.equals(load_table(source).frame.astype(object)) and table.row_number(0) == 2


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_a_repeated_column_name_is_refused_by_every_engine(tmp_path, capsys, thesis, engine):
    source, weights = thesis
    lines = source.read_text(encoding="utf-8").splitlines()
    csv = tmp_path / "dup.csv"
    csv.write_text("\n".join([lines[0].replace("City", "Job")] + lines[1:]) + "\n", encoding="utf-8")
    cli_error(capsys, score_argv(csv, weights, "--engine", engine),
              "dup.csv, row 1: column name 'Job' appears twice in the header (columns 2 and 3)")
    frame = pd.read_csv(source, dtype=str)
    table = pa.Table.from_arrays([pa.array(frame[c]) for c in frame.columns] + [pa.array(frame["City"])],
                                 names=list(frame.columns) + ["Job"])
    pq.write_table(table, tmp_path / "dup.parquet")
    cli_error(capsys, score_argv(tmp_path / "dup.parquet", weights, "--engine", engine),
              "dup.parquet, row 1: column name 'Job' appears twice in the header (columns 2 and 9)")


# --------------------------------------------------------------------------- §5 special files

@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_a_fifo_source_is_refused_before_it_is_opened(tmp_path, capsys, thesis, engine):
    _, weights = thesis
    with fifo(tmp_path / "source.csv") as source:
        cli_error(capsys, score_argv(source, weights, "--engine", engine),
                  "source.csv: is a named pipe (FIFO), not a regular table file; it is refused before it is opened")


def test_a_character_device_or_a_folder_is_refused(tmp_path, capsys, thesis):
    _, weights = thesis
    cli_error(capsys, score_argv("/dev/zero", weights), "/dev/zero: is a character device, not a regular table file")
    cli_error(capsys, score_argv(tmp_path, weights, "--engine", "duckdb"), "is a folder, not a table file")


@pytest.mark.parametrize("what", ["weights", "describe", "project", "ahp", "pia-rules", "vocabulary", "new-source"])
def test_every_input_refuses_a_fifo(tmp_path, capsys, thesis, what):
    source, weights = thesis
    with fifo(tmp_path / "input") as pipe:
        if what == "weights":
            cli_error(capsys, ["score", source, "--rows", "3", "--id-column", "id", "--qi", "Job", "--sa", "Disease",
                               "--weights", pipe], "is a named pipe (FIFO), not a regular weights file")
        elif what == "describe":
            from tklscore.core.engines.source import describe_source

            with pytest.raises(InputError, match="is a named pipe"):
                describe_source(pipe)
        elif what == "project":
            from tklscore.core.project import Project

            with pytest.raises(InputError, match="is a named pipe"):
                Project.load(pipe)
        elif what == "ahp":
            cli_error(capsys, ["ahp", pipe], "is a named pipe (FIFO), not a regular judgement matrix file")
        elif what == "pia-rules":
            from tklscore.core.pia.rules import load_rules

            with pytest.raises(InputError, match="is a named pipe"):
                load_rules(pipe)
        elif what == "new-source":
            from tklscore.core.source_change import table_columns

            with pytest.raises(InputError, match="is a named pipe"):
                table_columns(pipe)
        else:
            cli_error(capsys, ["taxonomy", "--vocabulary", pipe, "--map", "A=B"], "is a named pipe")


# --------------------------------------------------------------------------- §6 nested Parquet

@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_nested_parquet_columns_are_refused_by_name(tmp_path, capsys, thesis, engine):
    source, weights = thesis
    frame = pd.read_csv(source, dtype=str)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.append_column("meta", pa.array([{"a": 1, "b": "x"}] * len(frame)))
    table = table.append_column("tags", pa.array([[1, 2]] * len(frame)))
    pq.write_table(table, tmp_path / "nested.parquet")
    cli_error(capsys, score_argv(tmp_path / "nested.parquet", weights, "--engine", engine),
              "nested.parquet: columns 'meta' (struct<a: int64, b: string>), 'tags' (list<element: int64>) hold "
              "nested values", "flatten the nested column")
    cli_error(capsys, ["measures", tmp_path / "nested.parquet", "--qi", "Job", "--engine", engine],
              "columns 'meta'")


# --------------------------------------------------------------------------- §4 contradicting published values

def test_every_engine_warns_of_published_values_that_contradict_the_source(tmp_path, capsys, thesis):
    """One warning, in the same words, from memory and DuckDB (and the first 20 listed)."""
    rng = np.random.default_rng(7)
    n = 60
    source = pd.DataFrame({"id": [f"r{i}" for i in range(n)], "Job": rng.choice(["a", "b", "c"], n),
                           "Disease": rng.choice(["Flu", "HIV", "H1N1"], n), "Age": rng.integers(20, 80, n).astype(str)})
    published = source.iloc[::-1].copy()                       # published order differs from the source's
    published.loc[published.index[:25], "Disease"] = "Hypertension"
    published.loc[published.index[3], "Age"] = "41.5"
    published.loc[published.index[30], "Age"] = "not a number"
    source.to_csv(tmp_path / "source.csv", index=False)
    published.to_csv(tmp_path / "published.csv", index=False)
    weights = tmp_path / "weights.csv"
    weights.write_text("attribute,value,weight\nDisease,Flu,0.1\nDisease,HIV,0.5\nDisease,H1N1,0.2\n"
                       "Disease,Hypertension,0.2\nAge,\"[0,100]\",0.3\n", encoding="utf-8")
    said = {}
    for engine in ("memory", "duckdb"):
        code, out, err = run_cli(capsys, ["score", tmp_path / "source.csv", "--published", tmp_path / "published.csv",
                                          "--id-column", "id", "--qi", "Job", "--sa", "Disease,Age", "--continuous",
                                          "Age", "--weights", weights, "--format", "json", "--engine", engine])
        assert code == 0, err
        said[engine] = [line for line in err.splitlines() if "contradict" in line]
    assert said["memory"] == said["duckdb"] and len(said["memory"]) == 1
    warning = said["memory"][0]
    assert warning.startswith("tklscore: warning: 26 published record(s) hold sensitive values that contradict")
    assert "id 'r59' (row 2): Disease 'Hypertension' (source '" in warning
    assert "id 'r56' (row 5): Disease 'Hypertension' (source '" in warning and "Age '41.5' (source '" in warning
    assert warning.endswith("; ...")


# --------------------------------------------------------------------------- §4 tkl-Data Model files

def _thesis_model_graph():
    from rdflib import Graph

    from tklscore.core.examples import thesis_model

    graph = Graph()
    graph.parse(data=thesis_model().to_graph().serialize(format="turtle"), format="turtle")
    return graph


def _write(graph, path):
    path.write_text(graph.serialize(format="turtle"), encoding="utf-8")
    return path


def _model_cli(capsys, thesis, model, *fragments):
    source, _ = thesis
    return cli_error(capsys, ["score", source, "--rows", "3,4", "--id-column", "id", "--qi", THESIS_QI, "--sa",
                              "Disease", "--model", model], *fragments)


def test_a_model_file_with_a_second_parent_is_refused(tmp_path, capsys, thesis):
    from rdflib import RDFS, URIRef

    graph = _thesis_model_graph()
    flu = URIRef("https://tklscore.org/tables/MED#V-0.Flu")
    graph.add((flu, RDFS.subClassOf, URIRef("https://tklscore.org/tables/MED#A.Disease")))
    _model_cli(capsys, thesis, _write(graph, tmp_path / "model.ttl"),
               "model.ttl: 'V-0.Flu' has 2 parents (rdfs:subClassOf https://tklscore.org/tables/MED#A.Disease, "
               "https://tklscore.org/tables/MED#E.Viral); a node of a tkl-Data Model has one")


def test_a_model_file_with_a_subclass_cycle_is_refused(tmp_path, capsys, thesis):
    from rdflib import RDFS, URIRef

    graph = _thesis_model_graph()
    viral = URIRef("https://tklscore.org/tables/MED#E.Viral")
    parent = graph.value(viral, RDFS.subClassOf)
    graph.remove((parent, RDFS.subClassOf, None))
    graph.add((parent, RDFS.subClassOf, viral))
    _model_cli(capsys, thesis, _write(graph, tmp_path / "model.ttl"), "the rdfs:subClassOf links form a cycle")


@pytest.mark.parametrize("rating, said", [("NaN", "is not a finite number"), ("INF", "is not a finite number"),
                                          ("1e300", "is outside Saaty's scale"), ("10", "is outside Saaty's scale"),
                                          ("0.01", "is outside Saaty's scale"), ("-3", "is not positive"),
                                          ("abc", "is not a number")])
def test_a_judgement_off_the_scale_inside_a_model_file_is_refused(tmp_path, capsys, thesis, rating, said):
    from rdflib import Literal, Namespace

    tklm = Namespace("https://tklscore.org/ns/tkl-model#")
    graph = _thesis_model_graph()
    judgement = next(iter(graph.subjects(tklm.rating, None)))
    graph.set((judgement, tklm.rating, Literal(rating)))
    err = _model_cli(capsys, thesis, _write(graph, tmp_path / "model.ttl"), f"' by expert 1 {said}")
    assert "model.ttl: judgement '" in err


def test_a_pair_judged_twice_inside_a_model_file_is_refused(tmp_path, capsys, thesis):
    from rdflib import RDF, BNode, Literal, Namespace

    tklm = Namespace("https://tklscore.org/ns/tkl-model#")
    graph = _thesis_model_graph()
    judgement = next(iter(graph.subjects(RDF.type, tklm.Judgement)))
    again = BNode()
    for predicate, value in graph.predicate_objects(judgement):
        graph.add((again, predicate, value if predicate != tklm.rating else Literal(3.0)))
    a, b = graph.value(judgement, tklm.criterionA), graph.value(judgement, tklm.criterionB)
    graph.set((again, tklm.criterionA, b))
    graph.set((again, tklm.criterionB, a))
    _model_cli(capsys, thesis, _write(graph, tmp_path / "model.ttl"), "by expert 1 is judged twice")


def test_one_validation_for_every_way_a_judgement_arrives(tmp_path, capsys):
    """The AHP view's slider and the API (set_judgement), an M-Score model file and a
    matrix file all refuse what a model file refuses, in the same words."""
    from tklscore.core.examples import thesis_model
    from tklscore.core.model.mscore_model import MScoreModel, thesis_example_model

    model = thesis_model()
    parent = model.groups()[0]
    a, b = model.criteria_group(parent)[:2]
    for bad, said in ((float("nan"), "is not a finite number"), (1e300, "is outside Saaty's scale (1/9 to 9)"),
                      (0.0, "is not positive")):
        with pytest.raises(InputError, match=r"judgement '.*' of '.*' over '.*' " + said.replace("(", r"\(")
                           .replace(")", r"\)")):
            model.set_judgement(parent, a, b, bad)
        if math.isnan(bad):  # NaN in a matrix means "not judged" (set_judgements)
            continue
        group = model.criteria_group(parent)  # the expert's whole matrix (set_judgements), checked as one
        matrix = np.ones((len(group), len(group)))
        matrix[0, 1] = bad
        labels = [model.nodes[c].label for c in group]
        before = model.state()
        with pytest.raises(InputError, match=r"judgement '.*' of '.*' over '.*' " + said.replace("(", r"\(")
                           .replace(")", r"\)")):
            model.set_judgements(parent, labels, matrix)
        assert model.state() == before
    path = tmp_path / "mscore.ttl"
    thesis_example_model().save(path)
    text = path.read_text(encoding="utf-8")
    assert "rating 1.0" in text or 'rating "1.0"' in text or "rating 1 " in text or "rating 1\n" in text
    import re

    path.write_text(re.sub(r"(ms:rating )[^ ;\n]+", r'\1"NaN"^^xsd:double', text, count=1), encoding="utf-8")
    with pytest.raises(InputError, match="is not a finite number"):
        MScoreModel.load(path)
    matrix = tmp_path / "matrix.csv"
    matrix.write_text(",A,B\nA,1,1e300\nB,,1\n", encoding="utf-8")
    cli_error(capsys, ["ahp", matrix], "matrix.csv, row 2, column 'B': judgement '1e300' is outside Saaty's scale")


# --------------------------------------------------------------------------- §4 numbers and names in options

def _options():
    """Every option of every command: (command path, option string, action)."""
    import argparse

    from tklscore.cli.main import build_parser

    found = []

    def walk(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, path + [name])
            elif action.option_strings:
                found.append((" ".join(path), action.option_strings[-1], action))

    walk(build_parser(), [])
    return found


def test_no_option_takes_a_bare_float_or_int():
    """Audit: a numeric option goes through the shared argument types (NaN refused, inf only
    where it means no limit, seeds from 0), never Python's float or int."""
    bare = [(command, option) for command, option, action in _options() if action.type in (float, int)]
    assert bare == []


def test_every_numeric_option_refuses_nan():
    import argparse

    numeric = [(command, option, action) for command, option, action in _options()
               if getattr(action.type, "__module__", "") == "tklscore.cli.arguments"
               and action.type.__name__ in ("number", "number_or_inf", "whole_number", "seed")]
    assert len(numeric) >= 15
    for command, option, action in numeric:
        for text in ("nan", "NaN", "-nan"):
            with pytest.raises(argparse.ArgumentTypeError):
                action.type(text)


@pytest.mark.parametrize("option, value, said", [
    ("--threshold", "nan", "argument --threshold: 'nan' is not a number"),
    ("--threshold", "inf", "argument --threshold: 'inf' is not a finite number"),
    ("--threshold", "-0.5", "threshold -0.5 is not allowed"),
    ("--alpha", "nan", "argument --alpha: 'nan' is not a number"),
    ("--epsilon", "-inf", "argument --epsilon: '-inf' is not a finite number")])
def test_disclosure_risk_refuses_nan_thresholds(tmp_path, capsys, thesis, option, value, said):
    source, _ = thesis
    attributes = tmp_path / "attributes.csv"
    attributes.write_text("attribute,pk,weight\nJob,0.5,0.5\nCity,0.5,0.5\n", encoding="utf-8")
    for engine in ("memory", "duckdb"):
        cli_error(capsys, ["disclosure-risk", source, "--attributes", attributes, f"{option}={value}",
                           "--engine", engine], said)


def test_the_disclosure_threshold_is_checked_in_core_for_the_application(thesis):
    from tklscore.core.risk.disclosure_risk import AttributeParameters, disclosure_risk

    table = load_table(thesis[0])
    with pytest.raises(InputError, match="threshold nan is not allowed"):
        disclosure_risk(table, [AttributeParameters("Job", 0.5, 0.5)], threshold=float("nan"))


@pytest.mark.parametrize("argv", [
    ["release", "{source}", "--qi", "Job", "--sa", "Disease", "--weights", "{weights}", "--noise", "Age=5",
     "--seed", "-1", "--missing-weight-zero"],
    ["pia", "generate", "--patients", "3", "--violations", "1", "--seed", "-1", "--dir", "{tmp}"],
    ["learn", "datasets", "--seed", "-1", "--dir", "{tmp}"],
    ["pseudonymization", "remove", "{source}", "--sensitive", "Disease", "--qi", "Job", "--qi-set", "Job",
     "--threshold", "0.5", "--seed", "-7"]])
def test_negative_seeds_are_refused_clearly(tmp_path, capsys, thesis, argv):
    source, weights = thesis
    argv = [a.format(source=source, weights=weights, tmp=tmp_path / "out") for a in argv]
    cli_error(capsys, argv, "argument --seed: seed -", "is not allowed: a seed is a whole number from 0 to")


def test_negative_seeds_are_refused_by_the_library(thesis):
    from tklscore.core.learn.datasets import generate
    from tklscore.core.pia.generator import generate as generate_patients
    from tklscore.core.release.transform import ReleaseDesign

    for call in (lambda: ReleaseDesign(noise={"Age": 5}, seed=-1), lambda: generate(-3),
                 lambda: generate_patients(3, 1, seed=-1), lambda: ReleaseDesign(seed=1.5)):
        with pytest.raises(InputError, match="seed"):
            call()


@pytest.mark.parametrize("argv", [
    ["score", "{source}", "--rows", "3", "--id-column", "id", "--qi", "Job", "--sa", "Disease", "--weights",
     "{weights}", "--output", ""],
    ["report", "{source}", "--rows", "3", "--id-column", "id", "--qi", "Job", "--sa", "Disease", "--weights",
     "{weights}", "--output", " "],
    ["release", "{source}", "--qi", "Job", "--sa", "Disease", "--weights", "{weights}", "--output", ""],
    ["example", "thesis", "--dir", ""],
    ["pia", "generate", "--patients", "3", "--violations", "1", "--dir", ""]])
def test_an_empty_output_name_is_refused(tmp_path, capsys, thesis, argv, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source, weights = thesis
    argv = [a.format(source=source, weights=weights) for a in argv]
    code, out, err = run_cli(capsys, argv)
    assert code == 2 and out == "" and "an empty name; give the file or folder to write to" in err
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- §6 nested JSON, one reader

@pytest.mark.parametrize("reader", ["hierarchy", "json-ld", "data-flow", "vocabulary", "project"])
@pytest.mark.parametrize("depth", [65, 100_000])
def test_deeply_nested_json_gets_a_specific_error_from_every_reader(tmp_path, capsys, thesis, reader, depth):
    from hostile import nested_json

    source, weights = thesis
    if reader == "hierarchy":
        path = tmp_path / "age.json"
        path.write_text('{"kind": "intervals", "levels": ' + nested_json(depth) + "}", encoding="utf-8")
        cli_error(capsys, ["release", source, "--qi", "Job,Age", "--sa", "Disease", "--weights", weights,
                           "--missing-weight-zero", "--hierarchy", f"Age={path}"],
                  "age.json: is nested deeper than 64 levels of arrays and objects, more than any hierarchy "
                  "definition needs")
    elif reader in ("json-ld", "vocabulary"):
        path = tmp_path / "vocabulary.jsonld"
        path.write_text('{"@context": {}, "@graph": ' + nested_json(depth, "{}") + "}", encoding="utf-8")
        cli_error(capsys, ["taxonomy", "--vocabulary", path, "--map", "A=B"],
                  "vocabulary.jsonld: is nested deeper than 64 levels", "JSON-LD document")
    elif reader == "data-flow":
        path = tmp_path / "flows.json"
        path.write_text('{"actors": ' + nested_json(depth, '"A"') + "}", encoding="utf-8")
        cli_error(capsys, ["pseudonymization", "lts", path], "flows.json: is nested deeper than 64 levels",
                  "data-flow model")
    else:
        from tklscore.core.project import Project

        path = tmp_path / "p.tklproj"
        path.write_text('{"format": "tklscore-project", "releases": ' + nested_json(depth) + "}", encoding="utf-8")
        with pytest.raises(InputError, match="p.tklproj: is nested deeper than 64 levels .* project file"):
            Project.load(path)


def test_json_at_the_depth_limit_is_read(tmp_path):
    from hostile import nested_json
    from tklscore.core.files.json_file import MAX_JSON_DEPTH, parse_json

    assert parse_json(nested_json(MAX_JSON_DEPTH), "x") is not None
    with pytest.raises(InputError, match="nested deeper than 64"):
        parse_json(nested_json(MAX_JSON_DEPTH + 1), "x")
    with pytest.raises(InputError, match=r"x, row 2: is not a valid JSON file \(not JSON: Expecting value at line 2"):
        parse_json('{"a":\n}', "x")


# --------------------------------------------------------------------------- §6 text files through the shared reader

@pytest.mark.parametrize("encoding", ["cp1252", "utf-16"])
def test_hierarchy_files_are_read_by_the_shared_text_reader(tmp_path, encoding):
    from tklscore.core.release.hierarchy import load_arx_csv

    path = tmp_path / "city.csv"
    path.write_bytes("Montréal;Québec;*\nZürich;Schweiz;*\n".encode(encoding))
    hierarchy = load_arx_csv(path, "City")
    assert [list(r) for r in hierarchy.spec["rows"]] == [["Montréal", "Québec", "*"], ["Zürich", "Schweiz", "*"]]


def test_a_binary_hierarchy_or_policy_file_is_named(tmp_path, capsys, thesis):
    from tklscore.core.pseudonymization.thresholds import ThresholdPolicy
    from tklscore.core.release.hierarchy import load_arx_csv

    path = tmp_path / "junk.csv"
    path.write_bytes(b"a;b;*\n\x00\x01\x02\x81\n")
    with pytest.raises(InputError, match=r"junk.csv, row 2: holds binary data"):
        load_arx_csv(path, "City")
    with pytest.raises(InputError, match=r"junk.csv, row 2: holds binary data"):
        ThresholdPolicy.load(path)
    policy = tmp_path / "policy.csv"
    policy.write_bytes("category,normal,sensitive\n# Westin's categories\npragmatist,0.5,0.3\n"
                       "unconcerned,0.9,0.7\nfundamentalist,0.2,0.1\n".encode("cp1252"))
    assert ThresholdPolicy.load(policy).table["pragmatist"] == (0.5, 0.3)


# --------------------------------------------------------------------------- §5 unbounded work refused before it starts

def test_pseudonymisation_violations_over_22_qis_are_refused_with_the_count(tmp_path, capsys):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({f"q{i}": rng.integers(0, 3, 50).astype(str) for i in range(22)})
    frame["s"] = rng.integers(0, 5, 50).astype(str)
    frame.to_csv(tmp_path / "q22.csv", index=False)
    cli_error(capsys, ["pseudonymization", "violations", tmp_path / "q22.csv", "--sensitive", "s", "--qi",
                       ",".join(f"q{i}" for i in range(22)), "--threshold", "0.5"],
              "the risk transitions of 22 quasi-identifiers (one per QI subset) would evaluate 4,194,303 subsets; "
              "at most 65,535 are allowed")


def test_an_lts_of_26_quasi_identifiers_is_refused_with_the_count(tmp_path, capsys):
    from tklscore.core.files.resources import resource_path

    model = json.loads(resource_path("pseudonymization/health_research.json").read_text(encoding="utf-8"))
    fields = [f"f{i}" for i in range(26)]
    model["datastores"][0]["schema"] += [{"field": f, "personal": True} for f in fields]
    model["datastores"][1]["schema"] += [{"field": f + ".anon", "personal": True} for f in fields]
    for flow, names in zip(model["flows"], (fields, fields, [f + ".anon" for f in fields])):
        flow["fields"] += names
    (tmp_path / "lts.json").write_text(json.dumps(model), encoding="utf-8")
    cli_error(capsys, ["pseudonymization", "lts", tmp_path / "lts.json"],
              "(1 at-risk state(s), up to 28 quasi-identifiers accessed) would generate 268,435,455 risk transitions "
              "(one per QI subset); at most 65,535 are allowed")


@pytest.mark.parametrize("patients", ["1000000000", "1e9"])
def test_generating_a_billion_patients_is_refused_with_the_count(tmp_path, capsys, patients):
    cli_error(capsys, ["pia", "generate", "--patients", patients, "--violations", "1", "--dir", tmp_path / "g"],
              "the generated database would hold 1,000,000,000 patients; at most 1,000,000 are allowed")
    assert not (tmp_path / "g").exists()


def test_whole_numbers_in_exponent_notation_are_read_and_fractions_refused():
    import argparse

    from tklscore.cli.arguments import whole_number

    assert [whole_number(t) for t in ("3", " 12 ", "1e9", "2.5e3", "-4", "1E2")] == [3, 12, 10**9, 2500, -4, 100]
    for text, said in [("3.5", "not a whole number"), ("1e-3", "not a whole number"), ("inf", "not a whole number"),
                       ("x", "not a whole number"), ("1e999999999", r"too large a number \(more than 30 digits\)")]:
        with pytest.raises(argparse.ArgumentTypeError, match=said):
            whole_number(text)


def test_a_suggest_lattice_of_4_to_the_16_is_refused_with_the_count(tmp_path, capsys):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({f"q{i}": rng.integers(0, 3, 40).astype(str) for i in range(16)})
    frame["s"] = "a"
    frame.to_csv(tmp_path / "q16.csv", index=False)
    (tmp_path / "w.csv").write_text("attribute,value,weight\ns,a,0.5\n", encoding="utf-8")
    argv = ["suggest", tmp_path / "q16.csv", "--qi", ",".join(f"q{i}" for i in range(16)), "--sa", "s",
            "--weights", tmp_path / "w.csv"]
    for i in range(16):
        argv += ["--groups", f"q{i}=0,1->a;2->b|a,b->c"]  # levels 0, 1, 2 and the top: 4 each
    cli_error(capsys, argv, "the lattice of generalisation levels of 16 columns would search 4,294,967,296 nodes; "
                            "at most 1,048,576 are allowed")


def test_the_limits_share_one_pattern():
    """QI importance (memory and out of core) words its limit as the others do."""
    from tklscore.core.risk.qi_importance import qi_importance
    from tklscore.core.tables.codes import factorize

    codes = {f"q{i}": factorize(pd.Series(["a", "b"])) for i in range(17)}
    with pytest.raises(InputError, match="QI importance over 17 quasi-identifiers would evaluate 131,071 subsets; "
                                         "at most 65,535 are allowed"):
        qi_importance(codes, 2)


def _inflating_workbook(path, padding: int):
    """A valid workbook whose sheet XML carries ``padding`` spaces: it stays small in the ZIP."""
    import zipfile

    import openpyxl

    book = openpyxl.Workbook()
    book.active.append(["id", "Job"])
    book.active.append(["1", "Nurse"])
    book.save(path)
    with zipfile.ZipFile(path) as archive:
        parts = {name: archive.read(name) for name in archive.namelist()}
    sheet = "xl/worksheets/sheet1.xml"
    parts[sheet] = parts[sheet].replace(b"</worksheet>", b" " * padding + b"</worksheet>")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return path


def test_an_xlsx_that_inflates_past_the_cap_is_refused_before_parsing(tmp_path, monkeypatch):
    import tklscore.core.tables.loading as loading

    monkeypatch.setattr(loading, "MAX_WORKBOOK_BYTES", 2**20)
    small = _inflating_workbook(tmp_path / "small.xlsx", 1000)
    assert load_table(small).frame.to_dict("list") == {"id": ["1"], "Job": ["Nurse"]}
    bomb = _inflating_workbook(tmp_path / "bomb.xlsx", 3 * 2**20)
    assert bomb.stat().st_size < 100_000

    def parse(*_args, **_kwargs):
        raise AssertionError("the workbook was parsed")

    monkeypatch.setattr(loading.pd, "read_excel", parse)
    with pytest.raises(InputError, match=r"bomb.xlsx: the workbook inflates to 3.0 MiB when unpacked \(from "
                                         r"[\d.]+ KiB\); at most 1.0 MiB are read from an Excel workbook"):
        load_table(bomb)



# --------------------------------------------------------------------------- §5 linear work (benchmarks/bench_bad_input.py times it)

def test_taxonomy_extraction_visits_a_long_chain_a_bounded_number_of_times(tmp_path, monkeypatch):
    """4,000 classes in one subClassOf chain took 96 s (networkx's find_cycle restarted its
    search from every class, and validate() rebuilt the edge set per class): the graph is now
    walked a few times over, counted here by the calls that list a class's children."""
    import networkx as nx

    from hostile import subclass_chain_vocabulary
    from tklscore.core.model.taxonomy import extract_taxonomy
    from tklscore.core.model.vocabulary import Vocabulary

    depth = 3000
    vocabulary = Vocabulary.load(subclass_chain_vocabulary(tmp_path / "chain.ttl", depth))
    calls = {"successors": 0}
    original = nx.DiGraph.successors

    def counted(self, node):
        calls["successors"] += 1
        return original(self, node)

    monkeypatch.setattr(nx.DiGraph, "successors", counted)
    taxonomy = extract_taxonomy(vocabulary, ["C0"])
    assert len(taxonomy.nodes) == depth and taxonomy.root.endswith("#C2999")
    assert calls["successors"] <= 10 * depth
    lines = taxonomy.tree_lines()  # drawn without recursion, each line of bounded length
    assert len(lines) == depth and max(map(len, lines)) < 200 and lines[-1].endswith("C0")


def test_a_cycle_is_found_in_linear_time():
    import networkx as nx

    from tklscore.core.model.taxonomy import find_cycle

    chain = nx.DiGraph([(i, i + 1) for i in range(20_000)])
    assert find_cycle(chain) is None
    chain.add_edge(20_000, 15_000)
    cycle = find_cycle(chain)
    assert len(cycle) == 5001 and cycle[0] == (15_000, 15_001) and cycle[-1] == (20_000, 15_000)


def test_the_release_list_reads_only_the_rows_it_shows(qtbot, tmp_path, monkeypatch):
    """Opening 1,000 releases took 140 s: the list built an item per cell and measured every
    row on each change. The list is now a model read for the rows on screen: refreshing it
    reads a number of cells that does not grow with the releases."""
    from PySide6.QtCore import QSettings

    from tklscore.core.files.resources import resource_path
    from tklscore.gui.main_window import MainWindow
    from tklscore.gui.release.releases_panel import ReleasesModel

    import shutil

    shutil.copy(resource_path("learn/Job.csv"), tmp_path / "table.csv")
    project = {"format": "tklscore-project", "version": 1, "source": {"path": "table.csv"},
               "roles": {"qi": ["age", "gender"], "sa": [], "continuous": [], "identifier": None},
               "releases": [{"name": f"R{i}", "kind": "ids", "ids": [str(i % 20)]} for i in range(3000)],
               "current_release": "R2999", "weights": {}, "x": 1.0, "settings": {}}
    (tmp_path / "many.tklproj").write_text(json.dumps(project), encoding="utf-8")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    window = MainWindow(settings=QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    window.workbench.autosave_timer.stop()
    try:
        window.show()
        window.show_view("release")
        assert window.open_project(str(tmp_path / "many.tklproj"))
        qtbot.waitUntil(lambda: window.workbench.table is not None and not window.workbench.runner.current,
                        timeout=30000)
        import tklscore.gui.release.releases_panel as releases_panel

        panel = window.findChild(ReleasesModel).panel
        calls = {"rows": 0}
        describe = releases_panel._describe

        def counted(definition):
            calls["rows"] += 1
            return describe(definition)

        monkeypatch.setattr(releases_panel, "_describe", counted)
        window.workbench.releasesChanged.emit()
        qtbot.wait(50)
        assert panel.releases_model.rowCount() == 3000
        assert panel.releases_model.index(2999, 0).data() == "R2999"
        assert panel.releases_table.selectionModel().selectedRows()[0].row() == 2999  # the current one
        assert 0 < calls["rows"] < 1000  # the rows on screen, a few times over; never every release
    finally:
        close_window(window, qtbot)


# --------------------------------------------------------------------------- §6 a PIA rule of many body atoms

def _chain_rule(atoms: int) -> str:
    body = " ".join(f"(?x{i} <http://e/p> ?x{i + 1})" for i in range(atoms))
    return f"[long: {body} -> (?x0 <http://e/q> ?x{atoms})]"


@pytest.mark.parametrize("atoms", [20, 25, 60])
def test_a_rule_of_many_body_atoms_reasons_as_a_short_one(atoms):
    """More than 20 body atoms once made a generated join fail to compile ("too many statically
    nested blocks"); a long rule is joined by the interpreter, a short one by closures."""
    from rdflib import URIRef

    from tklscore.core.pia import Reasoner, Triple, parse_jena_rules

    facts = [Triple(URIRef(f"http://e/n{i}"), URIRef("http://e/p"), URIRef(f"http://e/n{i + 1}"))
             for i in range(atoms + 5)]
    closure = Reasoner(parse_jena_rules(_chain_rule(atoms))).materialize(facts)
    assert sorted(str(t) for t in closure.inferred()) == sorted(f"(n{i}, q, n{i + atoms})" for i in range(6))
    (justification,) = closure.justifications(Triple(URIRef("http://e/n0"), URIRef("http://e/q"),
                                                     URIRef(f"http://e/n{atoms}")))
    assert list(justification.body) == facts[:atoms]
    closure.remove([facts[3]])
    assert sorted(str(t) for t in closure.inferred()) == [f"(n{i}, q, n{i + atoms})" for i in (4, 5)]


def test_the_long_rule_through_the_command_line(tmp_path, capsys):
    rules = tmp_path / "long.rules"
    rules.write_text(_chain_rule(25).replace("http://e/q", "http://e/likelyHas") + "\n", encoding="utf-8")
    data = tmp_path / "data.ttl"
    data.write_text("\n".join(f"<http://e/n{i}> <http://e/p> <http://e/n{i + 1}> ." for i in range(26)) + "\n",
                    encoding="utf-8")
    (tmp_path / "onto.ttl").write_text("", encoding="utf-8")
    labels = tmp_path / "labels.csv"
    labels.write_text("subject,predicate,object,label\n*,<http://e/likelyHas>,*,High\n", encoding="utf-8")
    code, out, err = run_cli(capsys, ["pia", "analyze", "--ontology", tmp_path / "onto.ttl", "--data", data,
                                      "--rules", rules, "--labels", labels, "--threshold", "Medium",
                                      "--method", "efficient", "--format", "json"])
    assert code == 0, err
    assert sorted(json.loads(out)["violations"]) == [["http://e/n0", "http://e/likelyHas", "http://e/n25"],
                                                     ["http://e/n1", "http://e/likelyHas", "http://e/n26"]]


@pytest.mark.parametrize("rules_file, data_files", [("bob.rules", ["bob_data.ttl", "bob_ontology.ttl"]),
                                                    ("table_3_1.rules", ["table_3_1.ttl"])])
def test_the_interpreted_join_fires_as_the_chained_one(monkeypatch, rules_file, data_files):
    """Every rule joined by the interpreter gives the same closure, justifications and
    Delete/Rederive as by the chained closures (the property is checked on random rules too)."""
    import tklscore.core.pia.reasoner as reasoner_module
    from tklscore.core.files.resources import resource_path
    from tklscore.core.pia import Reasoner, load_rules, load_triples

    rules = load_rules(resource_path(f"pia/{rules_file}"))
    facts = [t for name in data_files for t in load_triples(resource_path(f"pia/{name}"))]
    generated = Reasoner(rules).materialize(facts)
    monkeypatch.setattr(reasoner_module, "MAX_CHAINED_ATOMS", 0)
    interpreted = Reasoner(rules).materialize(facts)
    assert interpreted.justification_map() == generated.justification_map() and len(generated.inferred())
    removed = sorted(facts, key=str)[: len(facts) // 3]
    assert interpreted.remove(removed) == generated.remove(removed)
    assert interpreted.justification_map() == generated.justification_map()


# --------------------------------------------------------------------------- §6 an empty AHP matrix

@pytest.mark.parametrize("text", [",\n", ",,,\n,,\n", " ; \n"])
def test_an_empty_judgement_matrix_file_is_named(tmp_path, capsys, text):
    path = tmp_path / "matrix.csv"
    path.write_text(text, encoding="utf-8")
    cli_error(capsys, ["ahp", path], "matrix.csv: the file holds only empty cells, no judgement matrix")


@pytest.mark.parametrize("matrix", [[], [[]], np.zeros((0, 0)), [[], []]])
def test_an_empty_judgement_matrix_is_refused_by_the_library(matrix):
    from tklscore.core.model.ahp import ahp

    with pytest.raises(InputError, match=r"the judgement matrix is empty \(no criteria\)"):
        ahp(matrix)


# --------------------------------------------------------------------------- §6 a 400-digit number with DuckDB

@pytest.mark.parametrize("engine", ["memory", "duckdb"])
@pytest.mark.parametrize("operator", [">", "<", "=="])
def test_a_400_digit_number_in_a_filter_is_named(capsys, thesis, operator, engine):
    source, weights = thesis
    number = "1" + "0" * 400
    cli_error(capsys, ["score", source, "--filter", f"Age {operator} {number}", "--id-column", "id", "--qi", THESIS_QI,
                       "--sa", THESIS_SA, "--continuous", "Age", "--weights", weights, "--engine", engine],
              "`1000", "(401 characters)` — a number too large to compare (beyond ±1.8e308)")


def test_a_400_digit_cell_in_a_continuous_column_is_named_by_every_engine(tmp_path, capsys, thesis):
    source, weights = thesis
    big = tmp_path / "big.csv"
    big.write_text(source.read_text(encoding="utf-8").replace(",27,", f",1{'0' * 400},"), encoding="utf-8")
    for engine in ("memory", "duckdb"):
        cli_error(capsys, score_argv(big, weights, "--engine", engine), "big.csv, row 2, column 'Age': continuous "
                                                                         "column holds '1000")


# --------------------------------------------------------------------------- §4 CSV bound for a spreadsheet

HOSTILE_IDS = ['=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\tTAB", "-3", "+2.5",
               "-1e5", "plain"]
SAFE_IDS = ["'=HYPERLINK(\"http://x\",\"y\")", "'+cmd|' /C calc'!A0", "'-2+3", "'@SUM(A1)", "'\tTAB", "-3", "+2.5",
            "-1e5", "plain"]


def test_csv_safe_prefixes_formulas_and_keeps_numbers():
    from tklscore.core.files.records import csv_safe, records_csv

    frame = pd.DataFrame({"id": HOSTILE_IDS + [None], "tkl": [-1.5] * 10, "n": list(range(-5, 5))})
    safe = csv_safe(frame)
    assert safe["id"].tolist() == SAFE_IDS + [None]
    assert safe["tkl"].tolist() == [-1.5] * 10 and safe["n"].tolist() == list(range(-5, 5))  # numbers stay numbers
    text = records_csv(frame, ["id", "tkl", "n"], safe=True)
    assert text.splitlines()[1] == "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",-1.5,-5"
    assert "\n-3,-1.5,0\n" in text and records_csv(frame, ["id", "tkl", "n"]).splitlines()[1].startswith('"=HYPER')


def _hostile_source(tmp_path, data_dir):
    frame = pd.read_csv(data_dir / "thesis_table_3_1.csv", dtype=str, keep_default_na=False)
    frame = pd.concat([frame, frame], ignore_index=True).iloc[:len(HOSTILE_IDS)].copy()
    frame["id"] = HOSTILE_IDS
    frame.loc[0, "Job"] = "=1+1"
    path = tmp_path / "hostile.csv"
    frame.to_csv(path, index=False)
    return path


def test_score_writes_csv_for_a_spreadsheet_with_csv_safe(tmp_path, capsys, data_dir, thesis):
    source = _hostile_source(tmp_path, data_dir)
    argv = ["score", source, "--rows=" + ",".join(["-3", "plain", "@SUM(A1)"]), "--id-column", "id", "--qi",
            THESIS_QI, "--sa", THESIS_SA, "--continuous", "Age", "--weights", thesis[1], "--format", "csv"]
    code, out, err = run_cli(capsys, argv + ["--csv-safe"])
    assert code == 0, err
    ids = [line.split(",")[0] for line in out.splitlines()[1:]]
    assert ids == ["-3", "plain", "'@SUM(A1)"]
    code, out, _ = run_cli(capsys, argv)
    assert [line.split(",")[0] for line in out.splitlines()[1:]] == ["-3", "plain", "@SUM(A1)"]  # as written
    cli_error(capsys, argv[:-2] + ["--csv-safe"], "--csv-safe applies to the records written as CSV")


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_release_writes_csv_for_a_spreadsheet_with_csv_safe(tmp_path, capsys, data_dir, thesis, engine):
    source = _hostile_source(tmp_path, data_dir)
    out = tmp_path / f"release_{engine}.csv"
    code, _, err = run_cli(capsys, ["release", source, "--qi", THESIS_QI, "--sa", "Disease", "--weights", thesis[1],
                                    "--missing-weight-zero", "--output", out, "--csv-safe", "--engine", engine])
    assert code == 0, err
    written = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert written["id"].tolist() == SAFE_IDS and written.loc[0, "Job"] == "'=1+1"
    assert written["Age"].tolist() == pd.read_csv(source, dtype=str)["Age"].tolist()


def test_the_report_csv_is_always_safe_for_a_spreadsheet(tmp_path, capsys, data_dir, thesis):
    source = _hostile_source(tmp_path, data_dir)
    out = tmp_path / "report.csv"
    code, _, err = run_cli(capsys, ["report", source, "--rows=-3,@SUM(A1)", "--id-column",
                                    "id", "--qi", THESIS_QI, "--sa", THESIS_SA, "--continuous", "Age", "--weights",
                                    thesis[1], "--output", out])
    assert code == 0, err
    written = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert written["id"].tolist() == ["-3", "'@SUM(A1)"]
    assert float(written["tkl"].iloc[0]) >= 0  # the scores are numbers, as written


def test_the_engine_check_reads_the_first_part_file_of_a_folder(tmp_path):
    """Spark reads a folder of part files: the check reads the first one (no JVM needed)."""
    from tklscore.core.engines.backend import check_engine_file

    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "_SUCCESS").write_text("", encoding="utf-8")
    (folder / "part-00000.csv").write_text("id,Job,Job\n1,a,b\n", encoding="utf-8")
    (folder / "part-00001.csv").write_text("id,Job,Job\n2,c,d\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"parts, row 1: column name 'Job' appears twice"):
        check_engine_file(str(folder), "CSV", None, None, "spark")
    check_engine_file("hdfs://cluster/data/part", "CSV", None, None, "spark")  # remote: the engine reads it


def test_spark_is_refused_a_line_that_is_not_utf8_beyond_the_checked_sample(tmp_path, data_dir):
    """Spark would decode the line with replacement characters ('Montr\ufffdal'): every line of a
    local file is checked before Spark reads it, and the line is named."""
    lines = adult_lines(data_dir)
    path = tmp_path / "late.csv"
    path.write_bytes("".join(lines[:LATE]).encode("utf-8") + lines[LATE].replace("United-States", "Montréal")
                     .encode("cp1252") + "".join(lines[LATE + 1:]).encode("utf-8"))
    with pytest.raises(InputError, match="the line is not UTF-8, as the lines before it are; the spark engine") as error:
        check_engine_file(str(path), "CSV", None, None, "spark", late_lines_checked=True)
    assert error.value.row == LATE + 1 and error.value.file == str(path)
    check_engine_file(str(path), "CSV", None, "cp1252", "spark", late_lines_checked=True)  # an encoding given: read in it
    utf8 = tmp_path / "utf8.csv"
    utf8.write_bytes("".join(lines[:LATE]).encode("utf-8") + lines[LATE].replace("United-States", "Montréal")
                     .encode("utf-8"))
    check_engine_file(str(utf8), "CSV", None, None, "spark", late_lines_checked=True)
