"""The patients' preferences (the patient view's saved file, core/pia/preferences.py)
become policy rows (:class:`~tklscore.core.pseudonymization.thresholds.PeoplePolicy`):

* the **person** is the subject of the preference's fact (its local name, e.g. ``Bob``
  for ``<http://example.org/pia#Bob>``), matched against the data's id column;
* a **field** is the fact's predicate (its local name, compared case-insensitively with
  the data's column names); a field with any fact marked **3 "Must Not Be Released"**
  counts as *sensitive* for that person;
* the person's **overall level** is the mean of all their preference values, mapped to a
  Westin category: mean < 1 → unconcerned, 1 ≤ mean < 2 → pragmatist, mean ≥ 2 →
  fundamentalist.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from tklscore.core.pia.facts import local_name
from tklscore.core.pia.preferences import load_preferences
from tklscore.core.pseudonymization.thresholds import PeoplePolicy

VERY_PRIVATE = 3
MAPPING = ("Patients' preferences → policy: a field with any fact the patient marked 3 \"Must Not Be Released\" "
           "counts as sensitive for them; their mean preference level gives the Westin category "
           "(below 1 unconcerned, 1 to below 2 pragmatist, 2 or more fundamentalist).")


def westin_category(mean_level: float) -> str:
    """The mapping stated in the module doc."""
    if mean_level < 1:
        return "unconcerned"
    return "pragmatist" if mean_level < 2 else "fundamentalist"


def people_from_preferences(preferences: Mapping, source: str = "patients' preferences") -> PeoplePolicy:
    levels = defaultdict(list)
    sensitive = defaultdict(set)
    for triple, value in preferences.items():
        person = str(local_name(triple[0]))
        levels[person].append(int(value))
        if int(value) == VERY_PRIVATE:
            sensitive[person].add(str(local_name(triple[1])).lower())
    categories = {p: westin_category(sum(v) / len(v)) for p, v in levels.items()}
    return PeoplePolicy(categories, {p: frozenset(sensitive[p]) for p in levels}, source)


def load_people_from_preferences(path) -> PeoplePolicy:
    """The policy rows of a preferences file as the patient view saves it."""
    return people_from_preferences(load_preferences(path), str(path))
