"""tkl-Score, M-Score and L-Severity of the student's table as a release of the original.

The release designer (``core/release/designer.py``) scores the transformed release on the
shared engine: the attacker links a published row to the original rows whose QIDs,
generalised the same way, match it. The weights say how sensitive each value is; Learn
mode uses the teaching weights of its datasets (``datasets.WEIGHTS``, shipped as
``resources/learn/STEM_weights.csv``), and for a sensitive column without them weighs
every value 1, the most sensitive (the conservative default), and says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tklscore.core.learn import datasets
from tklscore.core.scoring.meaning import verdict
from tklscore.core.scoring.scores import ScoreSet
from tklscore.core.scoring.weights import Weights

X = 1.0   # M-Score's x: quantity counts fully (the thesis' default)

# key → (name on screen, what it means for a student)
MEANINGS = {
    "tkl": ("tkl-Score",
            "How much someone who knows a person's QID values learns about their sensitive value, summed "
            "over the published rows. It grows with small groups (k), few different values (l), groups "
            "that stand out from the table (t) and sensitive values (weights)."),
    "tkl_max": ("tkl-Score of the riskiest row", "The same for the single most exposed published row."),
    "m_score": ("M-Score",
                "Misuseability (Harel et al.): the most sensitive and most identifiable row, scaled up by "
                "the number of published rows."),
    "l_severity": ("L-Severity",
                   "Severity (Vavilis et al.): each published row's sensitivity divided by the number of "
                   "original rows that look like it, summed."),
}
NORMALISED_MEANING = ("% of the original's: the score divided by what publishing the original table would "
                      "score (normalised); 100 % = as much to misuse as the original, 0 % = nothing.")


@dataclass(frozen=True)
class TeachingWeights:
    weights: Weights
    source: str          # one sentence for the screen: where the weights come from


@dataclass(frozen=True)
class ScoreRow:
    key: str
    name: str
    raw: float
    original: float
    normalised: float | None
    verdict: str
    meaning: str


@dataclass
class LearnScores:
    raw: ScoreSet
    normalised: ScoreSet          # ÷ the original table's scores
    normalised_max: ScoreSet      # ÷ the theoretical maximum
    original: ScoreSet            # the original table published whole
    weights_source: str
    notes: list[str] = field(default_factory=list)

    @property
    def rows(self) -> list[ScoreRow]:
        raw, whole, normal = self.raw.as_dict(), self.original.as_dict(), self.normalised.as_dict()
        out = []
        for key, (name, meaning) in MEANINGS.items():
            value = normal[key]
            out.append(ScoreRow(key, name, raw[key], whole[key], value, verdict(value).level, meaning))
        return out


def teaching_weights(dataset_names, sensitive: str, continuous: bool, values) -> TeachingWeights:
    """The weights of ``sensitive`` for tables ``dataset_names`` (``values``: the column's values)."""
    shipped = datasets.bundled()
    files = [name for name in dataset_names
             if sensitive in datasets.WEIGHTS and name in shipped and sensitive in shipped[name].columns]
    if files:
        frame = datasets.weights_frame([sensitive])
        weights = Weights(list(frame.itertuples(index=False, name=None)), name=f"{files[0]}_weights.csv")
        return TeachingWeights(weights, f"Weights: the teaching weights of '{sensitive}' "
                                        f"(resources/learn/{files[0]}_weights.csv, chosen by hand for teaching).")
    if continuous:
        entries = [(sensitive, "(-inf,inf)", 1.0)]
    else:
        entries = [(sensitive, str(v), 1.0) for v in sorted({str(v) for v in values})]
    return TeachingWeights(Weights(entries, name="conservative default"),
                           f"Weights: no teaching weights exist for '{sensitive}', so every value weighs 1, "
                           f"the most sensitive (the conservative default).")


def weights_for(applied, dataset_names) -> TeachingWeights:
    column = applied.recipe.sensitive
    return teaching_weights(dataset_names, column, column in applied.transformed.roles.continuous,
                            applied.table[column].to_numpy())


def scores(applied, dataset_names) -> LearnScores | None:
    """The scores of ``applied``'s release (None without a sensitive column)."""
    if applied.designer is None:
        return None
    chosen = weights_for(applied, dataset_names)
    designer, transformed = applied.designer, applied.transformed
    result = designer.evaluate(transformed.design, chosen.weights, X, measures=False, transformed=transformed,
                               record_ids=False)
    report = result.report
    original = designer.scorer.whole_source_scores(chosen.weights, X)
    return LearnScores(report.scores, report.normalized_source, report.normalized_max, original, chosen.source,
                       list(result.notes))
