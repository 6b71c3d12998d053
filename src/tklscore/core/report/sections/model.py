"""The tkl-Data Model's section of the report: the taxonomy, the table's attributes and
values, each node's AHP priority, label, label score and weight."""

from __future__ import annotations

from collections.abc import Iterable

from tklscore.core.errors import InputError
from tklscore.core.model.data_model import TABLE_PART
from tklscore.core.model.node_names import display_name, inherited_label
from tklscore.core.numbers import number, score
from tklscore.core.report.html import esc, table
from tklscore.core.report.model import ReportInput, Section


def model_section(data: ReportInput) -> Iterable[Section]:
    model = data.model
    if model is None or model.root is None:
        return
    try:
        derivation = model.derive()
    except (InputError, ValueError) as error:
        yield Section("The tkl-Data Model", f"<p>The model cannot be derived: {esc(error)}</p>")
        return
    rows = []

    def visit(iri: str, depth: int) -> None:
        node = model.nodes[iri]
        tag, name = display_name(node)
        priority = derivation.priorities.get(iri)
        weight = derivation.weights.get(iri)
        label_score = node.kind in TABLE_PART
        inherited = inherited_label(model, iri) if label_score else None
        label = node.qualitative or (f"({inherited})" if inherited else "")
        rows.append(["\u00a0\u00a0\u00a0\u00a0" * depth + name, tag, node.kind.value, label,
                     "" if priority is None or label_score else number(priority, 4),
                     "" if priority is None or not label_score else number(priority, 3),
                     "" if weight is None else score(weight)])
        for child in model.children(iri):
            visit(child, depth + 1)

    visit(model.root, 0)
    body = ("<p>The DPV taxonomy on top, the table's sensitive attributes, elements and values below. "
            "<i>AHP priority</i>: a criterion's share among its siblings, from the experts' judgements; "
            "<i>label</i>: a value's qualitative label; in brackets, e.g. (restricted), when the value has "
            "none of its own and inherits that of the nearest labelled element above it; <i>label score</i>: "
            "the label's score on the model's scale; <i>weight</i>: what scoring uses.</p>"
            + table(["node", "code", "kind", "label", "AHP priority", "label score", "weight"], rows, 4))
    if derivation.problems:
        body += "<p>Still missing:</p><ul>" + "".join(f"<li>{esc(p)}</li>" for p in derivation.problems) + "</ul>"
    yield Section("The tkl-Data Model", body)
