"""The three weight models, read from one kind of file: a tkl-Data Model (tkl-Score's
weights, Alg. 2), M-Score's three-level AHP tree and L-Severity's data model with
inference relationships (spec data-model.md §5).

:func:`load_weight_model` reads any of them from Turtle (the file says which it is) and
gives its ``(attribute, value, weight)`` triples and :class:`Weights`. To score each score
with its own model, put the three in a :class:`~tklscore.core.scoring.weights.WeightsPerScore`
and call :meth:`tklscore.core.scoring.scores.Scorer.score_with_own_weights`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from rdflib import RDF, Namespace

from tklscore.core.errors import InputError
from tklscore.core.files.rdf import parse_rdf_file
from tklscore.core.model import lseverity_model, mscore_model
from tklscore.core.model.data_model import TKLM, TklDataModel
from tklscore.core.model.lseverity_model import LSeverityModel
from tklscore.core.model.mscore_model import MScoreModel
from tklscore.core.scoring.weights import Weights
from tklscore.core.tables.loading import TEXT_SUFFIXES

TKL_DATA_MODEL = "tkl-Data Model"
MSCORE_MODEL = "M-Score model"
LSEVERITY_MODEL = "L-Severity model"


@dataclass(frozen=True)
class WeightModel:
    """One weight model read from a file: its kind, the model object and its weights."""

    kind: str                  # TKL_DATA_MODEL, MSCORE_MODEL or LSEVERITY_MODEL
    model: TklDataModel | MScoreModel | LSeverityModel
    file: str

    def weight_triples(self) -> list[tuple[str, str, float]]:
        """``(attribute, value, weight)`` of every sensitive value the model weighs."""
        if isinstance(self.model, TklDataModel):
            return self.model.weight_triples()
        return self.model.weights()

    def to_weights(self) -> Weights:
        """The weights the scoring core takes, named after the file."""
        if isinstance(self.model, TklDataModel):
            return self.model.to_weights(self.file)
        if isinstance(self.model, LSeverityModel):
            return self.model.to_weights(self.file)
        return Weights(self.model.weights(), name=self.file)


def load_weight_model(path: str | os.PathLike) -> WeightModel:
    """Read a tkl-Data Model, M-Score model or L-Severity model file (Turtle, …)."""
    graph = parse_rdf_file(path, what="model file")
    file = str(path)
    found = [kind for kind, node_type in ((TKL_DATA_MODEL, TKLM.TklDataModel),
                                          (MSCORE_MODEL, Namespace(mscore_model.VOCABULARY).Model),
                                          (LSEVERITY_MODEL, Namespace(lseverity_model.VOCABULARY).Model))
             if (None, RDF.type, node_type) in graph]
    if len(found) != 1:
        raise InputError(("holds no weight model" if not found else f"holds {' and '.join(found)}")
                         + "; a model file holds exactly one of a tkl-Data Model, an M-Score model "
                           "or an L-Severity model", file=file)
    kind = found[0]
    if kind == TKL_DATA_MODEL:
        model = TklDataModel.from_graph(graph, file)
    elif kind == MSCORE_MODEL:
        model = MScoreModel.from_graph(graph, file)
    else:
        model = lseverity_model.lseverity_model_from_graph(graph, file)
    return WeightModel(kind, model, file)


def read_score_models(paths: list[str]) -> dict[str, dict]:
    """M-Score's and L-Severity's own models from two files, in either order: by kind, each
    one's file and weights as ``[attribute, value, weight]`` lists — plain data, the answer of
    :func:`load_score_models`' process."""
    models = [load_weight_model(p) for p in paths]
    if sorted(m.kind for m in models) != sorted([MSCORE_MODEL, LSEVERITY_MODEL]):
        held = "; ".join(f"{Path(m.file).name} holds an {m.kind}" if m.kind != TKL_DATA_MODEL
                         else f"{Path(m.file).name} holds a {m.kind}" for m in models)
        raise InputError(f"choose one M-Score model and one L-Severity model ({held or 'no file chosen'})")
    return {m.kind: {"file": m.file, "weights": [[e.attribute, e.value, e.weight] for e in m.to_weights().entries]}
            for m in models}


def load_score_models(paths, cancelled=None, apart: bool | None = None) -> tuple[Weights, Weights]:
    """M-Score's and L-Severity's weights from their two model files, the weights
    :func:`load_weight_model` gives: parsed in a process of their own (``cancelled()`` stops
    it) when ``apart`` is True, or, when it is None, when the files are large
    (:func:`~tklscore.core.apart.read_files`); else here."""
    from tklscore.core.apart import read_files

    return read_files(read_score_models, list(paths), kind="model file", rebuild=_score_weights, apart=apart,
                      cancelled=cancelled, what="reading the M-Score and L-Severity models")


def _score_weights(read: dict[str, dict]) -> tuple[Weights, Weights]:
    """M-Score's and L-Severity's :class:`Weights` from :func:`read_score_models`' plain data."""
    return tuple(Weights([tuple(e) for e in read[kind]["weights"]], name=read[kind]["file"])
                 for kind in (MSCORE_MODEL, LSEVERITY_MODEL))


def load_weights_or_model(path: str | os.PathLike) -> Weights:
    """Weights from a weights CSV (``.csv``/``.tsv``/``.txt``) or from any weight model file."""
    from tklscore.core.scoring.weights import load_weights

    if Path(path).suffix.lower() in TEXT_SUFFIXES:
        return load_weights(path)
    return load_weight_model(path).to_weights()
