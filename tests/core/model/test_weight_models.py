"""The three weight models are reachable from files, the CLI and the scoring core
(spec data-model.md §5: shared weights, or each score's own)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from helpers import run_cli
from tklscore.core.errors import InputError
from tklscore.core.examples import thesis_example, thesis_model
from tklscore.core.model.lseverity_model import thesis_lseverity_model
from tklscore.core.model.mscore_model import MScoreModel, thesis_example_model
from tklscore.core.model.weight_models import (LSEVERITY_MODEL, MSCORE_MODEL, TKL_DATA_MODEL, load_weight_model,
                                               load_weights_or_model)
from tklscore.core.scoring.scores import Scorer
from tklscore.core.scoring.weights import Weights, WeightsPerScore, load_weights


def test_mscore_model_turtle_round_trip_keeps_judgements_and_priorities(tmp_path):
    model = thesis_example_model()
    path = model.save(tmp_path / "m.ttl")
    again = MScoreModel.load(path)
    assert again.attributes == ["Medication", "Age"] and again.values("Age") == ["[0,30)", "[30,inf)"]
    assert dict(((a, v), w) for a, v, w in again.weights())[("Medication", "Statin")] == pytest.approx(0.1, abs=1e-15)
    assert again.results[None].cr == 0.0  # judged, not merely given priorities
    direct = MScoreModel({"A": ["x", "y", "z"], "B": ["1"]}, name="direct")
    direct.set_priorities({"A": 0.75, "B": 0.25})
    direct.set_value_judgements("A", {("x", "y"): 3, ("x", "z"): 5, ("y", "z"): 2})
    again = MScoreModel.load(direct.save(tmp_path / "d.ttl"))
    assert again.attribute_priorities() == {"A": 0.75, "B": 0.25}
    np.testing.assert_allclose([w for *_, w in again.weights()], [w for *_, w in direct.weights()], rtol=1e-12)
    assert again.results["A"].cr == pytest.approx(direct.results["A"].cr, abs=1e-12)


def test_each_file_kind_is_recognised(tmp_path):
    thesis_model().save(tmp_path / "tkl.ttl")
    thesis_example_model().save(tmp_path / "m.ttl")
    thesis_lseverity_model().save(tmp_path / "l.ttl")
    kinds = {name: load_weight_model(tmp_path / name) for name in ("tkl.ttl", "m.ttl", "l.ttl")}
    assert [k.kind for k in kinds.values()] == [TKL_DATA_MODEL, MSCORE_MODEL, LSEVERITY_MODEL]
    l_weights = {(a, v): w for a, v, w in kinds["l.ttl"].weight_triples()}
    assert l_weights[("Medication", "Paracetamol")] == pytest.approx(0.14)
    assert kinds["tkl.ttl"].to_weights().fingerprint == thesis_model().to_weights().fingerprint
    (tmp_path / "none.ttl").write_text("<urn:a> <urn:b> <urn:c> .\n")
    with pytest.raises(InputError, match="none.ttl: holds no weight model; a model file holds exactly one of"):
        load_weight_model(tmp_path / "none.ttl")


def test_cli_model_weights_reads_lseverity_and_mscore_models(tmp_path, capsys, data_dir):
    code, _, err = run_cli(capsys, ["example", "thesis", "--dir", tmp_path])
    assert code == 0, err
    code, out, err = run_cli(capsys, ["model", "weights", tmp_path / "lseverity_model.ttl"])
    assert code == 0, err
    (tmp_path / "l.csv").write_text(out)
    table_3_7 = {(e.attribute, e.value): e.weight
                 for e in load_weights(data_dir / "thesis_table_3_7_lseverity_weights.csv").entries}
    assert {(e.attribute, e.value): e.weight for e in load_weights(tmp_path / "l.csv").entries} == \
        pytest.approx(table_3_7, abs=1e-12)
    code, out, err = run_cli(capsys, ["model", "weights", tmp_path / "mscore_model.ttl", "--format", "json"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["model"] == "M-Score model"
    statin = next(w["weight"] for w in doc["weights"] if w["value"] == "Statin")
    assert round(statin, 12) == 0.1
    assert [g["group"] for g in doc["groups"]] == ["attributes", "Medication", "Age"]


def test_scoring_with_each_scores_own_weights(tmp_path):
    example = thesis_example()
    scorer = Scorer(example.source, example.roles)
    tkl_weights = thesis_model().to_weights()
    l_weights = thesis_lseverity_model().to_weights()
    m_weights = Weights([(a, v, w) for a, v, w in thesis_example_model().weights()]
                        + [("Disease", v, 0.0) for v in ("Flu", "H1N1", "Hypertension", "HIV")]
                        + [("Initial Diagnosis", v, 0.0) for v in ("Flu", "Migraine", "HIV", "Hypertension")])
    ids = [3, 4, 5, 6]
    own = scorer.score_with_own_weights(ids, WeightsPerScore(tkl_weights, m_weights, l_weights))
    by_tkl, by_m, by_l = (scorer.score(ids, w) for w in (tkl_weights, m_weights, l_weights))
    assert (own.scores.tkl, own.scores.tkl_max) == (by_tkl.scores.tkl, by_tkl.scores.tkl_max)
    assert (own.scores.m_score, own.scores.m_score_inf) == (by_m.scores.m_score, by_m.scores.m_score_inf)
    assert own.scores.l_severity == by_l.scores.l_severity
    assert own.normalized_source.l_severity == by_l.normalized_source.l_severity
    assert own.records["l_severity"].tolist() == by_l.records["l_severity"].tolist()
    assert own.records["weight_sum"].tolist() == by_tkl.records["weight_sum"].tolist()
    # Table 3.7 by hand for record 3 (HIV, ARV, 49, HIV; k = 2): W = 1 + 1 + 0.1 + 0.4
    assert own.records["l_severity"].iloc[0] == pytest.approx(2.5 / 2)
    # M: record 4 (Statin, 70): W = 0.1 + 0.25 = 0.35, k = 2
    assert own.records["m_score"].iloc[1] == pytest.approx(0.35 / 2)
    assert round(own.scores.tkl, 5) == 4.92534  # the model's weights, not Table 4.2's 4.98258
    shared = scorer.score_with_own_weights(ids, WeightsPerScore.shared(tkl_weights))
    assert shared.scores == by_tkl.scores


def test_weights_or_model_reads_either(tmp_path):
    thesis_lseverity_model().save(tmp_path / "l.ttl")
    (tmp_path / "w.csv").write_text("attribute,value,weight\nDisease,Flu,0.5\n")
    assert load_weights_or_model(tmp_path / "w.csv").entries[0].weight == 0.5
    assert load_weights_or_model(tmp_path / "l.ttl").fingerprint == thesis_lseverity_model().to_weights(
        str(tmp_path / "l.ttl")).fingerprint


@pytest.mark.parametrize("apart", [True, False])
def test_score_models_read_apart_or_here_give_the_weights_read_here(tmp_path, apart):
    from tklscore.core.model.weight_models import load_score_models

    m_file, l_file = thesis_example_model().save(tmp_path / "m.ttl"), thesis_lseverity_model().save(tmp_path / "l.ttl")
    m, l = load_score_models([l_file, m_file], apart=apart)
    assert m.fingerprint == load_weight_model(m_file).to_weights().fingerprint and m.name == str(m_file)
    assert l.fingerprint == load_weight_model(l_file).to_weights().fingerprint and l.name == str(l_file)
    thesis_model().save(tmp_path / "tkl.ttl")
    with pytest.raises(InputError, match=r"^choose one M-Score model and one L-Severity model \(tkl.ttl holds a "
                                         r"tkl-Data Model; m.ttl holds an M-Score model\)$"):
        load_score_models([tmp_path / "tkl.ttl", m_file], apart=apart)


def test_score_models_go_apart_by_their_size(tmp_path, monkeypatch):
    from tklscore.core import apart
    from tklscore.core.model import weight_models

    m_file, l_file = thesis_example_model().save(tmp_path / "m.ttl"), thesis_lseverity_model().save(tmp_path / "l.ttl")
    went = []
    monkeypatch.setattr(apart, "run_apart", lambda function, *args, **_: went.append(function) or function(*args))
    here = weight_models.load_score_models([l_file, m_file])
    assert went == []
    monkeypatch.setattr(apart, "APART_BYTES", 100)
    assert [w.fingerprint for w in weight_models.load_score_models([l_file, m_file])] == [w.fingerprint for w in here]
    assert went == [weight_models.read_score_models]
    with pytest.raises(InputError, match="model file not found"):   # said before any process starts
        weight_models.load_score_models([l_file, tmp_path / "missing.ttl"], apart=True)
    assert went == [weight_models.read_score_models]
