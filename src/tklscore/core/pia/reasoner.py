"""Forward chaining with full provenance and Delete/Rederive maintenance (pia.md §9).

``Reasoner(rules).materialize(triples)`` computes the fixed point DB_r of Def 3.3.9 with
a **semi-naive** forward chainer over interned terms and indexed Python sets, and keeps
**every** justification of every derived triple (not only the first, as Jena does): a
:class:`Justification` is one rule firing, ``(rule, grounded body)``. PIA needs all of
them, otherwise a disruption that breaks one derivation could leave a violation standing.

The result is a :class:`Closure` that stays a fixed point under updates:

* ``closure.remove(triples)`` retracts asserted triples with **Delete/Rederive**:
  over-delete everything whose derivations use a retracted triple, drop those
  derivations, re-admit each over-deleted triple that still has a derivation from
  surviving triples, and propagate semi-naively from the re-admitted ones;
* ``closure.add(triples)`` asserts triples and propagates semi-naively;
* ``closure.replace([(old, new), ...])`` is AlterData (Alg 8) in place;
* ``with closure.altered(removals, additions):`` applies an alteration and reverts it
  on exit — the apply/re-check/revert loop of candidate-solution evaluation.

Each update returns a :class:`Change` (triples that entered or left the closure, and
triples whose asserted/inferred status flipped) so violation detection can be
incremental (:class:`tklscore.core.pia.violations.ViolationMonitor`).

Vocabulary: *asserted* triples are the input DB (DBm after MinimizeDB); *inferred*
triples are ``closure − asserted`` (Alg 1: C = DBmf − DBm). An asserted triple that is
also derivable keeps its justifications (MinimizeDB and participant search use them).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from operator import itemgetter
from typing import NamedTuple

from rdflib.term import Node

from tklscore.core.pia.facts import DEFAULT_ISA_PREDICATES, IsaHierarchy, Triple
from tklscore.core.pia.rules import Rule, Var, check_unique_names

_F = tuple[int, int, int]          # an interned fact
_D = tuple[int, tuple[_F, ...]]    # a derivation: (rule index, grounded body)


class Justification(NamedTuple):
    """One rule firing that derives a triple: the rule and its grounded body, in body order."""

    rule: Rule
    body: tuple[Triple, ...]

    def __str__(self) -> str:
        return f"{self.rule.name}: " + " ∧ ".join(map(str, self.body))


@dataclass(frozen=True)
class Change:
    """What one update did to the closure (net effect).

    ``added``/``removed``: triples that entered / left the closure; ``now_asserted`` /
    ``now_inferred``: triples that stayed but changed status.
    """

    added: frozenset[Triple] = frozenset()
    removed: frozenset[Triple] = frozenset()
    now_asserted: frozenset[Triple] = frozenset()
    now_inferred: frozenset[Triple] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.now_asserted or self.now_inferred)

    def touched(self) -> frozenset[Triple]:
        return self.added | self.removed | self.now_asserted | self.now_inferred


@dataclass
class _CompiledRule:
    rule: Rule
    atoms: list[tuple[int, int, int]]       # constant id >= 0, variable -(k+1)
    head: tuple[int, int, int]
    nvars: int
    plans: list[list[int]] = field(default_factory=list)  # per seed atom: order of the others


class Reasoner:
    """A compiled rule set; ``materialize`` builds a :class:`Closure` of some triples."""

    def __init__(self, rules: Sequence[Rule]):
        rules = list(rules)
        check_unique_names(rules)
        self.rules: tuple[Rule, ...] = tuple(rules)
        self._ids: dict[Node, int] = {}
        self._terms: list[Node] = []
        self._compiled = [self._compile(r) for r in self.rules]
        # one join function per (rule, body atom used as the seed)
        self._by_pred: dict[int, list] = {}
        self._var_pred: list = []
        for ri, cr in enumerate(self._compiled):
            for ai, atom in enumerate(cr.atoms):
                fn = _chained_join(ri, cr, ai) if len(cr.atoms) <= MAX_CHAINED_ATOMS else _interpreted_join(ri, cr, ai)
                if atom[1] >= 0:
                    self._by_pred.setdefault(atom[1], []).append(fn)
                else:
                    self._var_pred.append(fn)
        # the subject and object indexes serve only atoms with a variable predicate
        self._needs_so = bool(self._var_pred)

    # -- terms -------------------------------------------------------------------------
    def intern(self, term: Node) -> int:
        tid = self._ids.get(term)
        if tid is None:
            tid = self._ids[term] = len(self._terms)
            self._terms.append(term)
        return tid

    def term(self, tid: int) -> Node:
        return self._terms[tid]

    def _compile(self, rule: Rule) -> _CompiledRule:
        variables: dict[Var, int] = {}

        def enc(t) -> int:
            if isinstance(t, Var):
                if t not in variables:
                    variables[t] = len(variables)
                return -(variables[t] + 1)
            return self.intern(t)

        atoms = [tuple(enc(t) for t in a) for a in rule.body]
        head = tuple(enc(t) for t in rule.head)
        cr = _CompiledRule(rule, atoms, head, len(variables))  # type: ignore[arg-type]
        for seed in range(len(atoms)):
            bound = {v for v in atoms[seed] if v < 0}
            rest = [i for i in range(len(atoms)) if i != seed]
            order = []
            while rest:
                # most bound positions first; among equals, a bound predicate first
                def score(i, bound=bound):
                    a = atoms[i]
                    return (sum(1 for v in a if v >= 0 or v in bound), a[1] >= 0 or a[1] in bound)
                best = max(rest, key=score)
                order.append(best)
                rest.remove(best)
                bound |= {v for v in atoms[best] if v < 0}
            cr.plans.append(order)
        return cr

    def materialize(self, triples: Iterable[Triple]) -> Closure:
        """The fixed point of the rules over ``triples`` (all of them asserted)."""
        closure = Closure(self)
        closure._add_ids([closure._fid(t) for t in triples], axioms=True)
        return closure


class Closure:
    """A materialized fixed point with all justifications, maintained under updates."""

    def __init__(self, reasoner: Reasoner):
        self.reasoner = reasoner
        self._asserted: set[_F] = set()
        self._facts: set[_F] = set()
        self._derivs: dict[_F, set[_D]] = {}
        self._ps: dict[tuple[int, int], set[int]] = {}
        self._po: dict[tuple[int, int], set[int]] = {}
        self._p: dict[int, set[tuple[int, int]]] = {}
        self._s: dict[int, set[tuple[int, int]]] = {}
        self._o: dict[int, set[tuple[int, int]]] = {}

    # -- conversion --------------------------------------------------------------------
    def _fid(self, t: Sequence[Node]) -> _F:
        intern = self.reasoner.intern
        return (intern(t[0]), intern(t[1]), intern(t[2]))

    def _lookup(self, t: Sequence[Node]) -> _F | None:
        ids = self.reasoner._ids
        try:
            return (ids[t[0]], ids[t[1]], ids[t[2]])
        except KeyError:
            return None

    def _triple(self, f: _F) -> Triple:
        terms = self.reasoner._terms
        return Triple(terms[f[0]], terms[f[1]], terms[f[2]])

    def _just(self, d: _D) -> Justification:
        return Justification(self.reasoner.rules[d[0]], tuple(self._triple(b) for b in d[1]))

    # -- queries -----------------------------------------------------------------------
    def __contains__(self, t) -> bool:
        f = self._lookup(t)
        return f is not None and f in self._facts

    def __len__(self) -> int:
        return len(self._facts)

    def triples(self) -> set[Triple]:
        """Everything in the closure (DBmf)."""
        return {self._triple(f) for f in self._facts}

    def asserted(self) -> set[Triple]:
        """The asserted triples (the DB that was reasoned over)."""
        return {self._triple(f) for f in self._asserted}

    def inferred(self) -> set[Triple]:
        """Triples in the closure that were not asserted (C = DBmf − DBm)."""
        return {self._triple(f) for f in self._facts - self._asserted}

    def is_asserted(self, t) -> bool:
        f = self._lookup(t)
        return f is not None and f in self._asserted

    def is_inferred(self, t) -> bool:
        f = self._lookup(t)
        return f is not None and f in self._facts and f not in self._asserted

    def justifications(self, t) -> list[Justification]:
        """Every rule firing that derives ``t`` (empty for a triple nothing derives)."""
        f = self._lookup(t)
        if f is None:
            return []
        return sorted((self._just(d) for d in self._derivs.get(f, ())), key=_just_key)

    def uses(self, t) -> list[tuple[Triple, Justification]]:
        """Every ``(conclusion, justification)`` whose body contains ``t`` (participation)."""
        f = self._lookup(t)
        if f is None:
            return []
        if f not in self._facts:
            return []
        found = {(h, (ri, body)) for ri, h, body in self._fire([f])}
        return sorted(((self._triple(h), self._just(d)) for h, d in found),
                      key=lambda x: (str(x[0]), _just_key(x[1])))

    def justification_map(self) -> dict[Triple, set[tuple[str, tuple[Triple, ...]]]]:
        """``{triple: {(rule name, body), ...}}`` for every derived triple (for display and tests)."""
        return {self._triple(f): {(self.reasoner.rules[ri].name, tuple(map(self._triple, body)))
                                  for ri, body in ds}
                for f, ds in self._derivs.items() if ds}

    def justification_count(self) -> int:
        return sum(len(d) for d in self._derivs.values())

    def stats(self) -> dict[str, int]:
        return {"asserted": len(self._asserted), "inferred": len(self._facts - self._asserted),
                "facts": len(self._facts), "justifications": self.justification_count()}

    def isa_hierarchy(self, isa_predicates: Iterable[Node] = DEFAULT_ISA_PREDICATES) -> IsaHierarchy:
        """The ISA hierarchy of everything in the closure (used to label its triples)."""
        ids = self.reasoner._ids
        preds = {ids[p] for p in isa_predicates if p in ids}
        return IsaHierarchy((self._triple((s, p, o)) for p in preds for s, o in self._p.get(p, ())),
                            isa_predicates)

    def copy(self) -> Closure:
        """An independent copy sharing the (append-only) term table."""
        other = Closure(self.reasoner)
        other._asserted = set(self._asserted)
        other._facts = set(self._facts)
        other._derivs = {k: set(v) for k, v in self._derivs.items()}
        for name in ("_ps", "_po", "_p", "_s", "_o"):
            setattr(other, name, {k: set(v) for k, v in getattr(self, name).items()})
        return other

    # -- updates -----------------------------------------------------------------------
    def add(self, triples: Iterable[Triple]) -> Change:
        """Assert triples and propagate to the new fixed point."""
        fids = [self._fid(t) for t in triples]
        flipped = {f for f in fids if f in self._facts and f not in self._asserted}
        added = self._add_ids(fids)
        return Change(added=frozenset(map(self._triple, added)),
                      now_asserted=frozenset(map(self._triple, flipped)))

    def remove(self, triples: Iterable[Triple]) -> Change:
        """Retract asserted triples (Delete/Rederive). Triples that are not asserted are ignored."""
        fids = {f for f in (self._lookup(t) for t in triples) if f is not None and f in self._asserted}
        if not fids:
            return Change()
        self._asserted -= fids
        derivs = self._derivs
        asserted = self._asserted
        # 1. over-delete: find every derivation that uses a deleted triple (by firing the
        #    rules with it as the seed while everything is still indexed), drop it, and
        #    delete its conclusion too unless that conclusion is asserted
        over: set[_F] = set(fids)
        delta = list(fids)
        while delta:
            nxt = []
            for ri, h, body in self._fire(delta):
                hd = derivs.get(h)
                if hd is not None:
                    hd.discard((ri, body))
                if h not in over and h not in asserted:
                    over.add(h)
                    nxt.append(h)
            delta = nxt
        for f in over:
            self._unindex(f)
        # 2. rederive: over-deleted triples that kept a derivation from surviving triples
        back = [f for f in over if derivs.get(f)]
        for f in back:
            self._index(f)
        self._propagate(back)
        removed = {f for f in over if f not in self._facts}
        for f in removed:
            derivs.pop(f, None)
        flipped = fids - removed
        return Change(removed=frozenset(map(self._triple, removed)),
                      now_inferred=frozenset(map(self._triple, flipped)))

    def replace(self, pairs: Iterable[tuple[Triple, Triple | None]]) -> Change:
        """AlterData (Alg 8): each asserted ``old`` is replaced by ``new`` (``None`` removes it)."""
        pairs = list(pairs)
        before_rm = self.remove([old for old, _ in pairs])
        before_add = self.add([new for _, new in pairs if new is not None])
        return _compose(before_rm, before_add)

    @contextmanager
    def altered(self, removals: Iterable[Triple] = (), additions: Iterable[Triple] = ()
                ) -> Iterator[Change]:
        """Apply an alteration for the duration of a ``with`` block, then restore exactly."""
        removals = [t for t in removals if self.is_asserted(t)]
        additions = [t for t in additions if not self.is_asserted(t) and t not in removals]
        change = _compose(self.remove(removals), self.add(additions))
        try:
            yield change
        finally:
            self.remove(additions)
            self.add(removals)

    # -- engine ------------------------------------------------------------------------
    def _index(self, f: _F) -> None:
        s, p, o = f
        self._facts.add(f)
        ps = self._ps.get((p, s))
        if ps is None:
            self._ps[(p, s)] = {o}
        else:
            ps.add(o)
        po = self._po.get((p, o))
        if po is None:
            self._po[(p, o)] = {s}
        else:
            po.add(s)
        pp = self._p.get(p)
        if pp is None:
            self._p[p] = {(s, o)}
        else:
            pp.add((s, o))
        if self.reasoner._needs_so:
            self._s.setdefault(s, set()).add((p, o))
            self._o.setdefault(o, set()).add((s, p))

    def _unindex(self, f: _F) -> None:
        s, p, o = f
        self._facts.discard(f)
        self._ps[(p, s)].discard(o)
        self._po[(p, o)].discard(s)
        self._p[p].discard((s, o))
        if self.reasoner._needs_so:
            self._s[s].discard((p, o))
            self._o[o].discard((s, p))

    def _add_ids(self, fids: Iterable[_F], axioms: bool = False) -> set[_F]:
        new: list[_F] = []
        for f in fids:
            if f in self._asserted:
                continue
            self._asserted.add(f)
            if f not in self._facts:
                self._index(f)
                new.append(f)
        if axioms:
            for ri, cr in enumerate(self.reasoner._compiled):
                if not cr.atoms:
                    h = cr.head
                    self._derivs.setdefault(h, set()).add((ri, ()))
                    if h not in self._facts:
                        self._index(h)
                        new.append(h)
        return set(new) | self._propagate(new)

    def _fire(self, seeds: Iterable[_F]) -> list[tuple[int, _F, tuple[_F, ...]]]:
        """Every rule firing with at least one of ``seeds`` in its body, against the store."""
        by_pred = self.reasoner._by_pred
        var_pred = self.reasoner._var_pred
        facts, ps, po, pp, ss, oo = self._facts, self._ps, self._po, self._p, self._s, self._o
        out: list = []
        for f in seeds:
            for fn in by_pred.get(f[1], ()):
                fn(f, facts, ps, po, pp, ss, oo, out)
            for fn in var_pred:
                fn(f, facts, ps, po, pp, ss, oo, out)
        return out

    def _propagate(self, delta: Iterable[_F]) -> set[_F]:
        """Semi-naive rounds from ``delta`` (already indexed); returns the triples added.

        Each round fires the rules with one body atom bound to a triple new in the last
        round and the other atoms matched against everything; every firing is recorded
        (a set per conclusion), so all justifications are kept.
        """
        facts = self._facts
        derivs = self._derivs
        added: set[_F] = set()
        delta = list(delta)
        while delta:
            fresh: dict[_F, None] = {}
            for ri, h, body in self._fire(delta):
                hd = derivs.get(h)
                if hd is None:
                    derivs[h] = {(ri, body)}
                else:
                    hd.add((ri, body))
                if h not in facts:
                    fresh[h] = None
            for h in fresh:
                self._index(h)
            added.update(fresh)
            delta = list(fresh)
        return added


MAX_CHAINED_ATOMS = 16
"""Rules of up to this many body atoms are joined by a chain of closures (:func:`_chained_join`,
a call per atom: fastest); longer ones by :func:`_interpreted_join`, whose depth of calls does
not grow with the rule."""

_UNBOUND = -1  # term ids are ≥ 0


def _interpreted_join(ri: int, cr: _CompiledRule, seed: int):
    """The join :func:`_chained_join` makes, for any number of body atoms: the seed atom
    unified with a triple ``f``, then the other atoms in ``cr.plans[seed]`` order by
    backtracking over the same indexes with an explicit stack, appending
    ``(rule index, head, body)`` for every grounding — the same firings in the same order."""
    atoms, plan, head = cr.atoms, cr.plans[seed], cr.head

    def join(f, facts, ps, po, pp, ss, oo, out):
        values = [_UNBOUND] * cr.nvars
        for position, term in enumerate(atoms[seed]):
            if term >= 0:
                if f[position] != term:
                    return
            elif values[-term - 1] == _UNBOUND:
                values[-term - 1] = f[position]
            elif values[-term - 1] != f[position]:
                return

        def value(term: int) -> int:
            return term if term >= 0 else values[-term - 1]

        def candidates(atom):
            s, p, o = (value(t) for t in atom)
            known_s, known_p, known_o = s != _UNBOUND, p != _UNBOUND, o != _UNBOUND
            if known_p:
                if known_s and known_o:
                    return iter(((s, p, o),) if (s, p, o) in facts else ())
                if known_s:
                    return ((s, p, x) for x in ps.get((p, s), ()))
                if known_o:
                    return ((x, p, o) for x in po.get((p, o), ()))
                return ((x, p, y) for x, y in pp.get(p, ()))
            if known_s:
                return ((s, x, y) for x, y in ss.get(s, ()) if not known_o or y == o)
            if known_o:
                return ((x, y, o) for x, y in oo.get(o, ()))
            return iter(facts)

        def emit() -> None:
            body = tuple(f if i == seed else tuple(value(t) for t in atoms[i]) for i in range(len(atoms)))
            out.append((ri, tuple(value(t) for t in head), body))

        if not plan:
            emit()
            return
        iterators = [candidates(atoms[plan[0]])] + [None] * (len(plan) - 1)
        bound: list[list[int]] = [[] for _ in plan]  # the variables each level bound
        level = 0
        while level >= 0:
            for k in bound[level]:
                values[k] = _UNBOUND
            bound[level] = []
            for triple in iterators[level]:
                newly = []
                for position, term in enumerate(atoms[plan[level]]):
                    if term >= 0:
                        continue
                    k = -term - 1
                    if values[k] == _UNBOUND:
                        values[k] = triple[position]
                        newly.append(k)
                    elif values[k] != triple[position]:
                        break
                else:
                    bound[level] = newly
                    break
                for k in newly:
                    values[k] = _UNBOUND
            else:  # this level is exhausted: back to the one before
                level -= 1
                continue
            if level + 1 == len(plan):
                emit()
            else:
                level += 1
                iterators[level] = candidates(atoms[plan[level]])

    return join


# each index of the closure, as a join gets them (``facts`` first), and the positions of a
# triple that one of its entries gives: ``ps[(p, s)]`` the objects, ``pp[p]`` (s, o) pairs, …
_INDEXES = ("all", "ps", "po", "pp", "ss", "oo")
_GIVES = {"ps": (2,), "po": (0,), "pp": (0, 2), "ss": (1, 2), "oo": (0, 1), "all": (0, 1, 2)}


def _chained_join(ri: int, cr: _CompiledRule, seed: int):
    """One (rule, seed atom) join, made once per rule set from closures, no generated code:
    the seed atom unified with a triple ``f``, then the other body atoms in ``cr.plans[seed]``
    order, each a closure that walks the index its bound positions choose (fixed here, once)
    and calls the next, appending ``(rule index, head, body)`` for every grounding — the
    firings of :func:`_interpreted_join`, in the same order. A variable's value sits in a
    slot of a list (the constants after the variables), so that a key, the head and a body
    atom are each one ``itemgetter`` call. A two-atom rule whose seed atom has one constant
    and whose other atom binds one variable (``(?a ISA ?b) (?b ISA ?c)``) is joined by one
    closure with the loop inlined: on benchmarks/bench_pia_reasoner.py, where most firings
    are of such rules, its fixpoint takes as much CPU as the Python source that was
    generated and ``exec``-ed for each join before (within 10 %)."""
    atoms, head, plan = cr.atoms, cr.head, cr.plans[seed]
    constants = sorted({t for atom in (*atoms, head) for t in atom if t >= 0})
    slots = {t: cr.nvars + i for i, t in enumerate(constants)}

    def slot(t: int) -> int:
        return -t - 1 if t < 0 else slots[t]

    template = [_UNBOUND] * cr.nvars + constants
    bound: set[int] = set()
    checks, binds, repeats = [], [], []   # the seed's positions: (position, constant), (position, slot) twice
    for position, t in enumerate(atoms[seed]):
        if t >= 0:
            checks.append((position, t))
        elif -t - 1 in bound:
            repeats.append((position, -t - 1))
        else:
            bound.add(-t - 1)
            binds.append((position, -t - 1))
    head_of = itemgetter(*map(slot, head))
    steps = [_step(atoms[ai], bound, slot) for ai in plan]
    if len(atoms) == 2 and len(checks) == 1 and len(binds) == 2 and not repeats \
            and steps[0][0] in ("ps", "po") and steps[0][2][0][0]:
        return _two_atom_join(ri, seed, template, checks[0], binds, steps[0], head_of,
                              itemgetter(*map(slot, atoms[1 - seed])))
    emit = _emit(ri, seed, len(atoms), head_of, {i: itemgetter(*map(slot, atoms[i])) for i in range(len(atoms))})
    first = emit
    for kind, key, takes in reversed(steps):
        first = _level(kind, key, takes, first)

    # the seed's constants compared in one call (most triples a join is given fail there)
    checked = itemgetter(*(position for position, _ in checks)) if checks else None
    wanted = tuple(constant for _, constant in checks) if len(checks) > 1 else checks[0][1] if checks else None

    def join(f, facts, ps, po, pp, ss, oo, out):
        if checked is not None and checked(f) != wanted:
            return
        env = template[:]
        for position, k in binds:
            env[k] = f[position]
        for position, k in repeats:
            if env[k] != f[position]:
                return
        first(env, f, (facts, ps, po, pp, ss, oo), out)

    return join


def _step(atom, bound: set[int], slot):
    """How a plan's atom is joined, given the variables ``bound`` before it (which it extends):
    the index, the key of its bound positions, and what each position an index entry gives
    does — ``(True, slot)`` binds a variable, ``(False, slot)`` must equal a bound one."""
    s, p, o = (t >= 0 or -t - 1 in bound for t in atom)
    kind, keyed = (("all", ()) if not (s or p or o) else ("oo", (2,)) if not (s or p) else ("ss", (0,)) if not p
                   else ("in", (0, 1, 2)) if s and o else ("ps", (1, 0)) if s else ("po", (1, 2)) if o else ("pp", (1,)))
    key = itemgetter(*(slot(atom[i]) for i in keyed)) if keyed else None
    takes = []
    for position in _GIVES.get(kind, ()):
        t = atom[position]
        if t >= 0 or -t - 1 in bound:
            takes.append((False, slot(t)))
        else:
            bound.add(-t - 1)
            takes.append((True, -t - 1))
    return kind, key, takes


def _level(kind: str, key, takes, after):
    """The closure of one plan step: its groundings, each passed on to ``after``."""
    if kind == "in":
        def level(env, f, indexes, out):
            if key(env) in indexes[0]:
                after(env, f, indexes, out)
        return level
    which, single = _INDEXES.index(kind), len(takes) == 1
    if single and takes[0][0]:     # ps or po, binding one variable: the common step
        k = takes[0][1]

        def level(env, f, indexes, out):
            for value in indexes[which].get(key(env), ()):
                env[k] = value
                after(env, f, indexes, out)
        return level

    def level(env, f, indexes, out):
        index = indexes[which]
        for entry in (index if key is None else index.get(key(env), ())):
            for value, (binds, k) in zip((entry,) if single else entry, takes):
                if binds:
                    env[k] = value
                elif env[k] != value:
                    break
            else:
                after(env, f, indexes, out)
    return level


def _emit(ri: int, seed: int, n: int, head_of, atom_of):
    """The last closure: ``(rule index, head, body)`` appended, the seed's body atom ``f``."""
    if n == 1:
        def emit(env, f, indexes, out):
            out.append((ri, head_of(env), (f,)))
    elif n == 2:
        other = atom_of[1 - seed]
        if seed == 0:
            def emit(env, f, indexes, out):
                out.append((ri, head_of(env), (f, other(env))))
        else:
            def emit(env, f, indexes, out):
                out.append((ri, head_of(env), (other(env), f)))
    else:
        getters = [None if i == seed else atom_of[i] for i in range(n)]

        def emit(env, f, indexes, out):
            out.append((ri, head_of(env), tuple([f if g is None else g(env) for g in getters])))
    return emit


def _two_atom_join(ri: int, seed: int, template, check, binds, step, head_of, other):
    """:func:`_chained_join`'s closure for a two-atom rule whose seed atom has one constant
    and binds two variables, and whose other atom binds one from ``ps`` or ``po``."""
    (position, constant), ((p0, k0), (p1, k1)) = check, binds
    kind, key, ((_, k),) = step
    objects, first = kind == "ps", seed == 0

    def join(f, facts, ps, po, pp, ss, oo, out):
        if f[position] != constant:
            return
        env = template[:]
        env[k0], env[k1] = f[p0], f[p1]
        found = (ps if objects else po).get(key(env))
        if found:
            append = out.append
            for value in found:
                env[k] = value
                append((ri, head_of(env), (f, other(env)) if first else (other(env), f)))
    return join


def _just_key(j: Justification):
    return (j.rule.name, tuple(map(str, j.body)))


def _compose(first: Change, second: Change) -> Change:
    """Net effect of two successive changes."""
    added = (first.added - second.removed) | (second.added - first.removed)
    removed = (first.removed - second.added) | (second.removed - first.added)
    back = first.removed & second.added        # left and came back: maybe flipped status
    gone = first.added & second.removed
    now_asserted = ((first.now_asserted - second.now_inferred) | second.now_asserted) - gone
    now_inferred = ((first.now_inferred - second.now_asserted) | second.now_inferred) - gone
    return Change(frozenset(added - back), frozenset(removed - gone),
                  frozenset(now_asserted | back), frozenset(now_inferred))
