"""Patient privacy preferences and clinician safety values (Ch. 6; pia.md §2.6, §4.7).

Both are 0–3 per fact (triple):

* **preference** (Table 6.1, set by the patient): how strongly the fact should *not* be
  released — :data:`PREFERENCE_MEANINGS`; default 0;
* **safety** (Table 6.2, set by a clinician or data custodian): how strongly the fact
  *must* be released — :data:`SAFETY_MEANINGS`; default 0. A fact with safety 3 is never
  a disruption candidate (never altered).

Files (the patient-preference view writes the same format, :func:`save_preferences`):

* CSV with the header ``subject,predicate,object,preference`` (or ``…,safety``); terms as
  ``<iri>``, ``prefix:local`` (``pia:``/``rdf:`` and the data's prefixes) or a bare local
  name that is unique in the data; ``#`` lines and blank lines are skipped;
* Turtle: nodes ``[] pia:subject ex:Bob ; pia:predicate ex:given ; pia:object
  ex:Interferon ; pia:preference 2 .`` (or ``pia:safety``).

Every row must name a triple that is in the data (when the data is given), carry an
integer 0–3, and not contradict an earlier row for the same triple; otherwise an
:class:`~tklscore.core.errors.InputError` names the file, the row and the problem.

**Suggested preferences** (:func:`suggested_preferences`, the green settings of the
patient-preference view, Ch. 7). The rule used: for every violation, each of its
participating ground facts (except facts with safety 3, which cannot be altered) gets

* **3 — "Must Not Be Released"** if removing that fact alone from the released data
  (with every other fact kept, redundant facts included, as Alg 4 evaluates) leaves
  that violation underivable: withholding this one fact is enough to keep the
  violation from being released;
* **2 — "Should Not Be Released"** otherwise: the fact takes part in the violation but
  other facts must be withheld as well.

A fact in several violations gets the highest level over them. Facts that take part in
no violation get no suggestion (they are fine to release, level 0).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from pathlib import Path

from rdflib import Literal, URIRef

from tklscore.core.files.atomic import atomic_write
from tklscore.core.errors import InputError, existing_file
from tklscore.core.files.text import csv_rows, read_text
from tklscore.core.pia.disruption import MUST_BE_RELEASED, evaluation_closure
from tklscore.core.pia.facts import PIA, Triple, graph_prefixes, local_name, parse_graph
from tklscore.core.pia.privacy_labels import TermResolver

PREFERENCE_MEANINGS = {
    0: "Fine With Releasing",
    1: "Prefer To Not Be Released",
    2: "Should Not Be Released",
    3: "Must Not Be Released",
}
"""Table 6.1: the patient preference value (a requirement that something is *not* released)."""

SAFETY_MEANINGS = {
    0: "Fine With Not Releasing",
    1: "Prefer To Be Released",
    2: "Should Be Released",
    3: "Must Be Released",
}
"""Table 6.2: the safety value (a requirement that something *is* released)."""

KINDS = ("preference", "safety")
LEVELS = (0, 1, 2, 3)


def _kind(kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"kind must be 'preference' or 'safety', not {kind!r}")
    return kind


def parse_level(text, *, kind: str = "preference", file: str | None = None, row: int | None = None) -> int:
    """An integer 0–3 from a cell; anything else → InputError naming the allowed values."""
    raw = str(text).strip()
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value not in LEVELS or raw.startswith("+"):
        meanings = PREFERENCE_MEANINGS if kind == "preference" else SAFETY_MEANINGS
        allowed = ", ".join(f"{k} = {v}" for k, v in meanings.items())
        raise InputError(f"{kind} '{raw}' is not one of 0, 1, 2, 3", file=file, row=row, column=kind,
                         hint=allowed)
    return value


def _resolver(data: Iterable[Triple] | None, prefixes: dict[str, str] | None) -> TermResolver:
    known = [t for triple in (data or ()) for t in triple]
    return TermResolver(prefixes=prefixes, known=known)


def _add(result: dict[Triple, int], triple: Triple, value: int, data: set[Triple] | None,
         kind: str, file: str, row: int | None) -> None:
    if data is not None and triple not in data:
        raise InputError(f"{kind} for {triple}, which is not a fact of the data", file=file, row=row,
                         hint="a preference or safety value applies to a released fact; check the "
                              "spelling of subject, predicate and object")
    if triple in result and result[triple] != value:
        raise InputError(f"{triple} has {kind} {result[triple]} and also {value}", file=file, row=row,
                         hint="give each fact one value")
    result[triple] = value


def load_preferences(path: str | Path, data: Iterable[Triple] | None = None, *,
                     kind: str = "preference", prefixes: dict[str, str] | None = None) -> dict[Triple, int]:
    """``{triple: 0..3}`` from a CSV (``.csv``) or RDF (anything else) file; see the module doc."""
    kind = _kind(kind)
    path = existing_file(path, f"{kind} file")
    data_list = [Triple(*t) for t in data] if data is not None else None
    data_set = set(data_list) if data_list is not None else None
    if path.suffix.lower() == ".csv":
        return _load_csv(path, data_list, data_set, kind, prefixes)
    return _load_rdf(path, data_set, kind)


def load_safety(path: str | Path, data: Iterable[Triple] | None = None, *,
                prefixes: dict[str, str] | None = None) -> dict[Triple, int]:
    """Safety values (Table 6.2) from a ``subject,predicate,object,safety`` file."""
    return load_preferences(path, data, kind="safety", prefixes=prefixes)


def _load_csv(path: Path, data_list, data_set, kind: str, prefixes) -> dict[Triple, int]:
    file = str(path)
    columns = ("subject", "predicate", "object", kind)
    rows = list(csv_rows(read_text(path, f"{kind} file"), file, header=False))
    header_at = next((i for i, (_, r) in enumerate(rows)
                      if any(c.strip() for c in r) and not r[0].lstrip().startswith("#")), None)
    if header_at is None:
        raise InputError(f"{kind} file is empty", file=file, hint="the first line must be: " + ",".join(columns))
    header_row, header = rows[header_at]
    names = [h.strip().casefold() for h in header]
    missing = [c for c in columns if c not in names]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)}", file=file, row=header_row,
                         hint="the first line must be: " + ",".join(columns))
    where = {c: names.index(c) for c in columns}
    resolver = _resolver(data_list, prefixes)
    result: dict[Triple, int] = {}
    for row_no, row in rows[header_at + 1:]:
        if not any(cell.strip() for cell in row) or row[0].lstrip().startswith("#"):
            continue
        if len(row) < len(names):
            raise InputError(f"{len(row)} field(s), expected {len(names)}", file=file, row=row_no)
        terms = []
        for c in columns[:3]:
            if row[where[c]].strip() in ("", "*"):
                raise InputError(f"empty {c}: a {kind} names one fact, wildcards are not allowed",
                                 file=file, row=row_no, column=c)
            terms.append(resolver.resolve(row[where[c]], file=file, row=row_no, column=c))
        value = parse_level(row[where[kind]], kind=kind, file=file, row=row_no)
        _add(result, Triple(*terms), value, data_set, kind, file, row_no)
    return result


def _load_rdf(path: Path, data_set, kind: str) -> dict[Triple, int]:
    file = str(path)
    graph = parse_graph(path)
    prop = PIA.preference if kind == "preference" else PIA.safety
    nodes = sorted(set(graph.subjects(prop, None)), key=str)
    if not nodes:
        raise InputError(f"no pia:{kind} values in the file", file=file,
                         hint=f"write  [] pia:subject ex:s ; pia:predicate ex:p ; pia:object ex:o ; "
                              f"pia:{kind} 2 .  with @prefix pia: <urn:tklscore:pia#>")
    result: dict[Triple, int] = {}
    for node in nodes:
        name = local_name(node) if isinstance(node, URIRef) else "a blank node"
        terms = []
        for part in (PIA.subject, PIA.predicate, PIA.object):
            values = list(graph.objects(node, part))
            if len(values) != 1:
                raise InputError(f"{kind} {name} has {len(values)} pia:{local_name(part)} values, expected 1",
                                 file=file)
            terms.append(values[0])
        values = list(graph.objects(node, prop))
        if len(values) != 1:
            raise InputError(f"{kind} {name} has {len(values)} pia:{kind} values, expected 1", file=file)
        value = parse_level(values[0], kind=kind, file=file)
        _add(result, Triple(*terms), value, data_set, kind, file, None)
    return result


def save_preferences(path: str | Path, prefs: Mapping[Triple, int], *, kind: str = "preference") -> Path:
    """Write ``subject,predicate,object,<kind>`` atomically (IRIs as ``<iri>``); sorted by triple."""
    kind = _kind(kind)
    path = Path(path)
    rows = []
    for triple, value in prefs.items():
        triple = Triple(*triple)
        if isinstance(value, bool) or not isinstance(value, int) or value not in LEVELS:
            raise InputError(f"{kind} {value!r} for {triple} is not one of 0, 1, 2, 3", file=str(path))
        rows.append((*(_cell(t) for t in triple), str(value)))
    rows.sort()
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["subject", "predicate", "object", kind])
    writer.writerows(rows)
    with atomic_write(path) as handle:
        handle.write(buffer.getvalue())
    return path


def save_safety(path: str | Path, values: Mapping[Triple, int]) -> Path:
    return save_preferences(path, values, kind="safety")


def _cell(term) -> str:
    if isinstance(term, Literal):
        raise InputError(f"literal {term!r} cannot be written to a preference file",
                         hint="preferences apply to facts whose terms are IRIs")
    return f"<{term}>"


def suggested_preferences(assessment, *, safety: Mapping[Triple, int] | None = None,
                          subject=None) -> dict[Triple, int]:
    """The suggested preference per participating fact (rule in the module docstring).

    ``subject``: only the facts about this subject (one patient's relations).
    """
    safety = dict(safety or {})
    closure = evaluation_closure(assessment)
    suggested: dict[Triple, int] = {}
    for violation, facts in assessment.participants.by_violation.items():
        for fact in facts:
            if safety.get(fact, 0) == MUST_BE_RELEASED:
                continue
            if subject is not None and fact.s != subject:
                continue
            with closure.altered([fact]):
                alone = violation not in closure
            level = 3 if alone else 2
            suggested[fact] = max(level, suggested.get(fact, 0))
    return suggested


def describe(value: int, kind: str = "preference") -> str:
    """Table 6.1/6.2 wording of a level: ``describe(3) == "Must Not Be Released"``."""
    meanings = PREFERENCE_MEANINGS if _kind(kind) == "preference" else SAFETY_MEANINGS
    return meanings[value]


__all__ = [
    "PREFERENCE_MEANINGS",
    "SAFETY_MEANINGS",
    "describe",
    "graph_prefixes",
    "load_preferences",
    "load_safety",
    "parse_level",
    "save_preferences",
    "save_safety",
    "suggested_preferences",
]
