"""What a column's name says it holds: the DPV personal-data categories a person reads in
a column name (English), and the role such a column usually plays in a release.

``personal_data_category("native-country")`` → the category *Nationality* (DPV
``pd:Nationality``), usually a quasi-identifier. The rules are a table (:data:`CATEGORIES`)
of terms matched against the name's words (``marital-status``, ``MaritalStatus``,
``marital_status`` and ``maritalstatus`` all read as *marital status*); a term ending in
``*`` matches a word's beginning (``diagnos*``: diagnosis, diagnoses, diagnostic), one
starting with ``=`` only the whole name (``=name``: not ``drug name``). The
first category whose term matches wins, so the table lists specific terms before general
ones.

The roles (:mod:`tklscore.core.tables.role_guesses`) and the expert's DPV class
suggestions use these rules; nothing here reads the values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DPV_PD = "https://w3id.org/dpv/pd#"

QUASI_IDENTIFIER = "quasi-identifier"
SENSITIVE = "sensitive"
DIRECT_IDENTIFIER = "direct identifier"   # names a person by itself: an identifier, never released as is


@dataclass(frozen=True)
class Category:
    """A DPV personal-data category as a column name shows it."""

    key: str                  # DPV pd class' local name, e.g. "MaritalStatus"
    label: str                # in words, e.g. "marital status"
    usual_role: str          # QUASI_IDENTIFIER, SENSITIVE or DIRECT_IDENTIFIER
    terms: tuple[str, ...]   # lower-case words or phrases; "stem*" matches a word's beginning
    why: str                 # why it plays that role, in a person's words

    @property
    def dpv_class(self) -> str:
        """The DPV class IRI (``https://w3id.org/dpv/pd#Age``)."""
        return DPV_PD + self.key

    @property
    def curie(self) -> str:
        return f"pd:{self.key}"


@dataclass(frozen=True)
class NameMatch:
    category: Category
    term: str                 # the term that matched, as listed

    def reason(self) -> str:
        """``its name says age (DPV pd:Age)``."""
        return f"its name says {self.category.label} (DPV {self.category.curie})"

    @property
    def dpv_key(self) -> str:
        """The DPV class the matched term names: the category's, or the narrower class in
        :data:`NARROWER` (``income`` → Income within *income or salary*) — what the expert's
        alignment suggests; the usual role stays the category's."""
        return NARROWER.get(self.term, self.category.key)


_KNOWN = "others may know it and link it"
CATEGORIES: tuple[Category, ...] = (
    # direct identifiers first: "last name" is a name, not a location
    Category("Identifier", "an identifier", DIRECT_IDENTIFIER,
             ("id", "identifier", "=key", "=record", "=records", "record id", "row id", "patient id", "person id", "subject id",
              "ssn", "social security*", "national id*", "passport*", "mrn", "medical record number"),
             "it names one record or person"),
    Category("Name", "a person's name", DIRECT_IDENTIFIER,
             ("=name", "=names", "first name", "last name", "surname", "given name", "family name", "full name",
              "forename", "firstname", "lastname"),
             "it names a person"),
    Category("EmailAddress", "an e-mail address", DIRECT_IDENTIFIER, ("email*", "e mail", "mail address"),
             "it names a person"),
    Category("TelephoneNumber", "a telephone number", DIRECT_IDENTIFIER,
             ("phone*", "telephone*", "mobile", "cell phone"), "it reaches a person"),
    Category("PhysicalAddress", "a street address", DIRECT_IDENTIFIER,
             ("address", "street*", "house number"), "it finds a person's home"),
    # quasi-identifiers: facts about a person that others may know
    Category("Age", "age", QUASI_IDENTIFIER, ("age", "ages", "age group", "age range", "agegroup", "years old"),
             _KNOWN),
    Category("Gender", "sex or gender", QUASI_IDENTIFIER, ("sex", "gender"), _KNOWN),
    Category("Race", "race", QUASI_IDENTIFIER, ("race",), _KNOWN),
    Category("EthnicOrigin", "ethnicity", QUASI_IDENTIFIER, ("ethnic*",), _KNOWN),
    Category("MaritalStatus", "marital status", QUASI_IDENTIFIER,
             ("marital*", "civil status", "married", "marriage*"), _KNOWN),
    Category("Nationality", "nationality or native country", QUASI_IDENTIFIER,
             ("nationality", "citizenship", "native country", "country of birth", "birth country",
              "country of origin", "native*"), _KNOWN),
    Category("BirthDate", "a birth date", QUASI_IDENTIFIER,
             ("birth date", "date of birth", "dob", "birthdate", "birthday", "birth year", "year of birth", "yob",
              "birth*"), _KNOWN),
    Category("Education", "education", QUASI_IDENTIFIER,
             ("education*", "degree", "schooling", "qualification*", "school*"), _KNOWN),
    Category("PostalCode", "a postcode", QUASI_IDENTIFIER,
             ("zip", "zipcode", "zip code", "postcode*", "postal code", "post code", "plz", "postal*"), _KNOWN),
    Category("Job", "occupation", QUASI_IDENTIFIER,
             ("occupation*", "job*", "profession*", "employment", "employer*", "workclass", "work class",
              "industry"), _KNOWN),
    Category("Relationship", "family relationship", QUASI_IDENTIFIER,
             ("relationship", "household*", "family", "children", "number of children"), _KNOWN),
    Category("City", "a place of residence", QUASI_IDENTIFIER,
             ("city", "town", "municipality", "village", "region", "county", "district", "province",
              "residence", "place of residence", "home town", "location"), _KNOWN),
    Category("Country", "a country", QUASI_IDENTIFIER, ("country",), _KNOWN),
    Category("Height", "height", QUASI_IDENTIFIER, ("height",), "it can be seen"),
    Category("Language", "language", QUASI_IDENTIFIER, ("language*", "mother tongue"), _KNOWN),
    # sensitive attributes: what a release must not reveal about a person
    Category("Salary", "income or salary", SENSITIVE,
             ("salary*", "income*", "wage*", "earning*", "pay", "annual pay", "salary class"),
             "it is what a person would not want known"),
    Category("Financial", "financial status", SENSITIVE,
             ("capital gain*", "capital loss*", "debt*", "credit*", "loan*", "wealth", "assets"),
             "it is what a person would not want known"),
    Category("MedicalHealth", "health or diagnosis", SENSITIVE,
             ("health record*", "medical record*", "initial diagnos*", "health*", "diagnos*", "disease*", "illness*", "condition*", "medication*", "medicine*",
              "drug*", "prescription*", "treatment*", "therapy", "symptom*", "icd", "icd10", "icd 10",
              "disorder*", "allerg*", "cancer", "hiv", "clinical*", "medical*"),
             "it is health data, a special category (GDPR art. 9)"),
    Category("Disability", "disability", SENSITIVE, ("disabilit*", "handicap*"),
             "it is health data, a special category (GDPR art. 9)"),
    Category("Genetic", "genetic data", SENSITIVE, ("genetic*", "dna", "genotype*", "gene"),
             "it is a special category (GDPR art. 9)"),
    Category("Religion", "religion", SENSITIVE, ("religio*", "faith", "belief*"),
             "it is a special category (GDPR art. 9)"),
    Category("SexualPreference", "sexual orientation", SENSITIVE, ("sexual*", "orientation"),
             "it is a special category (GDPR art. 9)"),
    Category("PoliticalOpinion", "political opinion", SENSITIVE, ("politic*", "party affiliation"),
             "it is a special category (GDPR art. 9)"),
    Category("Criminal", "criminal records", SENSITIVE, ("criminal*", "conviction*", "offence*", "offense*"),
             "it is a special category (GDPR art. 10)"),
)

# terms that name a narrower DPV class than their category (the expert's alignment; the role is the category's)
NARROWER: dict[str, str] = {
    "income*": "Income", "earning*": "Income",
    "health record*": "HealthRecord", "medical record*": "HealthRecord", "initial diagnos*": "HealthRecord",
    "diagnos*": "Health", "disease*": "Health", "illness*": "Health", "condition*": "Health", "symptom*": "Health",
    "disorder*": "Health", "icd": "Health", "icd10": "Health", "icd 10": "Health",
    "medication*": "Prescription", "medicine*": "Prescription", "drug*": "Prescription",
    "prescription*": "Prescription", "treatment*": "Prescription",
    "credit*": "Credit", "loan*": "LoanRecord", "capital gain*": "Income", "capital loss*": "Income",
    "criminal*": "Criminal", "conviction*": "CriminalConviction", "offence*": "CriminalOffence",
    "offense*": "CriminalOffence", "employment": "CurrentEmployment", "employer*": "CurrentEmployment",
    "workclass": "CurrentEmployment", "work class": "CurrentEmployment",
}

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPLIT = re.compile(r"[^0-9a-z]+")


def name_words(name: str) -> list[str]:
    """The words of a column name, lower case: ``native-country`` and ``NativeCountry`` →
    ``["native", "country"]``; ``education-num`` → ``["education", "num"]``."""
    spaced = _CAMEL.sub(" ", str(name))
    return [w for w in _SPLIT.split(spaced.lower()) if w]


def _matches(term: str, words: list[str], compact: str) -> bool:
    if term.startswith("="):
        return words == term[1:].split()
    stem = term.endswith("*")
    parts = term.rstrip("*").split()
    if len(parts) == 1 and not stem and compact == parts[0]:
        return True
    n = len(parts)
    for i in range(len(words) - n + 1):
        window = words[i:i + n]
        if window[:-1] != parts[:-1]:
            continue
        last, wanted = window[-1], parts[-1]
        if last == wanted or (stem and last.startswith(wanted)):
            return True
    if stem and n == 1 and compact.startswith(parts[0]) and len(parts[0]) >= 4:
        return True  # "maritalstatus", "educationnum"
    joined = "".join(parts)
    return n > 1 and (compact == joined or (stem and compact.startswith(joined)))


def personal_data_category(name: str) -> NameMatch | None:
    """The personal-data category a column's name names, or None."""
    words = name_words(name)
    if not words:
        return None
    compact = "".join(words)
    for category in CATEGORIES:
        for term in category.terms:
            if _matches(term, words, compact):
                return NameMatch(category, term)
    return None


def category(key: str) -> Category:
    """A category by its DPV key (``"Age"``)."""
    for item in CATEGORIES:
        if item.key == key:
            return item
    raise KeyError(key)
