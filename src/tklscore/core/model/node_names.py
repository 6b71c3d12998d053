"""How a tkl-Data Model node is named on screen and in reports: the value itself as the
name, and the model's code for its kind (``V-0.``, ``V-1.``, ``A.``, ``E.``) as a small tag.

Node labels carry their kind and, for a value name shared by several attributes, a
number that keeps them apart (data-model.md: ``V-0.Flu`` of Disease, ``V-1.Flu`` of
Initial Diagnosis); readers want ``Flu`` with its column, and the code only as a hint.
"""

from __future__ import annotations

import re

from tklscore.core.model.data_model import Kind, Node

_CODE = re.compile(r"^(?P<tag>(?:V|A|E)(?:-\d+)?)\.(?P<name>.+)$")


def display_name(node: Node) -> tuple[str, str]:
    """``(tag, name)``: e.g. ``("V-0", "Flu")``, ``("A", "Initial Diagnosis")``,
    ``("E", "Viral")``, ``("V", "[0,30)")``; taxonomy classes have no tag."""
    match = _CODE.match(node.label)
    if node.kind == Kind.ATTRIBUTE and node.column:
        return (match.group("tag") if match else "A"), node.column
    if node.kind == Kind.VALUE and node.value is not None:
        return (match.group("tag") if match else "V"), str(node.value)
    if match and node.kind == Kind.ELEMENT:
        return match.group("tag"), match.group("name")
    return "", node.label


def inherited_label(model, iri: str) -> str | None:
    """The qualitative label a node without its own takes from its nearest labelled
    ancestor (propagation, Algorithm 2); None when it has its own or none is found."""
    node = model.nodes[iri]
    if node.qualitative is not None:
        return None
    for ancestor in model.path_to_root(iri)[1:]:
        label = model.nodes[ancestor].qualitative
        if label is not None:
            return label
    return None
