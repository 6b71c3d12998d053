"""L-Severity's own weight model (Vavilis et al.; thesis Sections 3.3.4-3.3.5, spec
data-model.md §5).

The model is a forest of **data types** (columns and their generalisations, e.g.
``Disease → Viral``) holding **data instances** (values of a column; for a continuous
column, bins such as ``[0,30)``). A data instance is addressed by its ``(attribute,
value)`` pair, because the same label can be a value of two columns (``Flu`` is a
``Disease`` and an ``Initial Diagnosis``); a data type by its name.

- A domain expert sets **sensitivity values** in [0, 1] on any node. A node without one
  takes the value of its nearest ancestor that has one (top-down propagation); a data
  instance with no value anywhere on its path is an error.
- Directed **inference relationships** ``y → z`` between data instances carry an
  inference value ``IV(y, z)`` in [0, 1].
- **Algorithm 1**: ``weight(y) = max( Σ_z IV(y, z) · weight(z), sensitivity(y) )``,
  evaluated targets first (reverse topological order of the inference graph). An
  inference cycle makes this undefined; it is refused with an :class:`InputError` that
  names the cycle, e.g. ``inference cycle: Medication=Paracetamol → Disease=Flu →
  Medication=Paracetamol``.

Weights are not bounded by 1 (thesis 3.3.6): :meth:`LSeverityModel.weights` returns them
as computed, :meth:`LSeverityModel.to_weights` refuses a weight above 1 (the scoring
core's weights lie in [0, 1]).

Persistence is Turtle (rdflib) with the vocabulary ``https://tklscore.org/ns/lseverity#``
(prefix ``ls:``) and a per-model namespace for the nodes::

    <https://tklscore.org/models/…/> a ls:Model ; rdfs:label "…" .
    m:type/Viral a ls:DataType ; ls:name "Viral" ; ls:parent m:type/Disease ;
        ls:position 4 .
    m:instance/Disease/HIV a ls:DataInstance ; ls:attribute "Disease" ; ls:value "HIV" ;
        ls:parent m:type/Viral ; ls:position 3 .
    m:inference/0 a ls:Inference ; ls:source m:instance/Medication/Paracetamol ;
        ls:target m:instance/Disease/Flu ; ls:inferenceValue 0.4 ; ls:position 0 .

``ls:sensitivity`` (on types and instances) is optional; numbers are written as
``xsd:decimal`` with the shortest repr of the float, so a save/load round trip is
lossless. Loading identifies nodes by their literals (``ls:name``, ``ls:attribute``,
``ls:value``), not by the shape of their IRIs, so hand-written files may use any IRIs or
blank nodes; ``ls:position`` only keeps the order of the lists.
"""

from __future__ import annotations

import math
import numbers
import os
import uuid
from pathlib import Path
from urllib.parse import quote

import networkx as nx

from tklscore.core.files.rdf import decimal_literal, save_turtle
from tklscore.core.errors import InputError
from tklscore.core.scoring.weights import Weights

__all__ = [
    "THESIS_FILE_NAME",
    "VOCABULARY",
    "LSeverityModel",
    "load_lseverity_model",
    "lseverity_model_from_graph",
    "thesis_lseverity_model",
    "write_thesis_lseverity_model",
]

VOCABULARY = "https://tklscore.org/ns/lseverity#"
MODEL_NAMESPACE_BASE = "https://tklscore.org/models/"
THESIS_NAMESPACE = MODEL_NAMESPACE_BASE + "thesis-figure-3-2/"
THESIS_FILE_NAME = "lseverity_model_figure_3_2.ttl"

#: weights this close above 1 (float noise of the inference sum) count as 1 in to_weights
_ONE_TOLERANCE = 1e-9

_TYPE = "type"
_INSTANCE = "instance"


def _type_key(name: str) -> tuple:
    return (_TYPE, name)


def _instance_key(attribute: str, value: str) -> tuple:
    return (_INSTANCE, attribute, value)


def _label(key: tuple) -> str:
    """``Disease=HIV`` for an instance, ``Viral`` for a type."""
    return f"{key[1]}={key[2]}" if key[0] == _INSTANCE else key[1]


def _kind(key: tuple) -> str:
    return "data instance" if key[0] == _INSTANCE else "data type"


def _num(x: float) -> str:
    return f"{x:.12g}"


def _unit_value(value, what: str) -> float:
    """``value`` as a float in [0, 1], else an InputError saying what it is."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{what} {value!r} is not a number")
    value = float(value)
    if not math.isfinite(value):
        raise InputError(f"{what} {value!r} is not a finite number")
    if not 0.0 <= value <= 1.0:
        raise InputError(f"{what} {_num(value)} is outside [0, 1]")
    return value


def _name(text, what: str) -> str:
    if not isinstance(text, str):
        raise InputError(f"{what} {text!r} is not text")
    if not text.strip():
        raise InputError(f"{what} is empty")
    return text


class LSeverityModel:
    """An L-Severity data model: data types, data instances, sensitivity values and
    inference relationships, and the weights Algorithm 1 derives from them."""

    def __init__(self, name: str | None = None, namespace: str | None = None):
        self.name = name or "L-Severity model"
        namespace = namespace or f"{MODEL_NAMESPACE_BASE}{uuid.uuid4()}/"
        self.namespace = namespace if namespace.endswith(("/", "#")) else namespace + "/"
        self._hierarchy = nx.DiGraph()  # parent type → child (type or instance)
        self._inference = nx.DiGraph()  # instance → instance, edge attribute "value"
        self._sensitivity: dict[tuple, float] = {}
        self._order: list[tuple] = []  # types and instances in the order they were added

    # ------------------------------------------------------------------ building
    def add_type(self, attribute: str, parent: str | None = None) -> None:
        """A data type: a column (``Disease``) or a generalisation (``Viral`` under
        ``Disease``, or ``Health`` above several columns)."""
        attribute = _name(attribute, "the data type name")
        key = _type_key(attribute)
        if key in self._hierarchy:
            raise InputError(f"data type '{attribute}' already exists")
        if parent is not None:
            parent_key = self._type(parent)
        self._hierarchy.add_node(key)
        if parent is not None:
            self._hierarchy.add_edge(parent_key, key)
        self._order.append(key)

    def add_instance(self, attribute: str, value: str, parent_type: str | None = None) -> None:
        """A data instance: value ``value`` of column ``attribute`` (for a continuous
        column, a bin such as ``[0,30)``), placed under ``parent_type`` — the column's
        data type itself (the default) or a generalisation below it (``Viral``)."""
        attribute_key = self._type(attribute)
        if not isinstance(value, str):
            raise InputError(f"the value {value!r} of data type '{attribute}' is not text",
                             hint="write numbers and bins as text, e.g. '[0,30)'")
        key = _instance_key(attribute, value)
        if key in self._hierarchy:
            raise InputError(f"data instance {_label(key)} already exists")
        parent_key = attribute_key if parent_type is None else self._type(parent_type)
        if parent_key != attribute_key and not nx.has_path(self._hierarchy, attribute_key, parent_key):
            raise InputError(
                f"data instance {_label(key)} cannot sit under data type '{parent_type}': "
                f"'{parent_type}' is not '{attribute}' nor a generalisation below it",
                hint=f"add '{parent_type}' with parent '{attribute}' first")
        self._hierarchy.add_edge(parent_key, key)
        self._inference.add_node(key)
        self._order.append(key)

    def set_sensitivity(self, node, value: float | None) -> None:
        """Set the sensitivity value (in [0, 1]) of a data type (given by name) or a data
        instance (given as ``(attribute, value)``); ``None`` removes it, so the node
        inherits again."""
        key = self._node(node)
        if value is None:
            self._sensitivity.pop(key, None)
            return
        self._sensitivity[key] = _unit_value(value, f"the sensitivity value of {_label(key)}")

    def add_inference(self, source: tuple[str, str], target: tuple[str, str], value: float,
                      replace: bool = False) -> None:
        """Inference relationship ``source → target`` with inference value ``value`` in
        [0, 1]: knowing ``source`` tells ``value`` of ``target``. A relationship that
        would close a cycle is refused (the error names the cycle)."""
        source_key, target_key = self._instance(source), self._instance(target)
        where = f"{_label(source_key)} → {_label(target_key)}"
        value = _unit_value(value, f"the inference value of {where}")
        if self._inference.has_edge(source_key, target_key) and not replace:
            raise InputError(f"the inference relationship {where} already exists "
                             f"(value {_num(self._inference.edges[source_key, target_key]['value'])})",
                             hint="pass replace=True to change its value")
        if source_key == target_key:
            raise self._cycle_error([source_key, source_key])
        if nx.has_path(self._inference, target_key, source_key):
            raise self._cycle_error([source_key] + nx.shortest_path(self._inference, target_key, source_key))
        self._inference.add_edge(source_key, target_key, value=value)

    def remove_inference(self, source: tuple[str, str], target: tuple[str, str]) -> None:
        source_key, target_key = self._instance(source), self._instance(target)
        if not self._inference.has_edge(source_key, target_key):
            raise InputError(f"there is no inference relationship {_label(source_key)} → {_label(target_key)}")
        self._inference.remove_edge(source_key, target_key)

    # ------------------------------------------------------------------ reading
    def types(self) -> list[tuple[str, str | None]]:
        """``(name, parent)`` of every data type, in the order they were added."""
        return [(k[1], self._parent_name(k)) for k in self._order if k[0] == _TYPE]

    def instances(self) -> list[tuple[str, str, str]]:
        """``(attribute, value, parent_type)`` of every data instance, in order."""
        return [(k[1], k[2], self._parent_name(k)) for k in self._order if k[0] == _INSTANCE]

    def sensitivities(self) -> dict:
        """The sensitivity values set by the expert: type name or (attribute, value) → value."""
        return {(k[1] if k[0] == _TYPE else (k[1], k[2])): v
                for k in self._order for v in [self._sensitivity.get(k)] if v is not None}

    def inferences(self) -> list[tuple[tuple[str, str], tuple[str, str], float]]:
        """``(source, target, value)`` of every inference relationship."""
        return [((y[1], y[2]), (z[1], z[2]), d["value"]) for y, z, d in self._inference.edges(data=True)]

    def structure(self) -> dict:
        """Everything the model holds (not its name or namespace), for comparisons."""
        return {"types": self.types(), "instances": self.instances(),
                "sensitivities": self.sensitivities(), "inferences": sorted(self.inferences())}

    def __eq__(self, other) -> bool:
        if not isinstance(other, LSeverityModel):
            return NotImplemented
        return self.structure() == other.structure()

    def __repr__(self) -> str:
        n_types = sum(k[0] == _TYPE for k in self._order)
        return (f"LSeverityModel({self.name!r}: {n_types} data types, {len(self._order) - n_types} "
                f"data instances, {self._inference.number_of_edges()} inference relationships)")

    def sensitivity(self, node) -> tuple[float, str]:
        """The effective sensitivity of a node and the node it comes from (its own, or
        the nearest ancestor's)."""
        value, origin = self._effective_sensitivity(self._node(node))
        return value, _label(origin)

    # ------------------------------------------------------------------ Algorithm 1
    def weights(self) -> list[tuple[str, str, float]]:
        """``(attribute, value, weight)`` of every data instance, in the order they were
        added, by Algorithm 1 (weights may exceed 1)."""
        computed = self._compute(None)
        return [(k[1], k[2], computed[k]) for k in self._order if k[0] == _INSTANCE]

    def weight(self, attribute: str, value: str) -> float:
        key = self._instance((attribute, value))
        return self._compute(key)[key]

    def to_weights(self, name: str | None = None) -> Weights:
        """The weights as :class:`~tklscore.core.scoring.weights.Weights` for scoring. A weight
        above 1 (Algorithm 1 is unbounded) is refused, naming the instance."""
        entries = []
        for attribute, value, weight in self.weights():
            if weight > 1.0:
                if weight > 1.0 + _ONE_TOLERANCE:
                    raise InputError(
                        f"the L-Severity weight of {attribute}={value} is {_num(weight)}, above 1: "
                        + self.explain(attribute, value),
                        file=name or self.name,
                        hint="lower its inference values; scoring needs weights in [0, 1]")
                weight = 1.0
            entries.append((attribute, value, weight))
        return Weights(entries, name=name or self.name)

    def explain(self, attribute: str, value: str) -> str:
        """How Algorithm 1 arrives at the weight of one data instance, with numbers."""
        key = self._instance((attribute, value))
        computed = self._compute(key)
        weight = computed[key]
        sensitivity, origin = self._effective_sensitivity(key)
        terms = [(d["value"], z) for _, z, d in self._inference.out_edges(key, data=True)]
        total = self._inference_sum(key, computed)
        if total > sensitivity:
            verdict = "the inference sum wins"
        elif total < sensitivity:
            verdict = "the sensitivity value wins"
        else:
            verdict = "both terms are equal"
        lines = [(f"{_label(key)}: weight {_num(weight)} = max(inference sum {_num(total)}, "
                  f"sensitivity {_num(sensitivity)}); {verdict}.")]
        if terms:
            products = " + ".join(f"{_num(iv)} × weight({_label(z)}) {_num(computed[z])}" for iv, z in terms)
            lines.append(f"inference sum = {products}"
                         + (f" = {' + '.join(_num(iv * computed[z]) for iv, z in terms)}" if len(terms) > 1 else "")
                         + f" = {_num(total)}.")
        else:
            lines.append("inference sum = 0 (no inference relationship starts at it).")
        if origin == key:
            lines.append(f"sensitivity {_num(sensitivity)} is set on {_label(key)} itself.")
        else:
            path = nx.shortest_path(self._hierarchy, origin, key)
            lines.append(f"sensitivity {_num(sensitivity)} is propagated from data type '{origin[1]}': "
                         + " → ".join(k[1] if k[0] == _TYPE else k[2] for k in path) + ".")
        return " ".join(lines)

    def _inference_sum(self, key: tuple, computed: dict) -> float:
        total = 0.0
        for _, z, data in self._inference.out_edges(key, data=True):
            total += data["value"] * computed[z]
        return total

    def _compute(self, wanted: tuple | None) -> dict[tuple, float]:
        """Weights of ``wanted`` and everything it infers (of every instance for None)."""
        graph = self._inference if wanted is None else self._inference.subgraph(
            nx.descendants(self._inference, wanted) | {wanted})
        try:
            order = list(nx.topological_sort(graph))
        except nx.NetworkXUnfeasible:  # add_inference refuses cycles; kept as a guard
            cycle = [u for u, _ in nx.find_cycle(graph)]
            raise self._cycle_error(cycle + cycle[:1]) from None
        missing = []
        sensitivity = {}
        for key in graph:
            try:
                sensitivity[key] = self._effective_sensitivity(key)[0]
            except InputError:
                missing.append(key)
        if missing:
            missing.sort(key=self._order.index)
            shown = "; ".join(f"{_label(k)} (path {self._path_text(k)})" for k in missing[:20])
            more = f" and {len(missing) - 20} more" if len(missing) > 20 else ""
            raise InputError(
                f"{len(missing)} data instance(s) have no sensitivity value on themselves or any "
                f"data type above them: {shown}{more}",
                hint="set a sensitivity value on the instance or on one of its data types")
        computed: dict[tuple, float] = {}
        for key in reversed(order):
            computed[key] = max(self._inference_sum(key, computed), sensitivity[key])
        return computed

    # ------------------------------------------------------------------ helpers
    def _type(self, name) -> tuple:
        key = _type_key(name) if isinstance(name, str) else None
        if key is None or key not in self._hierarchy:
            raise InputError(f"unknown data type {name!r}",
                             hint=f"known data types: {', '.join(repr(k[1]) for k in self._order if k[0] == _TYPE)}")
        return key

    def _instance(self, pair) -> tuple:
        if not (isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
            raise InputError(f"{pair!r} is not a data instance (attribute, value)")
        key = _instance_key(*pair)
        if key not in self._hierarchy:
            raise InputError(f"unknown data instance {_label(key)}",
                             hint="add it with add_instance first")
        return key

    def _node(self, node) -> tuple:
        return self._type(node) if isinstance(node, str) else self._instance(node)

    def _parent_name(self, key: tuple) -> str | None:
        parents = list(self._hierarchy.predecessors(key))
        return parents[0][1] if parents else None

    def _ancestry(self, key: tuple) -> list[tuple]:
        """The node and its ancestors, nearest first (each node has at most one parent)."""
        chain = [key]
        while True:
            parents = list(self._hierarchy.predecessors(chain[-1]))
            if not parents:
                return chain
            chain.append(parents[0])

    def _path_text(self, key: tuple) -> str:
        return " → ".join(k[1] if k[0] == _TYPE else k[2] for k in reversed(self._ancestry(key)))

    def _effective_sensitivity(self, key: tuple) -> tuple[float, tuple]:
        for node in self._ancestry(key):
            if node in self._sensitivity:
                return self._sensitivity[node], node
        raise InputError(f"{_kind(key)} {_label(key)} has no sensitivity value, nor has any data type "
                         f"above it (path {self._path_text(key)})",
                         hint="set a sensitivity value on it or on one of its data types")

    @staticmethod
    def _cycle_error(cycle: list[tuple]) -> InputError:
        return InputError(
            "inference cycle: " + " → ".join(_label(k) for k in cycle),
            hint="Algorithm 1 needs the weights of an instance's inference targets first, so the "
                 "inference relationships must not form a cycle; remove one of them")

    # ------------------------------------------------------------------ Turtle
    def to_graph(self):
        from rdflib import RDF, RDFS, Graph, Literal, Namespace, URIRef

        ls = Namespace(VOCABULARY)
        graph = Graph()
        graph.bind("ls", ls)
        graph.bind("m", Namespace(self.namespace))
        model = URIRef(self.namespace)
        graph.add((model, RDF.type, ls.Model))
        graph.add((model, RDFS.label, Literal(self.name)))

        def iri(key: tuple) -> URIRef:
            parts = [_TYPE, key[1]] if key[0] == _TYPE else [_INSTANCE, key[1], key[2]]
            return URIRef(self.namespace + "/".join(quote(p, safe="") for p in parts))

        for position, key in enumerate(self._order):
            node = iri(key)
            if key[0] == _TYPE:
                graph.add((node, RDF.type, ls.DataType))
                graph.add((node, ls.name, Literal(key[1])))
            else:
                graph.add((node, RDF.type, ls.DataInstance))
                graph.add((node, ls.attribute, Literal(key[1])))
                graph.add((node, ls.value, Literal(key[2])))
            for parent in self._hierarchy.predecessors(key):
                graph.add((node, ls.parent, iri(parent)))
            if key in self._sensitivity:
                graph.add((node, ls.sensitivity, decimal_literal(self._sensitivity[key])))
            graph.add((node, ls.position, Literal(position)))
        for position, (y, z, data) in enumerate(self._inference.edges(data=True)):
            node = URIRef(f"{self.namespace}inference/{position}")
            graph.add((node, RDF.type, ls.Inference))
            graph.add((node, ls.source, iri(y)))
            graph.add((node, ls.target, iri(z)))
            graph.add((node, ls.inferenceValue, decimal_literal(data["value"])))
            graph.add((node, ls.position, Literal(position)))
        return graph

    def save(self, path: str | os.PathLike) -> Path:
        """Write the model as Turtle, atomically."""
        return save_turtle(self.to_graph(), path)

    @classmethod
    def load(cls, path: str | os.PathLike) -> LSeverityModel:
        """Read a model written by :meth:`save` (or by hand in the same vocabulary)."""
        from tklscore.core.files.rdf import parse_rdf_file

        return lseverity_model_from_graph(parse_rdf_file(path, what="L-Severity model file"), str(path))


class _Reader:
    """Builds an LSeverityModel from an rdflib graph, naming file and node on errors."""

    def __init__(self, graph, file: str):
        from rdflib import Namespace

        self.graph = graph
        self.file = file
        self.ls = Namespace(VOCABULARY)

    def fail(self, node, message: str, hint: str | None = None) -> InputError:
        return InputError(f"node {node.n3()}: {message}", file=self.file, hint=hint)

    def one(self, node, predicate, required: bool = True):
        values = list(self.graph.objects(node, predicate))
        if len(values) > 1:
            raise self.fail(node, f"has {len(values)} values for ls:{predicate.split('#')[-1]}; expected one")
        if not values:
            if required:
                raise self.fail(node, f"lacks ls:{predicate.split('#')[-1]}")
            return None
        return values[0]

    def text(self, node, predicate) -> str:
        from rdflib import Literal

        value = self.one(node, predicate)
        if not isinstance(value, Literal):
            raise self.fail(node, f"ls:{predicate.split('#')[-1]} is {value.n3()}, not a text literal")
        return str(value)

    def number(self, node, predicate, required: bool):
        from rdflib import Literal

        value = self.one(node, predicate, required)
        if value is None:
            return None
        number = None
        if isinstance(value, Literal):
            try:
                number = float(str(value))
            except ValueError:
                pass
        if number is None:
            raise self.fail(node, f"ls:{predicate.split('#')[-1]} {value.n3()} is not a number")
        return number

    def position(self, node) -> float:
        value = self.number(node, self.ls.position, required=False)
        return math.inf if value is None else value

    def subjects(self, cls) -> list:
        from rdflib import RDF

        return sorted(set(self.graph.subjects(RDF.type, cls)), key=lambda s: (self.position(s), s.n3()))

    def read(self) -> LSeverityModel:
        from rdflib import RDF, RDFS, URIRef

        ls = self.ls
        models = list(set(self.graph.subjects(RDF.type, ls.Model)))
        if len(models) != 1:
            raise InputError(f"holds {len(models)} ls:Model nodes; an L-Severity model file holds exactly one",
                             file=self.file, hint=f"the vocabulary is {VOCABULARY}")
        label = self.graph.value(models[0], RDFS.label)
        model = LSeverityModel(str(label) if label is not None else Path(self.file).stem,
                               str(models[0]) if isinstance(models[0], URIRef) else None)

        type_nodes = self.subjects(ls.DataType)
        type_names = {node: self.text(node, ls.name) for node in type_nodes}
        parents = {}
        for node in type_nodes:
            parent = self.one(node, ls.parent, required=False)
            if parent is not None and parent not in type_names:
                raise self.fail(node, f"ls:parent {parent.n3()} is not an ls:DataType")
            parents[node] = parent
        hierarchy = nx.DiGraph()
        hierarchy.add_nodes_from(type_nodes)
        hierarchy.add_edges_from((p, c) for c, p in parents.items() if p is not None)
        try:
            ordered = list(nx.lexicographical_topological_sort(hierarchy, key=type_nodes.index))
        except nx.NetworkXUnfeasible:
            cycle = [u for u, _ in nx.find_cycle(hierarchy)]
            raise InputError("data type hierarchy cycle: "
                             + " → ".join(type_names[n] for n in cycle + cycle[:1]), file=self.file) from None
        for node in ordered:
            self.apply(node, model.add_type, type_names[node],
                       type_names[parents[node]] if parents[node] is not None else None)

        instances = {}
        for node in self.subjects(ls.DataInstance):
            attribute, value = self.text(node, ls.attribute), self.text(node, ls.value)
            parent = self.one(node, ls.parent, required=False)
            if parent is not None and parent not in type_names:
                raise self.fail(node, f"ls:parent {parent.n3()} is not an ls:DataType")
            self.apply(node, model.add_instance, attribute, value,
                       type_names[parent] if parent is not None else None)
            instances[node] = (attribute, value)

        for node, name in type_names.items():
            self.sensitivity(model, node, name)
        for node, pair in instances.items():
            self.sensitivity(model, node, pair)

        for node in self.subjects(ls.Inference):
            ends = []
            for predicate in (ls.source, ls.target):
                end = self.one(node, predicate)
                if end not in instances:
                    raise self.fail(node, f"ls:{predicate.split('#')[-1]} {end.n3()} is not an ls:DataInstance")
                ends.append(instances[end])
            value = self.number(node, ls.inferenceValue, required=True)
            self.apply(node, model.add_inference, ends[0], ends[1], value)
        return model

    def sensitivity(self, model: LSeverityModel, node, target) -> None:
        value = self.number(node, self.ls.sensitivity, required=False)
        if value is not None:
            self.apply(node, model.set_sensitivity, target, value)

    def apply(self, node, method, *args) -> None:
        try:
            method(*args)
        except InputError as error:
            raise self.fail(node, error.message, error.hint) from None


def load_lseverity_model(path: str | os.PathLike) -> LSeverityModel:
    return LSeverityModel.load(path)


def lseverity_model_from_graph(graph, file: str = "<L-Severity model>") -> LSeverityModel:
    """The model in an rdflib graph (errors name ``file``)."""
    return _Reader(graph, file).read()


# ---------------------------------------------------------------------- the thesis model
def thesis_lseverity_model() -> LSeverityModel:
    """The L-Severity data model of the thesis' illustrative example (Figure 3.2), whose
    Algorithm 1 weights are Table 3.7 exactly.

    What the thesis states (Sections 3.3.4-3.3.6):

    - HIV (Disease) has no sensitivity of its own; it gets 1 by propagation
      Disease → Viral → HIV.
    - Paracetamol has sensitivity 0.1 and inference relationships to Flu (0.4) and HIV
      (0.1); with weight(Flu) = 0.1 and weight(HIV) = 1 its weight is
      max(0.04 + 0.1, 0.1) = 0.14. The targets are the *Disease* instances (weight(HIV) =
      1 is the Disease's HIV; the Initial Diagnosis HIV weighs 0.4).
    - Tamiflu has an inference relationship to H1N1 (Disease, 0.9, weight 0.4) and
      weight 0.5, so its sensitivity is 0.5: max(0.36, 0.5) = 0.5.

    Where the thesis is silent (Figure 3.2 is not reproduced in its text), the simplest
    assignment that reproduces Table 3.7:

    - Data types: the four columns Disease, Medication, Age, Initial Diagnosis, and
      Viral under Disease. Flu, H1N1 and HIV sit under Viral (as in the thesis' Chapter 4
      ontology, where "E.Viral" is the parent of H1N1, HIV and Flu); Hypertension
      directly under Disease.
    - The sensitivity value 1 is set on the data type Disease (Viral has none), so HIV's
      1 really travels Disease → Viral → HIV. Flu 0.1, H1N1 0.4 and Hypertension 0.6 are
      set on the instances.
    - Age: the sensitivity 0.1 is set on the data type Age; both bins "[0,30)" and
      "[30,inf)" inherit it.
    - Antibiotics 0.4, Statin 0.6, ARV 1 and every Initial Diagnosis value (Flu 0.1,
      Migraine 0.3, HIV 0.4, Hypertension 0.6) carry their Table 3.7 weight as their own
      sensitivity value; no inference relationships beyond the three above.
    """
    model = LSeverityModel("thesis Figure 3.2 (weights: Table 3.7)", THESIS_NAMESPACE)
    for column in ("Disease", "Medication", "Age", "Initial Diagnosis"):
        model.add_type(column)
    model.add_type("Viral", parent="Disease")
    model.set_sensitivity("Disease", 1.0)
    model.set_sensitivity("Age", 0.1)

    instances = [  # (attribute, value, parent type, own sensitivity), in Table 3.7's order
        ("Disease", "Flu", "Viral", 0.1),
        ("Disease", "H1N1", "Viral", 0.4),
        ("Disease", "Hypertension", None, 0.6),
        ("Disease", "HIV", "Viral", None),
        ("Medication", "Paracetamol", None, 0.1),
        ("Medication", "Antibiotics", None, 0.4),
        ("Medication", "Tamiflu", None, 0.5),
        ("Medication", "Statin", None, 0.6),
        ("Medication", "ARV", None, 1.0),
        ("Age", "[30,inf)", None, None),
        ("Age", "[0,30)", None, None),
        ("Initial Diagnosis", "Flu", None, 0.1),
        ("Initial Diagnosis", "Migraine", None, 0.3),
        ("Initial Diagnosis", "HIV", None, 0.4),
        ("Initial Diagnosis", "Hypertension", None, 0.6),
    ]
    for attribute, value, parent, sensitivity in instances:
        model.add_instance(attribute, value, parent)
        if sensitivity is not None:
            model.set_sensitivity((attribute, value), sensitivity)

    model.add_inference(("Medication", "Paracetamol"), ("Disease", "Flu"), 0.4)
    model.add_inference(("Medication", "Paracetamol"), ("Disease", "HIV"), 0.1)
    model.add_inference(("Medication", "Tamiflu"), ("Disease", "H1N1"), 0.9)
    return model


def write_thesis_lseverity_model(path: str | os.PathLike) -> Path:
    """Save :func:`thesis_lseverity_model` as Turtle at ``path`` (a file, or a folder to
    hold ``lseverity_model_figure_3_2.ttl``); returns the file written."""
    path = Path(path)
    if path.is_dir():
        path = path / THESIS_FILE_NAME
    return thesis_lseverity_model().save(path)
