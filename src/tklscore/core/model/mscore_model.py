"""M-Score's own sensitive-value weights (Harel et al.; spec data-model.md §5, thesis
Section 3.3.1): a three-level AHP tree.

- level 1, the goal, priority 1;
- level 2, the sensitive attributes, whose priorities come from one AHP matrix;
- level 3, each attribute's (discretised) values, one AHP matrix per attribute.

``weight(value) = priority(value) × priority(attribute) × 1``. Any level may instead be
given priorities directly. A group of a single node has priority 1. Thesis example
(Figure 3.1): priority(Statin) 0.2 × priority(Medication) 0.5 × 1 = 0.1 — see
:func:`thesis_example_model`.

The result, :meth:`MScoreModel.weights`, is the ``(attribute, value, weight)`` triples that
:class:`tklscore.core.scoring.weights.Weights` takes; for a continuous attribute the values are
intervals such as ``[0,30)``.

Persistence is Turtle with the vocabulary ``https://tklscore.org/ns/mscore#`` (prefix
``ms:``); loading identifies nodes by their literals, so any IRIs or blank nodes do::

    <https://tklscore.org/models/…/> a ms:Model ; rdfs:label "…" ;
        ms:ahpMethod "eigenvector" ; ms:randomIndex "thesis" .
    m:attribute/Medication a ms:Attribute ; ms:name "Medication" ; ms:position 0 .
    m:value/Medication/Statin a ms:Value ; ms:attribute m:attribute/Medication ;
        ms:value "Statin" ; ms:position 2 .
    m:judgement/0 a ms:Judgement ; ms:group m:attribute/Medication ;    # or the model: attributes
        ms:criterionA m:value/Medication/ARV ; ms:criterionB m:value/Medication/Statin ; ms:rating 1 .
    m:attribute/Medication ms:priority 0.5 .    # a priority given directly, in place of judgements

A group (the attributes, or one attribute's values) is given either by judgements (the
upper triangle of its completed matrix is written) or by ``ms:priority`` on its members.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from urllib.parse import quote

import numpy as np

from tklscore.core.model.ahp import ACCEPTABLE_CR, AHPResult, ahp, check_judgement, reciprocal_matrix
from tklscore.core.errors import InputError
from tklscore.core.files.rdf import decimal_literal, save_turtle
from tklscore.core.scoring.weights import Weights

GOAL = "Goal"
VOCABULARY = "https://tklscore.org/ns/mscore#"
MODEL_NAMESPACE_BASE = "https://tklscore.org/models/"
_SUM_TOL = 1e-6


class MScoreModel:
    """The three-level tree of one table's sensitive attributes and their values.

    ``attributes`` maps each sensitive attribute to its values (in the order the
    judgement matrices use), e.g. ``{"Medication": ["ARV", "Statin", ...], "Age":
    ["[0,30)", "[30,inf)"]}``.
    """

    def __init__(self, attributes: Mapping[str, Sequence[str]] | Iterable[tuple[str, Sequence[str]]],
                 *, method: str = "eigenvector", ri: str = "thesis", name: str = "M-Score model"):
        items = list(attributes.items() if isinstance(attributes, Mapping) else attributes)
        if not items:
            raise InputError("an M-Score model needs at least one sensitive attribute", file=name)
        self.name = name
        self.method = method
        self.ri = ri
        self._values: dict[str, list[str]] = {}
        for attribute, values in items:
            if not isinstance(attribute, str) or not attribute:
                raise InputError(f"attribute name {attribute!r} must be a non-empty string", file=name)
            if attribute in self._values:
                raise InputError(f"attribute '{attribute}' is listed twice", file=name)
            values = [str(v) for v in values]
            if not values:
                raise InputError(f"attribute '{attribute}' has no values", file=name)
            repeated = sorted({v for v in values if values.count(v) > 1})
            if repeated:
                raise InputError(f"attribute '{attribute}' lists value(s) {', '.join(map(repr, repeated))} twice",
                                 file=name)
            self._values[attribute] = values
        self._priorities: dict[str | None, np.ndarray] = {}   # None: the attribute level
        self.results: dict[str | None, AHPResult] = {}        # AHP results (CR etc.), same keys
        for key, members in [(None, self.attributes)] + [(a, v) for a, v in self._values.items()]:
            if len(members) == 1:
                self._priorities[key] = np.ones(1)

    # ------------------------------------------------------------------ structure
    @property
    def attributes(self) -> list[str]:
        return list(self._values)

    def values(self, attribute: str) -> list[str]:
        return list(self._values[self._attribute(attribute)])

    def _attribute(self, attribute: str) -> str:
        if attribute not in self._values:
            raise InputError(f"unknown attribute '{attribute}'", file=self.name,
                             hint=f"the model's attributes are {', '.join(map(repr, self._values))}")
        return attribute

    def _members(self, key: str | None) -> list[str]:
        return self.attributes if key is None else self._values[key]

    def _label(self, key: str | None) -> str:
        return "the attributes" if key is None else f"the values of '{key}'"

    # ------------------------------------------------------------------ judgements
    def set_attribute_judgements(self, matrix) -> AHPResult:
        """Priorities of the attributes from an AHP matrix (rows/columns in the order of
        :attr:`attributes`) or from named judgements ``{(a, b): a_ab}``."""
        return self._judge(None, matrix)

    def set_value_judgements(self, attribute: str, matrix) -> AHPResult:
        """Priorities of one attribute's values from an AHP matrix (order of
        :meth:`values`) or from named judgements ``{(v, w): a_vw}``."""
        return self._judge(self._attribute(attribute), matrix)

    def _judge(self, key: str | None, matrix) -> AHPResult:
        members = self._members(key)
        if isinstance(matrix, Mapping):
            index = {m: k for k, m in enumerate(members)}
            unknown = [pair for pair in matrix if any(p not in index for p in pair)]
            if unknown:
                raise InputError(f"judgement {unknown[0]!r} names something that is not one of {self._label(key)} "
                                 f"({', '.join(map(repr, members))})", file=self.name)
            matrix = reciprocal_matrix(len(members), {(index[p], index[q]): v for (p, q), v in matrix.items()})
        result = ahp(matrix, method=self.method, ri=self.ri, criteria=members,
                     name=f"{self.name}, judgements of {self._label(key)}")
        self._priorities[key] = result.priorities
        self.results[key] = result
        return result

    def set_priorities(self, priorities: Mapping[str, float] | Sequence[float], attribute: str | None = None,
                       *, normalize: bool = False) -> None:
        """Set priorities directly: of the attributes (``attribute=None``) or of one
        attribute's values; a mapping name → priority (every member named) or a sequence in
        the model's order. They must be ≥ 0 and, like AHP priorities, sum to 1 —
        or pass ``normalize=True`` to scale them to sum 1."""
        key = None if attribute is None else self._attribute(attribute)
        members = self._members(key)
        where = f"{self.name}, priorities of {self._label(key)}"
        if isinstance(priorities, Mapping):
            extra = [k for k in priorities if k not in members]
            absent = [m for m in members if m not in priorities]
            if extra or absent:
                raise InputError(("unknown: " + ", ".join(map(repr, extra)) + "; " if extra else "")
                                 + ("missing: " + ", ".join(map(repr, absent)) if absent else ""), file=where,
                                 hint=f"give one priority for each of {', '.join(map(repr, members))}")
            values = [priorities[m] for m in members]
        else:
            values = list(priorities)
            if len(values) != len(members):
                raise InputError(f"{len(values)} priorities for {len(members)} members "
                                 f"({', '.join(map(repr, members))})", file=where)
        for member, value in zip(members, values):
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
                    or not math.isfinite(value) or value < 0:
                raise InputError(f"priority of '{member}' is {value!r}; it must be a number ≥ 0", file=where)
        vector = np.array(values, dtype=np.float64)
        total = vector.sum()
        if normalize:
            if total <= 0:
                raise InputError("the priorities are all 0; nothing to normalise", file=where)
            vector = vector / total
        elif not math.isclose(total, 1.0, rel_tol=0, abs_tol=_SUM_TOL):
            raise InputError(f"the priorities sum to {total:g}, not 1 (the priorities of one group sum to 1)",
                             file=where, hint="correct them, or pass normalize=True to scale them")
        self._priorities[key] = vector
        self.results.pop(key, None)

    # ------------------------------------------------------------------ results
    def attribute_priorities(self) -> dict[str, float]:
        return dict(zip(self.attributes, map(float, self._require(None))))

    def value_priorities(self, attribute: str) -> dict[str, float]:
        key = self._attribute(attribute)
        return dict(zip(self._values[key], map(float, self._require(key))))

    def _require(self, key: str | None) -> np.ndarray:
        if key not in self._priorities:
            raise InputError(f"{self._label(key)} have no priorities yet", file=self.name,
                             hint="give AHP judgements or priorities for them")
        return self._priorities[key]

    def missing(self) -> list[str | None]:
        """The groups still without priorities (None: the attribute level)."""
        return [k for k in [None, *self._values] if k not in self._priorities]

    def weights(self) -> list[tuple[str, str, float]]:
        """``(attribute, value, weight)`` with weight = priority(value) × priority(attribute) × 1."""
        absent = self.missing()
        if absent:
            raise InputError(f"no priorities yet for {', '.join(self._label(k) for k in absent)}", file=self.name,
                             hint="give AHP judgements or priorities for every group before deriving weights")
        top = self._priorities[None]
        return [(attribute, value, float(top[a] * p))
                for a, attribute in enumerate(self.attributes)
                for value, p in zip(self._values[attribute], self._priorities[attribute])]

    def to_weights(self) -> Weights:
        return Weights(self.weights(), name=self.name)

    def inconsistent(self, threshold: float = ACCEPTABLE_CR) -> dict[str | None, AHPResult]:
        """The groups whose AHP judgements have CR above ``threshold``."""
        return {k: r for k, r in self.results.items() if not r.acceptable(threshold)}

    # ------------------------------------------------------------------ Turtle
    def to_graph(self, namespace: str | None = None):
        from rdflib import RDF, RDFS, Graph, Literal, Namespace, URIRef

        ms = Namespace(VOCABULARY)
        namespace = namespace or MODEL_NAMESPACE_BASE + quote(self.name.replace(" ", "-"), safe="") + "/"
        graph = Graph()
        graph.bind("ms", ms)
        graph.bind("m", Namespace(namespace))
        model = URIRef(namespace)
        graph.add((model, RDF.type, ms.Model))
        graph.add((model, RDFS.label, Literal(self.name)))
        graph.add((model, ms.ahpMethod, Literal(self.method)))
        graph.add((model, ms.randomIndex, Literal(self.ri)))

        def attribute_iri(attribute: str) -> URIRef:
            return URIRef(f"{namespace}attribute/{quote(attribute, safe='')}")

        def value_iri(attribute: str, value: str) -> URIRef:
            return URIRef(f"{namespace}value/{quote(attribute, safe='')}/{quote(value, safe='')}")

        members_of = {None: [attribute_iri(a) for a in self.attributes]}
        for position, attribute in enumerate(self.attributes):
            node = attribute_iri(attribute)
            graph.add((node, RDF.type, ms.Attribute))
            graph.add((node, ms.name, Literal(attribute)))
            graph.add((node, ms.position, Literal(position)))
            members_of[attribute] = []
            for place, value in enumerate(self._values[attribute]):
                member = value_iri(attribute, value)
                graph.add((member, RDF.type, ms.Value))
                graph.add((member, ms.attribute, node))
                graph.add((member, ms.value, Literal(value)))
                graph.add((member, ms.position, Literal(place)))
                members_of[attribute].append(member)
        count = 0
        for key, members in members_of.items():
            if key in self.results and len(members) > 1:
                group = model if key is None else attribute_iri(key)
                matrix = self.results[key].completed_matrix
                for i in range(len(members)):
                    for j in range(i + 1, len(members)):
                        node = URIRef(f"{namespace}judgement/{count}")
                        count += 1
                        graph.add((node, RDF.type, ms.Judgement))
                        graph.add((node, ms.group, group))
                        graph.add((node, ms.criterionA, members[i]))
                        graph.add((node, ms.criterionB, members[j]))
                        graph.add((node, ms.rating, decimal_literal(matrix[i, j])))
            elif key in self._priorities:
                for member, priority in zip(members, self._priorities[key]):
                    graph.add((member, ms.priority, decimal_literal(priority)))
        return graph

    def save(self, path: str | os.PathLike) -> Path:
        """Write the model as Turtle, atomically."""
        return save_turtle(self.to_graph(), path)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "MScoreModel":
        """Read a model written by :meth:`save` (or by hand in the same vocabulary)."""
        from tklscore.core.files.rdf import parse_rdf_file

        return cls.from_graph(parse_rdf_file(path, what="M-Score model file"), str(path))

    @classmethod
    def from_graph(cls, graph, file: str = "<M-Score model>") -> "MScoreModel":
        from rdflib import RDF, RDFS, Literal, Namespace

        ms = Namespace(VOCABULARY)

        def fail(node, message: str) -> InputError:
            return InputError(f"node {node.n3()}: {message}", file=file)

        def one(node, predicate, required: bool = True):
            values = list(graph.objects(node, predicate))
            if len(values) > 1:
                raise fail(node, f"has {len(values)} values for ms:{predicate.split('#')[-1]}; expected one")
            if not values and required:
                raise fail(node, f"lacks ms:{predicate.split('#')[-1]}")
            return values[0] if values else None

        def number(node, predicate, required: bool = True) -> float | None:
            value = one(node, predicate, required)
            if value is None:
                return None
            try:
                return float(str(value)) if isinstance(value, Literal) else float("nan")
            except ValueError:
                raise fail(node, f"ms:{predicate.split('#')[-1]} {value.n3()} is not a number") from None

        def ordered(kind) -> list:
            def position(node):
                value = number(node, ms.position, required=False)
                return (math.inf if value is None else value, node.n3())
            return sorted(set(graph.subjects(RDF.type, kind)), key=position)

        models = list(set(graph.subjects(RDF.type, ms.Model)))
        if len(models) != 1:
            raise InputError(f"holds {len(models)} ms:Model nodes; an M-Score model file holds exactly one",
                             file=file, hint=f"the vocabulary is {VOCABULARY}")
        root = models[0]
        label = graph.value(root, RDFS.label)
        attributes = {node: str(one(node, ms.name)) for node in ordered(ms.Attribute)}
        values: dict = {node: [] for node in attributes}
        names = {root: None, **{node: name for node, name in attributes.items()}}
        for node in ordered(ms.Value):
            owner = one(node, ms.attribute)
            if owner not in attributes:
                raise fail(node, f"ms:attribute {owner.n3()} is not an ms:Attribute")
            values[owner].append(node)
        method, ri = (one(root, p, required=False) for p in (ms.ahpMethod, ms.randomIndex))
        model = cls([(attributes[a], [str(one(v, ms.value)) for v in vs]) for a, vs in values.items()],
                    method=str(method) if method is not None else "eigenvector",
                    ri=str(ri) if ri is not None else "thesis",
                    name=str(label) if label is not None else Path(file).stem)
        members = {None: list(attributes), **{attributes[a]: vs for a, vs in values.items()}}
        judgements: dict = {}
        for node in graph.subjects(RDF.type, ms.Judgement):
            group = one(node, ms.group)
            if group not in names:
                raise fail(node, f"ms:group {group.n3()} is neither the ms:Model nor an ms:Attribute")
            key = names[group]
            index = {m: i for i, m in enumerate(members[key])}
            a, b = one(node, ms.criterionA), one(node, ms.criterionB)
            if a not in index or b not in index:
                raise fail(node, "its criteria are not members of its group")
            try:
                rating = check_judgement(number(node, ms.rating),
                                         f"{names.get(a) or a.n3()} over {names.get(b) or b.n3()}")
            except InputError as error:
                raise fail(node, error.message) from None
            judgements.setdefault(key, {})[(index[a], index[b])] = rating
        try:
            for key, given in judgements.items():
                matrix = reciprocal_matrix(len(members[key]), given)
                if key is None:
                    model.set_attribute_judgements(matrix)
                else:
                    model.set_value_judgements(key, matrix)
            for key, nodes in members.items():
                if key in judgements:
                    continue
                priorities = [number(n, ms.priority, required=False) for n in nodes]
                if all(p is not None for p in priorities) and len(nodes) > 1:
                    model.set_priorities(priorities, key)
        except InputError as error:
            raise InputError(error.message, file=file, hint=error.hint) from None
        return model


def thesis_example_model() -> MScoreModel:
    """The three-level tree of thesis Figure 3.1 (Medication and Age sensitive): the two
    attributes judged equally important (0.5 each), the five medications equally
    sensitive (0.2 each) and the two age bins equally sensitive (0.5 each), so
    weight(Statin) = 0.2 × 0.5 × 1 = 0.1 (thesis Section 3.3.1). The equal judgements are
    our reading: the thesis gives only the Statin path's numbers."""
    model = MScoreModel({"Medication": ["ARV", "Tamiflu", "Statin", "Paracetamol", "Antibiotics"],
                         "Age": ["[0,30)", "[30,inf)"]}, name="thesis Figure 3.1")
    model.set_attribute_judgements([[1, 1], [1, 1]])
    model.set_value_judgements("Medication", np.ones((5, 5)))
    model.set_value_judgements("Age", {("[0,30)", "[30,inf)"): 1})
    return model
