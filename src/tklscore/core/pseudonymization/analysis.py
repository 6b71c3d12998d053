"""One pseudonymisation analysis (Fig. 3 workflow): thresholds chosen one way, every risk
transition's N_v, and for a chosen QI subset the removal and its utility report. Used by
the command line and the Pseudonymization view alike."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from tklscore.core.errors import InputError
from tklscore.core.files.atomic import atomic_write
from tklscore.core.pseudonymization.removal import RemovalResult, remove_violations
from tklscore.core.pseudonymization.thresholds import (
    PeoplePolicy,
    ThresholdPolicy,
    check_threshold,
    column_thresholds,
    policy_thresholds,
    uniform_thresholds,
)
from tklscore.core.pseudonymization.utility import utility_report
from tklscore.core.pseudonymization.violations import ViolationEngine
from tklscore.core.tables.loading import MISSING, Table


@dataclass
class ThresholdChoice:
    """How thresholds are set: exactly one of ``uniform``, ``column``, ``category_column``
    (with ``policy``), ``people`` (with ``policy`` and ``id_column``)."""

    uniform: float | None = None
    column: str | None = None
    category_column: str | None = None
    sensitive_flag_column: str | None = None
    people: PeoplePolicy | None = None
    id_column: str | None = None
    policy: ThresholdPolicy = field(default_factory=ThresholdPolicy)

    def thresholds(self, table: Table, sensitive: str) -> tuple[np.ndarray, list[str]]:
        chosen = [self.uniform is not None, self.column is not None, self.category_column is not None,
                  self.people is not None]
        if sum(chosen) != 1:
            raise InputError("choose one way to set thresholds: a uniform threshold, a thresholds column, "
                             "a Westin-category column with a policy table, or a policy per person",
                             hint="--threshold T | --thresholds-column COL | --policy FILE --category-column COL "
                                  "| --people FILE | --preferences FILE")
        if self.uniform is not None:
            return uniform_thresholds(table, self.uniform), []
        if self.column is not None:
            return column_thresholds(table, self.column, self.policy.clamp), []
        if self.category_column is not None:
            return policy_thresholds(table, self.policy, self.category_column, self.sensitive_flag_column)
        if not self.id_column:
            raise InputError("a policy per person needs the id column that names each record's person",
                             hint="--id-column COL")
        return self.people.thresholds(table, self.id_column, sensitive, self.policy)

    def removal_threshold(self) -> float:
        """The system default threshold Algorithm 2 estimates with: the uniform threshold,
        else the policy's default category for a normal field."""
        if self.uniform is not None:
            return check_threshold(self.uniform)
        return self.policy.threshold(self.policy.default_category, False)


@dataclass
class RemovalReport:
    removal: RemovalResult
    statistics: dict
    violations_after: int

    def to_json_dict(self) -> dict:
        return {"violations_before": self.removal.violations_before, "removed": self.removal.removed,
                "violations_after": self.violations_after,
                "removed_rows": [int(i) for i in self.removal.removed_rows], "statistics": self.statistics,
                "exact_minimum": self.removal.minimum_json()}


def remove_and_report(engine: ViolationEngine, qi_set, thresholds, *, seed: int, removal_threshold: float,
                      original_values=None, search: bool = True, progress=None) -> RemovalReport:
    """Algorithm 2 on ``qi_set`` and the utility report of the trimmed sensitive field
    against ``original_values`` (default: the analysed table's own values)."""
    removal = remove_violations(engine, qi_set, thresholds, seed=seed, removal_threshold=removal_threshold,
                                search=search, progress=progress)
    if not engine.field.numeric:
        raise InputError(f"the utility statistics need a numeric sensitive field; '{engine.sensitive}' is text",
                         column=engine.sensitive)
    values = engine.field.values
    kept = np.array(values, dtype=float)
    kept[removal.removed_rows] = np.nan
    original = values if original_values is None else original_values
    present = engine.present.copy()
    present[removal.removed_rows] = False
    after = int(engine.violations(removal.qi_set, thresholds, present).sum())
    return RemovalReport(removal, utility_report(original, kept), after)


def trimmed_frame(table: Table, sensitive: str, removed_rows):
    """The data with the removed values emptied; every other cell as it was."""
    frame = table.frame.copy()
    column = frame.columns.get_loc(sensitive)
    frame.iloc[np.asarray(removed_rows, dtype=np.int64), column] = MISSING
    return frame


def write_trimmed(table: Table, sensitive: str, removed_rows, path, inputs=(), csv_safe: bool = False) -> Path:
    """Write the trimmed data as CSV, atomically; never over an input file (``csv_safe``:
    for a spreadsheet, :func:`tklscore.core.files.records.csv_safe`)."""
    path = Path(path)
    for source in inputs:
        if source and Path(source).exists() and path.exists() and path.resolve() == Path(source).resolve():
            raise InputError("is an input file; the trimmed data is written to a new file", file=str(path),
                             hint="choose another --output")
    frame = trimmed_frame(table, sensitive, removed_rows)
    if csv_safe:
        from tklscore.core.files.records import csv_safe as spreadsheet_safe

        frame = spreadsheet_safe(frame)
    with atomic_write(path) as handle:
        frame.to_csv(handle, index=False, lineterminator="\n")
    return path


def with_real_values(original: Table, pseudonymised: Table, sensitive: str, id_column: str | None = None) -> Table:
    """The pseudonymised table with the sensitive field's *real* values from the original
    (the risk compares each record's real value with its look-alikes'): matched by
    ``id_column`` when given, else row by row (then both must have as many rows)."""
    original.require_columns([sensitive], "sensitive field")
    frame = pseudonymised.frame.copy()
    if id_column:
        original.require_columns([id_column], "id column")
        pseudonymised.require_columns([id_column], "id column")
        ids = original.frame[id_column]
        duplicated = ids.duplicated()
        if duplicated.any():
            first = int(np.flatnonzero(duplicated.to_numpy())[0])
            raise InputError(f"id '{ids.iloc[first]}' occurs twice", file=original.name,
                             row=original.row_number(first), column=id_column)
        lookup = pd.Series(original.frame[sensitive].to_numpy(), index=ids.to_numpy())
        found = frame[id_column].isin(lookup.index).to_numpy()
        if not found.all():
            first = int(np.flatnonzero(~found)[0])
            raise InputError(f"record '{frame[id_column].iloc[first]}' is not in the original data "
                             f"({int((~found).sum())} such record(s))", file=pseudonymised.name,
                             row=pseudonymised.row_number(first), column=id_column)
        frame[sensitive] = lookup.loc[frame[id_column].to_numpy()].to_numpy()
    else:
        if len(original) != len(pseudonymised):
            raise InputError(f"has {len(pseudonymised)} records but the original data has {len(original)}",
                             file=pseudonymised.name,
                             hint="choose the id column that matches records, or load the matching files")
        frame[sensitive] = original.frame[sensitive].to_numpy()
    return Table(frame, name=pseudonymised.name, kind=pseudonymised.kind)


@dataclass
class Analysis:
    """Everything the Pseudonymization view shows for one set of inputs."""

    engine: ViolationEngine
    thresholds: np.ndarray
    warnings: list[str]
    transitions: list
    reports: dict                      # qi_set → RemovalReport
    blocked: dict                      # qi_set → (bool, reason)
    original_values: np.ndarray
    lts: object = None                 # networkx graph, annotated, or None

    @property
    def maximum(self):
        return self.transitions[-1]

    @property
    def records(self) -> int:
        """The people the analysis counts: the records whose sensitive value is not empty."""
        return int(self.engine.present.sum())

    def share(self, transition) -> float | None:
        """The share of the people whose value ``transition`` reveals above their threshold
        (None without records)."""
        records = self.records
        return transition.violations / records if records else None

    def transition(self, qi_set):
        qi_set = tuple(qi_set)
        for t in self.transitions:
            if t.qi_set == qi_set:
                return t
        raise KeyError(qi_set)

    def largest_first(self) -> list:
        """The risk transitions as Fig. 6 tables them: the most QIs released first, then the
        fewest violations."""
        return sorted(self.transitions, key=lambda t: (-len(t.qi_set), t.violations))

    def blocked_reason(self, qi_set) -> str | None:
        """Why a limit refuses releasing ``qi_set``, or None when no limit does."""
        blocked, reason = self.blocked.get(tuple(qi_set), (False, ""))
        return reason if blocked else None

    def apply_rules(self, rules) -> None:
        """Judge every risk transition by the blocking ``rules`` (UC3) and mark the LTS's
        risk transitions with the verdicts."""
        from tklscore.core.pseudonymization.blocking import check_rules

        records = self.records
        for t in self.transitions:
            report = self.reports.get(t.qi_set)
            self.blocked[t.qi_set] = check_rules(list(rules), t.violations, records,
                                                 report.statistics["delta"] if report else None)
        if self.lts is not None:
            for _, _, data in self.lts.edges(data=True):
                if data["kind"] == "risk":
                    key = tuple(q for q in self.engine.qi if q in data["qi_set"])
                    data["blocked"], data["reason"] = self.blocked.get(key, (False, ""))


def analyse(original: Table, pseudonymised: Table, sensitive: str, qi: list[str], choice: ThresholdChoice, *,
            margin: float = 0.0, operator: str = "gt", seed: int = 0, id_column: str | None = None,
            model=None, rules=(), removal_limit: int = 200_000, progress=None) -> Analysis:
    """Fig. 3: thresholds, N_v of every risk transition, the removal and utility report of
    each (of the maximum only above ``removal_limit`` records), the blocking rules' verdict
    on each, and the LTS annotated with N_v and R_v."""
    from tklscore.core.pseudonymization.lts import annotate, generate_lts

    progress = progress or (lambda percent, text: None)
    table = with_real_values(original, pseudonymised, sensitive, id_column)
    engine = ViolationEngine(table, sensitive, qi, margin=margin, operator=operator)
    thresholds, warnings = choice.thresholds(table, sensitive)
    original_values = SensitiveValues.numbers(original, sensitive)
    progress(5, "violations per QI subset")
    subsets = engine.subsets()
    transitions = engine.all_transitions(
        thresholds, progress=lambda i, total: progress(5 + 45 * i // total, f"N_v {i}/{total}"), keep_risks=False)
    reports = {}
    chosen = subsets if len(table) <= removal_limit else [subsets[-1]]
    for index, qi_set in enumerate(chosen):
        progress(50 + 45 * index // len(chosen), f"removal {', '.join(qi_set)}")
        reports[qi_set] = remove_and_report(engine, qi_set, thresholds, seed=seed,
                                            removal_threshold=choice.removal_threshold(),
                                            original_values=original_values)
    graph = None
    if model is not None:
        graph = generate_lts(model)
        annotate(graph, {t.qi_set: t.violations for t in transitions}, sensitive=sensitive,
                 removed={q: r.removal.removed for q, r in reports.items()})
    analysis = Analysis(engine, thresholds, warnings, transitions, reports, {}, original_values, graph)
    analysis.apply_rules(rules)
    progress(100, "done")
    return analysis


class SensitiveValues:
    @staticmethod
    def numbers(table: Table, column: str) -> np.ndarray:
        """The column as numbers, empty cells NaN; text is an error naming the first bad cell."""
        text = table.frame[column]
        values = pd.to_numeric(text.where(text.map(lambda v: str(v).strip()) != MISSING), errors="coerce")
        bad = values.isna().to_numpy() & (text.map(lambda v: str(v).strip()) != MISSING).to_numpy()
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise InputError(f"'{text.iloc[first]}' is not a number; the utility report needs a numeric field",
                             file=table.name, row=table.row_number(first), column=column)
        return values.to_numpy(dtype=float)
