"""Real data: the UCI Adult table (30,162 records, ';'-separated) scored whole and as a
seeded 10 % sample, through the library and the CLI, with the distinguishing factors
cross-checked against a direct pandas computation."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tklscore.cli import main
from tklscore.core import Roles, Scorer, load_table, load_weights, locate_by_ids, locate_table

QI = ["sex", "age", "race", "marital-status", "education", "native-country"]
SA = ["occupation", "salary-class"]
N_SOURCE = 30162
SEED = 20240611

OCCUPATIONS = ["Adm-clerical", "Armed-Forces", "Craft-repair", "Exec-managerial", "Farming-fishing",
               "Handlers-cleaners", "Machine-op-inspct", "Other-service", "Priv-house-serv",
               "Prof-specialty", "Protective-serv", "Sales", "Tech-support", "Transport-moving"]
# occupation weights 0.04 .. 0.56 and salary-class 0.1 / 0.4: W(r) ≤ 0.96 for every record
WEIGHTS = {("occupation", v): round(0.04 * (i + 1), 2) for i, v in enumerate(OCCUPATIONS)}
WEIGHTS.update({("salary-class", "<=50K"): 0.1, ("salary-class", ">50K"): 0.4})


def cli_json(argv) -> tuple[dict, str]:
    """Run the CLI (module-scoped fixtures cannot use capsys); its JSON and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    assert code == 0, err.getvalue()
    return json.loads(out.getvalue()), err.getvalue()


@pytest.fixture(scope="module")
def adult_path(data_dir) -> Path:
    return data_dir / "adult" / "adult.csv"


@pytest.fixture(scope="module")
def adult(adult_path):
    return load_table(adult_path)


@pytest.fixture(scope="module")
def frame(adult) -> pd.DataFrame:
    return adult.frame


@pytest.fixture(scope="module")
def weights_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("adult") / "weights.csv"
    lines = ["attribute,value,weight"] + [f"{a},{v},{w}" for (a, v), w in WEIGHTS.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def scorer(adult) -> Scorer:
    return Scorer(adult, Roles(qi=QI, sa=SA))


@pytest.fixture(scope="module")
def sample() -> np.ndarray:
    """A seeded 10 % sample of source row positions, in drawn (not sorted) order."""
    return np.random.default_rng(SEED).choice(N_SOURCE, size=N_SOURCE // 10, replace=False)


@pytest.fixture(scope="module")
def sample_csv(tmp_path_factory, frame, sample) -> Path:
    path = tmp_path_factory.mktemp("adult_sample") / "published.csv"
    frame.iloc[sample].to_csv(path, sep=";", index=False)
    return path


def base_argv(adult_path, weights_path) -> list:
    return ["--qi", ",".join(QI), "--sa", ",".join(SA), "--weights", weights_path, "--format", "json"]


@pytest.fixture(scope="module")
def whole_json(adult_path, weights_path):
    rows = ",".join(map(str, range(N_SOURCE)))
    return cli_json(["score", adult_path, "--rows", rows, *base_argv(adult_path, weights_path)])


@pytest.fixture(scope="module")
def sample_json(adult_path, weights_path, sample):
    rows = ",".join(map(str, sample))
    return cli_json(["score", adult_path, "--rows", rows, *base_argv(adult_path, weights_path)])


@pytest.fixture(scope="module")
def sample_file_json(adult_path, weights_path, sample_csv):
    return cli_json(["score", adult_path, "--published", sample_csv, *base_argv(adult_path, weights_path)])


# --------------------------------------------------------------------------- the data and the weights

def test_weights_cover_every_sensitive_value(frame, weights_path):
    assert sorted(frame["occupation"].unique()) == OCCUPATIONS
    assert sorted(frame["salary-class"].unique()) == ["<=50K", ">50K"]
    weights = load_weights(weights_path)
    assert {(e.attribute, e.value): e.weight for e in weights.entries} == WEIGHTS
    assert max(WEIGHTS[("occupation", v)] for v in OCCUPATIONS) + 0.4 <= 1.0


# --------------------------------------------------------------------------- the whole table

def test_whole_table(whole_json):
    report, err = whole_json
    assert err == ""  # no empty cells, every value weighted, W ≤ 1: nothing to warn about
    assert report["source_rows"] == N_SOURCE and report["published_rows"] == N_SOURCE
    assert report["x"] == 1.0
    for name, value in report["normalized"]["source"].items():
        assert value == pytest.approx(1.0, abs=1e-12), name
    scores = report["scores"]
    assert scores["tkl"] > 0 and scores["l_severity"] > 0
    assert scores["m_score"] == pytest.approx(N_SOURCE * scores["m_score_inf"], rel=1e-12)
    bymax = report["normalized"]["theoretical_max"]
    assert bymax["tkl"] == pytest.approx(scores["tkl"] / (2 * N_SOURCE), rel=1e-12)
    assert bymax["l_severity"] == pytest.approx(scores["l_severity"] / N_SOURCE, rel=1e-12)
    assert all(0 <= v <= 1 for v in bymax.values())


def test_whole_table_published_as_a_file(adult_path, weights_path, whole_json):
    # the source itself as the published file: every row matched as a multiset, same scores
    report, err = cli_json(["score", adult_path, "--published", adult_path, *base_argv(adult_path, weights_path)])
    assert err == ""
    whole, _ = whole_json
    assert report["scores"] == pytest.approx(whole["scores"], rel=1e-12)
    for kind in ("source", "theoretical_max"):
        assert report["normalized"][kind] == pytest.approx(whole["normalized"][kind], rel=1e-12)


def test_whole_table_library_equals_cli(scorer, weights_path, whole_json):
    report = scorer.score(np.arange(N_SOURCE), load_weights(weights_path))
    assert json.loads(json.dumps(report.to_json_dict())) == whole_json[0]
    assert report.warnings == []


# --------------------------------------------------------------------------- the 10 % sample

def test_sample(sample_json, whole_json, sample):
    report, err = sample_json
    assert err == ""
    assert report["source_rows"] == N_SOURCE
    assert report["published_rows"] == len(sample) == 3016
    assert [r["id"] for r in report["records"]] == [str(p) for p in sample]  # published order kept
    norm = report["normalized"]["source"]
    assert all(0.0 <= v <= 1.0 for v in norm.values()), norm
    assert norm["tkl"] < 1 and norm["l_severity"] < 1 and norm["m_score"] < 1
    # a 10 % sample holds roughly 10 % of the summed scores
    assert 0.05 < norm["tkl"] < 0.15 and 0.05 < norm["l_severity"] < 0.15
    whole = whole_json[0]["scores"]
    for name in ("tkl", "tkl_max", "m_score", "m_score_inf", "l_severity"):
        assert norm[name] == pytest.approx(report["scores"][name] / whole[name], rel=1e-12)
    assert all(0 <= v <= 1 for v in report["normalized"]["theoretical_max"].values())


def test_sample_library_equals_cli(adult, scorer, weights_path, sample, sample_json):
    release = locate_by_ids(adult, [str(p) for p in sample])
    report = scorer.score(release, load_weights(weights_path))
    assert json.loads(json.dumps(report.to_json_dict())) == sample_json[0]


def test_sample_as_published_file_matched_as_multiset(adult, frame, sample_csv, sample, sample_json,
                                                      sample_file_json):
    by_file, err = sample_file_json
    assert err == ""
    by_rows, _ = sample_json
    assert by_file["published_rows"] == by_rows["published_rows"]
    assert by_file["scores"] == pytest.approx(by_rows["scores"], rel=1e-12)
    for kind in ("source", "theoretical_max"):
        assert by_file["normalized"][kind] == pytest.approx(by_rows["normalized"][kind], rel=1e-12)
    # identical rows (Adult has duplicates) may be matched to another copy: same factors, W and scores
    strip = [{k: v for k, v in r.items() if k != "id"} for r in by_file["records"]]
    assert strip == [{k: v for k, v in r.items() if k != "id"} for r in by_rows["records"]]
    release = locate_table(adult, load_table(sample_csv))
    positions = release.positions
    assert release.unlocated == [] and len(set(positions.tolist())) == len(sample)
    assert [r["id"] for r in by_file["records"]] == [str(p) for p in positions]
    assert (frame.iloc[positions].to_numpy() == frame.iloc[sample].to_numpy()).all()


@pytest.mark.parametrize("which", ["whole", "sample"])
def test_record_invariants(which, whole_json, sample_json):
    records = pd.DataFrame((whole_json if which == "whole" else sample_json)[0]["records"])
    k, l, t, w = records["k"], records["l"], records["t"], records["weight_sum"]
    assert (l >= 1).all() and (l <= k).all()
    assert (l <= len(OCCUPATIONS)).all()
    assert ((t >= 0) & (t <= 1)).all()
    assert ((w > 0) & (w <= 0.96 + 1e-12)).all()
    assert np.allclose(records["tkl"], (t + w) / l, rtol=1e-12, atol=0)
    assert np.allclose(records["m_score"], np.minimum(1, w) / k, rtol=1e-12, atol=0)
    assert np.allclose(records["l_severity"], w / k, rtol=1e-12, atol=0)


def test_k_counts_the_equivalence_class(frame, whole_json):
    records = pd.DataFrame(whole_json[0]["records"])
    sizes = frame.groupby(QI, sort=False)[QI[0]].transform("size").to_numpy()
    assert (records["k"].to_numpy() == sizes).all()
    # the records of one class share k and t (l is multi-attribute: it may differ within a class)
    classes = frame.groupby(QI, sort=False).ngroup().to_numpy()
    for column in ("k", "t"):
        assert (records.groupby(classes)[column].nunique() == 1).all()
    assert (records.groupby(classes)["l"].nunique() > 1).any()


# --------------------------------------------------------------------------- direct computations

def direct_k_l(frame: pd.DataFrame, position: int) -> tuple[int, int]:
    row = frame.iloc[position]
    in_class = (frame[QI] == row[QI]).all(axis=1)
    k = int(in_class.sum())
    l_values = []
    for target in SA:
        others = QI + [c for c in SA if c != target]
        group = frame[(frame[others] == row[others]).all(axis=1)]
        l_values.append(group[target].nunique())
    return k, min(l_values)


def direct_t(frame: pd.DataFrame, position: int) -> float:
    row = frame.iloc[position]
    members = frame[(frame[QI] == row[QI]).all(axis=1)]
    distances = []
    for column in SA:
        p = members[column].value_counts(normalize=True)
        q = frame[column].value_counts(normalize=True)
        p = p.reindex(q.index, fill_value=0.0)
        distances.append(0.5 * float((p - q).abs().sum()))
    return max(distances)


@pytest.fixture(scope="module")
def chosen(whole_json, sample) -> list[int]:
    """A handful of records: from the sample, plus the largest class and a class of size 1,
    one with l = 2 and one of the record with the largest t."""
    records = pd.DataFrame(whole_json[0]["records"])
    picks = [int(p) for p in sample[:4]]
    picks.append(int(records["k"].idxmax()))
    picks.append(int(records.index[records["k"] == 1][0]))
    picks.append(int(records.index[records["l"] == records["l"].max()][0]))
    picks.append(int(records["t"].idxmax()))
    picks.append(int(records.index[(records["k"] > 20) & (records["l"] == 1)][0]))
    return list(dict.fromkeys(picks))


def test_k_and_l_against_pandas(frame, whole_json, chosen):
    records = whole_json[0]["records"]
    seen_l = set()
    for position in chosen:
        k, l = direct_k_l(frame, position)
        assert (records[position]["k"], records[position]["l"]) == (k, l), position
        seen_l.add(l)
    assert len(seen_l) > 1  # the handful exercises more than one l


def test_t_against_the_variational_distance(frame, whole_json, chosen):
    records = whole_json[0]["records"]
    for position in chosen[:3] + chosen[-3:]:
        assert records[position]["t"] == pytest.approx(direct_t(frame, position), abs=1e-12), position


def test_weight_sum_and_record_scores_against_direct(frame, whole_json, chosen):
    records = whole_json[0]["records"]
    for position in chosen:
        row = frame.iloc[position]
        w = WEIGHTS[("occupation", row["occupation"])] + WEIGHTS[("salary-class", row["salary-class"])]
        k, l = direct_k_l(frame, position)
        t = direct_t(frame, position)
        record = records[position]
        assert record["weight_sum"] == pytest.approx(w, abs=1e-12)
        assert record["tkl"] == pytest.approx((t + w) / l, abs=1e-12)
        assert record["l_severity"] == pytest.approx(w / k, abs=1e-12)
        assert record["m_score"] == pytest.approx(min(1.0, w) / k, abs=1e-12)
