"""A design session (issue 21 §2): the Qt-free half of the Design view.

- :class:`DesignState` is what the officer sets: the hierarchies, each column's level, the
  columns not published, the perturbed ones, the seed and record suppression; it reads and
  writes the project's design settings and makes the :class:`ReleaseDesign` on screen.
- :class:`DesignSession` owns the designer the source gives
  (:meth:`tklscore.core.source.Source.designer`: a
  :class:`~tklscore.core.release.designer.ReleaseDesigner` in memory, or an
  :class:`~tklscore.core.engines.design.EngineDesigner` over the file) — built on first use
  and rebuilt (an engine closed) when the source, roles, hierarchies or model change; it
  evaluates designs and searches for suggested releases with progress and cancellation, and
  gives one :class:`Evaluation` for both engines.
- :func:`take_up_designed`: a designed release made current is the design being built.
- :func:`design_source` says what a session designs over, or what is missing;
  :class:`DesignOffer` what the view offers for a source (suggestions, noise, the report,
  the engine's note and the copied command's engine) — the view asks, never the engine.

A session's work runs on one thread at a time (the application's task runner), which
owns the engine: :meth:`DesignSession.close` runs there too.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass, field
from typing import Callable

import pandas as pd

from tklscore.core.errors import Cancelled, InputError
from tklscore.core.release.figures import DesignFigures, design_figures
from tklscore.core.release.hierarchy import Hierarchy
from tklscore.core.release.suggest import Constraints, Suggestions, suggest
from tklscore.core.release.transform import ReleaseDesign, export_published
from tklscore.core.scoring.weights import Weights
from tklscore.core.tables.roles import Roles

PREVIEW_ROWS = 200        # the published table's first rows shown
SUPPRESSED_SHOWN = 500    # the suppressed records listed by id
DESIGNED = "designed release"   # the name of the design on screen until it is saved under another
SUGGEST_OUT_OF_CORE = (
    "Out of core, the suggestions are worked out from the source's aggregate: each distinct combination of its "
    "values, counted once from the file and kept for the next time. Each combination of levels is then a "
    "roll-up of it, not another reading of the file. A row selection is not searched out of core: search "
    "without it, then select the rows of the release you choose.")
PERTURBATIONS = ("mean", "median", "noise")
REPORT_IN_MEMORY = "the report of a designed release needs the table in memory"


# ---------------------------------------------------------------------------- the officer's settings

@dataclass
class DesignState:
    """The design being built: hierarchies, levels, removed and perturbed columns (column →
    (mean | median | noise, ε %)), the noise seed, and suppression below a class size
    within a budget (a share of the rows)."""

    hierarchies: dict[str, Hierarchy] = field(default_factory=dict)
    levels: dict[str, int] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)
    perturbed: dict[str, tuple[str, float]] = field(default_factory=dict)
    seed: int = 0
    suppress_below: int = 0
    suppression_limit: float = 0.05

    def load(self, settings: dict, builtin: str | None = None) -> None:
        """The project's design settings (``{"hierarchies": [...], "current": design}``); the
        thesis example opens with its own hierarchies."""
        saved = settings.get("hierarchies")
        if saved is not None:
            self.hierarchies = {h["column"]: Hierarchy.from_dict(h) for h in saved}
        elif builtin == "thesis":
            from tklscore.core.examples import thesis_hierarchies

            self.hierarchies = thesis_hierarchies()
        if settings.get("current"):
            self.apply(ReleaseDesign.from_dict(settings["current"]))

    def apply(self, design: ReleaseDesign) -> None:
        """Take a design's levels, removed and perturbed columns, seed and suppression."""
        self.levels, self.removed = dict(design.levels), set(design.removed)
        self.perturbed = {**{c: (m, 0.0) for c, m in design.microaggregate},
                          **{c: ("noise", e) for c, e in design.noise}}
        self.seed = design.seed
        self.suppress_below, self.suppression_limit = design.suppress_below, design.suppression_limit

    def save(self, settings: dict, selection=None) -> None:
        settings["hierarchies"] = [h.to_dict() for h in self.hierarchies.values()]
        settings["current"] = self.design(selection=selection).to_dict()

    def restrict(self, columns: list[str], roles: Roles, noise: bool = True) -> None:
        """Drop what no longer applies to the source's columns and roles: hierarchies of
        absent columns, perturbation of a QI, noise where it is not offered (an engine cannot
        draw it: :class:`DesignOffer`)."""
        self.hierarchies = {c: h for c, h in self.hierarchies.items() if c in columns}
        self.perturbed = {c: p for c, p in self.perturbed.items() if c in columns and c not in roles.qi
                          and (noise or p[0] != "noise")}

    def set_hierarchy(self, column: str, hierarchy: Hierarchy | None) -> None:
        if hierarchy is None:
            self.hierarchies.pop(column, None)
        else:
            self.hierarchies[column] = hierarchy
        self.levels.pop(column, None)

    def set_perturbed(self, column: str, how: str | None, epsilon: float = 10.0) -> None:
        """Publish a numeric column as its class mean/median or with ± ε % noise (None: as it is)."""
        if how is None:
            self.perturbed.pop(column, None)
        elif how not in PERTURBATIONS:
            raise InputError(f"'{how}' is not one of {', '.join(PERTURBATIONS)}", column=column)
        else:
            self.perturbed[column] = (how, float(epsilon))

    def set_published(self, column: str, published: bool) -> None:
        (self.removed.discard if published else self.removed.add)(column)

    def design(self, name: str = DESIGNED, selection=None) -> ReleaseDesign:
        """The release on screen: ``selection``'s rows (every source record: None), transformed as set."""
        levels = {c: v for c, v in self.levels.items() if c in self.hierarchies}
        microaggregate = {c: how for c, (how, _) in self.perturbed.items() if how in ("mean", "median")}
        noise = {c: epsilon for c, (how, epsilon) in self.perturbed.items() if how == "noise"}
        return ReleaseDesign(name, levels, self.suppress_below, self.suppression_limit, self.removed,
                             microaggregate, noise, self.seed, selection=selection)


def take_up_designed(project) -> bool:
    """The rule of a designed release made current: its design, on the rows it was designed
    from, becomes the project's design being built (``settings["design"]["current"]``), which
    the Design view shows whenever it is built. False (nothing changed) when the current
    release is a defined one."""
    designed = project.designed(project.current_release)
    if designed is None:
        return False
    settings = project.settings.setdefault("design", {})
    state = DesignState()
    state.load(settings, project.builtin)
    design = ReleaseDesign.from_dict(designed)
    state.apply(design)
    state.save(settings, design.selection)
    return True


def named_as_saved(design: ReleaseDesign, saved: list[dict]) -> ReleaseDesign:
    """``design`` under the name it was saved as, when a saved design is the very same
    (a design is one release, named once); else as it is."""
    unnamed = {k: v for k, v in design.to_dict().items() if k != "name"}
    for data in saved:
        if {k: v for k, v in data.items() if k != "name"} == unnamed:
            return ReleaseDesign.from_dict({**unnamed, "name": data.get("name", design.name)})
    return design


def save_design(settings: dict, design: ReleaseDesign, defined: list[str]) -> None:
    """Keep ``design`` among the project's designed releases (``settings``: its design
    settings), replacing one of the same name; a release defined in the Release view keeps
    its name (``defined``: their names)."""
    if design.name in defined:
        raise InputError(f"there is already a release named '{design.name}' (defined in the Release view); "
                         f"choose another name")
    if not design.name.strip():
        raise InputError("a release needs a name")
    saved = [d for d in settings.get("saved") or [] if d.get("name") != design.name]
    settings["saved"] = saved + [design.to_dict()]


# ---------------------------------------------------------------------------- the designer's life

@dataclass(frozen=True, eq=False)
class DesignSource:
    """What a session designs over: a :class:`~tklscore.core.source.Source` (in memory or an
    engine over the file, the session never asks which to build its designer), the
    hierarchies, and the tkl-Data Model whose elements weigh generalised sensitive values
    (None: the largest weight of the values a group covers)."""

    source: object
    hierarchies: dict[str, Hierarchy]
    model: object | None = None

    @property
    def roles(self) -> Roles:
        return self.source.roles

    @property
    def out_of_core(self) -> bool:
        return self.source.out_of_core

    @property
    def title(self) -> str:
        """The evaluation's task, as the status bar says it."""
        return "Designing the release out of core" if self.out_of_core else "Designing the release"

    @property
    def reports_progress(self) -> bool:
        """Whether an evaluation reports its progress (an engine's takes seconds to minutes; in
        memory it takes a moment and only a cancel is checked)."""
        return self.out_of_core

    def key(self) -> tuple:
        """What the designer is built from: another key, another designer (the source is held,
        so its identity is never reused)."""
        hierarchies = tuple(sorted((c, repr(h.to_dict())) for c, h in self.hierarchies.items()))
        return self.source, self.roles, hierarchies, id(self.model)


def design_source(source, columns_known: bool, hierarchies: dict[str, Hierarchy],
                  model=None) -> DesignSource | str:
    """What a session designs over (``source``: the workbench's, None before one is open;
    ``columns_known``: an engine's source has been described), or what is missing, in words."""
    if source is not None and source.out_of_core:
        if not columns_known:
            return "Reading the source out of core…"
        if not source.roles.sa or not source.roles.qi:
            return ("Choose the quasi-identifiers and sensitive attributes (Release view) to design a release "
                    "of this source.")
    elif source is None or not source.roles.sa:
        return "Open a source table and choose its quasi-identifiers and sensitive attributes."
    return DesignSource(source, dict(hierarchies), model)


@dataclass(frozen=True)
class DesignOffer:
    """What the Design view offers for a source: ``note``, the engine's note (None in
    memory); ``suggest_refused``, why suggestions are not offered (None: offered), and
    ``suggest_note``, where they come from (out of core: the source's aggregate); ``noise``
    offered as a perturbation; ``report_refused``, why the report is not offered; ``engine``,
    the copied command's ``--engine`` (None: in memory)."""

    note: str | None = None
    suggest_refused: str | None = None
    noise: bool = True
    report_refused: str | None = None
    engine: str | None = None
    suggest_note: str | None = None

    @staticmethod
    def of(source, rows: int | None = None) -> "DesignOffer":
        """The offer for ``source`` (None: no source yet) of ``rows`` records (None: not yet counted)."""
        if source is None or not source.out_of_core:
            return DesignOffer()
        return DesignOffer(engine_note(source.engine_name, rows), None, False, REPORT_IN_MEMORY, source.engine,
                           SUGGEST_OUT_OF_CORE)


def engine_note(engine_name: str, rows: int | None) -> str:
    """The note that each change is evaluated by an engine reading the file."""
    shown = f"{rows:,} records" if rows is not None else "a source too large for memory"
    return (f"<b>Out of core.</b> This source ({shown}) is larger than the memory share, so each change is "
            f"evaluated by {engine_name} reading the file: that takes seconds to minutes. The figures below stay "
            f"those of the last evaluation until the new one arrives; the progress is in the status bar.")


@dataclass
class Evaluation:
    """One evaluated design as the view shows it, from either engine: the result (its
    scores, utility, measures, notes), its figures, the published table's first rows, the
    first suppressed records' ids, and each hierarchy's height (or the error reading it)."""

    result: object
    figures: DesignFigures
    preview: pd.DataFrame
    suppressed_ids: list[str]
    heights: dict[str, int | InputError]

    @property
    def design(self) -> ReleaseDesign:
        transformed = getattr(self.result, "transformed", None)
        return transformed.design if transformed is not None else self.result.design

    def renamed(self, name: str) -> "Evaluation":
        """The same evaluation of the design named ``name`` (saved under it since)."""
        if name == self.design.name:
            return self
        design = ReleaseDesign.from_dict({**self.design.to_dict(), "name": name})
        transformed = getattr(self.result, "transformed", None)
        if transformed is not None:
            result = dataclasses.replace(self.result, transformed=dataclasses.replace(transformed, design=design))
        else:
            result = dataclasses.replace(self.result, design=design)
        return dataclasses.replace(self, result=result)


class DesignSession:
    """The designer of one source, built when first needed, and the work done with it."""

    def __init__(self):
        self.state = DesignState()
        self.designer = None
        self._key = None

    def _designer_for(self, source: DesignSource, cancelled: Callable[[], bool] | None = None):
        key = source.key()
        if self._key == key:
            return self.designer
        self.close()
        from tklscore.core.release.designer import element_weights

        elements = element_weights(source.model) if source.model is not None else None
        designer = source.source.designer(source.hierarchies, elements)
        self.designer, self._key = designer, key
        if cancelled is not None and cancelled():
            raise Cancelled()
        return designer

    def evaluate(self, source: DesignSource, design: ReleaseDesign, weights: Weights, x: float = 1.0,
                 progress: Callable[[float], None] | None = None,
                 cancelled: Callable[[], bool] | None = None) -> Evaluation:
        """The design evaluated on the session's designer; ``progress`` may raise
        :class:`~tklscore.core.errors.Cancelled` to stop, ``cancelled()`` interrupts an engine's
        running statement."""
        designer = self._designer_for(source, cancelled)
        if not source.out_of_core:
            result = designer.evaluate(design, weights, x, record_ids=False, progress=progress)
            figures = design_figures(result, designer)
            preview = result.transformed.published_table(limit=PREVIEW_ROWS)
            suppressed = [str(i) for i in designer.scorer.ids_of(result.transformed.suppressed[:SUPPRESSED_SHOWN])]
        else:
            result = interruptible(cancelled, designer.backend, lambda: designer.evaluate(
                design, weights, x, progress=progress, preview=PREVIEW_ROWS))
            figures = design_figures(result)
            preview = result.preview if result.preview is not None else pd.DataFrame()
            suppressed = designer.suppressed_ids(SUPPRESSED_SHOWN)
        return Evaluation(result, figures, preview, suppressed, self._heights(designer, source.hierarchies))

    @staticmethod
    def _heights(designer, hierarchies) -> dict[str, int | InputError]:
        heights: dict[str, int | InputError] = {}
        for column in hierarchies:
            try:
                heights[column] = designer.height(column)
            except InputError as error:
                heights[column] = error
        return heights

    def suggest(self, source: DesignSource, weights: Weights, constraints: Constraints, base: ReleaseDesign,
                x: float = 1.0, progress: Callable[[float], None] | None = None,
                cancelled: Callable[[], bool] | None = None) -> Suggestions:
        """The suggested releases (:func:`~tklscore.core.release.suggest.suggest`), in memory or,
        out of core, over the source's aggregate (:mod:`tklscore.core.engines.lattice`);
        cancelled, the front of the releases evaluated so far."""
        designer = self._designer_for(source)
        if source.out_of_core:
            lattice = getattr(self, "_lattice", None)
            if lattice is None or lattice.designer is not designer:
                self._lattice = lattice = designer.lattice()
            designer = lattice
        return suggest(designer, weights, constraints, base, x, progress=progress, cancelled=cancelled)

    def write_release(self, evaluation: Evaluation, path: str) -> int:
        """The evaluated release's published table written to ``path`` (CSV or Parquet,
        atomically; out of core by the engine, never loaded whole); returns its rows."""
        transformed = getattr(evaluation.result, "transformed", None)
        if transformed is not None:
            return export_published(transformed, path)
        self.designer.write_release(evaluation.result.design, path)
        return evaluation.result.published_rows

    def close(self) -> None:
        """Close the engine (if the designer has one); the next evaluation builds another."""
        designer, self.designer, self._key = self.designer, None, None
        self._lattice = None    # the aggregate fetched for suggestions out of core
        if designer is not None and hasattr(designer, "close"):
            designer.close()


def interruptible(cancelled: Callable[[], bool] | None, backend, work):
    """``work()`` on the engine, its running statement interrupted as soon as ``cancelled()``
    (a newer design supersedes it): a statement over a large file can take minutes.
    Interrupted because cancelled, it raises :class:`~tklscore.core.errors.Cancelled`."""
    if cancelled is None:
        return work()
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(0.05):
            if cancelled():
                backend.interrupt()
                return

    watcher = threading.Thread(target=watch, name="tklscore-design-interrupt", daemon=True)
    watcher.start()
    try:
        return work()
    except Exception:
        if cancelled():
            raise Cancelled() from None
        raise
    finally:
        stop.set()
        watcher.join()

