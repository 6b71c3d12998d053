"""The tkl-Data Model's child index and its kept derivation: after any sequence of edits,
``derive()`` and ``groups()`` equal a plain scan of the nodes (the definition of
data-model.md §2-3 written out naively here), and copies diverge independently."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tklscore.core.errors import InputError
from tklscore.core.examples import thesis_model
from tklscore.core.model.ahp import aggregate_judgements, ahp
from tklscore.core.model.data_model import CRITERIA, TABLE_PART, Kind, TklDataModel

MULTIPLIED = (Kind.ATTRIBUTE, Kind.TAXONOMY, Kind.ROOT)


def scan_children(model: TklDataModel, iri: str) -> list[str]:
    return [n.iri for n in model.nodes.values() if n.parent == iri]


def reference_weights(model: TklDataModel) -> tuple[dict[str, float], dict[str, float]]:
    """Priorities and weights by scanning every node for every question (quadratic, plain)."""
    priorities = {model.root: 1.0}
    order, queue = [], [model.root]
    while queue:
        iri = queue.pop(0)
        order.append(iri)
        queue += scan_children(model, iri)
    for parent in order:
        if model.nodes[parent].kind not in (Kind.ROOT, Kind.TAXONOMY):
            continue
        group = [c for c in scan_children(model, parent) if model.nodes[c].kind in CRITERIA]
        if len(group) == 1:
            priorities[group[0]] = 1.0
        elif group:
            experts = model.experts(parent)
            if not experts:
                continue
            matrices = [model.judgement_matrix(parent, e) for e in experts]
            matrix = matrices[0] if len(matrices) == 1 else aggregate_judgements(matrices)
            priorities.update(zip(group, map(float, ahp(matrix, method=model.method,
                                                        ri=model.random_index).priorities)))
    for attribute in (n.iri for n in model.nodes.values() if n.kind == Kind.ATTRIBUTE and n.iri in order):
        stack = list(reversed(scan_children(model, attribute)))
        while stack:
            node = model.nodes[stack.pop()]
            if node.qualitative is not None:
                priorities[node.iri] = model.scale.priority(node.qualitative)
            elif node.parent in priorities and node.parent != attribute:
                priorities[node.iri] = priorities[node.parent]
            stack += reversed(scan_children(model, node.iri))
    weights = {}
    for node in model.nodes.values():
        if node.kind != Kind.VALUE or node.iri not in priorities:
            continue
        weight = priorities[node.iri]
        for iri in model.path_to_root(node.parent):
            if model.nodes[iri].kind in MULTIPLIED:
                if iri not in priorities:
                    break
                weight *= priorities[iri]
        else:
            weights[node.iri] = weight
    return priorities, weights


EDITS = st.lists(st.tuples(st.sampled_from(["element", "move", "label", "unlabel", "judge", "remove", "copy"]),
                           st.integers(0, 10_000), st.integers(0, 10_000)), max_size=25)


@settings(max_examples=60, deadline=None)
@given(EDITS)
def test_derivation_equals_a_plain_scan_after_any_edits(edits):
    model = thesis_model()
    model.derive()  # what is kept from here on must follow every edit
    for step, (edit, i, j) in enumerate(edits):
        table_part = [n for n in model.nodes.values() if n.kind in TABLE_PART]
        attributes = [n for n in model.nodes.values() if n.kind == Kind.ATTRIBUTE]
        try:
            if edit == "element" and attributes:
                model.add_element(attributes[i % len(attributes)].column, f"group {step}",
                                  qualitative=["low", "moderate", "restricted"][j % 3])
            elif edit == "move" and table_part:
                node = table_part[i % len(table_part)]
                targets = [n for n in table_part if n.kind == Kind.ELEMENT and n.column == node.column]
                model.move(node.iri, targets[j % len(targets)].iri if targets else model.attribute(node.column).iri)
            elif edit in ("label", "unlabel") and table_part:
                model.set_label(table_part[i % len(table_part)].iri, "moderate" if edit == "label" else None)
            elif edit == "judge":
                parent = model.groups()[i % len(model.groups())]
                group = model.criteria_group(parent)
                model.set_judgement(parent, group[0], group[-1], [1 / 3, 2.0, 5.0][j % 3])
            elif edit == "remove" and table_part:
                model.remove(table_part[i % len(table_part)].iri)
            elif edit == "copy":
                model = model.copy()
        except InputError:
            continue
        derivation = model.derive()
        priorities, weights = reference_weights(model)
        assert derivation.weights == weights  # the same products, in the same order: exactly equal
        assert {k: v for k, v in derivation.priorities.items()} == priorities
        assert list(derivation.weights) == [n.iri for n in model.nodes.values() if n.iri in weights]
        assert model.groups() == [p for p in model.top_down()
                                  if sum(model.nodes[c].kind in CRITERIA for c in scan_children(model, p)) >= 2]
        for iri in model.nodes:
            assert model.children(iri) == scan_children(model, iri)


def test_a_copy_reuses_the_derivation_and_then_goes_its_own_way():
    model = thesis_model()
    before = model.derive().weights
    other = model.copy()
    other.set_label(other.find("V.ARV").iri, "very restricted")
    assert model.derive().weights == before
    changed = other.derive().weights
    assert changed[other.find("V.ARV").iri] > before[model.find("V.ARV").iri]
    assert {k: v for k, v in changed.items() if k != other.find("V.ARV").iri} == \
        {k: v for k, v in before.items() if k != model.find("V.ARV").iri}


def test_thesis_weights_through_the_index_are_table_4_2():
    weights = {(a, v): w for a, v, w in thesis_model(judgements=False).weight_triples()}
    assert weights[("Disease", "HIV")] == pytest.approx(0.432, abs=1e-9)
    assert weights[("Initial Diagnosis", "Migraine")] == pytest.approx(0.04752, abs=1e-9)


def test_a_copy_of_the_node_table_has_the_same_indexes_and_is_independent():
    model = thesis_model()
    nodes = model.nodes
    other = nodes.copy()
    assert dict(other) == dict(nodes) and other.identity != nodes.identity
    for iri in list(nodes) + [None]:
        assert other.children_of(iri) == nodes.children_of(iri)
    assert other.attribute_columns() == nodes.attribute_columns()
    for column in nodes.attribute_columns():
        assert other.attribute_of(column) == nodes.attribute_of(column)
        assert other.values_of(column) == nodes.values_of(column)
    # edits of the copy (a new node last in model order, a removal) leave the original as it was
    arv = model.find("V.ARV")
    parent_children = nodes.children_of(arv.parent)
    del other[arv.iri]
    other[arv.iri + "-new"] = dataclasses.replace(arv, iri=arv.iri + "-new")
    assert nodes.children_of(arv.parent) == parent_children and arv.iri in nodes
    assert other.children_of(arv.parent) == [c for c in parent_children if c != arv.iri] + [arv.iri + "-new"]
    assert other.value_of(arv.column, arv.value) == arv.iri + "-new"
    assert nodes.value_of(arv.column, arv.value) == arv.iri
    assert list(other)[-1] == arv.iri + "-new" and list(nodes) == list(model.nodes)
