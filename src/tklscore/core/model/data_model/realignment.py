"""Re-aligning a tkl-Data Model with a vocabulary (data-model.md §1, gui.md §2.3): align a
column under another class and re-extract the taxonomy above the alignment, keeping every
label, element, value, assigned priority and judgement that still applies."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import networkx as nx

from tklscore.core.errors import InputError
from tklscore.core.model.data_model.nodes import UPPER, Kind, Node, NodeTable
from tklscore.core.model.taxonomy import TAXONOMY_ROOT, extract_taxonomy
from tklscore.core.model.vocabulary import local_name

if TYPE_CHECKING:
    from tklscore.core.model.data_model.tree import TklDataModel


@dataclass
class Realignment:
    """What :func:`realign` did: the new taxonomy (its conflicts, and what the extraction
    pruned), the classes that came into the model or left it, and the judgements (group,
    criterion a, criterion b) that no longer apply."""

    taxonomy: object
    added: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    forgotten: list[tuple[str, str, str]] = field(default_factory=list)
    renamed: dict[str, str] = field(default_factory=dict)
    """Classes of the model found in the vocabulary under another IRI (by local name)."""

    @property
    def conflicts(self) -> list:
        return self.taxonomy.conflicts


def taxonomy_for(model: TklDataModel, vocabulary, alignment: dict[str, str] | None = None,
                 keep_parent: dict[str, str] | None = None, keep_current: bool = True):
    """The taxonomy extracted from ``vocabulary`` above the classes of ``alignment``
    (default: the model's own). With ``keep_current``, a class with several parents keeps
    the parent it has in this model unless ``keep_parent`` says otherwise; the current
    root is kept when it still lies above every mapped class."""
    alignment = resolved_alignment(vocabulary, model.alignment() if alignment is None else alignment)
    mapped = list(dict.fromkeys(alignment.values()))
    if not mapped:
        raise InputError("no column is aligned: align at least one column with a vocabulary class")
    root = None
    for candidate in (model.root, vocabulary.default_root):  # the model's root, else the vocabulary's own
        if candidate is not None and candidate != TAXONOMY_ROOT and candidate in vocabulary.graph:
            below = nx.descendants(vocabulary.graph, candidate) | {candidate}
            if all(m in below for m in mapped):
                root = candidate
                break
    keep = {vocabulary.resolve(c): vocabulary.resolve(p) for c, p in (keep_parent or {}).items()}
    taxonomy = extract_taxonomy(vocabulary, mapped, keep, root)
    if keep_current:
        current = {}
        for conflict in taxonomy.conflicts:
            node = model.nodes.get(conflict.node)
            if (conflict.node not in keep and node is not None and node.kind == Kind.TAXONOMY
                    and node.parent in conflict.parents and node.parent != conflict.kept):
                current[conflict.node] = node.parent
        if current:
            taxonomy = extract_taxonomy(vocabulary, mapped, {**current, **keep}, root)
    return taxonomy


def resolved_alignment(vocabulary, alignment: dict[str, str]) -> dict[str, str]:
    """The alignment in ``vocabulary``'s IRIs: a class the vocabulary lacks is found by its
    local name when that is unambiguous (IRIs differ between DPV releases)."""
    resolved = {}
    for column, cls in alignment.items():
        try:
            resolved[column] = vocabulary.resolve(cls)
        except InputError as error:
            found = same_class(vocabulary, cls)
            if found is None:
                raise InputError(f"column '{column}' is aligned under '{local_name(cls)}', which the "
                                 f"vocabulary lacks: {error.message}", hint=error.hint) from None
            resolved[column] = found
    return resolved


def same_class(vocabulary, iri: str) -> str | None:
    """The vocabulary's class with the local name of ``iri``, when there is exactly one."""
    try:
        return vocabulary.resolve(local_name(iri))
    except InputError:
        return None


def rename_classes(model: TklDataModel, rename: dict[str, str]) -> None:
    """Give taxonomy classes new IRIs (another release of the vocabulary), judgements included."""
    if not rename:
        return

    def new(iri: str) -> str:
        return rename.get(iri, iri)

    model.nodes = NodeTable({new(i): replace(n, iri=new(n.iri), parent=None if n.parent is None else new(n.parent))
                             for i, n in model.nodes.items()})
    model.root = None if model.root is None else new(model.root)
    model.judgements = {new(p): {e: {(new(a), new(b)): r for (a, b), r in t.items()} for e, t in experts.items()}
                        for p, experts in model.judgements.items()}


def realign(model: TklDataModel, vocabulary, column: str | None = None, class_iri: str | None = None,
            keep_parent: dict[str, str] | None = None, keep_current: bool = True) -> Realignment:
    """Align ``column`` under ``class_iri`` (a class of ``vocabulary``) and rebuild the upper
    part: the taxonomy is re-extracted from the new alignment (``keep_parent``: class → the
    parent it keeps; ``keep_current``: see :func:`taxonomy_for`). Every label, element,
    value, assigned priority and judgement that still applies is kept: a judgement applies
    while both criteria are still in the group under the same parent."""
    rename = {}
    for iri, node in model.nodes.items():
        if node.kind in UPPER and iri not in vocabulary.graph:
            found = same_class(vocabulary, iri)
            if found is not None and found not in model.nodes:
                rename[iri] = found
    if column is not None:
        model.attribute(column)
    rename_classes(model, rename)
    alignment = model.alignment()
    if column is not None:
        if class_iri is None:
            raise InputError(f"choose the class to align column '{column}' with")
        alignment[column] = vocabulary.resolve(class_iri)
    alignment = resolved_alignment(vocabulary, alignment)
    taxonomy = taxonomy_for(model, vocabulary, alignment, keep_parent, keep_current)
    nodes: dict[str, Node] = {}
    for iri in taxonomy.nodes:
        kind = Kind.ROOT if iri == taxonomy.root else Kind.TAXONOMY
        parent = taxonomy.parent.get(iri) if iri != taxonomy.root else None
        old = model.nodes.get(iri)
        if old is not None and old.kind not in UPPER:
            raise InputError(f"the class '{taxonomy.label(iri)}' has the IRI of the model's "
                             f"{old.kind.value} '{old.label}'")
        assigned = old.assigned if old is not None and kind == Kind.TAXONOMY else None
        nodes[iri] = Node(iri, kind, taxonomy.label(iri), parent, assigned=assigned)
    for node in model.nodes.values():
        if node.kind in UPPER:
            continue
        if node.kind == Kind.ATTRIBUTE:  # the column aligned now is the expert's choice, no longer a suggestion
            node = replace(node, parent=alignment.get(node.column),
                           provisional=node.provisional and node.column != column)
        nodes[node.iri] = node
    upper = [iri for iri, n in model.nodes.items() if n.kind in UPPER]
    result = Realignment(taxonomy, added=[i for i in taxonomy.nodes if i not in model.nodes],
                         dropped=[i for i in upper if i not in nodes], renamed=rename)
    old_groups = {p: set(model.criteria_group(p)) for p in model.judgements if p in model.nodes}
    model.nodes = NodeTable(nodes)
    model.root = taxonomy.root
    for parent in list(model.judgements):
        group = set(model.criteria_group(parent)) if parent in model.nodes else set()
        applies = group & old_groups.get(parent, set())
        for table in model.judgements[parent].values():
            for pair in [p for p in table if not set(p) <= applies]:
                del table[pair]
                result.forgotten.append((parent, *pair))
        if parent not in model.nodes:
            del model.judgements[parent]
    return result
