"""``tklscore model new|judge|label|check|weights`` on UCI Adult (issue 20 §2): the expert's
model built, judged and labelled from the command line gives the same weights as the core
(and, in test_gui_model_building.py, as the window), and an officer scores a release with it."""

from __future__ import annotations

import csv
import io
import json

import pytest

import adult_model
from helpers import run_cli
from tklscore.core.model.data_model import TklDataModel
from tklscore.core.model.vocabulary import Vocabulary
from tklscore.core.tables.loading import load_table


@pytest.fixture(scope="module")
def adult_path(data_dir):
    return data_dir / "adult" / "adult.csv"


def build_with_the_cli(capsys, tmp_path, adult_path):
    """new → judge every group → label every value: the expert's Adult model, from the command line."""
    model = tmp_path / "adult.ttl"
    maps = [arg for column, cls in adult_model.ALIGNMENT.items() for arg in ("--map", f"{column}={cls}")]
    labels = [arg for key, level in adult_model.LABELS.items() for arg in ("--label", f"{key}={level}")]
    code, out, err = run_cli(capsys, ["model", "new", adult_path, "--sa", ",".join(adult_model.SA),
                                      "--continuous", "age", "--bins", f"age={adult_model.AGE_EDGES}",
                                      *maps, *labels, "--output", model])
    assert code == 0, err
    for group in adult_model.JUDGEMENTS:
        matrix = tmp_path / f"{group}.csv"
        matrix.write_text(adult_model.matrix_csv(group), encoding="utf-8")
        code, out, err = run_cli(capsys, ["model", "judge", model, "--group", group, "--matrix", matrix,
                                          "--output", model])
        assert code == 0, err
        assert "acceptable" in out or "always consistent" in out
    return model, out


def test_new_model_prints_the_suggested_classes(capsys, tmp_path, adult_path):
    model = tmp_path / "m.ttl"
    code, out, err = run_cli(capsys, ["model", "new", adult_path, "--sa", "occupation,salary-class",
                                      "--continuous", "age", "--output", model])
    assert code == 0, err
    assert "occupation   → Job (pd:Job)  suggested: the column name 'occupation' reads as occupation" in out
    assert "salary-class → Salary (pd:Salary)" in out and "age          → Age (pd:Age)" in out
    assert "Bins of age: [0,28) [28,37) [37,47) [47,inf)" in out
    assert "20 value(s) carry the default label, not yet judged" in out
    assert 'tklscore model judge ' in out and '--group "Professional"' in out
    loaded = TklDataModel.load(model)
    assert loaded.suggested_alignments() == ["occupation", "salary-class", "age"] and loaded.source == "adult.csv"
    # no weights until the criteria group is judged, and the message says which
    code, out, err = run_cli(capsys, ["model", "weights", model])
    assert code == 2 and "the criteria group under Professional (Job, Salary) needs pairwise judgements" in err


def test_the_expert_builds_judges_labels_and_the_officer_scores(capsys, tmp_path, adult_path, data_dir):
    model, out = build_with_the_cli(capsys, tmp_path, adult_path)
    assert "Complete: every group is judged, every value labelled" in out
    built = TklDataModel.load(model)
    core = adult_model.build(load_table(adult_path), Vocabulary.shipped("dpv-2.3"))
    assert built.weight_triples() == core.weight_triples()
    code, out, err = run_cli(capsys, ["model", "weights", model])
    rows = list(csv.reader(io.StringIO(out)))
    assert code == 0 and rows[0] == ["attribute", "value", "weight"] and len(rows) == 1 + 14 + 2 + 41 + 3
    code, out, err = run_cli(capsys, ["model", "weights", model, "--format", "json"])
    groups = {g["group"]: g for g in json.loads(out)["groups"]}
    assert set(groups) == {"Personal Data", "Professional"} and all(g["cr"] <= 0.10 for g in groups.values())
    code, out, err = run_cli(capsys, ["model", "check", model, adult_path])
    assert code == 0 and "matches" in out and "every sensitive value has a node or a bin" in out
    # the officer scores a release of every second record with the expert's model
    rows_ = ",".join(str(i) for i in range(0, 300, 2))
    code, out, err = run_cli(capsys, ["score", adult_path, "--rows", rows_, "--qi", ",".join(adult_model.ROLES.qi),
                                      "--sa", ",".join(adult_model.SA + ("age",)), "--continuous", "age",
                                      "--model", model, "--format", "json"])
    assert code == 0, err
    scores = json.loads(out)["scores"]
    code, out_weights, _ = run_cli(capsys, ["model", "weights", model])
    weights = tmp_path / "w.csv"
    weights.write_text(out_weights, encoding="utf-8")
    code, out, err = run_cli(capsys, ["score", adult_path, "--rows", rows_, "--qi", ",".join(adult_model.ROLES.qi),
                                      "--sa", ",".join(adult_model.SA + ("age",)), "--continuous", "age",
                                      "--weights", weights, "--format", "json"])
    assert json.loads(out)["scores"] == scores
    assert scores["tkl"] > 0


def test_label_and_confirm(capsys, tmp_path, adult_path):
    model = tmp_path / "m.ttl"
    run_cli(capsys, ["model", "new", adult_path, "--sa", "salary-class", "--output", model])
    code, out, err = run_cli(capsys, ["model", "label", model, "--label", "<=50K=low", "--output", model])
    assert code == 0 and "1 value(s) carry the default label" in out
    loaded = TklDataModel.load(model)
    assert (loaded.find("V.<=50K").qualitative, loaded.find("V.<=50K").provisional) == ("low", False)
    code, out, err = run_cli(capsys, ["model", "label", model, "--confirm", "--output", model])
    assert code == 0 and "Complete" in out
    assert not TklDataModel.load(model).unjudged() and not TklDataModel.load(model).suggested_alignments()


def test_judge_template(capsys, tmp_path, adult_path):
    model = tmp_path / "m.ttl"
    run_cli(capsys, ["model", "new", adult_path, "--sa", "occupation,salary-class,native-country", "--output", model])
    code, out, err = run_cli(capsys, ["model", "judge", model, "--group", "Personal Data", "--template"])
    assert code == 0
    assert out.splitlines() == [",External,Social", "External,1,", "Social,,1"]


def test_check_lists_mismatches_and_strict_fails(capsys, tmp_path, adult_path, data_dir):
    model, _ = build_with_the_cli(capsys, tmp_path, adult_path)
    code, out, err = run_cli(capsys, ["model", "check", model, data_dir / "adult" / "adult_subset.csv"])
    assert code == 0 and "2 mismatch(es), 0 leaving sensitive values without a weight" in out
    assert "- occupation: 1 value(s) of the model do not occur in the table (harmless): 'Armed-Forces'" in out
    code, out, err = run_cli(capsys, ["model", "check", model, adult_path, "--sa", "occupation,sex", "--strict"])
    assert code == 1 and "! sex: is sensitive but the model has no attribute for it" in out
    code, out, err = run_cli(capsys, ["model", "check", model, adult_path, "--sa", "occupation,sex",
                                      "--format", "json"])
    document = json.loads(out)
    assert code == 0 and not document["matches"]
    assert {m["column"]: m["blocking"] for m in document["mismatches"]}["sex"] is True


@pytest.mark.parametrize("extra, message", [
    (["--vocabulary", "{bad}"], "bad.ttl"),
    (["--map", "occupation=pd:Astronaut"], "column 'occupation': no class pd:Astronaut"),
    (["--map", "occupation=https://example.org/Job"], "no class <https://example.org/Job> in the vocabulary"),
    (["--continuous", "age", "--bins", "age=0:30:20"], "bin edges of 'age' must increase: 30 is followed by 20"),
    (["--continuous", "age", "--bins", "occupation=0:1"], "'occupation' is not a continuous column"),
    (["--label", "occupation:Sales=secret"], "'secret' is not a label of the scale"),
    (["--vocabulary", "dpv-2.3", "--vocabulary", "thesis"], "is a shipped vocabulary; give it alone"),
])
def test_new_model_bad_input(capsys, tmp_path, adult_path, extra, message):
    bad = tmp_path / "bad.ttl"
    bad.write_text("not turtle at all {", encoding="utf-8")
    extra = [a.replace("{bad}", str(bad)) for a in extra]
    code, out, err = run_cli(capsys, ["model", "new", adult_path, "--sa", "occupation", *extra,
                                      "--output", tmp_path / "m.ttl"])
    assert code == 2 and message in err, err
    assert not (tmp_path / "m.ttl").exists()


def test_judge_bad_input_keeps_the_model(capsys, tmp_path, adult_path):
    model, _ = build_with_the_cli(capsys, tmp_path, adult_path)
    before = model.read_bytes()
    two = tmp_path / "two.csv"
    two.write_text(",External,Social\nExternal,1,3\nSocial,,1\n", encoding="utf-8")
    code, out, err = run_cli(capsys, ["model", "judge", model, "--group", "Personal Data", "--matrix", two,
                                      "--output", model])
    assert code == 2 and "two.csv: the matrix compares 2 criteria, but the criteria group under 'Personal Data' " \
                         "has 3: External, Social, Tracking" in err
    code, out, err = run_cli(capsys, ["model", "judge", model, "--group", "Job", "--matrix", two, "--output", model])
    assert code == 2 and "'Job' has one criterion below it" in err
    code, out, err = run_cli(capsys, ["model", "judge", model, "--group", "Nothing", "--matrix", two,
                                      "--output", model])
    assert code == 2 and "the model has no node 'Nothing'" in err and "Personal Data, Professional" in err
    nan = tmp_path / "nan.csv"
    nan.write_text(",External,Social,Tracking\nExternal,1,nan,2\nSocial,,1,5\nTracking,,,1\n", encoding="utf-8")
    code, out, err = run_cli(capsys, ["model", "judge", model, "--group", "Personal Data", "--matrix", nan,
                                      "--output", model])
    assert code == 2 and "nan.csv" in err
    code, out, err = run_cli(capsys, ["model", "judge", model, "--group", "Personal Data", "--matrix", two,
                                      "--output", two])
    assert code == 2
    assert model.read_bytes() == before
