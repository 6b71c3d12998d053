"""The tkl-Data Model as Turtle (DSO for the table model, ``tklm:`` for the rest): the
taxonomy, table model, alignment, labels, every judgement and the derived
``dso:hasPriority``/``dso:hasWeight``; a saved model reopens exactly."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from rdflib import RDF, RDFS, BNode, Graph, Literal, Namespace, URIRef

from tklscore.core.errors import InputError
from tklscore.core.files.rdf import decimal_literal, parse_rdf_file, save_turtle
from tklscore.core.model.data_model.derivation import Derivation, derive
from tklscore.core.model.ahp import check_judgement
from tklscore.core.model.data_model.nodes import Kind, Node
from tklscore.core.model.labels import LabelScale

if TYPE_CHECKING:
    from tklscore.core.model.data_model.tree import TklDataModel

DSO = Namespace("https://tklscore.org/ns/dso#")
TKLM = Namespace("https://tklscore.org/ns/tkl-model#")


def to_graph(model: TklDataModel, derivation: Derivation | None = None) -> Graph:
    graph = Graph()
    graph.bind("dso", DSO)
    graph.bind("tklm", TKLM)
    graph.bind("rdfs", RDFS)
    graph.bind("t", Namespace(model.namespace))
    subject_of_model = URIRef(model.namespace + "model")
    graph.add((subject_of_model, RDF.type, TKLM.TklDataModel))
    graph.add((subject_of_model, TKLM.tableNamespace, Literal(model.namespace)))
    graph.add((subject_of_model, TKLM.ahpMethod, Literal(model.method)))
    graph.add((subject_of_model, TKLM.randomIndex, Literal(model.random_index)))
    if model.root is not None:
        graph.add((subject_of_model, TKLM.root, URIRef(model.root)))
    if model.source is not None:
        graph.add((subject_of_model, TKLM.sourceTable, Literal(model.source)))
    if model.vocabulary is not None:
        graph.add((subject_of_model, TKLM.vocabulary, Literal(model.vocabulary)))
    scale = BNode()
    graph.add((subject_of_model, TKLM.labelScale, scale))
    graph.add((scale, RDFS.label, Literal(model.scale.name)))
    for rank, (label, value) in enumerate(model.scale.labels):
        entry = BNode()
        graph.add((scale, TKLM.entry, entry))
        graph.add((entry, TKLM.rank, Literal(rank)))
        graph.add((entry, TKLM.name, Literal(label)))
        graph.add((entry, TKLM.priority, decimal_literal(value)))
    types = {Kind.ROOT: TKLM.TaxonomyClass, Kind.TAXONOMY: TKLM.TaxonomyClass, Kind.ELEMENT: DSO.Element,
             Kind.VALUE: DSO.Value}
    derivation = derivation or derive(model)
    for order, node in enumerate(model.nodes.values()):
        subject = URIRef(node.iri)
        graph.add((subject, TKLM.inModel, subject_of_model))
        kind = node.kind
        if kind == Kind.ATTRIBUTE:
            graph.add((subject, RDF.type, DSO.ContinuousAttribute if node.continuous else DSO.DiscreteAttribute))
        else:
            graph.add((subject, RDF.type, types[kind]))
        graph.add((subject, RDFS.label, Literal(node.label)))
        graph.add((subject, TKLM.order, Literal(order)))
        if node.parent is not None:
            graph.add((subject, RDFS.subClassOf, URIRef(node.parent)))
        if node.column is not None:
            graph.add((subject, TKLM.column, Literal(node.column)))
        if node.value is not None:
            graph.add((subject, TKLM.tableValue, Literal(node.value)))
        if node.qualitative is not None:
            graph.add((subject, TKLM.qualitativeLabel, Literal(node.qualitative)))
        if node.assigned is not None:
            graph.add((subject, TKLM.assignedPriority, decimal_literal(node.assigned)))
        if node.provisional:
            graph.add((subject, TKLM.provisional, Literal(True)))
        if node.iri in derivation.priorities:
            graph.add((subject, DSO.hasPriority, decimal_literal(derivation.priorities[node.iri])))
        if node.iri in derivation.weights:
            graph.add((subject, DSO.hasWeight, decimal_literal(derivation.weights[node.iri])))
    for parent, experts in model.judgements.items():
        for expert, table in experts.items():
            for (a, b), rating in table.items():
                judgement = BNode()
                graph.add((judgement, RDF.type, TKLM.Judgement))
                graph.add((judgement, TKLM.group, URIRef(parent)))
                graph.add((judgement, TKLM.expert, Literal(expert)))
                graph.add((judgement, TKLM.criterionA, URIRef(a)))
                graph.add((judgement, TKLM.criterionB, URIRef(b)))
                graph.add((judgement, TKLM.rating, decimal_literal(rating)))
    return graph


def save(model: TklDataModel, path: str | os.PathLike, inputs=()) -> None:
    """Write the model as Turtle, atomically (never over one of ``inputs``)."""
    save_turtle(to_graph(model), path, inputs)


def load(cls: type[TklDataModel], path: str | os.PathLike) -> TklDataModel:
    return from_graph(cls, parse_rdf_file(path, what="model file"), str(path))


def from_graph(cls: type[TklDataModel], graph: Graph, name: str = "<model>") -> TklDataModel:
    models = list(graph.subjects(RDF.type, TKLM.TklDataModel))
    if len(models) != 1:
        raise InputError(f"holds {len(models)} tkl-Data Models; expected exactly one", file=name)
    model_iri = models[0]

    def one(subject, predicate, required=True, what=None):
        value = graph.value(subject, predicate)
        if value is None and required:
            raise InputError(f"'{what or subject}' lacks {graph.qname(predicate)}", file=name)
        return value

    scale_node = one(model_iri, TKLM.labelScale)
    entries = sorted(((int(one(e, TKLM.rank)), str(one(e, TKLM.name)), float(one(e, TKLM.priority)))
                      for e in graph.objects(scale_node, TKLM.entry)))
    scale = LabelScale(str(one(scale_node, RDFS.label)), tuple((n, p) for _, n, p in entries))
    model = cls(str(one(model_iri, TKLM.tableNamespace)), scale, str(one(model_iri, TKLM.ahpMethod)),
                str(one(model_iri, TKLM.randomIndex)))
    root = one(model_iri, TKLM.root, required=False)
    model.source = _str(one(model_iri, TKLM.sourceTable, required=False))
    model.vocabulary = _str(one(model_iri, TKLM.vocabulary, required=False))
    kinds = {TKLM.TaxonomyClass: Kind.TAXONOMY, DSO.ContinuousAttribute: Kind.ATTRIBUTE,
             DSO.DiscreteAttribute: Kind.ATTRIBUTE, DSO.Element: Kind.ELEMENT, DSO.Value: Kind.VALUE}
    rows = []
    for subject in graph.subjects(TKLM.inModel, model_iri):
        kind = next((kinds[t] for t in graph.objects(subject, RDF.type) if t in kinds), None)
        if kind is None:
            raise InputError(f"node '{subject}' has no DSO or taxonomy type", file=name)
        if subject == root:
            kind = Kind.ROOT
        parents = sorted(str(p) for p in graph.objects(subject, RDFS.subClassOf))
        if len(parents) > 1:  # a model is a tree: a second parent would be dropped at random
            label = graph.value(subject, RDFS.label) or subject
            raise InputError(f"'{label}' has {len(parents)} parents (rdfs:subClassOf {', '.join(parents)}); "
                             f"a node of a tkl-Data Model has one", file=name,
                             hint="keep the one rdfs:subClassOf link to the node it belongs under")
        optional = {p: graph.value(subject, p) for p in (RDFS.subClassOf, TKLM.column, TKLM.tableValue,
                                                         TKLM.qualitativeLabel, TKLM.assignedPriority,
                                                         TKLM.provisional)}
        node = Node(str(subject), kind, str(one(subject, RDFS.label)),
                    _str(optional[RDFS.subClassOf]), _str(optional[TKLM.column]),
                    _str(optional[TKLM.tableValue]),
                    (subject, RDF.type, DSO.ContinuousAttribute) in graph,
                    _str(optional[TKLM.qualitativeLabel]),
                    None if optional[TKLM.assignedPriority] is None else float(optional[TKLM.assignedPriority]),
                    _flag(optional[TKLM.provisional], subject, name))
        if kind == Kind.ATTRIBUTE and node.column is None:
            raise InputError(f"attribute '{node.label}' lacks its column (tklm:column)", file=name)
        if kind == Kind.VALUE and node.value is None:
            raise InputError(f"value '{node.label}' lacks its table value (tklm:tableValue)", file=name)
        rows.append((int(one(subject, TKLM.order)), node))
    for _, node in sorted(rows, key=lambda r: r[0]):
        model.nodes[node.iri] = node
    model.root = str(root) if root is not None else None
    for node in model.nodes.values():
        if node.parent is not None and node.parent not in model.nodes:
            raise InputError(f"'{node.label}' is below '{node.parent}', which is not in the model", file=name)
        if node.qualitative is not None and node.qualitative not in scale.names:
            raise InputError(f"'{node.label}' has the label '{node.qualitative}', which the scale "
                             f"'{scale.name}' lacks", file=name)
    _refuse_cycles(model, name)
    for judgement in graph.subjects(RDF.type, TKLM.Judgement):
        parent, a, b = (str(one(judgement, p, what="a judgement"))
                        for p in (TKLM.group, TKLM.criterionA, TKLM.criterionB))
        expert = str(one(judgement, TKLM.expert, what="a judgement"))
        names = [model.nodes[i].label if i in model.nodes else i for i in (a, b)]
        where = f"'{names[0]}' over '{names[1]}' by {expert}"
        try:
            rating = check_judgement(one(judgement, TKLM.rating, what="a judgement"), where)
        except InputError as error:
            raise InputError(error.message, file=name, hint=error.hint) from None
        table = model.judgements.setdefault(parent, {}).setdefault(expert, {})
        if (a, b) in table or (b, a) in table:
            raise InputError(f"{where} is judged twice", file=name, hint="keep one judgement per pair and expert")
        table[(a, b)] = rating
    return model


def _str(value) -> str | None:
    return None if value is None else str(value)


def _flag(value, subject, name: str) -> bool:
    """``tklm:provisional``: absent or a boolean literal."""
    if value is None:
        return False
    if isinstance(value, Literal) and isinstance(value.toPython(), bool):
        return value.toPython()
    raise InputError(f"node '{subject}' has tklm:provisional '{value}', which is not true or false", file=name)


def _refuse_cycles(model: TklDataModel, name: str) -> None:
    """An error when the subClassOf links of ``model`` form a cycle (each node has one
    parent, so following them from every node once finds every cycle in linear time)."""
    done: set[str] = set()
    for start in model.nodes:
        path: list[str] = []
        on_path: set[str] = set()
        iri = start
        while iri is not None and iri not in done and iri not in on_path:
            path.append(iri)
            on_path.add(iri)
            iri = model.nodes[iri].parent
        if iri is not None and iri in on_path:
            cycle = path[path.index(iri):] + [iri]
            raise InputError("the rdfs:subClassOf links form a cycle: "
                             + " → ".join(f"'{model.nodes[i].label}'" for i in cycle), file=name,
                             hint="every node must lead up to the root; remove one of these links")
        done.update(path)
