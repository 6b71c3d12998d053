"""One pseudonymisation analysis (Fig. 3 workflow): thresholds chosen one way, every risk
transition's N_v, and for a chosen QI subset the removal and its utility report. Used by
the command line and the Pseudonymization view alike."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

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
                "removed_rows": [int(i) for i in self.removal.removed_rows], "statistics": self.statistics}


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


def write_trimmed(table: Table, sensitive: str, removed_rows, path, inputs=()) -> Path:
    """Write the trimmed data as CSV, atomically; never over an input file."""
    path = Path(path)
    for source in inputs:
        if source and Path(source).exists() and path.exists() and path.resolve() == Path(source).resolve():
            raise InputError("is an input file; the trimmed data is written to a new file", file=str(path),
                             hint="choose another --output")
    frame = trimmed_frame(table, sensitive, removed_rows)
    with atomic_write(path) as handle:
        frame.to_csv(handle, index=False, lineterminator="\n")
    return path
