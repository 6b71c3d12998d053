"""Suggested vocabulary classes for the sensitive columns of a table (issue 20: "suggest a
class per sensitive column from its name and values", data-model.md §1 alignment).

A suggestion is only a suggestion: the expert confirms it (a click, or a drag of another
class) in the Model view, and ``tklscore model new`` prints the ones it used. The rules:

1. the column's name, read by the one table of column-name rules
   (:func:`tklscore.core.tables.personal_data.personal_data_category`, which the role guesses
   use too): its DPV category, or the narrower class its term names (income → Income,
   diagnosis → Health, medication → Prescription);
2. else the column's values, against :data:`VALUE_RULES` (income brackets such as
   ``<=50K``, country names, sexes, marital states, diseases, medicines, ICD-10 codes);
3. the class is named by its DPV local name; in a vocabulary that lacks it (the thesis'
   nine classes), the nearest DPV 2.3 ancestor the vocabulary has is suggested instead
   (Job → Professional → Social), never the vocabulary's root.

The values are this module's own concern (the name rules read no values).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tklscore.core.model.vocabulary import DPV_2_3, Vocabulary, local_name
from tklscore.core.tables.personal_data import personal_data_category


def _norm(text: str) -> str:
    """Words of a name or value, lower case: ``NativeCountry`` / ``native-country`` → ``native country``."""
    text = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", str(text))
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


_COUNTRIES = frozenset(_norm(c) for c in (
    "United States", "USA", "US", "America", "Mexico", "Canada", "Germany", "England", "United Kingdom", "UK",
    "France", "Italy", "Spain", "Portugal", "Poland", "Ireland", "Scotland", "Netherlands", "Holand-Netherlands",
    "Belgium", "Greece", "Hungary", "Yugoslavia", "Austria", "Switzerland", "Sweden", "Norway", "Denmark",
    "Finland", "Russia", "Ukraine", "China", "Japan", "India", "Iran", "Iraq", "Israel", "Turkey", "Egypt",
    "Philippines", "Vietnam", "Cambodia", "Laos", "Thailand", "Taiwan", "Hong", "Hong Kong", "Korea",
    "South Korea", "Indonesia", "Malaysia", "Singapore", "Pakistan", "Bangladesh", "Cuba", "Jamaica", "Haiti",
    "Dominican Republic", "Puerto Rico", "Guatemala", "Honduras", "El Salvador", "Nicaragua", "Ecuador",
    "Columbia", "Colombia", "Peru", "Chile", "Argentina", "Brazil", "Venezuela", "Bolivia", "Trinadad&Tobago",
    "Trinidad and Tobago", "Outlying-US(Guam-USVI-etc)", "South Africa", "Nigeria", "Kenya", "Ethiopia",
    "Morocco", "Australia", "New Zealand", "South"))
_COUNTRY_WORDS = frozenset(" ".join(_COUNTRIES).split())
_SEXES = frozenset({"male", "female", "m", "f", "man", "woman", "other", "non binary", "nonbinary", "diverse",
                    "unknown", "intersex"})
_MARITAL = frozenset({"married", "single", "divorced", "widowed", "separated", "never married", "married civ spouse",
                      "married af spouse", "married spouse absent", "partnered", "cohabiting", "civil partnership"})
_RACES = frozenset({"white", "black", "asian", "asian pac islander", "amer indian eskimo", "other", "hispanic",
                    "latino", "caucasian", "african american", "native american", "pacific islander", "mixed"})
_DISEASES = frozenset({"flu", "influenza", "h1n1", "hiv", "aids", "hypertension", "diabetes", "cancer", "asthma",
                       "migraine", "covid", "covid 19", "tuberculosis", "hepatitis", "depression", "anxiety",
                       "pneumonia", "bronchitis", "gastritis", "ulcer", "arthritis", "obesity", "stroke",
                       "heart disease", "alzheimer", "dementia", "epilepsy", "malaria", "measles"})
_MEDICINES = frozenset({"tamiflu", "antibiotics", "antibiotic", "arv", "statin", "paracetamol", "ibuprofen",
                        "aspirin", "insulin", "metformin", "amoxicillin", "penicillin", "morphine", "codeine",
                        "prednisone", "warfarin", "omeprazole", "lisinopril", "atorvastatin", "antidepressant"})
_JOB_WORDS = frozenset({"clerical", "managerial", "manager", "sales", "service", "repair", "craft", "specialty",
                        "engineer", "teacher", "nurse", "driver", "farming", "fishing", "cleaners", "handlers",
                        "inspct", "inspector", "transport", "moving", "support", "tech", "armed", "forces",
                        "protective", "lawyer", "doctor", "clerk", "worker", "operator", "accountant", "admin",
                        "exec", "house", "serv", "labourer", "laborer", "technician", "consultant", "student"})
_BRACKET = re.compile(r"^\s*(?:<=?|>=?|≤|≥)?\s*[$€£]?\s*\d+(?:[.,]\d+)?\s*[kKmM]?\s*\+?\s*"
                      r"(?:(?:-|–|to)\s*[$€£]?\s*\d+(?:[.,]\d+)?\s*[kKmM]?)?\s*$")
_ICD10 = re.compile(r"^[A-TV-Z][0-9]{2}(?:\.[0-9A-Z]{1,4})?$")
SAMPLE_VALUES = 2000
"""At most this many distinct values are looked at."""


def _share(values: Sequence[str], test) -> float:
    return sum(1 for v in values if test(v)) / len(values) if values else 0.0


def _in(words: frozenset[str]):
    return lambda value: _norm(value) in words


def _job_like(value: str) -> bool:
    return any(word in _JOB_WORDS for word in _norm(value).split())


def _country_like(value: str) -> bool:
    text = _norm(value)
    return text in _COUNTRIES or (bool(text) and all(word in _COUNTRY_WORDS for word in text.split()))


def _bracket_like(value: str) -> bool:
    return bool(_BRACKET.match(value)) and any(c in value for c in "<>≤≥kKmM+-–")


VALUE_RULES: tuple[tuple[str, str, object, float], ...] = (
    # (class, what the values look like, test of one value, share of distinct values that must pass)
    ("IncomeBracket", "income brackets", _bracket_like, 0.8),
    ("Gender", "sexes", _in(_SEXES), 0.9),
    ("MaritalStatus", "marital states", _in(_MARITAL), 0.6),
    ("Race", "races", _in(_RACES), 0.6),
    ("Country", "country names", _country_like, 0.6),
    ("Health", "diseases", _in(_DISEASES), 0.5),
    ("Health", "ICD-10 codes", lambda v: bool(_ICD10.match(v.strip())), 0.8),
    ("Prescription", "medicines", _in(_MEDICINES), 0.5),
    ("Job", "occupations", _job_like, 0.6),
)


@dataclass(frozen=True)
class ClassSuggestion:
    """The class suggested for ``column`` (``iri`` None: nothing suggested) and why."""

    column: str
    iri: str | None
    label: str | None
    reason: str

    def __bool__(self) -> bool:
        return self.iri is not None


def suggested_local_name(column: str, values: Iterable[str] = ()) -> tuple[str | None, str]:
    """The DPV local name suggested for a column and the reason, from its name, then its values."""
    match = personal_data_category(column)
    if match is not None:
        return match.dpv_key, f"the column name '{column}' reads as {match.category.label} ('{match.term}')"
    distinct = [str(v) for v in dict.fromkeys(values) if str(v).strip()][:SAMPLE_VALUES]
    for cls, what, test, share in VALUE_RULES:
        if distinct and _share(distinct, test) >= share:
            shown = ", ".join(distinct[:3])
            return cls, f"the values look like {what} ({shown}{', …' if len(distinct) > 3 else ''})"
    return None, f"neither the name '{column}' nor its values suggest a class"


def suggest_class(column: str, values: Iterable[str], vocabulary: Vocabulary) -> ClassSuggestion:
    """The class of ``vocabulary`` suggested for ``column`` with ``values`` (see the module)."""
    wanted, reason = suggested_local_name(column, values)
    if wanted is None:
        return ClassSuggestion(column, None, None, reason)
    roots = {n for n in vocabulary.graph.nodes if vocabulary.graph.in_degree(n) == 0}
    if vocabulary.default_root is not None:
        roots.add(vocabulary.default_root)
    for candidate in _with_ancestors(wanted):
        iri = _find(vocabulary, candidate)
        if iri is not None and iri not in roots:
            label = vocabulary.label(iri)
            if candidate != wanted:
                reason += f"; the vocabulary has no {wanted}, its broader class {label} is suggested"
            return ClassSuggestion(column, iri, label, reason)
    return ClassSuggestion(column, None, None, f"{reason}, but {vocabulary.title} has no class {wanted} "
                                               f"(nor a broader one): choose a class, or open DPV 2.3")


def suggest_classes(table, columns: Sequence[str], vocabulary: Vocabulary) -> dict[str, ClassSuggestion]:
    """A suggestion for each of ``columns`` of ``table`` (a :class:`~tklscore.core.tables.loading.Table`)."""
    return {column: suggest_class(column, _distinct(table, column), vocabulary) for column in columns}


def _distinct(table, column: str) -> list[str]:
    uniques = table.codes(column).uniques
    return [str(v) for v in uniques[:SAMPLE_VALUES]]


def _find(vocabulary: Vocabulary, name: str) -> str | None:
    candidates = vocabulary.with_local_name(name)
    return candidates[0] if len(candidates) == 1 else None


def _with_ancestors(name: str) -> list[str]:
    """``name`` and its DPV 2.3 ancestors' local names, nearest first (first parent by name)."""
    try:
        dpv = Vocabulary.shipped(DPV_2_3)
    except Exception:  # a stripped installation without the DPV files: the name alone
        return [name]
    chain, seen = [name], {name}
    iri = _find(dpv, name)
    while iri is not None:
        parents = dpv.parents(iri)
        if not parents:
            break
        iri = parents[0]
        local = local_name(iri)
        if local in seen:
            break
        seen.add(local)
        chain.append(local)
    return chain
