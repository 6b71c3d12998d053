"""The LTS privacy model generated from a data-flow model (disclosure-risk.md A1–A2) and
its risk transitions. The generation rules (the paper cites them elsewhere) are:

1. **States.** A state holds two Booleans per (actor, field), ``has`` (the actor has
   identified the field) and ``could`` (it could). In ``s0`` an actor *could* identify
   the fields of every datastore it reads from in some flow and that no flow writes
   (a source store is populated from the start); everything else is false.
2. **Transitions.** Flows are applied in execution order (ties in file order), one
   transition per flow from the current state to a new one, labelled
   ``[action, fields, schema, actor, purpose]``:
   ``read`` (datastore → actor) sets the actor's ``has``; ``disclose`` (actor → actor)
   sets the receiver's ``has``; ``create``/``collect`` (→ datastore) sets ``could`` for
   every reader of that datastore; ``anon`` writes ``F.anon`` into the target datastore:
   the performing actor (``by``, or the flow's source actor) ``has`` F.anon and every
   reader of the target ``could``; ``delete`` (→ datastore) clears the readers' ``could``.
3. **At-risk nodes.** For each actor A and sensitive field F such that A has access
   rights to ``F.anon`` but not to F: the states in which A ``has`` F.anon.
4. **Risk transitions.** From an at-risk node, one transition per non-empty subset of the
   quasi-identifiers A has accessed there (as ``Q`` or ``Q.anon``), to a new state in
   which A ``has`` F; ``kind='risk'``, ``allowed=False``; the one whose subset is every
   QI accessed is marked ``maximum``. An at-risk node whose accessed QIs equal those of
   an earlier at-risk node (same A and F) adds no transitions: they would repeat them.

A model without an ``anon`` step has no pseudonymisation to analyse and is refused.
"""

from __future__ import annotations

import itertools
import json

import networkx as nx

from tklscore.core.errors import InputError, check_limit
from tklscore.core.pseudonymization.data_flow import ANON, DataFlowModel, base_field


MAX_RISK_TRANSITIONS = 65_535
"""The most risk transitions an LTS may have (each is a QI subset whose violations are counted)."""


def generate_lts(model: DataFlowModel) -> nx.MultiDiGraph:
    if not any(model.action(f) == "anon" for f in model.flows):
        raise InputError("the data-flow model has no anon step, so there is no pseudonymisation to analyse",
                         file=model.file, hint="add a flow with \"action\": \"anon\" that writes F.anon fields "
                                               "to a datastore")
    fields = model.fields()
    written = {f.target for f in model.flows if f.target in model.datastores}
    has: set[tuple[str, str]] = set()
    could: set[tuple[str, str]] = set()
    for store in model.datastores.values():
        if store.id not in written:
            for reader in model.readers(store.id):
                could.update((reader, f) for f in store.schema)
    graph = nx.MultiDiGraph(name=model.name, actors=list(model.actors), fields=sorted(fields))
    state = "s0"
    graph.add_node(state, has=frozenset(has), could=frozenset(could), kind="state")
    for number, flow in enumerate(model.flows, start=1):
        action = model.action(flow)
        actor = flow.target if flow.target in model.actors else (flow.by or flow.source)
        if action == "anon":
            copies = [f + ANON for f in flow.fields]
            performer = flow.by or (flow.source if flow.source in model.actors else None)
            if performer:
                has.update((performer, f) for f in copies)
                actor = performer
            could.update((reader, f) for reader in model.readers(flow.target) for f in copies)
            data = tuple(copies)
        elif action == "delete":
            could.difference_update((reader, f) for reader in model.readers(flow.target) for f in flow.fields)
            data = flow.fields
        elif flow.target in model.datastores:
            could.update((reader, f) for reader in model.readers(flow.target) for f in flow.fields)
            data = flow.fields
        else:
            has.update((flow.target, f) for f in flow.fields)
            data = flow.fields
        following = f"s{number}"
        graph.add_node(following, has=frozenset(has), could=frozenset(could), kind="state")
        schema = flow.target if flow.target in model.datastores else flow.source
        graph.add_edge(state, following, kind="flow", action=action, fields=tuple(data), schema=schema,
                       actor=actor, purpose=flow.purpose, order=flow.order, allowed=True, risk=None)
        state = following
    _add_risk_transitions(graph, model, fields)
    return graph


def _add_risk_transitions(graph: nx.MultiDiGraph, model: DataFlowModel, fields) -> None:
    qis = [name for name, spec in fields.items() if spec.is_qi and not name.endswith(ANON)]
    sensitive = [name for name, spec in fields.items() if spec.sensitive and not name.endswith(ANON)]
    states = [n for n, kind in graph.nodes(data="kind") if kind == "state"]
    at_risk = []  # (state, actor, sensitive field, the QIs the actor accessed there)
    for actor in model.actors:
        rights = model.access_rights(actor)
        for target in sensitive:
            if target + ANON not in rights or target in rights:
                continue
            seen = set()
            for node in states:
                held = graph.nodes[node]["has"]
                if (actor, target + ANON) not in held:
                    continue
                accessed = tuple(q for q in qis if (actor, q) in held or (actor, q + ANON) in held)
                if not accessed or accessed in seen:
                    continue
                seen.add(accessed)
                at_risk.append((node, actor, target, accessed))
    widest = max((len(a[3]) for a in at_risk), default=0)
    check_limit(sum(2 ** len(a[3]) - 1 for a in at_risk), MAX_RISK_TRANSITIONS,
                what=f"the LTS of {model.file or 'the data-flow model'} ({len(at_risk)} at-risk state(s), up to "
                     f"{widest} quasi-identifiers accessed)", verb="generate", unit="risk transitions (one per QI "
                     "subset)", hint="mark fewer fields as personal (quasi-identifiers), or split the model")
    for node, actor, target, accessed in at_risk:
        graph.nodes[node]["at_risk"] = True
        for size in range(1, len(accessed) + 1):
            for subset in itertools.combinations(accessed, size):
                risk_node = f"{node}:{actor}:{target}:{'+'.join(subset)}"
                graph.add_node(risk_node, kind="risk", has=graph.nodes[node]["has"] | {(actor, target)},
                               could=graph.nodes[node]["could"])
                graph.add_edge(node, risk_node, kind="risk", action="risk", fields=(target,),
                               schema=None, actor=actor, purpose=None, qi_set=frozenset(subset),
                               qi_order=subset, sensitive=target, allowed=False,
                               maximum=len(subset) == len(accessed), risk=None,
                               violations=None, removed=None)


def risk_edges(graph: nx.MultiDiGraph) -> list[tuple[str, str, int, dict]]:
    """The risk transitions, in generation order (smallest QI subsets first per node)."""
    return [(u, v, k, d) for u, v, k, d in graph.edges(keys=True, data=True) if d.get("kind") == "risk"]


def annotate(graph: nx.MultiDiGraph, counts: dict, *, sensitive: str | None = None,
             removed: dict | None = None) -> None:
    """Attach N_v (and R_v) to the risk transitions: ``counts`` maps a QI subset (any
    iterable of field names, compared as a set of base names) to its violation count."""
    by_set = {frozenset(base_field(f) for f in qi): n for qi, n in counts.items()}
    removed_by_set = {frozenset(base_field(f) for f in qi): n for qi, n in (removed or {}).items()}
    for _, _, _, data in risk_edges(graph):
        if sensitive is not None and data["sensitive"] != sensitive:
            continue
        data["violations"] = by_set.get(data["qi_set"])
        data["risk"] = data["violations"]
        if data["qi_set"] in removed_by_set:
            data["removed"] = removed_by_set[data["qi_set"]]


def _pairs(values) -> list[list[str]]:
    return sorted([list(p) for p in values])


def to_json_dict(graph: nx.MultiDiGraph) -> dict:
    nodes = [{"id": n, "kind": d["kind"], "at_risk": bool(d.get("at_risk", False)),
              "has": _pairs(d["has"]), "could": _pairs(d["could"])} for n, d in graph.nodes(data=True)]
    edges = []
    for u, v, d in graph.edges(data=True):
        entry = {"source": u, "target": v, "kind": d["kind"], "action": d["action"], "fields": list(d["fields"]),
                 "schema": d.get("schema"), "actor": d["actor"], "purpose": d.get("purpose"),
                 "allowed": d["allowed"], "risk": d.get("risk")}
        if d["kind"] == "flow":
            entry["order"] = d["order"]
        else:
            entry.update(qi_set=list(d["qi_order"]), sensitive=d["sensitive"], maximum=d["maximum"],
                         violations=d.get("violations"), removed=d.get("removed"))
        edges.append(entry)
    return {"name": graph.graph.get("name", ""), "actors": graph.graph.get("actors", []),
            "fields": graph.graph.get("fields", []), "nodes": nodes, "edges": edges}


def to_json(graph: nx.MultiDiGraph) -> str:
    return json.dumps(to_json_dict(graph), indent=2) + "\n"


def _quote(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(graph: nx.MultiDiGraph) -> str:
    """Graphviz DOT: flows solid, risk transitions dotted (red, bold for the maximum) and
    labelled with their QI subset and N_v when known."""
    lines = [f"digraph {_quote(graph.graph.get('name') or 'LTS')} {{", "  rankdir=LR;",
             "  node [shape=circle, fontname=Helvetica];"]
    for node, data in graph.nodes(data=True):
        if data["kind"] == "risk":
            lines.append(f"  {_quote(node)} [label=\"\", shape=point, width=0.15];")
        else:
            style = ", style=filled, fillcolor=\"#ffe0b2\"" if data.get("at_risk") else ""
            lines.append(f"  {_quote(node)} [label={_quote(node)}{style}];")
    for u, v, data in graph.edges(data=True):
        if data["kind"] == "risk":
            label = f"risk {data['sensitive']} | {', '.join(data['qi_order'])}"
            if data.get("violations") is not None:
                label += f"\nN_v = {data['violations']}"
            width = ", penwidth=2" if data["maximum"] else ""
            lines.append(f"  {_quote(u)} -> {_quote(v)} [style=dotted, color=red{width}, label={_quote(label)}];")
        else:
            label = f"{data['action']}({', '.join(data['fields'])})\n{data['actor']}"
            if data.get("purpose"):
                label += f": {data['purpose']}"
            lines.append(f"  {_quote(u)} -> {_quote(v)} [label={_quote(label)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"
