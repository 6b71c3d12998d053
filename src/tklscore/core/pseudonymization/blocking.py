"""Blocking rules (disclosure-risk.md A6, UC3):
``IF violations > L [AND|OR delta(stat) > M] THEN block``.

L is a count or a percentage of the records with a value (``50%``); ``delta(stat)`` is
the size of the change of a utility statistic when the violations are removed,
``|trimmed − original|`` (a loss of utility in either direction). A transition — a release
of the data to an actor, one QI subset — that a rule matches is refused, with the rule as
the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tklscore.core.errors import InputError
from tklscore.core.pseudonymization.utility import STATISTICS

_RULE = re.compile(
    r"^\s*(?:if\s+)?violations\s*>\s*(?P<limit>\d+(?:\.\d+)?)\s*(?P<percent>%)?"
    r"(?:\s+(?P<connector>and|or)\s+(?:delta|δ)\s*\(\s*(?P<stat>\w+)\s*\)\s*>\s*(?P<delta>\d+(?:\.\d+)?))?"
    r"\s*(?:then\s+block)?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class BlockingRule:
    limit: float
    relative: bool = False
    connector: str | None = None     # "and" | "or" | None
    statistic: str | None = None
    delta_limit: float | None = None

    def __post_init__(self):
        if self.limit < 0 or (self.relative and self.limit > 100):
            raise InputError(f"violation limit {self.limit:g}{'%' if self.relative else ''} is out of range")
        if self.connector is not None:
            if self.connector not in ("and", "or"):
                raise InputError(f"connector '{self.connector}' is not AND or OR")
            if self.statistic not in STATISTICS:
                raise InputError(f"statistic '{self.statistic}' is not one of {', '.join(STATISTICS)}")
            if self.delta_limit is None or self.delta_limit < 0:
                raise InputError("a utility limit must be a number ≥ 0")

    @classmethod
    def parse(cls, text: str) -> "BlockingRule":
        match = _RULE.match(text or "")
        if not match:
            raise InputError(f"blocking rule '{text}' is not understood",
                             hint="write e.g. 'IF violations > 50% AND delta(std) > 0.5 THEN block' or "
                                  f"'violations > 10'; statistics: {', '.join(STATISTICS)}")
        connector = match["connector"].lower() if match["connector"] else None
        return cls(float(match["limit"]), bool(match["percent"]), connector,
                   match["stat"].lower() if match["stat"] else None,
                   float(match["delta"]) if match["delta"] else None)

    def __str__(self) -> str:
        text = f"IF violations > {self.limit:g}{'%' if self.relative else ''}"
        if self.connector:
            text += f" {self.connector.upper()} delta({self.statistic}) > {self.delta_limit:g}"
        return text + " THEN block"

    def evaluate(self, violations: int, records: int, delta: dict | None = None) -> tuple[bool, str]:
        """(blocked, reason). ``records``: how many records have a value (for a % limit);
        ``delta``: the utility report's δ (None when no removal was computed)."""
        share = 100.0 * violations / records if records else 0.0
        count_hit = share > self.limit if self.relative else violations > self.limit
        shown = f"{violations} violations ({share:.0f}% of {records})"
        count_reason = f"{shown} > {self.limit:g}{'%' if self.relative else ''}"
        if self.connector is None:
            return count_hit, (count_reason if count_hit else "")
        value = None if delta is None else delta.get(self.statistic)
        delta_hit = value is not None and abs(value) > self.delta_limit
        delta_reason = (f"|δ {self.statistic}| = {abs(value):.4g} > {self.delta_limit:g}"
                        if value is not None else f"δ {self.statistic} unknown")
        hit = (count_hit and delta_hit) if self.connector == "and" else (count_hit or delta_hit)
        if not hit:
            return False, ""
        parts = [p for p, h in ((count_reason, count_hit), (delta_reason, delta_hit)) if h]
        return True, f" {self.connector.upper()} ".join(parts)

    def to_dict(self) -> dict:
        return {"rule": str(self)}

    @classmethod
    def from_dict(cls, data: dict) -> "BlockingRule":
        return cls.parse(data.get("rule", ""))


def check_rules(rules: list[BlockingRule], violations: int, records: int,
                delta: dict | None = None) -> tuple[bool, str]:
    """Blocked by any rule? The reason names the rule and what it found."""
    for rule in rules:
        blocked, reason = rule.evaluate(violations, records, delta)
        if blocked:
            return True, f"{rule}: {reason}"
    return False, ""
