"""Where a release's weights come from, said once for every screen, the report and the CLI.

Weights come from a weights file, from a tkl-Data Model (whose AHP judgements have a
consistency to check), or from each score's own model (M-Score's and L-Severity's weight
models, spec data-model.md §5). The thesis' example shows why this matters: its Table 4.2
weights and the weights its own tkl-Data Model derives differ (scoring.md erratum 5), so
the same release scores 4.98258 with the one and 4.92534 with the other.
"""

from __future__ import annotations

from dataclasses import dataclass

from tklscore.core.errors import InputError

MODEL, FILE, SCORE_MODELS = "model", "file", "score models"
KINDS = (MODEL, FILE, SCORE_MODELS)
KIND_NAMES = {MODEL: "the tkl-Data Model", FILE: "a weights file", SCORE_MODELS: "each score's own model"}


@dataclass(frozen=True)
class GroupConsistency:
    """One criteria group's AHP judgements: λ_max, CI, CR and the verdict on CR."""

    group: str
    criteria: tuple[str, ...]
    n: int
    lambda_max: float
    ci: float
    cr: float
    verdict: str


@dataclass(frozen=True)
class WeightsSource:
    kind: str                       # model | file | score models
    name: str                       # the file, or the model's name
    groups: tuple[GroupConsistency, ...] = ()
    problems: tuple[str, ...] = ()  # what a model still lacks, or why its judgements cannot be read

    def sentence(self) -> str:
        """One line for a status bar, a report or the command line."""
        if self.kind == FILE:
            return f"Weights from the weights file {self.name}."
        if self.kind == SCORE_MODELS:
            return f"Weights from each score's own model ({self.name})."
        judged = [g for g in self.groups if g.n > 2]
        text = f"Weights derived from the tkl-Data Model {self.name}"
        if not self.groups:
            return text + " (no pairwise judgements: priorities assigned or labelled)."
        worst = max(judged, key=lambda g: g.cr) if judged else None
        if worst is None:
            return text + f" ({len(self.groups)} criteria group(s) of two, always consistent)."
        return (text + f" ({len(self.groups)} criteria group(s) judged by AHP; the least consistent, "
                f"{worst.group}, is {worst.verdict}).")


def file_source(path: str) -> WeightsSource:
    return WeightsSource(FILE, str(path))


def score_models_source(description: str) -> WeightsSource:
    return WeightsSource(SCORE_MODELS, description)


def model_source(model, name: str) -> WeightsSource:
    """The source of weights derived from ``model`` (a TklDataModel), with each criteria
    group's consistency; a model that cannot be derived is described, not raised."""
    try:
        derivation = model.derive()
    except (InputError, ValueError) as error:
        return WeightsSource(MODEL, name, problems=(f"the judgements could not be evaluated: {error}",))
    groups = []
    for iri, result in derivation.groups.items():
        node = model.nodes.get(iri)
        several = len(derivation.experts.get(iri, {})) > 1  # a group's combined judgements
        groups.append(GroupConsistency(
            node.label if node is not None else iri, tuple(result.criteria or ()), result.n,
            float(result.lambda_max), float(result.ci), float(result.cr), result.verdict(several).sentence))
    return WeightsSource(MODEL, name, tuple(groups), tuple(derivation.problems))
