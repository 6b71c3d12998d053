"""Scores, privacy models and utility of a transformed release (privacy-models.md §5).

The attacker links a published record r to the source S through the QIs: its candidate
set C(r) holds the source rows whose QIs, generalised to the release's levels, equal r's
published QIs (a removed QI is ``*`` and matches anything). So the distinguishing factors
are those of ``scoring`` computed on the source with the generalised QI codes and each
SA at its published level; with every level 0 they are the very same computation on the
very same codes, hence equal to ``score``'s. A generalised SA value weighs what the
tkl-Data Model gives the element of that name, else the largest weight of the source
values it covers (the conservative reading, reported in the notes). Normalisation
against the source divides by the untransformed whole source's scores.

:class:`ReleaseDesigner` caches what a change of levels does not touch (the source codes,
each column's generalised codes per level, weights per SA level, the factors of recent
level combinations), so one change re-scores with a few group-bys.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from tklscore.core.errors import InputError
from tklscore.core.release.hierarchy import Hierarchy
from tklscore.core.release.transform import LevelCache, ReleaseDesign, Transformed, perturbed_notes, transform
from tklscore.core.release.utility import Utility, ValueCounts, attribute_precision, utility_of_values
from tklscore.core.scoring.distinguishing_factors import (BESIDE, DistinguishingFactors, compute_distinguishing_factors,
                                                          LatticeL, factors_without_quasi_identifiers, sa_groups)
from tklscore.core.scoring.scores import (ScoreReport, Scorer, ScoreSet, check_x, normalise_by_source, record_scores,
                                         score_report, table_scores)
from tklscore.core.scoring.weights import Weights
from tklscore.core.tables.codes import Codes
from tklscore.core.tables.loading import Table
from tklscore.core.tables.published import unlocated_note
from tklscore.core.tables.roles import Roles


@dataclass
class DesignResult:
    """Everything a release design shows, in memory or out of core alike: the design, its
    scores (``report``), utility, privacy models and risk (``measures`` as JSON, ``risk`` as
    :class:`~tklscore.core.risk.measures.Measures`), the notes and the row counts. In
    memory ``transformed`` holds the release itself; an engine keeps its rows (``preview``:
    the first ones, when asked for)."""

    design: ReleaseDesign
    roles: Roles
    report: ScoreReport
    utility: Utility
    measures: dict | None
    risk: object | None
    notes: list[str]
    source_rows: int
    selected_rows: int
    published_rows: int
    suppressed_rows: int
    generalised_levels: dict[str, int]     # every column with a hierarchy or a QI → its level
    unlocated: list[str] = field(default_factory=list)
    below_limit_left: int = 0
    preview: pd.DataFrame | None = None
    suppressed_ids: list[str] | None = None   # the first suppressed records' ids, when asked for
    transformed: Transformed | None = None    # in memory: the transformed release

    @classmethod
    def of_transformed(cls, transformed: Transformed, report: ScoreReport, utility: Utility, risk,
                       notes: list[str]) -> "DesignResult":
        t = transformed
        return cls(t.design, t.roles, report, utility, risk.to_json_dict() if risk is not None else None, risk,
                   notes, len(t.source), len(t.selected), len(t.published), len(t.suppressed),
                   {c: g.level for c, g in t.generalised.items()}, list(t.unlocated), t.below_limit_left,
                   transformed=t)

    @property
    def levels(self) -> dict[str, int]:
        """Each QI's level (a removed QI: its top)."""
        return {c: self.generalised_levels[c] for c in self.roles.qi if c in self.generalised_levels}

    def to_json_dict(self) -> dict:
        return design_json(self.design.name, self.roles, self.generalised_levels, self.published_rows,
                           self.suppressed_rows, self.source_rows, self.report, self.measures, self.utility,
                           self.notes)


def design_json(name: str, roles: Roles, generalised_levels: dict[str, int], published_rows: int,
                suppressed_rows: int, source_rows: int, report: ScoreReport, measures: dict | None,
                utility: Utility, notes: list[str]) -> dict:
    """A design result as `tklscore release --format json` writes it (in memory and out of core)."""
    g = generalised_levels
    return {
        "name": name,
        "levels": {c: g[c] for c in list(roles.qi) + sorted(g) if c in g and (c in roles.qi or g[c])},
        "published_rows": int(published_rows),
        "suppressed_rows": int(suppressed_rows),
        "source_rows": int(source_rows),
        "x": "inf" if np.isinf(report.x) else float(report.x),
        "scores": report.scores.as_dict(),
        "normalized": {"source": report.normalized_source.as_dict(),
                       "theoretical_max": report.normalized_max.as_dict()},
        "measures": measures,
        "utility": utility.as_dict(),
        "utility_per_attribute": utility.per_attribute,
        "notes": list(notes),
    }


def element_weights(model) -> dict[tuple[str, str], float]:
    """(column, element name) → weight of every element of a tkl-Data Model: its priority
    times the priorities of the taxonomy and attribute nodes above it (data-model.md §3)."""
    from tklscore.core.model.data_model import Kind

    derivation = model.derive()
    out = {}
    for node in model.nodes.values():
        if node.kind != Kind.ELEMENT or node.iri not in derivation.priorities:
            continue
        weight = derivation.priorities[node.iri]
        for iri in model.path_to_root(node.parent):
            if model.nodes[iri].kind in (Kind.ATTRIBUTE, Kind.TAXONOMY, Kind.ROOT):
                if iri not in derivation.priorities:
                    break
                weight *= derivation.priorities[iri]
        else:
            out[(node.column, node.label[2:])] = weight
    return out


def generalised_weights(name: str, level: int, labels, largest: np.ndarray,
                        elements: dict[tuple[str, str], float]) -> tuple[np.ndarray, str | None]:
    """The weight of each generalised value (``labels``) of SA ``name`` at ``level``: its
    element's in the tkl-Data Model, else ``largest``, the largest weight of the values it
    covers (the conservative reading, said in the note)."""
    group_weight = np.array(largest, dtype=np.float64, copy=True)
    conservative = []
    for i, label in enumerate(labels):
        element = elements.get((name, str(label)))
        if element is not None:
            group_weight[i] = element
        else:
            conservative.append(str(label))
    note = None
    if conservative:
        shown = ", ".join(f"'{v}'" for v in conservative[:8]) + (" ..." if len(conservative) > 8 else "")
        note = (f"'{name}' at level {level}: {len(conservative)} generalised value(s) ({shown}) have no "
                f"element in the tkl-Data Model and weigh the largest weight of the values they cover "
                f"(conservative)")
    return group_weight, note


class ReleaseDesigner:
    """Evaluates release designs of one source under one assignment of roles."""

    def __init__(self, source: Table, roles: Roles, hierarchies: dict[str, Hierarchy] | None = None,
                 scorer: Scorer | None = None, elements: dict[tuple[str, str], float] | None = None):
        self.scorer = scorer if scorer is not None and scorer.source is source else Scorer(source, roles)
        self.source, self.roles = source, roles
        self.hierarchies = dict(hierarchies or {})
        for column, hierarchy in self.hierarchies.items():
            if column not in source.columns:
                raise InputError(f"a hierarchy is given for column '{column}', which the table lacks",
                                 file=source.name)
        self.elements = {(c, e.replace("-", " ")): w for (c, e), w in (elements or {}).items()}
        text_codes = dict(zip(roles.qi, self.scorer.qi_codes))
        self.levels = LevelCache(source, roles, self.hierarchies, text_codes)
        self._factors: OrderedDict = OrderedDict()
        self._weights: dict = {}
        self._sa_groups: dict = {}
        self._lattice_l = LatticeL()   # the l-DF of a level combination from those of its generalisations
        self._lock = threading.Lock()  # the caches are shared by suggest's workers
        self.parallel = True  # parts of one evaluation run beside each other (suggest runs whole nodes instead)

    def height(self, column: str) -> int:
        return self.levels.column(column).height

    def transform(self, design: ReleaseDesign) -> Transformed:
        return transform(self.source, self.roles, design, self.hierarchies, self.levels)

    # ------------------------------------------------------------------ factors and weights
    def _sa_level(self, design: ReleaseDesign, name: str) -> int:
        return design.level(name) if name in self.hierarchies else 0

    def factors(self, design: ReleaseDesign, progress=None,
                classes: tuple | None = None) -> DistinguishingFactors | None:
        """Distinguishing factors of every source record for the design's levels (None
        without QIs: they then depend on the published records); ``classes``: the source
        rows' classes on the generalised QIs and their count (and each class's size), when known."""
        if not self.roles.qi:
            return None
        kept_sa = [s for s in self.roles.sa if s not in design.removed]
        qi_key = tuple(-1 if c in design.removed else design.level(c) for c in self.roles.qi)
        sa_key = tuple((s, self._sa_level(design, s)) for s in kept_sa)
        key = (qi_key, sa_key)
        with self._lock:
            if key in self._factors:
                self._factors.move_to_end(key)
                return self._factors[key]
        if not kept_sa:
            raise InputError("every sensitive attribute is removed; nothing sensitive is published to score")
        qi = [original if level == 0 else self._generalised(column, design).as_codes
              for column, original, level in zip(self.roles.qi, self.scorer.qi_codes, qi_key)]
        sa = self._sa_codes(design, kept_sa)
        groups = self._sa_groups.get(sa_key)
        if groups is None:  # the SA-only groupings the l-DF of every level combination reuses
            groups = sa_groups(list(sa.values()), len(self.source))
            self._sa_groups = {sa_key: groups}
        factors = compute_distinguishing_factors(
            qi, sa, self.roles.continuous & set(kept_sa), progress, groups, beside=BESIDE if self.parallel else None,
            classes=classes, l_of_groups=lambda c, g, step: self._lattice_l.l(c, g, qi_key, sa_key, step))
        with self._lock:
            self._factors[key] = factors
            while len(self._factors) > 4:
                self._factors.popitem(last=False)
        return factors

    def _source_classes(self, transformed: Transformed) -> tuple[np.ndarray, int, np.ndarray] | None:
        """The classes of every source row on the release's QIs as :meth:`factors` forms them,
        their count and each one's size, when the transformation grouped them already: its
        selection holds every row in order, and each QI left at level 0 keeps its values apart.
        Else None."""
        classes = transformed.selected_classes
        if classes is None or not len(classes) or not self.levels.whole(transformed.design.selection):
            return None
        for column, original in zip(self.roles.qi, self.scorer.qi_codes):
            g = transformed.generalised[column]
            if column not in transformed.design.removed and g.level == 0 and len(g.labels) != original.cardinality:
                return None
        return classes, len(transformed.class_sizes), transformed.class_sizes

    def _generalised(self, column: str, design: ReleaseDesign):
        levels = self.levels.column(column)
        return levels.top() if column in design.removed else levels.at(design.level(column))

    def _sa_codes(self, design: ReleaseDesign, kept: list[str]) -> dict[str, Codes]:
        original = self.scorer.sa_codes
        return {s: original[s] if self._sa_level(design, s) == 0 else
                self.levels.column(s).at(self._sa_level(design, s)).as_codes for s in kept}

    def record_weights(self, design: ReleaseDesign, weights: Weights,
                       missing_weight_zero: bool = False) -> tuple[np.ndarray, list[str]]:
        """W(r) of every source record with each kept SA at its published level."""
        base, warnings = self.scorer.record_weights(weights, missing_weight_zero)
        kept = [s for s in self.roles.sa if s not in design.removed]
        if len(kept) == len(self.roles.sa) and all(self._sa_level(design, s) == 0 for s in kept):
            return base, list(warnings)
        key = (weights.fingerprint, missing_weight_zero, tuple((s, self._sa_level(design, s)) for s in kept))
        if key not in self._weights:
            total = np.zeros(len(self.source))
            notes = list(warnings)
            for name in kept:
                per_row, note = self._sa_weights(name, self._sa_level(design, name), weights)
                total += per_row
                if note:
                    notes.append(note)
            self._weights = {key: (total, notes)}
        return self._weights[key]

    def _sa_weights(self, name: str, level: int, weights: Weights) -> tuple[np.ndarray, str | None]:
        codes = self.scorer.sa_codes[name]
        per_value = weights.weights_of(name, codes.uniques, name in self.roles.continuous)
        per_value = np.where(np.isnan(per_value), 0.0, per_value)
        per_row = per_value[codes.codes]
        if level == 0:
            return per_row, None
        g = self.levels.column(name).at(level)
        largest = pd.Series(per_row).groupby(g.codes).max().reindex(range(len(g.labels)), fill_value=0.0)
        group_weight, note = generalised_weights(name, level, g.labels, largest.to_numpy(dtype=np.float64),
                                                 self.elements)
        return group_weight[g.codes], note

    # ------------------------------------------------------------------ evaluation
    def published_factors(self, transformed: Transformed, progress=None) -> DistinguishingFactors:
        design, positions = transformed.design, transformed.published
        factors_all = self.factors(design, progress, self._source_classes(transformed))
        if factors_all is not None:
            return factors_all.take(positions)
        kept = [s for s in self.roles.sa if s not in design.removed]
        if not kept:
            raise InputError("every sensitive attribute is removed; nothing sensitive is published to score")
        sa = self._sa_codes(design, kept)
        return factors_without_quasi_identifiers([Codes(c.codes[positions], c.uniques) for c in sa.values()])

    def table_scores(self, transformed: Transformed, weights: Weights, x: float = 1.0,
                     missing_weight_zero: bool = False) -> tuple[ScoreSet, ScoreSet]:
        """Raw scores and scores normalised by the source, without per-record tables."""
        factors = self.published_factors(transformed)
        weight_sum, _ = self.record_weights(transformed.design, weights, missing_weight_zero)
        scores = table_scores(record_scores(factors.k, factors.l, factors.t, weight_sum[transformed.published]), x)
        whole = self.scorer.whole_source_scores(weights, x, missing_weight_zero)
        return scores, normalise_by_source(scores, whole, len(transformed.published))

    def evaluate(self, design: ReleaseDesign, weights: Weights, x: float = 1.0, missing_weight_zero: bool = False,
                 measures: bool = True, progress=None, transformed: Transformed | None = None,
                 record_ids: bool = True, preview: int = 0, suppressed: int = 0) -> DesignResult:
        """The design's release, scores, measures and utility. Without ``record_ids`` the
        per-record table is keyed by source row positions (cheaper on a large source);
        ``preview``: the release's first rows to keep, ``suppressed``: how many suppressed
        records' ids to keep (as :class:`~tklscore.core.engines.design.EngineDesigner`)."""
        x = check_x(x)
        transformed = transformed if transformed is not None else self.transform(design)
        # the measures need only the transformed release: they run beside the factors (the
        # group-bys release the interpreter lock, so a second core shares the work)
        pending = BESIDE.submit(release_measure_set, self, transformed) if measures else None
        try:
            factors = self.published_factors(transformed, progress)
        except BaseException:
            if pending is not None:
                pending.cancel()
            raise
        weight_sum, warnings = self.record_weights(design, weights, missing_weight_zero)
        positions = transformed.published
        notes = list(self.scorer.notes) + list(warnings) + list(transformed.notes)
        if transformed.unlocated:
            notes.append(unlocated_note(transformed.unlocated, selection=True))
        notes += perturbed_notes(design, self.roles)
        ids = self.scorer.ids_of(positions) if record_ids else positions
        report = score_report(factors, weight_sum[positions], ids, x,
                              self.scorer.whole_source_scores(weights, x, missing_weight_zero), len(self.source),
                              notes)
        result_utility = self.utility(transformed)
        risk = pending.result() if pending is not None else None
        result = DesignResult.of_transformed(transformed, report, result_utility, risk, report.warnings)
        if preview:
            result.preview = transformed.published_table(limit=preview)
        if suppressed:
            result.suppressed_ids = [str(i) for i in self.scorer.ids_of(transformed.suppressed[:suppressed])]
        return result

    def write_release(self, result: "DesignResult | ReleaseDesign", path: str, inputs=(),
                      csv_safe: bool = False) -> None:
        """The published table of an evaluated design (or of a design) written to ``path``:
        Parquet (``.parquet``/``.pq``) or CSV, atomically, never over an input (``csv_safe``:
        a CSV for a spreadsheet, :func:`tklscore.core.files.records.csv_safe`)."""
        import io
        from pathlib import Path

        from tklscore.core.files.atomic import atomic_write
        from tklscore.core.release.transform import export_published

        transformed = (result.transformed if isinstance(result, DesignResult) and result.transformed is not None
                       else self.transform(result.design if isinstance(result, DesignResult) else result))
        if Path(path).suffix.lower() in (".parquet", ".pq"):
            export_published(transformed, path, inputs)
            return
        buffer = io.StringIO()
        published = transformed.published_table()
        if csv_safe:
            from tklscore.core.files.records import csv_safe as spreadsheet_safe

            published = spreadsheet_safe(published)
        published.to_csv(buffer, index=False, lineterminator="\n")
        with atomic_write(path, inputs=[self.source.name, *inputs]) as handle:
            handle.write(buffer.getvalue())

    def precision(self, transformed: Transformed) -> float:
        n, suppressed = len(transformed.selected), transformed.suppressed_count
        values = [attribute_precision(*_qi_level_height(transformed, c), suppressed, n) for c in self.roles.qi]
        return float(np.mean(values)) if values else 1.0

    def utility(self, transformed: Transformed) -> Utility:
        return release_utility(self.levels, transformed)

    def measures(self, transformed: Transformed) -> dict | None:
        """Privacy models and risk of the published table, from the risk lens."""
        return release_measures(self, transformed)


def _qi_level_height(transformed: Transformed, column: str) -> tuple[int, int]:
    g = transformed.generalised[column]
    if column in transformed.design.removed:
        height = max(g.height, 1)
        return height, height
    return g.level, g.height


def release_utility(levels: LevelCache, transformed: Transformed) -> Utility:
    """The utility of a transformed release (``utility.py``) from the levels of its QIs;
    needs no sensitive attribute, so it also serves a release that is not scored."""
    qi = []
    for column in transformed.roles.qi:
        g = transformed.generalised[column]
        level, height = _qi_level_height(transformed, column)
        column_levels = levels.column(column)
        # the selected rows' value counts are kept per selection: a search reuses them at every level
        counts = levels.selected_value_counts(transformed.design.selection, column)
        suppressed = np.bincount(column_levels.text.codes[transformed.suppressed], minlength=len(counts))
        group_of_value = column_levels.value_groups(g.level)[0]
        qi.append(ValueCounts(column, counts, suppressed, group_of_value, level, height))
    return utility_of_values(qi, len(transformed.selected), len(transformed.suppressed),
                             transformed.published_class_ids)


def release_measures(designer: ReleaseDesigner, transformed: Transformed) -> dict | None:
    """The risk lens' measures (issue 10, ``core.risk.measure_table``) of the published
    table, with journalist and marketer risk against the source generalised the same way,
    as ``tklscore measures --format json`` gives them; None without QIs or records."""
    measures = release_measure_set(designer, transformed)
    return measures.to_json_dict() if measures is not None else None


def release_measure_set(designer: ReleaseDesigner, transformed: Transformed):
    """:func:`release_measures` as a :class:`~tklscore.core.risk.measures.Measures`."""
    from tklscore.core.risk.measures import measure_table

    roles, design = designer.roles, transformed.design
    rows = transformed.published
    if not roles.qi or len(rows) == 0:
        return None
    kept_sa = [s for s in roles.sa if s not in design.removed]
    codes, columns, population = {}, {}, {}
    for column in roles.qi:
        g = transformed.generalised[column]
        codes[column] = Codes(g.codes[rows], g.labels)
        population[column] = g.as_codes   # the source at the same level: the release's code space
    for name, c in designer._sa_codes(design, kept_sa).items():
        # the values the published table holds (privacy-models.md §5: measured on the transformed
        # table): a value only suppressed rows held is not a value of the release's distribution
        present, published_codes = np.unique(c.codes[rows], return_inverse=True)
        codes[name] = Codes(published_codes.astype(c.codes.dtype, copy=False).reshape(-1), c.uniques[present])
    for name, c in codes.items():
        columns[name] = pd.Categorical.from_codes(c.codes, categories=_categories(c.uniques))
    return measure_table(Table(pd.DataFrame(columns), name=designer.source.name), qi=roles.qi, sa=kept_sa,
                         continuous=roles.continuous & set(kept_sa), codes=codes, population_codes=population)


@dataclass
class SavedDesigns:
    """The designed releases a project keeps (``settings["design"]``), re-evaluated."""

    results: dict[str, DesignResult]
    errors: dict[str, str]


def evaluate_saved_designs(source: Table, roles: Roles, settings: dict, weights: Weights, x: float = 1.0,
                           scorer: Scorer | None = None, elements=None, progress=None) -> SavedDesigns:
    """Every release saved from the Design view (``settings``: the project's design settings,
    ``{"hierarchies": [...], "saved": [design, ...]}``) evaluated on ``source``: what a
    reopened project shows beside its other releases. A design that no longer applies (a
    column or hierarchy gone) is reported in ``errors`` with the reason, not dropped silently."""
    return evaluate_designs(settings, lambda hierarchies: ReleaseDesigner(
        source, roles, {c: h for c, h in hierarchies.items() if c in source.columns}, scorer=scorer,
        elements=elements), weights, x, progress)


def evaluate_designs(settings: dict, designer_of, weights: Weights, x: float = 1.0, progress=None) -> SavedDesigns:
    """The saved designs of ``settings`` evaluated by ``designer_of(hierarchies)`` (a
    :class:`ReleaseDesigner`, or an engine's designer), each failure kept with its reason."""
    saved = list(settings.get("saved") or [])
    results, errors = {}, {}
    if not saved:
        return SavedDesigns(results, errors)
    try:
        designer = designer_of({h["column"]: Hierarchy.from_dict(h) for h in settings.get("hierarchies") or []})
    except InputError as error:
        return SavedDesigns(results, {d.get("name", "designed release"): str(error) for d in saved})
    for i, data in enumerate(saved):
        name = str(data.get("name", "designed release"))
        try:
            results[name] = designer.evaluate(ReleaseDesign.from_dict(data), weights, x)
        except InputError as error:
            errors[name] = str(error)
        if progress is not None:
            progress((i + 1) / len(saved))
    return SavedDesigns(results, errors)


def _categories(uniques: np.ndarray) -> pd.Index:
    """Categories for a frame that only names the columns (the measures use the codes): the
    uniques themselves when they are distinct, else their positions."""
    index = pd.Index(uniques, dtype=object)
    return index if index.is_unique else pd.RangeIndex(len(uniques))
