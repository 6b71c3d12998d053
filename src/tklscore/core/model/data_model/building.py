"""A new tkl-Data Model for the table in front of the expert (issue 20 §1; data-model.md §1-3,
§6): from the table and its roles, one attribute per sensitive column aligned with a class
of the vocabulary (the expert's, else the suggested one, marked a suggestion), the values of
every categorical column and the bins of every continuous one, every first-level value
labelled with the scale's default label, marked "not yet judged". The taxonomy above the
classes is extracted as §1 says (breadth first, one parent per class — the expert's choice
where given — unmapped leaves pruned, one root). The Model view and ``tklscore model new``
both build through :func:`new_model`, so the same choices give the same model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from tklscore.core.errors import InputError
from tklscore.core.model.bins import check_bins, quantile_bins, round_number_bins
from tklscore.core.model.class_suggestions import ClassSuggestion, suggest_class
from tklscore.core.model.data_model.nodes import TABLE_PART, Kind
from tklscore.core.model.data_model.tree import TklDataModel
from tklscore.core.model.taxonomy import Taxonomy, extract_taxonomy

QUANTILE, ROUND = "quantile", "round"
BIN_METHODS = (QUANTILE, ROUND)


@dataclass
class NewModel:
    """The model built, the taxonomy extracted for it, the suggestion made for every
    sensitive column, and the columns left without a class."""

    model: TklDataModel
    taxonomy: Taxonomy | None
    suggestions: dict[str, ClassSuggestion] = field(default_factory=dict)
    suggested: list[str] = field(default_factory=list)      # columns aligned by suggestion (not yet confirmed)
    unaligned: list[str] = field(default_factory=list)


def source_name(table) -> str:
    """The name a model keeps of the table it was built for: the file's name (``adult.csv``)."""
    return Path(str(table.name)).name or str(table.name)


def table_namespace(table) -> str:
    """``https://tklscore.org/tables/<file stem>#``: the namespace of a table's model nodes."""
    stem = Path(str(table.name)).stem or "table"
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", stem).strip("-") or "table"
    return f"https://tklscore.org/tables/{slug}#"


def default_bins(table, column: str, method: str = QUANTILE, parameter: float | None = None) -> list[str]:
    """Bins proposed for continuous ``column``: quantile (``parameter`` bins, default 4) or
    round-number bins (``parameter`` the width, default a round width for about 5 bins)."""
    numbers = table.numeric(column)
    if method == QUANTILE:
        return quantile_bins(numbers, int(parameter) if parameter else 4)
    if method == ROUND:
        return round_number_bins(numbers, parameter)
    raise InputError(f"unknown way to bin '{column}': '{method}'", hint=f"use {' or '.join(BIN_METHODS)}")


def new_model(table, roles, vocabulary, alignment: dict[str, str] | None = None,
              bins: dict[str, list[str]] | None = None, keep_parent: dict[str, str] | None = None,
              root: str | None = None, default_label: str | None = None,
              labels: dict[str, str] | None = None, namespace: str | None = None, **options) -> NewModel:
    """Build the model of ``table``'s sensitive columns (``roles.sa``).

    ``alignment``: column → class (IRI, ``prefix:name`` or local name) the expert chose; the
    other columns get the suggested class, marked a suggestion. ``bins``: column → interval
    texts for continuous columns (default: quantile bins). ``keep_parent``: class → the
    parent it keeps where it has several. ``default_label``: the label every first-level
    value starts with, not yet judged (default: the scale's). ``labels``: node label, IRI
    or ``column:value`` → the expert's label."""
    if not roles.sa:
        raise InputError("choose the sensitive columns first: a tkl-Data Model has one attribute per "
                         "sensitive column")
    table.require_columns(list(roles.sa), "sensitive column")
    chosen: dict[str, str] = {}
    for column, cls in (alignment or {}).items():
        if column not in roles.sa:
            raise InputError(f"'{column}' is aligned with {cls} but is not a sensitive column",
                             hint=f"sensitive columns: {', '.join(roles.sa)}")
        try:
            chosen[column] = vocabulary.resolve(cls)
        except InputError as error:
            raise InputError(f"column '{column}': {error.message}", hint=error.hint) from None
    suggestions = {column: suggest_class(column, table.codes(column).uniques[:2000].tolist(), vocabulary)
                   for column in roles.sa}
    suggested = [c for c in roles.sa if c not in chosen and suggestions[c]]
    mapping = {c: chosen[c] if c in chosen else suggestions[c].iri for c in roles.sa if c in chosen or suggestions[c]}
    unaligned = [c for c in roles.sa if c not in mapping]
    if not mapping:
        raise InputError("no sensitive column has a class, so there is no taxonomy to build: "
                         + "; ".join(s.reason for s in suggestions.values()),
                         hint="align the columns yourself (--map COLUMN=CLASS, or drag a class onto a column)")
    taxonomy = extract_taxonomy(vocabulary, list(dict.fromkeys(mapping.values())), keep_parent,
                                _root(vocabulary, mapping, root))
    bins = {column: [str(i) for i in check_bins(list(given), column)] for column, given in (bins or {}).items()}
    for column in roles.sa:
        if column in roles.continuous and column not in bins:
            bins[column] = default_bins(table, column)
    model = TklDataModel.build(taxonomy, table, roles, mapping, bins,
                               namespace=namespace or table_namespace(table), **options)
    model.source = source_name(table)
    model.vocabulary = vocabulary.key
    for column in suggested:
        attribute = model.attribute(column)
        model.nodes[attribute.iri] = replace(attribute, provisional=True)
    label_defaults(model, default_label)
    if labels:
        apply_labels(model, labels)
    return NewModel(model, taxonomy, suggestions, suggested, unaligned)


def _root(vocabulary, mapping: dict[str, str], root: str | None) -> str | None:
    if root is not None:
        return vocabulary.resolve(root)
    default = vocabulary.default_root
    if default is None:
        return None
    import networkx as nx

    below = nx.descendants(vocabulary.graph, default) | {default}
    return default if all(cls in below for cls in mapping.values()) else None


def label_defaults(model: TklDataModel, default_label: str | None = None) -> int:
    """Give every first-level value or element without a label the default label, marked not
    yet judged; returns how many."""
    label = default_label or model.scale.default
    model.scale.priority(label)
    count = 0
    for iri in model.unlabelled():
        model.nodes[iri] = replace(model.nodes[iri], qualitative=label, provisional=True)
        count += 1
    return count


def find_table_node(model: TklDataModel, key: str):
    """A value or element named by its node label (``V.Sales``), IRI, ``column:value`` or, when
    only one column has it, the table value itself."""
    if key in model.nodes:
        return model.nodes[key]
    found = [n for n in model.nodes.values() if n.label == key and n.kind in TABLE_PART]
    if len(found) == 1:
        return found[0]
    column, sep, value = key.partition(":")
    if sep and column in model.columns:
        iri = model.nodes.value_of(column, value)
        if iri is None:
            for node in model.values_of(column):   # a bin written another way: [30, inf)
                if _same_bin(node.value, value):
                    iri = node.iri
        if iri is not None:
            return model.nodes[iri]
        raise InputError(f"column '{column}' has no value '{value}' in the model")
    owners = [c for c in model.columns if model.nodes.value_of(c, key) is not None]
    if len(owners) == 1:
        return model.nodes[model.nodes.value_of(owners[0], key)]
    if len(owners) > 1:
        raise InputError(f"the value '{key}' belongs to several columns ({', '.join(owners)})",
                         hint=f"write it as COLUMN:VALUE, e.g. {owners[0]}:{key}")
    raise InputError(f"the model has no value or element '{key}'",
                     hint="name a value as COLUMN:VALUE, by its node label (V.…) or by its value alone")


def _same_bin(a: str, b: str) -> bool:
    from tklscore.core.scoring.weights import Interval

    left, right = Interval.parse(a), Interval.parse(b)
    return left is not None and left == right


def apply_labels(model: TklDataModel, labels: dict[str, str]) -> None:
    """The expert's labels: key (see :func:`find_table_node`, or ``COLUMN:*`` for every
    first-level value of a column) → label of the model's scale."""
    for key, label in labels.items():
        column, sep, rest = key.partition(":")
        if sep and rest == "*" and column in model.columns:
            iris = model.children(model.attribute(column).iri)
        else:
            node = find_table_node(model, key)
            if node.kind not in TABLE_PART:
                raise InputError(f"'{key}' is a {node.kind.value}: only values and elements take a label")
            iris = [node.iri]
        model.set_labels(iris, label)


def first_level(model: TklDataModel, kind: Kind | None = None) -> list[str]:
    """The values and elements right below an attribute (the ones that must have a label)."""
    return [iri for column in model.columns for iri in model.children(model.attribute(column).iri)
            if kind is None or model.nodes[iri].kind == kind]
