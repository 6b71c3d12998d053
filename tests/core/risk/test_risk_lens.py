"""The risk lens of a release (core.risk.lens): what the Risk view and the report draw —
ARX's risk bands, D(r)'s log-scale histogram, the riskiest records, per-record columns."""

from __future__ import annotations

import numpy as np
import pandas as pd

from tklscore.core.risk.disclosure_risk import AttributeParameters
from tklscore.core.risk.lens import RISK_BANDS, default_parameters, disclosure_histogram, risk_band_labels, \
    risk_band_shares, risk_lens
from tklscore.core.tables.loading import Table
from tklscore.core.tables.roles import Roles


def test_risk_bands_as_arx_groups_them():
    # 1/1 = 100 %, 1/2 = 50 % (upper bound of ]33.4, 50]), 1/4 = 25 %, 1/1000 = 0.1 % (first band)
    shares = risk_band_shares(np.array([1.0, 0.5, 0.25, 0.25, 0.001]))
    assert len(shares) == len(RISK_BANDS) - 1 == len(risk_band_labels())
    labels = risk_band_labels()
    assert dict(zip(labels, shares))["50–100"] == 0.2
    assert dict(zip(labels, shares))["33.4–50"] == 0.2
    assert dict(zip(labels, shares))["20–25"] == 0.4
    assert dict(zip(labels, shares))["≤0.1"] == 0.2
    assert shares.sum() == 1.0


def test_disclosure_histogram_spans_the_threshold_and_counts_zero_apart():
    h = disclosure_histogram(np.array([0.0, 0.5, 0.05, 0.5]), threshold=0.001, bins=10)
    assert h.zero == 1 and h.counts.sum() == 3
    assert np.isclose(h.edges[0], -3.0) and np.isclose(h.edges[-1], np.log10(0.5))
    assert disclosure_histogram(np.zeros(3), 0.01).counts.sum() == 0


def _source() -> Table:
    frame = pd.DataFrame({"id": [f"r{i}" for i in range(8)],
                          "zip": ["1", "1", "1", "2", "2", "3", "3", "3"],
                          "sex": ["F", "F", "M", "M", "M", "F", "F", "F"],
                          "disease": ["a", "b", "a", "c", "c", "a", "b", "b"]})
    return Table(frame, name="source")


def test_riskiest_records_and_per_record_columns_follow_the_published_order():
    source = _source()
    roles = Roles(qi=["zip", "sex"], sa=["disease"], identifier="id")
    positions = [7, 0, 2, 3, 4]            # published: r7, r0, r2, r3, r4
    lens = risk_lens(source, roles, positions, ids=source.frame["id"].to_numpy()[positions], release="P")
    # classes in the release: {r7}, {r0}, {r2}, {r3, r4}; in the source r7's class has 3 rows, r0's 2
    per_record = lens.per_record()
    assert per_record["prosecutor_risk"].tolist() == [1.0, 1.0, 1.0, 0.5, 0.5]
    assert per_record["journalist_risk"].tolist() == [1 / 3, 0.5, 1.0, 0.5, 0.5]
    riskiest = lens.riskiest(3)
    assert set(riskiest["record"]) == {"r7", "r0", "r2"}
    assert riskiest["D(r)"].is_monotonic_decreasing
    assert (riskiest["class size"] == 1).all()
    assert [p.attribute for p in lens.parameters] == ["zip", "sex", "disease"]
    assert lens.measures.qi_importance is not None and len(lens.measures.qi_importance) == 3
    shares = lens.risk_distribution()
    assert shares["prosecutor"][-1] == 0.6 and shares["journalist"][-1] == 0.2


def test_given_measures_are_reused_and_completed_with_qi_importance():
    from tklscore.core.risk.measures import measure_release

    source = _source()
    roles = Roles(qi=["zip", "sex"], sa=["disease"])
    measured = measure_release(source, roles, [0, 1, 2, 3])
    params = [AttributeParameters("zip", 1.0, 0.0), AttributeParameters("disease", 0.0, 1.0)]
    lens = risk_lens(source, roles, [0, 1, 2, 3], measures=measured, parameters=params)
    assert lens.measures.models is measured.models and measured.qi_importance is None
    assert [q.attributes for q in lens.measures.qi_importance] == [("zip",), ("sex",), ("zip", "sex")]
    assert lens.disclosure.known_sets == [(), ("zip",)]


def test_default_parameters_keep_the_publisher_s_choices():
    roles = Roles(qi=["zip"], sa=["disease"])
    assert [(p.attribute, p.pk, p.weight) for p in default_parameters(roles, {"disease": (0.3, 0.7)})] == \
        [("zip", 0.5, 0.0), ("disease", 0.3, 0.7)]


def test_a_scorer_s_k_is_the_population_class_size_of_the_journalist():
    from tklscore.core.risk.measures import measure_release
    from tklscore.core.scoring.scores import Scorer

    source = _source()
    roles = Roles(qi=["zip", "sex"], sa=["disease"])
    positions = np.array([7, 0, 2, 3, 4])
    linked = measure_release(source, roles, positions).to_json_dict()  # linked against the source's values
    scorer = Scorer(source, roles)
    assert not scorer.factors_computed
    assert measure_release(source, roles, positions, scorer).to_json_dict() == linked  # group ids of the codes
    scorer.compute_factors()
    assert measure_release(source, roles, positions, scorer).to_json_dict() == linked  # its k-DF
    assert linked["risk"]["journalist"]["highest"] == 1.0 and linked["risk"]["marketer"] == (1 / 3 + 1 / 2 + 1 + 2 / 2) / 5



def test_qi_importance_of_no_records_in_scope_is_unknown_not_a_crash():
    """Measures whose records in scope are none (every published record suppressed or out of
    scope) gave the Risk view a ZeroDivisionError: distinction is unknown (n/a), separation 0."""
    from tklscore.core.numbers import number
    from tklscore.core.risk.qi_importance import qi_importance
    from tklscore.core.tables.codes import factorize

    empty = pd.Series([], dtype=object)
    importance = qi_importance({"zip": factorize(empty), "sex": factorize(empty)}, 0)
    assert [q.attributes for q in importance] == [("zip",), ("sex",), ("zip", "sex")]
    assert all(np.isnan(q.distinction) and q.separation == 0.0 for q in importance)
    assert number(importance[0].distinction) == "n/a"
