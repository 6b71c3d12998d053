"""Disruption: choosing the alterations that keep violations from being released.

``DisruptionResult`` is what both disruption methods return: the exhaustive search
(dissertation Alg 4/7/8, :func:`exhaustive_disruption`) and the efficient one (Ch. 5,
:mod:`tklscore.core.pia.efficient`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tklscore.core.pia.facts import Triple
from tklscore.core.pia.solutions import Solution


@dataclass
class DisruptionResult:
    method: str                       # "exhaustive" | "efficient"
    solution: Solution | None         # None when no valid solution exists (or none was needed)
    valid: bool                       # the solution leaves no violation
    cost: float                       # the solution's cost (0.5 / 0.75 / 1.0 per alteration)
    impact: float | None              # efficient method: Impact (Ch. 5/6); None for exhaustive
    evaluated: int                    # solutions (exhaustive) or covers (efficient) evaluated
    authorised: list[Triple] = field(default_factory=list)  # the data set to release
    timings_ms: dict[str, float] = field(default_factory=dict)
