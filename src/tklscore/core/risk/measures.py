"""The risk lens of one table: privacy models, re-identification risk, population
uniqueness, individual risk and QI importance in one call (spec privacy-models.md §1–3).

    measures = measure_table(table, qi=[...], sa=[...], continuous=[...])
    measures.to_json_dict()          # the keys of ``tklscore measures --format json``
    measures.prosecutor_records      # per-record risk, aligned with measures.record_rows

Everything rests on one set of equivalence classes from the shared group-by engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np
import pandas as pd

from tklscore.core.errors import InputError
from tklscore.core.numbers import count, number, percent
from tklscore.core.risk.equivalence_classes import SUPPRESSION_MARKER, subset_codes
from tklscore.core.risk.population_uniqueness import PopulationUniques
from tklscore.core.risk.privacy_models import ClassSizes, PrivacyModels
from tklscore.core.risk.qi_importance import QiImportance, check_size
from tklscore.core.risk.aggregates import Aggregates, MemoryAggregates
from tklscore.core.risk.registry import MODEL_KEYS, MeasureRequest, compute
from tklscore.core.risk.reidentification import (DEFAULT_RISK_THRESHOLD, AttackerRisk, IndividualRisk,
                                                 population_class_sizes, population_class_sizes_from_codes)
from tklscore.core.tables.codes import Codes, factorize, group_ids
from tklscore.core.tables.loading import Table
from tklscore.core.tables.roles import Roles


@dataclass
class Measures:
    """The measures of one table. Per-record arrays are aligned with ``record_rows`` (the
    0-based positions of the rows measured: every row, or the unsuppressed ones)."""

    rows: int
    suppressed_rows: int
    models: PrivacyModels
    prosecutor: AttackerRisk
    sample_uniques: float
    average_rir: float
    record_rows: np.ndarray
    equivalence_class: np.ndarray
    class_size: np.ndarray
    prosecutor_records: np.ndarray
    journalist: AttackerRisk | None = None
    marketer: float | None = None
    journalist_records: np.ndarray | None = None
    population_uniques: PopulationUniques | None = None
    individual_risk: IndividualRisk | None = None
    qi_importance: list[QiImportance] | None = None
    risk_threshold: float = DEFAULT_RISK_THRESHOLD
    warnings: list[str] = field(default_factory=list)

    @property
    def classes(self) -> ClassSizes:
        return self.models.class_sizes

    def value(self, key: str):
        """The value of the registered measure ``key`` (:data:`tklscore.core.risk.registry.MEASURES`)."""
        if key == "records":
            return {"record_rows": self.record_rows, "equivalence_class": self.equivalence_class,
                    "class_size": self.class_size, "prosecutor_records": self.prosecutor_records,
                    "journalist_records": self.journalist_records}
        return getattr(self.models, key) if hasattr(self.models, key) else getattr(self, key)

    @property
    def k(self) -> int:
        return self.models.k

    def to_json_dict(self) -> dict:
        m = self.models
        return {
            "rows": self.rows,
            "suppressed_rows": self.suppressed_rows,
            "classes": m.class_sizes.to_json_dict(),
            "k": m.k,
            "alpha_k": {"alpha": m.alpha, "k": m.k},
            "l_distinct": m.l_distinct,
            "l_entropy": m.l_entropy,
            "recursive_cl": {"c": m.recursive_c, "l": m.l_distinct},
            "t": m.t,
            "t_by_attribute": dict(m.t_by_attribute),
            "beta_basic": m.beta_basic,
            "beta_enhanced": m.beta_enhanced,
            "delta": m.delta,
            "xy_anonymity": m.xy_anonymity,
            "risk": {
                "prosecutor": self.prosecutor.to_json_dict(),
                "journalist": self.journalist.to_json_dict() if self.journalist else None,
                "marketer": self.marketer,
                "sample_uniques": self.sample_uniques,
                "population_uniques": self.population_uniques.fractions() if self.population_uniques else None,
                "individual_risk": self.individual_risk.to_json_dict() if self.individual_risk else None,
            },
            "qi_importance": ([q.to_json_dict() for q in self.qi_importance]
                              if self.qi_importance is not None else None),
            "pycanon": {
                "entropy_l": m.pycanon_entropy_l,
                "recursive_cl": [m.pycanon_recursive_c, m.l_distinct] if m.l_distinct is not None else None,
                "average_rir": self.average_rir,
            },
        }


def measure(aggregates: Aggregates, request: MeasureRequest, progress=None) -> Measures:
    """Every registered measure (:mod:`.registry`) of the table the ``aggregates`` describe,
    in memory or in an engine alike; the per-record arrays where the provider has them."""
    v = compute(aggregates, request, progress=progress).values
    models = PrivacyModels(**{key: v.get(key) for key in MODEL_KEYS},
                           class_sizes=v["class_sizes"], t_by_attribute=v["t_by_attribute"] or {})
    records = v["records"] or {}
    empty = np.zeros(0, dtype=np.int64)
    return Measures(rows=aggregates.rows, suppressed_rows=aggregates.suppressed_rows, models=models,
                    prosecutor=v["prosecutor"], sample_uniques=v["sample_uniques"], average_rir=v["average_rir"],
                    record_rows=records.get("record_rows", empty),
                    equivalence_class=records.get("equivalence_class", empty),
                    class_size=records.get("class_size", empty),
                    prosecutor_records=records.get("prosecutor_records", np.zeros(0)),
                    journalist=v.get("journalist"), marketer=v.get("marketer"),
                    journalist_records=records.get("journalist_records"),
                    population_uniques=v.get("population_uniques"), individual_risk=v.get("individual_risk"),
                    qi_importance=v.get("qi_importance"), risk_threshold=request.risk_threshold)


Generalisation = Mapping[str, Mapping | Callable]


def measure_table(table: Table | pd.DataFrame, roles: Roles | None = None, *,
                  qi=(), sa=(), continuous=(), identifier_columns=(),
                  population: Table | pd.DataFrame | None = None,
                  population_generalisation: Generalisation | None = None,
                  population_sizes: np.ndarray | None = None,
                  sampling_fraction: float | None = None,
                  sample_weight: str | None = None,
                  risk_threshold: float = DEFAULT_RISK_THRESHOLD,
                  suppressed_marker: str = SUPPRESSION_MARKER,
                  exclude_suppressed: bool = False,
                  qi_importance: bool = False,
                  codes: Mapping[str, Codes] | None = None,
                  population_codes: Mapping[str, Codes] | None = None,
                  name: str | None = None,
                  progress: Callable[[float], None] | None = None) -> Measures:
    """Every privacy model and risk measure of ``table`` (a loaded :class:`Table` or a
    DataFrame, e.g. a generalised release).

    Roles come from ``roles`` or from ``qi``/``sa``/``continuous``. ``identifier_columns``
    (Y) gives (X,Y)-anonymity. ``population`` (e.g. the source table; its QI columns, by
    name) gives journalist and marketer risk; ``population_generalisation`` maps a QI to a
    dict or function applied to each distinct population value first (so a generalised
    release links against the source generalised the same way). ``sampling_fraction``
    gives population uniques; ``sample_weight`` (a numeric column) sdcMicro's individual
    risk. ``codes`` may hold factorised columns the caller already has (name → Codes over
    the table's rows; a continuous SA's uniques sorted numbers). ``population_codes`` (QI →
    Codes over the population's rows, in the code space of ``codes[QI]``: equal values,
    equal codes) stand for ``population`` and its generalisation, e.g. a designed release's
    cached generalised codes of the source. ``progress(fraction)`` is
    called between steps and may raise to stop.
    """
    table = table if isinstance(table, Table) else Table(table, name=name or "<table>")
    name = name or table.name
    if roles is not None:
        qi, sa, continuous = roles.qi, roles.sa, roles.continuous
    qi, sa, continuous, identifier_columns = list(qi), list(sa), set(continuous), list(identifier_columns)
    _check_inputs(table, qi, sa, continuous, identifier_columns, sample_weight, name, coded=codes or {})
    request = MeasureRequest.checked(risk_threshold, sampling_fraction, qi_importance)
    codes = dict(codes or {})

    def column_codes(column: str, ordered: bool = False) -> Codes:
        if column not in codes:
            codes[column] = (factorize(table.numeric(column), ordered=True) if ordered
                             else factorize(table.frame[column]))
        return codes[column]

    qi_codes = {c: column_codes(c) for c in qi}
    sa_codes = {c: column_codes(c, ordered=c in continuous) for c in sa}
    id_codes = [column_codes(c) for c in identifier_columns]
    n = len(table)
    population_of = None
    if population_sizes is not None:
        F = np.asarray(population_sizes, dtype=np.int64)
        if len(F) != n:
            raise ValueError(f"population_sizes has {len(F)} values for {n} rows")
        population_of = (lambda rows: F if rows is None else F[rows])
    elif population_codes is not None:
        missing = [c for c in qi if c not in population_codes or c not in codes]
        if missing:
            raise ValueError(f"population codes need the table's and the population's codes of {missing}")
        population_of = (lambda rows: population_class_sizes_from_codes(
            [Codes(codes[c].codes[slice(None) if rows is None else rows], codes[c].uniques) for c in qi],
            [population_codes[c] for c in qi], name))
    elif population is not None:
        population_of = (lambda rows: _population_sizes(table, np.arange(n) if rows is None else rows, qi,
                                                        population, population_generalisation))
    aggregates = MemoryAggregates(qi_codes, sa_codes, continuous, n, marker=suppressed_marker,
                                  exclude_suppressed=exclude_suppressed, identifiers=id_codes or None,
                                  population=population_of,
                                  sample_weights=_sample_weights(table, sample_weight, name) if sample_weight else None,
                                  name=name)
    if qi_importance:
        check_size(qi)
    return measure(aggregates, request, progress)


def measure_release(source: Table, roles: Roles, positions, scorer=None, **options) -> Measures:
    """The measures of a release of ``source`` given by source row ``positions``, with
    journalist and marketer risk against the whole source (the population the attacker
    links against). A :class:`~tklscore.core.scoring.scores.Scorer` of the same source and
    roles lends its factorised columns and its k-DF (the source class sizes F). ``options``
    go to :func:`measure_table`."""
    positions = np.asarray(positions, dtype=np.int64)
    codes = None
    if scorer is not None:
        codes = {c: subset_codes(v, positions) for c, v in zip(roles.qi, scorer.qi_codes)}
        codes.update({c: subset_codes(v, positions) for c, v in scorer.sa_codes.items()})
    from_source = (scorer is not None and "population" not in options and "population_codes" not in options
                   and not options.get("population_generalisation"))
    # the published rows' text, but of the columns whose codes are at hand: never read
    taken = [c for c in source.columns if not (from_source and c in codes)]
    published = Table(pd.DataFrame({c: source.text(c).iloc[positions].reset_index(drop=True) for c in taken},
                                   columns=taken, index=pd.RangeIndex(len(positions))),
                      name=source.name, kind="memory")
    if from_source:
        # the population is the source: F(r) is the source's class size of r, its k-DF
        factors = scorer.factors if scorer.factors_computed else None
        if factors is not None:
            k = factors.k
        else:
            ids, count = group_ids(scorer.qi_codes, len(source))
            k = np.bincount(ids, minlength=count)[ids]
        options["population_sizes"] = k[positions]
    else:
        options.setdefault("population", source)
    return measure_table(published, qi=roles.qi, sa=roles.sa, continuous=roles.continuous, codes=codes, **options)


def require_quasi_identifiers(qi, name: str | None) -> None:
    """The privacy models are over equivalence classes: at least one QI (every engine)."""
    if not qi:
        raise InputError("no quasi-identifier is chosen; the privacy models need at least one", file=name)


def _check_inputs(table: Table, qi, sa, continuous, identifier_columns, sample_weight, name, coded=()) -> None:
    """``coded``: the columns whose codes the caller gave (the table need not hold them)."""
    require_quasi_identifiers(qi, name)
    try:
        Roles(qi=qi, sa=sa, continuous=continuous)  # one role per column; continuous only for SAs
    except InputError as error:
        raise InputError(error.message, file=error.file or name, row=error.row, column=error.column,
                         hint=error.hint) from None
    check_identifier_columns(identifier_columns, qi, sa, name, sample_weight=sample_weight)
    table.require_columns([c for c in dict.fromkeys(qi + sa + identifier_columns
                                                    + ([sample_weight] if sample_weight else [])) if c not in coded])
    if len(table) == 0:
        raise InputError("the table has no records", file=name)


def check_identifier_columns(identifier_columns, qi, sa, name: str | None, *, id_column: str | None = None,
                             sample_weight: str | None = None) -> None:
    """A column measured has one role (every engine): Y of (X,Y)-anonymity, the identifier
    column naming the records and the sampling weights are none of the QIs and SAs."""
    for column in identifier_columns:
        if column in qi or column in sa:
            raise InputError("is named as an identifier column (Y) and as a quasi-identifier or sensitive "
                             "attribute; a column has one role", file=name, column=column)
    if id_column is not None and id_column in set(qi) | set(sa) | set(identifier_columns):
        raise InputError("is the --id-column and also a measured column; a column has one role", file=name,
                         column=id_column)
    if sample_weight is not None and sample_weight in set(qi) | set(sa):
        raise InputError("is the sample weight column and also a quasi-identifier or sensitive attribute; "
                         "a column has one role", file=name, column=sample_weight)


def _sample_weights(table: Table, column: str, name: str) -> np.ndarray:
    raw = table.frame[column]
    values = pd.to_numeric(raw, errors="coerce")
    values = np.asarray(values, dtype=np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        shown = raw.iloc[first]
        raise InputError(f"sample weight {'(empty)' if shown == '' else repr(shown)} is not a number "
                         f"({int(bad.sum())} such cell(s))", file=name, row=table.row_number(first), column=column)
    negative = values < 0
    if negative.any():
        first = int(np.flatnonzero(negative)[0])
        raise InputError(f"sample weight {values[first]:g} is negative ({int(negative.sum())} such cell(s)); "
                         f"a sampling weight is the number of population records a record stands for",
                         file=name, row=table.row_number(first), column=column)
    return values


def _population_sizes(table: Table, rows: np.ndarray, qi: list[str],
                      population: Table | pd.DataFrame, generalisation: Generalisation | None) -> np.ndarray:
    population = population if isinstance(population, Table) else Table(population, name="<population>")
    population.require_columns(qi, "quasi-identifier")
    if len(population) == 0:
        raise InputError("the population table has no records", file=population.name)
    sample_columns = [table.frame[c].to_numpy(dtype=object)[rows] for c in qi]
    population_columns = []
    for c in qi:
        values = population.frame[c]
        rule = (generalisation or {}).get(c)
        if rule is not None:
            codes, uniques = pd.factorize(values, use_na_sentinel=False)
            uniques = np.asarray(uniques, dtype=object)
            mapped = np.array([rule(v) if callable(rule) else rule.get(v, v) for v in uniques], dtype=object)
            population_columns.append(mapped[codes])
        else:
            population_columns.append(values.to_numpy(dtype=object))
    return population_class_sizes(sample_columns, population_columns, population.name)


MEANINGS = {
    "k": ("k-anonymity", "every record shares its quasi-identifier values with at least k−1 others"),
    "alpha": ("(α,k)-anonymity: α", "no sensitive value makes up more than α of any class"),
    "l_distinct": ("distinct l-diversity", "every class holds at least l different sensitive values"),
    "l_entropy": ("entropy l-diversity", "every class is as varied as l equally frequent sensitive values"),
    "recursive_c": ("recursive (c,l)-diversity: c", "in every class the commonest value is rarer than c × the "
                                                     "values beyond the l−1 commonest"),
    "t": ("t-closeness", "no class's sensitive values are distributed farther than t from the whole table's"),
    "beta_basic": ("basic β-likeness", "no sensitive value is more than β times more frequent in a class than "
                                       "in the table (relative gain)"),
    "beta_enhanced": ("enhanced β-likeness (pycanon's figure)",
                      "min(β, −ln of the rarest value's share), as pycanon computes it; not Cao and Karras' "
                      "enhanced β-likeness, a test that caps each value's gain by −ln of its own share"),
    "delta": ("δ-disclosure (values present)",
              "a class changes the odds of any value it holds by at most a factor e^δ (natural log); over the "
              "values present in each class, not Brickell and Shmatikov's δ-disclosure, for which a value "
              "missing from a class is already unbounded"),
    "xy_anonymity": ("(X,Y)-anonymity", "every class holds at least this many different persons (Y)"),
}


def describe(measures: Measures | dict) -> list[tuple[str, float | int | None, str]]:
    """The privacy models as (name, value, one-line meaning), for people; of a
    :class:`Measures` or of its JSON (``to_json_dict()``, e.g. a designed release's)."""
    j = measures.to_json_dict() if isinstance(measures, Measures) else measures
    values = {"k": j["k"], "alpha": j["alpha_k"]["alpha"], "l_distinct": j["l_distinct"],
              "l_entropy": j["l_entropy"], "recursive_c": (j.get("recursive_cl") or {}).get("c"), "t": j["t"],
              "beta_basic": j["beta_basic"], "beta_enhanced": j["beta_enhanced"], "delta": j["delta"],
              "xy_anonymity": j.get("xy_anonymity")}
    return [(MEANINGS[key][0], values[key], MEANINGS[key][1]) for key in MEANINGS]


def measure_rows(measures: Measures | dict) -> list[tuple[str, str]]:
    """Every figure of the measures as (readable name, shown value), in the order a reader
    takes them in: the classes, the privacy models (without those that are n/a), the
    attacker risks as percentages. ``tklscore release``'s text and the designed release's
    table and report section show these."""
    j = measures.to_json_dict() if isinstance(measures, Measures) else measures
    classes, risk = j.get("classes") or {}, j["risk"]
    rows = []
    if j.get("suppressed_rows"):
        rows.append(("records with every quasi-identifier suppressed (*)", count(j["suppressed_rows"])))
    if classes:
        rows += [("equivalence classes", count(classes["count"])),
                 ("records per class", f"{count(classes['min'])} to {count(classes['max'])}, mean "
                                       f"{number(classes['mean'], 3)}")]
    rows += [(name, number(value)) for name, value, _ in describe(j) if value is not None]
    prosecutor, journalist = risk["prosecutor"], risk.get("journalist")
    rows += [("prosecutor risk (highest)", percent(prosecutor["highest"])),
             ("prosecutor risk (average)", percent(prosecutor["average"])),
             (f"records at risk (prosecutor risk above {percent(j.get('risk_threshold', DEFAULT_RISK_THRESHOLD))})",
              percent(prosecutor["records_at_risk"]))]
    if journalist:
        rows += [("journalist risk (highest), against the source", percent(journalist["highest"])),
                 ("marketer risk", percent(risk.get("marketer")))]
    rows.append(("sample uniques", percent(risk.get("sample_uniques"))))
    return rows


def t_by_attribute_rows(measures: Measures) -> list[tuple[str, float, str]]:
    """t-closeness of each sensitive attribute as rows like :func:`describe`'s, when there
    are several (with one, it is the table's t)."""
    by_attribute = measures.models.t_by_attribute
    if len(by_attribute) <= 1:
        return []
    return [(f"t of {attribute}", t, "distance of the classes' distribution of this attribute from the whole "
                                     "table's") for attribute, t in by_attribute.items()]


def verdict(measures: Measures) -> str:
    """One sentence for the privacy officer: how exposed the records are."""
    p = measures.prosecutor
    parts = [f"Every record hides among at least {count(measures.k)} (k = {count(measures.k)}); an attacker who "
             f"knows a person is in the release picks the right record with probability up to "
             f"{percent(p.highest)} (on average {percent(p.average)})",
             f"{percent(p.records_at_risk)} of the records are above the {percent(measures.risk_threshold)} "
             f"risk threshold"]
    if measures.sample_uniques:
        parts.append(f"{percent(measures.sample_uniques)} are unique on their quasi-identifiers")
    if measures.journalist is not None:
        parts.append(f"linked against the source, the highest risk is {percent(measures.journalist.highest)}")
    return "; ".join(parts) + "."
