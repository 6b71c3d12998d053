"""MinimizeDB, violation detection and participant extraction (pia.md §2.4, Algs 1–3, 5–6).

* :func:`minimize_db` — Alg 2: drop each asserted fact that the reasoner re-derives from
  the rest (``(Bob, treatedBy, Hepatologist)`` goes, since ``(Bob, treatedBy, Leonard)``
  and ``(Leonard, ISA, Hepatologist)`` derive it). Uses Delete/Rederive, so each test is a
  retraction plus at most a re-assertion; returns the closure of DBm ready to use.
* :func:`detect_violations` — Alg 3 PrivacyMapAndDetect: every **inferred** triple whose
  label λ (LUB over matching patterns through ISA ancestors) is not ≤ the threshold v.
  Asserted triples are assumed authorized (§2.2).
* :func:`find_participants` — Alg 5/6 GetCandidates: the asserted (ground) facts that take
  part in some derivation of a violation, recursing through inferred body facts. Unlike
  the original (one derivation per triple) it follows **every** justification.
* :class:`ViolationMonitor` — keeps the violation set of a :class:`Closure` current from
  the :class:`Change` of each update (full relabel when an ISA triple changes).
* :func:`assess` — Alg 1 up to the disruption step: MinimizeDB → Reason → label → detect →
  participants, as one :class:`Assessment`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from rdflib.term import Node

from tklscore.core.errors import InputError
from tklscore.core.pia.facts import DEFAULT_ISA_PREDICATES, IsaHierarchy, Triple
from tklscore.core.pia.privacy_labels import Label, PrivacyMapping
from tklscore.core.pia.reasoner import Change, Closure, Justification, Reasoner


@dataclass(frozen=True)
class Violation:
    """An inferred triple whose label exceeds the release threshold."""

    triple: Triple
    label: Label

    def __str__(self) -> str:
        return f"{self.triple} [{self.label}]"


@dataclass
class Minimized:
    """Result of MinimizeDB: ``closure`` reasons over ``kept`` (= DBm) plus ``ontology``."""

    kept: list[Triple]
    removed: list[Triple]
    closure: Closure
    ontology: frozenset[Triple] = frozenset()


def minimize_db(reasoner: Reasoner, triples: Iterable[Triple],
                ontology: Iterable[Triple] = ()) -> Minimized:
    """Alg 2: in input order, drop each data fact that is in Reason(DBm − f, O).

    ``ontology`` triples (O) are asserted too but are never removed, never candidates.
    """
    ontology = frozenset(ontology)
    triples = [t for t in dict.fromkeys(triples) if t not in ontology]
    closure = reasoner.materialize([*ontology, *triples])
    removed = []
    for f in triples:
        closure.remove([f])
        if f in closure:
            removed.append(f)
        else:
            closure.add([f])
    gone = set(removed)
    return Minimized([t for t in triples if t not in gone], removed, closure, ontology)


def label_of(triple: Sequence[Node], mapping: PrivacyMapping, isa: IsaHierarchy) -> Label:
    return mapping.label(triple, isa)


def detect_violations(closure: Closure, mapping: PrivacyMapping, threshold: Label,
                      isa: IsaHierarchy | None = None) -> list[Violation]:
    """Alg 3 over the inferred triples of ``closure``; sorted by triple text."""
    threshold = _threshold(mapping, threshold)
    isa = isa or closure.isa_hierarchy()
    found = []
    for t in closure.inferred():
        label = mapping.label(t, isa)
        if mapping.order.exceeds(label, threshold):
            found.append(Violation(t, label))
    return sorted(found, key=lambda v: str(v.triple))


def _threshold(mapping: PrivacyMapping, threshold: Label) -> Label:
    if isinstance(threshold, str):
        try:
            return mapping.order.parse(threshold)
        except InputError as error:
            raise InputError(f"the threshold {error.message}", hint=error.hint) from None
    return threshold


@dataclass
class Participants:
    """Ground facts taking part in violation inferences (Alg 5/6, all justifications).

    ``facts``: distinct asserted facts in discovery order (depth first, justifications
    sorted by rule name and body) — the candidate list C of Alg 5; ``by_violation``: the
    same per violation; ``rules``: every (conclusion, justification) followed.
    """

    facts: list[Triple] = field(default_factory=list)
    by_violation: dict[Triple, list[Triple]] = field(default_factory=dict)
    rules: list[tuple[Triple, Justification]] = field(default_factory=list)


def find_participants(closure: Closure, violations: Iterable[Violation | Triple],
                      ontology: Iterable[Triple] = ()) -> Participants:
    """Alg 5/6 GetCandidates for each violation, through every justification.

    Asserted facts in ``ontology`` (domain knowledge, O) are neither candidates nor followed.
    """
    result = Participants()
    seen: set[Triple] = set()
    ontology = frozenset(ontology)
    for v in violations:
        triple = v.triple if isinstance(v, Violation) else v
        result.by_violation[triple] = _collect(closure, triple, result, seen, ontology)
    return result


def _collect(closure: Closure, conclusion: Triple, result: Participants,
             seen: set[Triple], ontology: frozenset[Triple]) -> list[Triple]:
    """Depth-first GetCandidates from ``conclusion`` (iterative, in recursive order)."""
    mine: list[Triple] = []
    mine_set: set[Triple] = set()
    visited = {conclusion}
    # frame: [head, justifications, index of justification, index in its body]
    stack: list[list] = [[conclusion, closure.justifications(conclusion), 0, 0]]
    while stack:
        frame = stack[-1]
        head, justs, ji, bi = frame
        if ji >= len(justs):
            stack.pop()
            continue
        just = justs[ji]
        if bi == 0:
            result.rules.append((head, just))
        if bi >= len(just.body):
            frame[2], frame[3] = ji + 1, 0
            continue
        frame[3] = bi + 1
        fact = just.body[bi]
        if fact in ontology:
            continue
        if closure.is_asserted(fact):
            if fact not in mine_set:
                mine_set.add(fact)
                mine.append(fact)
            if fact not in seen:
                seen.add(fact)
                result.facts.append(fact)
        elif fact not in visited:
            visited.add(fact)
            stack.append([fact, closure.justifications(fact), 0, 0])
    return mine


class ViolationMonitor:
    """The violations of a closure, kept current by :meth:`update` with each :class:`Change`."""

    def __init__(self, closure: Closure, mapping: PrivacyMapping, threshold: Label,
                 isa_predicates: Iterable[Node] = DEFAULT_ISA_PREDICATES):
        self.closure = closure
        self.mapping = mapping
        self.threshold = _threshold(mapping, threshold)
        self.isa_predicates = frozenset(isa_predicates)
        self.refresh()

    def refresh(self) -> None:
        """Relabel everything (after an ISA change or on demand)."""
        self.isa = self.closure.isa_hierarchy(self.isa_predicates)
        self._violations = {v.triple: v for v in
                            detect_violations(self.closure, self.mapping, self.threshold, self.isa)}

    def update(self, change: Change) -> None:
        touched = change.touched()
        if any(t.p in self.isa_predicates for t in touched):
            self.refresh()
            return
        for t in touched:
            self._violations.pop(t, None)
            if self.closure.is_inferred(t):
                label = self.mapping.label(t, self.isa)
                if self.mapping.order.exceeds(label, self.threshold):
                    self._violations[t] = Violation(t, label)

    @property
    def violations(self) -> list[Violation]:
        return sorted(self._violations.values(), key=lambda v: str(v.triple))

    def __bool__(self) -> bool:
        return bool(self._violations)


@dataclass
class Assessment:
    """Alg 1 up to the disruption step."""

    minimized: Minimized
    violations: list[Violation]
    participants: Participants
    threshold: Label

    @property
    def closure(self) -> Closure:
        return self.minimized.closure


def assess(triples: Iterable[Triple], reasoner: Reasoner, mapping: PrivacyMapping,
           threshold: Label, ontology: Iterable[Triple] = ()) -> Assessment:
    """MinimizeDB → Reason → PrivacyMapAndDetect → participants (Alg 1, 2, 3, 5, 6)."""
    minimized = minimize_db(reasoner, triples, ontology)
    threshold = _threshold(mapping, threshold)
    violations = detect_violations(minimized.closure, mapping, threshold)
    participants = find_participants(minimized.closure, violations, minimized.ontology)
    return Assessment(minimized, violations, participants, threshold)
