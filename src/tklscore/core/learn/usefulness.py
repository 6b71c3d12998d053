"""How useful the student's table still is (what the prototype left as future work, §0.6).

The release designer's utility (``core/release/utility.py``, ARX's names) of the student's
release next to that of the original table, each with one line in plain words. The
generalisations of Learn mode are one-level hierarchies (a value → its interval or its
group → ``*``), so a generalised column stands at level 1 of height 2.
"""

from __future__ import annotations

from dataclasses import dataclass

from tklscore.core.release.designer import release_utility
from tklscore.core.release.transform import ReleaseDesign, transform
from tklscore.core.release.utility import Utility

# key → (name on screen, what it means for a student, whether more is better)
MEANINGS = {
    "precision": ("Precision",
                  "How much detail the QID columns keep: 1 = every value as it was, 0 = every value "
                  "replaced by * (fully generalised or left out).", True),
    "discernibility": ("Discernibility",
                       "How hard rows are to tell apart: the sum of each group's size squared, a left-out "
                       "row counting as the whole table. Lower keeps more detail.", False),
    "average_class_size": ("Average group size ÷ k",
                           "Rows per QID group on average, divided by the smallest group. 1 = groups are "
                           "no larger than k needs; more = more generalised than needed.", False),
    "non_uniform_entropy": ("Information lost (bits)",
                            "How many bits of the original QID values an analyst can no longer read, "
                            "summed over the rows. 0 = nothing lost.", False),
    "suppressed_share": ("Rows left out",
                         "The share of rows not published (suppressed).", False),
}


@dataclass(frozen=True)
class UsefulnessRow:
    key: str
    name: str
    original: float
    current: float
    meaning: str
    higher_is_better: bool


@dataclass(frozen=True)
class Usefulness:
    original: Utility
    current: Utility

    @property
    def rows(self) -> list[UsefulnessRow]:
        before, after = self.original.as_dict(), self.current.as_dict()
        return [UsefulnessRow(key, name, before[key], after[key], meaning, better)
                for key, (name, meaning, better) in MEANINGS.items()]


def usefulness(applied) -> Usefulness:
    """The utility of ``applied`` (a :class:`~tklscore.core.learn.tasks.Applied`) and of the
    original table with the same QID columns published as they are."""
    t = applied.transformed
    original = transform(t.source, t.roles, ReleaseDesign(name="original"), applied.levels.hierarchies,
                         applied.levels)
    return Usefulness(release_utility(applied.levels, original), release_utility(applied.levels, t))
