"""Every oracle of shared/spec/scoring.md, through the library and through the CLI."""

import json
import math

import numpy as np
import pytest

from tklscore.cli import main
from tklscore.core import Roles, Scorer, load_table, load_weights, locate_by_ids, locate_table
from tklscore.core.examples import thesis_example, write_thesis_example

QI = ["Job", "City", "Gender"]
SA = ["Disease", "Medication", "Age", "Initial Diagnosis"]
ROLES = Roles(qi=QI, sa=SA, continuous=["Age"], identifier="id")

# Table 5.3c: id -> (tkl, M, L, t-DF, k-DF, l-DF, W)
TABLE_5_3 = {
    "0": (1.44178, 0.58464, 0.58464, 0.85714, 1, 1, 0.58464),
    "1": (1.29893, 0.29232, 0.29232, 0.71429, 2, 1, 0.58464),
    "2": (1.03973, 0.16272, 0.16272, 0.71429, 2, 1, 0.32544),
    "3": (1.54949, 0.41760, 0.41760, 0.71429, 2, 1, 0.83520),
    "4": (1.35365, 0.31968, 0.31968, 0.71429, 2, 1, 0.63936),
    "5": (1.03973, 0.16272, 0.16272, 0.71429, 2, 1, 0.32544),
    "6": (1.03973, 0.16272, 0.16272, 0.71429, 2, 1, 0.32544),
}
# score -> (Scenario 1 raw, Scenario 1 normalised by source, Scenario 2 raw)
SCENARIOS = {
    "tkl": (4.98258, 0.5686, 8.76302),
    "tkl_max": (1.54949, 1.0000, 1.54949),
    "m_score": (1.67040, 0.4082, 4.09248),
    "m_score_inf": (0.41760, 0.7143, 0.58464),
    "l_severity": (1.06272, 0.5055, 2.10240),
}
# row -> (tkl, M, L, t, k, l, norm tkl, norm M, norm L), each row published alone
TABLE_5_1 = {
    0: (0.27736, 0.02736, 0.02736, 0.50000, 2, 2, 0.1642, 0.0417, 0.0769),
    1: (0.27736, 0.02736, 0.02736, 0.50000, 2, 2, 0.1642, 0.0417, 0.0769),
    2: (0.35944, 0.10944, 0.10944, 0.50000, 2, 2, 0.2128, 0.1667, 0.3077),
    3: (0.30472, 0.05472, 0.05472, 0.50000, 2, 2, 0.1804, 0.0833, 0.1538),
    4: (0.27611, 0.10944, 0.10944, 0.33333, 2, 2, 0.1635, 0.1667, 0.3077),
    5: (0.19403, 0.02736, 0.02736, 0.33333, 2, 2, 0.1149, 0.0417, 0.0769),
}
TABLE_5_2 = {
    0: (0.19277, 0.10944, 0.10944, 0.16667, 2, 2, 0.1126, 0.1667, 0.2222),
    2: (0.19277, 0.10944, 0.10944, 0.16667, 2, 2, 0.1126, 0.1667, 0.2222),
    1: (0.11069, 0.02736, 0.02736, 0.16667, 2, 2, 0.0647, 0.0417, 0.0556),
    3: (0.11069, 0.02736, 0.02736, 0.16667, 2, 2, 0.0647, 0.0417, 0.0556),
    4: (0.55221, 0.10944, 0.10944, 0.33333, 2, 1, 0.3227, 0.1667, 0.2222),
    5: (0.55221, 0.10944, 0.10944, 0.33333, 2, 1, 0.3227, 0.1667, 0.2222),
}


@pytest.fixture(scope="module")
def thesis(data_dir):
    source = load_table(data_dir / "thesis_table_3_1.csv")
    return source, Scorer(source, ROLES), load_weights(data_dir / "thesis_table_4_2_weights.csv")


def test_table_5_3_per_record(thesis):
    source, scorer, weights = thesis
    report = scorer.score(locate_by_ids(source, list(TABLE_5_3), "id"), weights)
    for record in report.records.itertuples(index=False):
        tkl, m, l_sev, t, k, l, w = TABLE_5_3[record.id]
        assert (record.k, record.l) == (k, l)
        for value, printed, name in [(record.tkl, tkl, "tkl"), (record.m_score, m, "M"),
                                     (record.l_severity, l_sev, "L"), (record.t, t, "t"),
                                     (record.weight_sum, w, "W")]:
            assert round(value, 5) == pytest.approx(printed, abs=1e-9), f"record {record.id} {name}"


@pytest.mark.parametrize("score", list(SCENARIOS))
def test_scenarios_raw_and_normalised(thesis, data_dir, score):
    source, scorer, weights = thesis
    s1_raw, s1_norm, s2_raw = SCENARIOS[score]
    published = load_table(data_dir / "thesis_table_3_6_published.csv")
    s1 = scorer.score(locate_table(source, published, "id"), weights)
    s2 = scorer.score(np.arange(len(source)), weights)
    assert round(s1.scores.as_dict()[score], 5) == pytest.approx(s1_raw, abs=1e-9)
    assert round(s1.normalized_source.as_dict()[score], 4) == pytest.approx(s1_norm, abs=1e-9)
    assert round(s2.scores.as_dict()[score], 5) == pytest.approx(s2_raw, abs=1e-9)
    assert s2.normalized_source.as_dict()[score] == pytest.approx(1.0, abs=1e-12)


def test_scenario_1_located_without_id_column_matches(thesis, data_dir):
    """Table 3.6 matched on all its columns as a multiset gives the same release."""
    source, scorer, weights = thesis
    published = load_table(data_dir / "thesis_table_3_6_published.csv")
    release = locate_table(source, published, None, ROLES.continuous)
    assert release.positions.tolist() == [3, 4, 5, 6] and not release.unlocated
    assert scorer.score(release, weights).scores.tkl == pytest.approx(4.98258, abs=5e-6)


@pytest.mark.parametrize("table,oracle", [("thesis_table_5_1a.csv", TABLE_5_1),
                                          ("thesis_table_5_2a.csv", TABLE_5_2)])
def test_tables_5_1_and_5_2_each_row_alone(data_dir, table, oracle):
    source = load_table(data_dir / table)
    scorer = Scorer(source, Roles(qi=QI, sa=["Initial Diagnosis"], identifier="id"))
    weights = load_weights(data_dir / "thesis_table_4_2_weights.csv")
    for row, (tkl, m, l_sev, t, k, l, n_tkl, n_m, n_l) in oracle.items():
        report = scorer.score([row], weights)
        record = report.records.iloc[0]
        assert (record.k, record.l) == (k, l), f"row {row}"
        assert round(record.t, 5) == pytest.approx(t, abs=1e-9)
        assert round(report.scores.tkl, 5) == pytest.approx(tkl, abs=1e-9)
        assert round(report.scores.m_score, 5) == pytest.approx(m, abs=1e-9)
        assert round(report.scores.l_severity, 5) == pytest.approx(l_sev, abs=1e-9)
        norm = report.normalized_source
        assert [round(norm.tkl, 4), round(norm.m_score, 4), round(norm.l_severity, 4)] == \
            pytest.approx([n_tkl, n_m, n_l], abs=1e-9), f"row {row}"


def test_t_closeness_per_class(thesis):
    _, scorer, _ = thesis
    factors = scorer.factors
    class_of = {i: factors.equivalence_class[i] for i in range(7)}
    disease = factors.class_t["Disease"]
    expected = {0: 0.7143, 1: 0.2857, 3: 0.7143, 5: 0.5714}  # classes {0}, {1,2}, {3,4}, {5,6}
    for row, value in expected.items():
        assert round(disease[class_of[row]], 4) == value
    assert class_of[1] == class_of[2] and class_of[3] == class_of[4] and class_of[5] == class_of[6]
    medication = factors.class_t["Medication"]
    assert round(medication.max(), 4) == 0.8571 and round(medication[class_of[0]], 4) == 0.8571


def test_age_emd_follows_equation_3_1_erratum_3(thesis):
    _, scorer, _ = thesis
    age = scorer.factors.class_t["Age"]
    row_class = scorer.factors.equivalence_class
    assert age[row_class[0]] == pytest.approx(2 / 7, abs=1e-12)
    assert round(age.max(), 4) == 0.4143 and round(age[row_class[1]], 4) == 0.4143


@pytest.mark.parametrize("x,s1,s2", [(1, 2.0, 7.0), (10, 0.574, None), (math.inf, 0.5, 1.0)])
def test_m_score_with_table_3_7_weights(thesis, data_dir, x, s1, s2):
    source, scorer, _ = thesis
    weights = load_weights(data_dir / "thesis_table_3_7_lseverity_weights.csv")
    scenario_1 = scorer.score(locate_by_ids(source, ["3", "4", "5", "6"], "id"), weights, x)
    assert round(scenario_1.scores.m_score, 3) == pytest.approx(s1, abs=1e-9)
    if s2 is not None:
        assert scorer.score(np.arange(7), weights, x).scores.m_score == pytest.approx(s2, abs=1e-12)


def test_l_severity_erratum_4(thesis, data_dir):
    source, scorer, _ = thesis
    weights = load_weights(data_dir / "thesis_table_3_7_lseverity_weights.csv")
    scenario_1 = scorer.score(locate_by_ids(source, ["3", "4", "5", "6"], "id"), weights)
    assert scenario_1.scores.l_severity == pytest.approx(2.84, abs=1e-12)
    assert scorer.score(np.arange(7), weights).scores.l_severity == pytest.approx(4.89, abs=1e-12)
    # M caps W(r) at 1 while L uses it as it is; record 3 has W = 2.5 under Table 3.7
    assert any("sum above 1" in w for w in scenario_1.warnings)


def test_built_in_example_is_the_thesis_data(tmp_path, data_dir):
    write_thesis_example(tmp_path)
    pairs = [("table_3_1.csv", "thesis_table_3_1.csv"), ("table_3_6.csv", "thesis_table_3_6_published.csv"),
             ("weights_table_4_2.csv", "thesis_table_4_2_weights.csv")]
    for ours, theirs in pairs:
        a, b = load_table(tmp_path / ours).frame, load_table(data_dir / theirs).frame
        assert a.equals(b), ours
    example = thesis_example()
    report = Scorer(example.source, example.roles).score(
        locate_by_ids(example.source, example.published_ids, "id"), example.weights)
    assert round(report.scores.tkl, 5) == 4.98258


# ---------------------------------------------------------------- through the CLI

def cli_json(capsys, *argv):
    assert main(list(argv)) == 0
    out = capsys.readouterr().out
    return json.loads(out)


def thesis_args(data_dir, *extra, weights="thesis_table_4_2_weights.csv", fmt="json"):
    return [str(data_dir / "thesis_table_3_1.csv"), "--id-column", "id", "--qi", "Job,City,Gender",
            "--sa", "Disease,Medication,Age,Initial Diagnosis", "--continuous", "Age",
            "--weights", str(data_dir / weights), "--format", fmt, *extra]


def test_cli_scenario_1_and_table_5_3(capsys, data_dir):
    result = cli_json(capsys, "score", *thesis_args(
        data_dir, "--published", str(data_dir / "thesis_table_3_6_published.csv")))
    assert result["source_rows"] == 7 and result["published_rows"] == 4 and result["x"] == 1.0
    for score, (raw, norm, _) in SCENARIOS.items():
        assert round(result["scores"][score], 5) == pytest.approx(raw, abs=1e-9)
        assert round(result["normalized"]["source"][score], 4) == pytest.approx(norm, abs=1e-9)
    assert [r["id"] for r in result["records"]] == ["3", "4", "5", "6"]
    for record in result["records"]:
        tkl, m, l_sev, t, k, l, w = TABLE_5_3[record["id"]]
        assert (record["k"], record["l"]) == (k, l)
        assert [round(record[key], 5) for key in ("tkl", "m_score", "l_severity", "t", "weight_sum")] == \
            pytest.approx([tkl, m, l_sev, t, w], abs=1e-9)
    maximum = result["normalized"]["theoretical_max"]
    assert maximum["tkl"] == pytest.approx(result["scores"]["tkl"] / 8)
    assert maximum["tkl_max"] == pytest.approx(result["scores"]["tkl_max"] / 2)
    assert maximum["m_score"] == pytest.approx(result["scores"]["m_score"] / 4)
    assert maximum["m_score_inf"] == pytest.approx(result["scores"]["m_score_inf"])
    assert maximum["l_severity"] == pytest.approx(result["scores"]["l_severity"] / 4)


def test_cli_scenario_2_rows_and_x_inf(capsys, data_dir):
    result = cli_json(capsys, "score", *thesis_args(data_dir, "--rows", "0,1,2,3,4,5,6", "--x", "inf"))
    assert result["x"] == "inf"
    for score, (_, _, raw) in SCENARIOS.items():
        if score != "m_score":
            assert round(result["scores"][score], 5) == pytest.approx(raw, abs=1e-9)
        assert result["normalized"]["source"][score] == pytest.approx(1.0, abs=1e-12)
    assert result["scores"]["m_score"] == result["scores"]["m_score_inf"]


@pytest.mark.parametrize("x,s1", [("1", 2.0), ("10", 0.574), ("inf", 0.5)])
def test_cli_m_score_and_l_severity_table_3_7(capsys, data_dir, x, s1):
    result = cli_json(capsys, "score", *thesis_args(data_dir, "--rows", "3,4,5,6", "--x", x,
                                                    weights="thesis_table_3_7_lseverity_weights.csv"))
    assert round(result["scores"]["m_score"], 3) == pytest.approx(s1, abs=1e-9)
    assert result["scores"]["l_severity"] == pytest.approx(2.84, abs=1e-12)


@pytest.mark.parametrize("table,oracle", [("thesis_table_5_1a.csv", TABLE_5_1),
                                          ("thesis_table_5_2a.csv", TABLE_5_2)])
def test_cli_tables_5_1_and_5_2(capsys, data_dir, table, oracle):
    for row, (tkl, m, l_sev, t, k, l, n_tkl, n_m, n_l) in oracle.items():
        result = cli_json(capsys, "score", str(data_dir / table), "--id-column", "id", "--rows", str(row),
                          "--qi", "Job, City, Gender", "--sa", "Initial Diagnosis",
                          "--weights", str(data_dir / "thesis_table_4_2_weights.csv"), "--format", "json")
        record = result["records"][0]
        assert (record["k"], record["l"], round(record["t"], 5)) == (k, l, pytest.approx(t, abs=1e-9))
        assert [round(result["scores"][s], 5) for s in ("tkl", "m_score", "l_severity")] == \
            pytest.approx([tkl, m, l_sev], abs=1e-9)
        assert [round(result["normalized"]["source"][s], 4) for s in ("tkl", "m_score", "l_severity")] == \
            pytest.approx([n_tkl, n_m, n_l], abs=1e-9)


def test_cli_example_writes_files_and_demo_prints_scores(tmp_path, capsys):
    assert main(["example", "thesis", "--dir", str(tmp_path / "ex")]) == 0
    assert sorted(p.name for p in (tmp_path / "ex").iterdir()) == \
        ["lseverity_model.ttl", "model.ttl", "mscore_model.ttl", "table_3_1.csv", "table_3_6.csv",
         "weights_table_4_2.csv"]
    capsys.readouterr()
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "4.98258" in out and "8.76302" in out and "0.5686" in out


def test_cli_csv_and_table_formats_and_output_file(tmp_path, capsys, data_dir):
    out_file = tmp_path / "records.csv"
    assert main(["score", *thesis_args(data_dir, "--rows", "3,4,5,6", "--output", str(out_file), fmt="csv")]) == 0
    assert capsys.readouterr().out == ""
    records = load_table(out_file).frame
    assert list(records.columns) == ["id", "k", "l", "t", "weight_sum", "tkl", "m_score", "l_severity"]
    assert records["id"].tolist() == ["3", "4", "5", "6"]
    assert [round(float(v), 5) for v in records["tkl"]] == [1.54949, 1.35365, 1.03973, 1.03973]
    assert main(["score", *thesis_args(data_dir, "--rows", "3,4,5,6", fmt="table")]) == 0
    text = capsys.readouterr().out
    assert "tkl-Score" in text and "4.98258" in text and "0.5686" in text
