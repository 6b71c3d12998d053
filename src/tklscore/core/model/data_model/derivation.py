"""Priorities and weights of a tkl-Data Model (data-model.md §2-3, thesis Algorithm 2).

- Criteria groups (the taxonomy classes and attributes under one node) get priorities by
  AHP on their judgements (several experts: geometric mean), or assigned directly; a
  group of one has priority 1, the root 1.
- Algorithm 2: elements and values take the priority of their qualitative label; a node
  below the first level without a label takes its nearest ancestor's.
- ``weight(v) = priority(v) × Π priority(n)`` over the attribute, taxonomy classes and
  root on the path from v to the root; elements on the path are not multiplied.

Every pass is a walk of the tree through the model's child index: linear in its size.
What depends on the nodes alone (the tree walk, Algorithm 2, each value's chain of
multiplied priorities) is kept until a node, the root or the scale changes, so an AHP
edit re-derives only the criteria groups and multiplies the weights as arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import compress
from typing import TYPE_CHECKING

import numpy as np

from tklscore.core.errors import InputError
from tklscore.core.model.ahp import AHPResult, aggregate_judgements, ahp
from tklscore.core.model.data_model.nodes import TABLE_PART, UPPER, Kind

if TYPE_CHECKING:
    from tklscore.core.model.data_model.tree import TklDataModel

_MULTIPLIED = (Kind.ATTRIBUTE, Kind.TAXONOMY, Kind.ROOT)


@dataclass
class Derivation:
    """Priorities of every node that has one, weights of values, AHP results per group,
    and what the model still lacks (``problems``)."""

    priorities: dict[str, float] = field(default_factory=dict)
    weights: dict[str, float] = field(default_factory=dict)
    groups: dict[str, AHPResult] = field(default_factory=dict)
    # with several experts: each one's own result (where their judgements connect the group)
    experts: dict[str, dict[str, AHPResult]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


@dataclass
class _TablePart:
    """What derivation takes from the nodes alone (not from judgements): kept while the
    nodes, root and scale are unchanged, so an AHP edit re-derives only the groups."""

    upper_groups: list[tuple[str, list[str]]]     # (taxonomy node, its criteria) top down
    unreachable: list[str]                         # problems
    table: Derivation                              # Algorithm 2: priorities and problems
    value_iris: list[str]                          # values with a priority, in model order
    value_columns: list[str]                       # their columns
    value_values: list[str]                        # their table values (or bins)
    value_priorities: np.ndarray
    chain_index: np.ndarray                        # per value: its attribute's row in chains
    chains: list[list[str]]                        # per attribute: attribute, classes, root (upwards)

    def incomplete(self, keep: list[bool]) -> bool:
        return len(keep) != len(self.value_iris) or not all(keep)

    def value_index(self) -> dict[str, int]:
        """Each value's row in ``value_iris`` (built once per part, for patching)."""
        index = getattr(self, "_value_index", None)
        if index is None:
            index = self._value_index = {iri: k for k, iri in enumerate(self.value_iris)}
        return index


def derive(model: TklDataModel) -> Derivation:
    """Priorities (AHP, direct assignment, labels, Algorithm 2) and weights, with a list of
    everything the expert still has to provide."""
    return _derive(model, maps=True)[0]


def weight_triples(model: TklDataModel) -> list[tuple[str, str, float]]:
    """(column, value, weight) of every value in model order; an error listing what is missing."""
    columns, values, weights = weight_columns(model)
    return list(zip(columns, values, weights.tolist()))


def weight_columns(model: TklDataModel) -> tuple[list[str], list[str], np.ndarray]:
    """The columns, values and weights of every value in model order (arrays, not triples:
    what a 20,000-value model hands to scoring after each edit); an error listing what is missing."""
    result, part, keep, weights = _derive(model, maps=False)
    if result.problems:
        raise InputError("the tkl-Data Model is not complete: " + "; ".join(result.problems))
    if part.incomplete(keep):
        return list(compress(part.value_columns, keep)), list(compress(part.value_values, keep)), weights
    return part.value_columns, part.value_values, weights


def group_results(model: TklDataModel) -> dict[str, AHPResult]:
    """The AHP result of every criteria group that has one."""
    return _derive(model, maps=False)[0].groups


def groups(model: TklDataModel) -> list[str]:
    """Parents whose criteria group needs AHP (two or more criteria), top down."""
    if model.root is None:
        return []
    return [parent for parent, group in _table_part(model).upper_groups if len(group) >= 2]


def _derive(model: TklDataModel, maps: bool):
    """The derivation, which values have a weight and their weights (``maps=False``: without
    filling the table part's priorities and the weights into the Derivation's dicts)."""
    result = Derivation()
    if model.root is None:
        result.problems.append("the model has no taxonomy root")
        return result, None, [], np.empty(0)
    part = _table_part(model)
    result.problems += part.unreachable
    criteria = _criteria_priorities(model, part, result)
    result.problems += part.table.problems
    keep, weights = _weights(part, criteria)
    if maps:
        result.priorities = {**part.table.priorities, **criteria}
        result.weights = dict(zip(compress(part.value_iris, keep) if part.incomplete(keep) else part.value_iris,
                                  weights.tolist()))
    return result, part, keep, weights


def _criteria_priorities(model: TklDataModel, part: _TablePart, result: Derivation) -> dict[str, float]:
    """The priority of the root and of every criterion of the upper part (taxonomy classes and
    attributes), filling ``result``'s groups, experts and problems."""
    criteria = {model.root: 1.0}
    judged = Derivation(priorities=criteria, groups=result.groups, experts=result.experts, problems=result.problems)
    for parent, group in part.upper_groups:
        if len(group) == 1:
            criteria[group[0]] = 1.0
        elif group:
            group_priorities(model, parent, group, judged)
    return criteria


@dataclass(frozen=True)
class CriterionEffect:
    """What a criterion's priority does to the weights: the sensitive columns below it, and
    its weight factor — its priority times the priorities above it (NaN while a group above
    is not judged), so that every value below it weighs its label score × this factor
    (elements on the way not multiplied)."""

    iri: str
    label: str
    columns: tuple[str, ...]
    factor: float


def criterion_effects(model: TklDataModel, parent: str, priorities) -> list[CriterionEffect]:
    """The effect of the criteria group under ``parent`` with these ``priorities`` (one per
    criterion, in group order: the AHP result shown, perhaps of a judgement being previewed)."""
    if model.root is None:
        return []
    criteria = _criteria_priorities(model, _table_part(model), Derivation())
    nodes, above = model.nodes, 1.0
    for iri in model.path_to_root(parent):
        if nodes[iri].kind in _MULTIPLIED:
            above *= criteria.get(iri, float("nan"))
    group = model.criteria_group(parent)
    paths = {column: set(model.path_to_root(nodes.attribute_of(column))) for column in model.columns}
    return [CriterionEffect(iri, nodes[iri].label, tuple(c for c, path in paths.items() if iri in path),
                            float(p) * above)
            for iri, p in zip(group, priorities)]


def _weights(part: _TablePart, priorities: dict[str, float]) -> tuple[list[bool], np.ndarray]:
    """weight(v) = priority(v) × the priorities of its attribute, classes and root,
    multiplied in that order (from v up); no weight when one of them has no priority.
    Returns which values have a weight and their weights."""
    depth = max((len(chain) for chain in part.chains), default=0)
    factors = np.ones((depth, len(part.chains)))
    complete = np.ones(len(part.chains), dtype=bool)
    for a, chain in enumerate(part.chains):
        for level, iri in enumerate(chain):
            if iri not in priorities:
                complete[a] = False
                break
            factors[level, a] = priorities[iri]
    weights = part.value_priorities.copy()
    for level in range(depth):  # × 1.0 where a chain is shorter: exact
        weights *= factors[level][part.chain_index]
    if complete.all():
        return [True] * len(weights), weights
    keep = complete[part.chain_index]
    return keep.tolist(), weights[keep]


def share_caches(model: TklDataModel, copy: TklDataModel) -> None:
    """Let a fresh copy of ``model`` (the same nodes, root and scale) reuse what was derived."""
    cached = model._table_part_cache
    if cached is not None and cached[0] == _key(model):
        part = _table_part(model)   # patched up to the model's last relabelling, if need be
        copy._table_part_cache = (_key(copy), part, len(copy.nodes.relabelled))
    copy._group_cache = dict(model._group_cache)


def _key(model: TklDataModel) -> tuple:
    return model.nodes.identity, model.nodes.structure, model.root, model.scale


def _table_part(model: TklDataModel) -> _TablePart:
    key = _key(model)
    cached = model._table_part_cache
    relabelled = model.nodes.relabelled
    if cached is not None and cached[0] == key:
        part, seen = cached[1], cached[2]
        if seen == len(relabelled):
            return part
        patched = _patched(model, part, relabelled[seen:])
        if patched is not None:
            model._table_part_cache = (key, patched, len(relabelled))
            return patched
    nodes = model.nodes
    order = model.top_down()
    reachable = set(order)
    unreachable = []
    for node in nodes.values():
        if node.iri not in reachable:
            if node.kind == Kind.ATTRIBUTE:
                unreachable.append(f"attribute {node.label} is not aligned under a taxonomy class")
            elif node.kind not in TABLE_PART:
                unreachable.append(f"'{node.label}' is not connected to the root")
    upper_groups = [(iri, model.criteria_group(iri)) for iri in order if nodes[iri].kind in UPPER]
    table = Derivation()
    chains: list[list[str]] = []
    chain_of: dict[str, int] = {}
    for node in nodes.values():
        if node.kind == Kind.ATTRIBUTE and node.iri in reachable:
            if not nodes.children_of(node.iri):
                table.problems.append(f"attribute {node.label} has no values"
                                      + (" (a continuous attribute needs bins)" if node.continuous else ""))
            propagate(model, node.iri, table)
            chain_of[node.iri] = len(chains)
            chains.append([iri for iri in model.path_to_root(node.iri) if nodes[iri].kind in _MULTIPLIED])
    values = [node for node in nodes.values() if node.kind == Kind.VALUE and node.iri in table.priorities]
    chain_index = [chain_of[nodes.attribute_of(node.column)] for node in values]
    part = _TablePart(upper_groups, unreachable, table, [v.iri for v in values], [v.column for v in values],
                      [v.value for v in values],
                      np.array([table.priorities[v.iri] for v in values], dtype=np.float64),
                      np.array(chain_index, dtype=np.int64), chains)
    model._table_part_cache = (key, part, len(relabelled))
    return part


def _patched(model: TklDataModel, part: _TablePart, changed: list[str]) -> _TablePart | None:
    """``part`` after labels changed in place on ``changed`` (no node moved, came or went):
    Algorithm 2 again below each changed value or element only. None when a value gains or
    loses a priority (then the whole part is derived again)."""
    nodes, scale = model.nodes, model.scale
    roots = [iri for iri in dict.fromkeys(changed) if iri in nodes and nodes[iri].kind in TABLE_PART]
    if not roots:
        return part
    priorities = dict(part.table.priorities)
    values = part.value_priorities.copy()
    index = part.value_index()
    for root in roots:
        node = nodes[root]
        above = node.parent if nodes[node.parent].kind != Kind.ATTRIBUTE else None
        stack = [(root, priorities.get(above) if above is not None else None)]
        while stack:
            iri, inherited = stack.pop()
            node = nodes[iri]
            priority = scale.priority(node.qualitative) if node.qualitative is not None else inherited
            if (priority is None) != (iri not in priorities):
                return None   # a priority comes or goes: the value list changes
            if priority is not None:
                priorities[iri] = priority
                if iri in index:
                    values[index[iri]] = priority
            stack.extend((child, priority) for child in nodes.children_of(iri))
    table = Derivation(priorities=priorities, problems=part.table.problems)
    patched = _TablePart(part.upper_groups, part.unreachable, table, part.value_iris, part.value_columns,
                         part.value_values, values, part.chain_index, part.chains)
    patched._value_index = index
    return patched


def group_priorities(model: TklDataModel, parent: str, group: list[str], result: Derivation) -> None:
    """Priorities of one criteria group: assigned directly, or AHP on its judgements."""
    nodes = model.nodes
    labels = [nodes[c].label for c in group]
    where = f"the criteria group under {nodes[parent].label} ({', '.join(labels)})"
    assigned = [nodes[c].assigned for c in group]
    if all(p is not None for p in assigned):
        if abs(sum(assigned) - 1.0) > 1e-6:
            result.problems.append(f"the priorities assigned in {where} sum to {sum(assigned):g}, not 1")
            return
        result.priorities.update(zip(group, assigned))
        return
    experts = model.experts(parent)
    if not experts:
        result.problems.append(f"{where} needs pairwise judgements")
        return
    key = (tuple(group), tuple(labels), model.method, model.random_index,
           tuple((e, tuple(model.judgements[parent][e].items())) for e in experts))
    cache = model._group_cache
    if parent in cache and cache[parent][0] == key:
        outcome, own, problem = cache[parent][1]
    else:
        outcome, own, problem = _judged_priorities(model, parent, experts, labels, where)
        cache[parent] = (key, (outcome, own, problem))
    if problem is not None:
        result.problems.append(problem)
        return
    result.groups[parent] = outcome
    if own is not None:
        result.experts[parent] = dict(own)
    result.priorities.update(zip(group, (float(p) for p in outcome.priorities)))


def _judged_priorities(model: TklDataModel, parent: str, experts: list[str], labels: list[str], where: str):
    """AHP on the group's judgements (several experts: geometric mean, and each one's own
    result where their judgements connect the group): (result, own results, problem)."""
    matrices = [model.judgement_matrix(parent, e) for e in experts]
    matrix = matrices[0] if len(matrices) == 1 else aggregate_judgements(matrices)
    try:
        outcome = ahp(matrix, method=model.method, ri=model.random_index, criteria=labels)
    except InputError as error:
        return None, None, f"{where}: {error.message}"
    own = None
    if len(experts) > 1:
        own = {}
        for expert, expert_matrix in zip(experts, matrices):
            try:
                own[expert] = ahp(expert_matrix, method=model.method, ri=model.random_index, criteria=labels)
            except InputError:
                continue  # an expert's partial judgements need not connect the group on their own
    return outcome, own, None


def propagate(model: TklDataModel, attribute: str, result: Derivation) -> None:
    """Algorithm 2: labels give priorities; a node below the first level without one
    takes its nearest ancestor's (depth first, without recursion)."""
    nodes, priorities, scale = model.nodes, result.priorities, model.scale
    stack = list(reversed(nodes.children_of(attribute)))
    for iri in stack:
        if nodes[iri].qualitative is None:
            result.problems.append(f"first-level {nodes[iri].kind.value} {nodes[iri].label} of "
                                   f"{nodes[attribute].label} has no label")
    visited = set()
    while stack:
        iri = stack.pop()
        if iri in visited:
            continue
        visited.add(iri)
        node = nodes[iri]
        if node.qualitative is not None:
            priorities[iri] = scale.priority(node.qualitative)
        elif node.parent in priorities and node.parent != attribute:
            priorities[iri] = priorities[node.parent]
        stack.extend(reversed(nodes.children_of(iri)))
