"""The domain expert's tkl-Data Model of UCI Adult (issue 20's "done when"): occupation,
salary-class and native-country categorical, age continuous, each aligned with a DPV 2.3
class, every criteria group judged with CR ≤ 0.10, every value labelled. The core, command
line and window tests build it from these same choices."""

from __future__ import annotations

from tklscore.core.tables.roles import Roles

SA = ("occupation", "salary-class", "native-country")
CONTINUOUS = ("age",)
ROLES = Roles(qi=("sex", "race", "marital-status", "education"), sa=SA + CONTINUOUS, continuous=CONTINUOUS)
ALIGNMENT = {"occupation": "pd:Job", "salary-class": "pd:Salary", "native-country": "pd:Country", "age": "pd:Age"}
AGE_BINS = ["[0,30)", "[30,50)", "[50,inf)"]
AGE_EDGES = "0:30:50:inf"
# criteria group (the label of the node above it) -> (criteria, upper triangle row by row)
JUDGEMENTS = {
    "Personal Data": (("External", "Social", "Tracking"), (("External", "Social", 1 / 3), ("External", "Tracking", 2),
                                                           ("Social", "Tracking", 5))),
    "Professional": (("Job", "Salary"), (("Job", "Salary", 1 / 2),)),
}
OCCUPATION_LABELS = {
    "Armed-Forces": "very restricted", "Protective-serv": "restricted", "Priv-house-serv": "restricted",
    "Exec-managerial": "moderate", "Prof-specialty": "moderate", "Tech-support": "low", "Sales": "low",
    "Adm-clerical": "low", "Craft-repair": "low", "Transport-moving": "low", "Machine-op-inspct": "low",
    "Handlers-cleaners": "low", "Farming-fishing": "low", "Other-service": "low",
}
LABELS = {
    "native-country:*": "moderate", "native-country:United-States": "low",
    "salary-class:<=50K": "moderate", "salary-class:>50K": "restricted",
    "age:[0,30)": "normal", "age:[30,50)": "low", "age:[50,inf)": "moderate",
    **{f"occupation:{value}": level for value, level in OCCUPATION_LABELS.items()},
}


def matrix_csv(group: str) -> str:
    """The group's judgements in the ``tklscore ahp`` matrix format."""
    criteria, ratings = JUDGEMENTS[group]
    cells = {(a, b): r for a, b, r in ratings}
    lines = ["," + ",".join(criteria)]
    for a in criteria:
        row = []
        for b in criteria:
            if a == b:
                row.append("1")
            elif (a, b) in cells:
                r = cells[(a, b)]
                row.append(f"1/{round(1 / r)}" if r < 1 else f"{r:g}")
            else:
                row.append("")
        lines.append(a + "," + ",".join(row))
    return "\n".join(lines) + "\n"


def judge(model) -> None:
    """Every criteria group's judgements, through the model's own edits."""
    for group, (_, ratings) in JUDGEMENTS.items():
        parent = model.find(group).iri
        for a, b, rating in ratings:
            model.set_judgement(parent, model.criterion(parent, a), model.criterion(parent, b), rating)


def build(table, vocabulary):
    """The expert's model: built, aligned, labelled and judged (the core's functions)."""
    from tklscore.core.model.data_model.building import new_model

    built = new_model(table, ROLES, vocabulary, dict(ALIGNMENT), {"age": list(AGE_BINS)}, labels=dict(LABELS))
    judge(built.model)
    return built.model
