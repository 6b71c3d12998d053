"""Qualitative labels: an editable ordinal scale of label → priority (data-model.md §2).

The default is the HL7 confidentiality classification as the thesis translates it:
unrestricted 0, low 0.2, moderate 0.4, normal 0.6, restricted 0.8, very restricted 1.0.
"""

from __future__ import annotations

from dataclasses import dataclass

from tklscore.core.errors import InputError


@dataclass(frozen=True)
class LabelScale:
    name: str
    labels: tuple[tuple[str, float], ...]  # in ordinal order, lowest first

    def __post_init__(self):
        seen = set()
        previous = -1.0
        for label, value in self.labels:
            if not label.strip():
                raise InputError(f"label scale '{self.name}' has an empty label")
            if label in seen:
                raise InputError(f"label scale '{self.name}' names '{label}' twice")
            if not 0.0 <= value <= 1.0:
                raise InputError(f"label '{label}' of scale '{self.name}' has priority {value:g}, outside [0, 1]")
            if value < previous:
                raise InputError(f"label scale '{self.name}' is not ordinal: '{label}' ({value:g}) "
                                 f"is below the label before it ({previous:g})")
            seen.add(label)
            previous = value
        if not self.labels:
            raise InputError(f"label scale '{self.name}' has no labels")

    def priority(self, label: str) -> float:
        for name, value in self.labels:
            if name == label:
                return value
        raise InputError(f"'{label}' is not a label of the scale '{self.name}' "
                         f"({', '.join(name for name, _ in self.labels)})")

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.labels]

    @property
    def default(self) -> str:
        """The label a new value starts with, marked "not yet judged": HL7's "normal" (the
        level HL7 gives most health information by default), else the scale's middle label."""
        names = self.names
        return "normal" if "normal" in names else names[(len(names) - 1) // 2]


HL7_CONFIDENTIALITY = LabelScale("HL7 confidentiality", (
    ("unrestricted", 0.0), ("low", 0.2), ("moderate", 0.4),
    ("normal", 0.6), ("restricted", 0.8), ("very restricted", 1.0),
))
