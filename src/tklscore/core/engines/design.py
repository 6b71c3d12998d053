"""A release design evaluated out of core or on a cluster (privacy-models.md §5): the
design's transformation of ``src`` runs as the :class:`~.plan.DesignPlan`'s SQL, and the
release's scores, privacy models and utility are finished from the plan's aggregates with
the in-memory functions, so the numbers are :meth:`ReleaseDesigner.evaluate`'s.

- Generalisation: each column's value → label mapping at its level is built from its
  distinct values by the same :class:`~tklscore.core.release.hierarchy.Hierarchy` code,
  and registered as a small table joined into ``src``; a removed QI is at its top level.
- Suppression below k within a budget: the classes of the selected rows are counted in
  the engine; Python numbers them as :func:`~tklscore.core.tables.codes.group_ids` does in
  memory (:func:`~tklscore.core.tables.codes.group_ids_of_groups`) and drops them with the
  same rule (:func:`~tklscore.core.release.transform.suppressed_classes`: smallest first,
  id order among equal sizes).
- Row selection by ids, a published file (located as ``score --engine`` locates them) or
  a filter (translated to SQL by :mod:`tklscore.core.release.filters`).
- tkl/M/L: the distinguishing factors on the whole source with the generalised QIs and
  each SA at its published level (the plan of :mod:`.scoring`), normalised by the
  untransformed source's scores; a generalised SA value weighs its element in the
  tkl-Data Model, else the largest weight of the values it covers.
- Microaggregation: each published class's mean or median of a numeric column, an
  aggregate per class in the engine, written as the in-memory table writes it (``.10g``).
- Noise (numpy's seeded stream drawn over the published rows in memory) is refused:
  :data:`REFUSED`.

Aggregate once (:mod:`.finest`): the designer reads the file once into the source's finest
aggregate (kept on disk, reused by the next designer of the same file and roles), and a
design without a row selection, microaggregation or per-record output is evaluated over it
— the plan's ``weighted`` statements, each row standing for ``cnt`` records — never over the
records. The release's rows (its first rows, the written table, the suppressed ids) are
read from the file by the generalised classes kept; the other designs open the records.
Over the aggregate the release is measured from its scores' classes and codes, never coded
again from its values, and a relation read once is a view, not a written table.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import numpy as np
import pandas as pd

from tklscore.core.engines.backend import Backend, _columns, engine_bounded
from tklscore.core.engines.design_classes import SourceCombinations, counted, released_numbering, source_combinations
from tklscore.core.engines.finest import (RELATION, keep_totals, kept_totals, open_finest, rows_are_combinations,
                                          weights_digest)
from tklscore.core.engines.plan import DesignPlan, Plan
from tklscore.core.engines.scoring import (CombinationPieces, Combinations, fetch_room, finish_report,
                                           published_of_combinations, score_records)
from tklscore.core.errors import InputError
from tklscore.core.release.designer import DesignResult, generalised_weights
from tklscore.core.release.hierarchy import Hierarchy
from tklscore.core.release.transform import (ColumnLevels, ReleaseDesign, perturbed_notes, suppressed_classes,
                                             suppression_note)
from tklscore.core.release.utility import Utility, ValueCounts, utility_of_values
from tklscore.core.risk.equivalence_classes import SUPPRESSION_MARKER
from tklscore.core.scoring.scores import check_roles, check_x
from tklscore.core.scoring.weights import Weights, weights_above_one_note
from tklscore.core.tables.codes import Codes, group_ids_of_groups
from tklscore.core.tables.published import unlocated_note
from tklscore.core.tables.roles import Roles

REFUSED = {
    "noise": "noise is drawn from numpy's seeded stream over the published rows in memory, which an engine "
             "that reads the file in parallel chunks cannot reproduce",
}


class _Column:
    """A column's distinct values (in the order they first appear) and, per level, their
    groups: the in-memory designer's :class:`ColumnLevels` over the distinct values."""

    def __init__(self, name: str, values: np.ndarray, hierarchy: Hierarchy | None, numeric_order: bool):
        self.values = values
        self.levels = ColumnLevels(None, name, hierarchy, Codes(np.arange(len(values), dtype=np.int64), values),
                                   numeric_order=numeric_order)
        self.height = self.levels.height
        self.top = self.height if hierarchy is not None else 1

    def groups(self, level: int) -> tuple[np.ndarray, np.ndarray]:
        """Each value's group code at ``level`` and the group labels (``value_groups``)."""
        self.levels.at(level)   # a level out of range: the in-memory error
        return self.levels.value_groups(level)

    def labels(self, level: int) -> np.ndarray:
        group_of_value, groups = self.groups(level)
        return np.asarray(groups, dtype=object)[group_of_value]


def _check_hierarchies(hierarchies: dict, columns: list[str], source: str) -> None:
    """Every hierarchy names a column of the source."""
    for column in hierarchies:
        if column not in columns:
            raise InputError(f"a hierarchy is given for column '{column}', which the table lacks", file=source)


class EngineDesigner:
    """Evaluates release designs of a source file in an engine (``backend``, kept open by
    the caller), as :class:`~tklscore.core.release.designer.ReleaseDesigner` does in memory."""

    def __init__(self, backend: Backend, source: str, roles: Roles, hierarchies: dict[str, Hierarchy] | None = None,
                 elements: dict[tuple[str, str], float] | None = None, delimiter: str | None = None,
                 encoding: str | None = None, drop_absent_hierarchies: bool = False, own_backend: bool = True,
                 cache: bool = True):
        check_roles(roles, out_of_core=True)
        self.backend, self.source, self.roles = backend, str(source), roles
        self.own_backend = own_backend     # close() closes the back-end (else its opener does)
        self.delimiter, self.encoding = delimiter, encoding
        self.hierarchies = dict(hierarchies or {})
        self.elements = {(c, e.replace("-", " ")): w for (c, e), w in (elements or {}).items()}
        self._records_open = False
        backend.source_scan = backend.scan(self.source, delimiter, encoding, "__source")
        self.columns = [c.strip() for c in backend.source_scan.columns]
        _columns(backend.source_scan, list(roles.qi) + list(roles.sa)
                 + ([roles.identifier] if roles.identifier else []))
        options = {"delimiter": delimiter, "encoding": encoding, "keep_spaces": backend.keep_spaces}
        self.finest = open_finest(backend, self.source, roles, options, partial(self._open_records, True), cache)
        if self._records_open and backend.drop("src"):   # read into the aggregate: no longer kept
            self._records_open = False
        if drop_absent_hierarchies:
            self.hierarchies = {c: h for c, h in self.hierarchies.items() if c in self.columns}
        _check_hierarchies(self.hierarchies, self.columns, self.source)
        self.n = self.finest.records
        backend.expect_rows(self.n)     # the generalised source, its combinations: at most a row a record
        if self.n == 0:
            raise InputError("the source table has no records", file=self.source)
        self._last = None      # the last evaluation's (QI maps, any class dropped, over the aggregate)
        self._columns: dict[str, _Column] = {}
        self._checked_numbers: set[str] = set()
        self._micro: dict[str, str] = {}
        self._whole: dict = {}
        self._value_records: dict[str, np.ndarray] = {}   # each QI value's records in the source
        self._source_codes = False   # ``source_codes_{i}``: each SA's codes in the whole source, kept
        self._source_rows = None     # the whole source's combinations, fetched when it was scored (.design_classes)
        self._released = False

    def lattice(self):
        """The suggestion search's designer over this source's finest aggregate
        (:class:`~.lattice.AggregateLattice`)."""
        from tklscore.core.engines.lattice import AggregateLattice

        return AggregateLattice(self)

    def _open_records(self, read_once: bool = False) -> None:
        """``src``: the records (the first read of the file, or a design that needs them), with the
        checks of every record (``read_once``: read only into the aggregate, then dropped)."""
        if not self._records_open:
            self.backend.open_source(self.source, self.roles, self.delimiter, self.encoding, raw_continuous=True,
                                     read_once=read_once)
            self.backend.check_unique_ids(self.roles, self.source)
            self._records_open = True

    # ------------------------------------------------------------------ columns

    def _relation_of(self, column: str) -> str:
        if column in self.roles.qi:
            return f"q{self.roles.qi.index(column)}"
        i = self.roles.sa.index(column)
        return f"r{i}" if column in self.roles.continuous else f"s{i}"

    def column(self, name: str) -> _Column:
        """The distinct values of a column, in the order they first appear, and its labels."""
        if name not in self._columns:
            if name in self.roles.qi or name in self.roles.sa:
                qi = name in self.roles.qi    # a QI's records of each value too (the utility's), in the same pass
                frame = self.backend.fetch(DesignPlan.first_appearance(self._relation_of(name), RELATION, qi))
                frame = frame.sort_values("first", kind="stable")
                values = frame["v"].to_numpy(dtype=object)
                if qi:
                    self._value_records[name] = frame["c"].to_numpy(dtype=np.int64)
            else:
                text = self.backend.column_text(self.backend.source_scan, self._stripped(name))
                values = self.backend.fetch(f"SELECT {text} AS v, MIN(__rid) AS first FROM __source GROUP BY {text}")
                values = values.sort_values("first", kind="stable")["v"].to_numpy(dtype=object)
            self._columns[name] = _Column(name, values, self.hierarchies.get(name), name in self.roles.continuous)
        return self._columns[name]

    def value_records(self, name: str) -> np.ndarray:
        """How many records of the whole source hold each value of QI ``name``, by the value's
        index in :meth:`column`'s values (counted with them)."""
        self.column(name)
        return self._value_records[name]

    def _index(self, name: str) -> int:
        return self.columns.index(name)

    def height(self, name: str) -> int:
        return self.column(name).height

    def _stripped(self, name: str) -> str:
        for c in self.backend.source_scan.columns:
            if c.strip() == name:
                return c
        raise InputError(f"column '{name}' not found; the table has columns "
                         f"{', '.join(repr(c) for c in self.columns)}", file=self.source)

    def _level(self, design: ReleaseDesign, name: str) -> int:
        """The level a column is published at (a removed QI: its top)."""
        column = self.column(name)
        if name in design.removed and name in self.roles.qi:
            return column.top
        level = design.level(name)
        column.groups(level)
        return level

    def _register_map(self, name: str, level: int) -> str:
        column = self.column(name)
        group_of_value, groups = column.groups(level)
        relation = f"map_{self._index(name)}"
        self.backend.register(relation, pd.DataFrame({
            "v": pd.Series(column.values, dtype=object),
            "g": pd.Series(np.asarray(groups, dtype=object)[group_of_value], dtype=object).astype(str),
            "c": group_of_value.astype(np.int64)}))
        return relation

    # ------------------------------------------------------------------ checks

    def check(self, design: ReleaseDesign) -> None:
        """Errors naming the column at fault for a design that cannot apply (as in memory)."""
        named = [c for c, _ in design.levels] + sorted(design.removed) + [c for c, _ in design.microaggregate] \
            + [c for c, _ in design.noise]
        absent = [c for c in named if c not in self.columns]
        if absent:
            raise InputError(f"column {', '.join(repr(c) for c in absent)} not found; the table has columns "
                             f"{', '.join(repr(c) for c in self.columns)}", file=self.source)
        for column, level in design.levels:
            if level and column not in self.hierarchies:
                raise InputError(f"level {level} asked, but the column has no hierarchy", column=column,
                                 hint="load or build a hierarchy for it")
            if level < 0:
                raise InputError(f"level {level} is out of range (levels start at 0)", column=column)
        if design.noise:
            raise InputError(f"{REFUSED['noise']}; design without it or use --engine memory",
                             column=design.noise[0][0])
        for column, _ in design.microaggregate:
            if column in self.roles.qi:
                raise InputError("microaggregation of a quasi-identifier is not offered; generalise it with a "
                                 "hierarchy", column=column)
            if column == self.roles.identifier:
                raise InputError("microaggregation of the identifier column makes no sense; remove it instead",
                                 column=column)
            self._numbers(column)

    # ------------------------------------------------------------------ evaluation

    def whole_source(self, weights: Weights, missing_weight_zero: bool = False) -> tuple[pd.Series, list[str]]:
        """Totals of the untransformed whole source (normalisation by source), kept per weights."""
        key = (weights.fingerprint, missing_weight_zero)
        if key not in self._whole:
            digest = weights_digest(weights, missing_weight_zero)
            kept = kept_totals(self.finest, digest)    # kept beside the cached aggregate
            if kept is not None:
                totals, notes = pd.Series(kept[0]), kept[1]
            else:
                plan = Plan(len(self.roles.qi), tuple(c in self.roles.continuous for c in self.roles.sa), RELATION,
                            weighted=True, distinct=rows_are_combinations(self.backend, self.roles))
                totals, notes, _, _, fetched = score_records(self.backend, plan, self.roles, weights,
                                                             missing_weight_zero, self.n, kept=False,
                                                             keep_combinations=False)   # read once, by the totals
                self._source_rows = _source_rows(self, fetched)
                for i in range(len(self.roles.sa)):    # a few rows each: what a design's unchanged SA is coded by
                    self.backend.materialize(f"source_codes_{i}", f"SELECT * FROM codes_{i}")
                self._source_codes = True
                for relation in ("combos", "scored"):    # one row per combination of the source: freed
                    self.backend.drop(relation)
                if int(totals["w_above"] or 0):
                    notes.append(weights_above_one_note(int(totals["w_above"]), float(totals["w_max"])))
                keep_totals(self.finest, digest, {k: (int(v) if k in ("n", "w_above") else float(v))
                                                  for k, v in totals.items()}, notes)
            self._whole = {key: (totals, notes)}
        return self._whole[key]

    def evaluate(self, design: ReleaseDesign, weights: Weights, x: float = 1.0, missing_weight_zero: bool = False,
                 measures: bool = True, progress=None, records_path: str | None = None,
                 preview: int = 0, suppressed: int = 0) -> DesignResult:
        """The design's release, its scores, measures and utility (``preview``: the release's
        first rows to keep; ``suppressed``: how many suppressed records' ids to keep;
        ``records_path``: the per-record scores written as Parquet). Under a memory limit the
        engine's statements take what the process leaves them beside the combinations it fetches
        (:func:`~.backend.engine_bounded`), its own limit as opened again afterwards."""
        with engine_bounded(self.backend, fetch_room(self.backend)):
            return self._evaluate(design, weights, x, missing_weight_zero, measures, progress, records_path,
                                  preview, suppressed)

    def _evaluate(self, design: ReleaseDesign, weights: Weights, x: float, missing_weight_zero: bool,
                  measures: bool, progress, records_path: str | None, preview: int, suppressed: int) -> DesignResult:
        keep_suppressed = suppressed
        x = check_x(x)
        step = _steps(progress, 8)
        self.check(design)
        roles, backend = self.roles, self.backend
        kept = [s for s in roles.sa if s not in design.removed]
        if not kept:
            raise InputError("every sensitive attribute is removed; nothing sensitive is published to score")
        whole_totals, notes = self.whole_source(weights, missing_weight_zero)
        notes = list(notes)
        step()
        # the generalised source
        qi_maps, levels = [], {}
        for name in roles.qi:
            levels[name] = self._level(design, name)
            qi_maps.append(self._register_map(name, levels[name]))
        sa_parts, group_weights = [], {}
        for name in kept:
            i = roles.sa.index(name)
            level = self._level(design, name) if name in self.hierarchies else 0
            if level == 0:
                sa_parts.append((i, "value", None))
                continue
            continuous = name in roles.continuous
            relation = self._register_map(name, level)
            sa_parts.append((i, "code" if continuous else "label", relation))
            group_weights[name], note = _group_weights(self.backend, name, self.column(name), i, level, weights,
                                                         continuous, self.elements)
            if note:
                notes.append(note)
        for name in self.hierarchies:
            if name not in roles.qi:
                levels[name] = self._level(design, name)
        weighted = design.selection is None and not design.microaggregate and records_path is None
        if not weighted:
            self._open_records()
        plan = DesignPlan(tuple(qi_maps), tuple(sa_parts), RELATION if weighted else "src", weighted)
        # over the aggregate a view: its few readers each join the small maps again for less than
        # writing the generalised rows once (an evaluation of 5M rows: ~4 CPU-s less; the table took
        # 10.8 CPU-s at 10M)
        (backend.view if weighted else backend.materialize)("gsrc", plan.generalised())
        step()
        # the rows selected, their classes, suppression
        unlocated = self._select(design, plan)
        whole = design.selection is None     # every row is selected: ``gsrc`` itself, no ``sel``
        if whole:
            selected = self.n
        else:
            count = "CAST(COALESCE(SUM(cnt), 0) AS BIGINT)" if weighted else "COUNT(*)"
            selected = int(backend.fetch(f"SELECT {count} AS n FROM sel")["n"].iloc[0])
        counted_here = (counted(self._source_rows, [self.column(c).groups(levels[c]) for c in roles.qi], plan.keys,
                             SUPPRESSION_MARKER) if weighted and self._source_rows is not None
                     and all(how == "value" for _, how, _ in sa_parts) else None)
        classes = counted_here.frame if counted_here is not None else backend.fetch(plan.selection_classes(whole))
        cardinalities = [len(self.column(c).groups(levels[c])[1]) for c in roles.qi]
        keys = [classes[k].to_numpy(dtype=np.int64) for k in plan.keys]
        ids = group_ids_of_groups(list(zip(keys, cardinalities)), classes["first"].to_numpy(dtype=np.int64), selected)
        sizes = np.zeros(len(classes), dtype=np.int64)
        sizes[ids] = classes["size"].to_numpy(dtype=np.int64)
        dropped, left = suppressed_classes(sizes, design.suppress_below, design.suppression_limit)
        dropped_rows = dropped[ids]
        if dropped_rows.any():
            backend.register("dropped", classes.loc[dropped_rows, plan.keys].reset_index(drop=True)
                             .astype(np.int64))
        if not weighted:   # over the aggregate nothing is marked: the utility counts each value's records
            # there, and the release's records are read from the file when asked for
            backend.materialize("marked", plan.marked(bool(dropped_rows.any()), whole))
            backend.materialize("published", plan.published())
        self._released = True
        self._last = (plan, bool(dropped_rows.any()))
        suppressed = int(sizes[dropped].sum())
        published = selected - suppressed
        if left:
            notes.append(suppression_note(design, left))
        if unlocated:
            notes.append(unlocated_note(unlocated, selection=True))
        notes += perturbed_notes(design, roles)
        self._micro = dict(zip((c for c, _ in design.microaggregate), self._register_microaggregates(design)))
        step()
        # the scores
        kept_roles = Roles(qi=roles.qi, sa=kept, continuous=[c for c in kept if c in roles.continuous],
                           identifier=roles.identifier)
        score_plan = Plan(len(roles.qi), tuple(c in roles.continuous for c in kept), "gsrc", weighted,
                          class_codes=True)

        def weigh(i, name, uniques):
            if name in group_weights:
                by_group = group_weights[name]
                return np.array([by_group[u] for u in uniques], dtype=np.float64)
            per_value = weights.weights_of(name, uniques, name in roles.continuous)
            return np.where(np.isnan(per_value), 0.0, per_value)

        # over the aggregate the combinations' scores are summed in Python when they are fetched,
        # else ``scored`` and the released combinations are each read once (a view: no table
        # written), by the release's totals
        # over the aggregate an SA published as it is holds the whole source's values: coded as they are there
        codes_of = {new: f"SELECT s{i} AS s{new}, c{i} AS c{new} FROM source_codes_{i}"
                    for new, (i, how, _) in enumerate(sa_parts) if weighted and how == "value" and self._source_codes}
        given = counted_here and counted_here.scored(score_plan, [i for i, _, _ in sa_parts], dropped_rows, backend)
        scored = score_records(backend, score_plan, kept_roles, weights, True, self.n, weigh, kept=not weighted,
                               totals=False, codes_of=codes_of, given=given[0] if given else None,
                               keep_pairs=weighted)
        step()
        released = counts = None
        if weighted:
            released, counts = _released_totals(backend, plan, score_plan, scored, bool(suppressed),
                                                given[1] if given and isinstance(scored.fetched, Combinations)
                                                else None)
        elif isinstance(scored.fetched, Combinations) and records_path is None:
            # the combinations scored in Python: the released records' class codes and SA values
            # fetched and totalled there, no ``coded`` nor ``published_scored``
            released = published_of_combinations(backend, score_plan, scored.fetched, scored.radix, False,
                                                  backend.fetch(plan.published_values(len(kept))))[0]
        else:
            backend.materialize("coded", score_plan.published_records("rid", "gsrc").coded(scored.radix))
            backend.materialize("published_scored", plan.published_scored(scored.combination))
        report = finish_report(backend, score_plan, self.n, whole_totals, x, notes, records_path, fetch=False,
                               totals=released)
        if weighted and released is None:
            for relation in ("published_scored", "scored"):   # views over relations the measures replace
                backend.drop(relation)
        notes = report.warnings
        step()
        utility = _utility(self, design, plan, levels, selected, suppressed, sizes[~dropped & (sizes > 0)], whole)
        step()
        risk = None
        if measures and published:
            from tklscore.core.engines.measures import measure_in_engine

            in_python = None
            if weighted:   # the released combinations as the scores coded them, not coded again; every
                # row selected and whole classes suppressed: each released class is whole in ``gsrc``
                in_python = _released_counts(backend, score_plan, scored, _kept_classes(scored, counts),
                                             given[2] if given else None)
                if in_python is None:
                    _code_released(backend, score_plan, scored, bool(suppressed))
            else:          # measured as it is, not copied
                backend.materialize("published_g", plan.published_generalised())
            risk = measure_in_engine(backend, kept_roles, source="coded" if weighted else "published_g",
                                     population="gsrc", name=self.source, population_name="source",
                                     weighted=weighted, coded=weighted, whole_classes=weighted, released=in_python)
        step()
        shown = self.release_rows(design, preview) if preview else None
        step()
        return DesignResult(design, roles, report, utility, risk.to_json_dict() if risk is not None else None,
                            risk, notes, self.n, selected, published, suppressed, levels, unlocated, left, shown,
                            self.suppressed_ids(keep_suppressed) if keep_suppressed else None)

    def _select(self, design: ReleaseDesign, plan: DesignPlan) -> list[str]:
        backend, selection = self.backend, design.selection
        if selection is None:    # every row: read from ``gsrc`` itself
            return []
        backend.open_release(selection, self.roles)
        unlocated = backend.unlocated()
        backend.materialize("sel", plan.selected(True))
        return unlocated

    def suppressed_ids(self, limit: int) -> list[str]:
        """The ids of the first ``limit`` rows the last evaluated release suppressed."""
        if not self._released:
            return []
        if self._last[0].weighted:
            return self.backend.fetch(self._records_sql(True, limit))["id"].astype(str).tolist()
        return self.backend.fetch(f"SELECT id FROM marked WHERE dropped = 1 ORDER BY pos LIMIT {int(limit)}")[
            "id"].astype(str).tolist()

    def published_ids(self, limit: int | None = None) -> list[str]:
        """The ids of the rows the last evaluated release publishes, in release order."""
        if not self._released:
            return []
        self._published_records(limit)
        return self.backend.fetch("SELECT id FROM published ORDER BY pos" + (
            f" LIMIT {int(limit)}" if limit is not None else ""))["id"].astype(str).tolist()

    def _records_sql(self, dropped: bool, limit: int | None = None) -> str:
        """The records of the last release evaluated over the aggregate, read from the file
        (``__source``) in record order: those published, or (``dropped``) those suppressed,
        ``(pos, rid, id)``. A record's class is its QI values mapped to the level's codes."""
        plan, any_dropped = self._last
        stripped = _columns(self.backend.source_scan, list(self.roles.qi)
                            + ([self.roles.identifier] if self.roles.identifier else []))
        scan = self.backend.source_scan
        joins = [f"JOIN {relation} AS m{j} ON m{j}.v = {self.backend.column_text(scan, stripped[name], 's.')}"
                 for j, (name, relation) in enumerate(zip(self.roles.qi, plan.qi_maps))]
        where = ""
        if any_dropped:
            joins.append("LEFT JOIN dropped AS d ON " + " AND ".join(f"d.k{j} = m{j}.c" for j in range(len(joins))))
            where = f" WHERE d.k0 IS {'NOT ' if dropped else ''}NULL"
        elif dropped:
            where = " WHERE 1 = 0"
        id_sql = self.backend._id_sql(self.roles, scan, stripped, "s.")
        return (f"SELECT s.__rid AS pos, s.__rid AS rid, {id_sql} AS id FROM __source AS s {' '.join(joins)}{where} "
                f"ORDER BY s.__rid" + (f" LIMIT {int(limit)}" if limit is not None else ""))

    def close(self) -> None:
        if self.own_backend:
            self.backend.close()

    def _number_of(self, column: str) -> str:
        """A column of ``__source`` AS s as a number (NULL where it holds none)."""
        return self.backend.column_number(self.backend.source_scan, self._stripped(column), "s.")

    def _numbers(self, column: str) -> None:
        """An error naming the first record of ``column`` that holds no finite number."""
        if column in self._checked_numbers:
            return
        number = self._number_of(column)
        bad = self.backend.fetch(f"SELECT __rid AS rid, COUNT(*) OVER () AS many FROM __source AS s WHERE "
                                 f"{number} IS NULL OR isnan({number}) ORDER BY __rid LIMIT 1")
        if len(bad):
            rid = int(bad["rid"].iloc[0])
            text = self.backend.column_text(self.backend.source_scan, self._stripped(column), "s.")
            raw = self.backend.fetch(f"SELECT {text} AS v FROM __source AS s WHERE __rid = {rid}")["v"].iloc[0]
            raise InputError(f"microaggregation needs numbers, but the column holds text such as '{raw or ''}'",
                             file=self.source, row=rid + self.backend.source_scan.header_rows, column=column)
        self._checked_numbers.add(column)

    def _register_microaggregates(self, design: ReleaseDesign) -> list[str]:
        """``micro_{n}(k0.., v)``: each published class's mean or median of a microaggregated
        column, as the published table writes it (``Transformed._microaggregated``)."""
        keys = [f"k{j}" for j in range(len(self.roles.qi))]
        relations = []
        for column, method in design.microaggregate:
            aggregate = "AVG" if method == "mean" else "MEDIAN"
            frame = self.backend.fetch(
                f"SELECT {', '.join(f'g.{k}' for k in keys)}, {aggregate}({self._number_of(column)}) AS x "
                f"FROM published AS p JOIN gsrc AS g ON g.rid = p.rid JOIN __source AS s ON s.__rid = p.rid "
                f"GROUP BY {', '.join(f'g.{k}' for k in keys)}")
            frame["v"] = [f"{v:.10g}" for v in frame["x"].to_numpy(dtype=np.float64)]
            relation = f"micro_{self._index(column)}"
            self.backend.register(relation, frame[keys + ["v"]].astype({k: np.int64 for k in keys}))
            relations.append(relation)
        return relations

    # ------------------------------------------------------------------ the release itself

    def _release_sql(self, design: ReleaseDesign, csv: bool = False, limit: int | None = None,
                     csv_safe: bool = False) -> str:
        if not self._released:
            raise InputError("no release is evaluated yet")
        columns, joins = [], []
        if self._micro:
            joins.append("JOIN gsrc AS g ON g.rid = p.rid")
        on = " AND ".join(f"{{m}}.k{j} = g.k{j}" for j in range(len(self.roles.qi)))
        for n, name in enumerate(c for c in self.columns if c not in design.removed):
            text = self.backend.column_text(self.backend.source_scan, self._stripped(name), "s.")
            if name in self._micro:
                joins.append(f"JOIN {self._micro[name]} AS a{n} ON {on.format(m=f'a{n}')}")
                text = f"a{n}.v"
            elif name in self.hierarchies and self._level(design, name) > 0:
                relation = f"out_{self._index(name)}"
                column = self.column(name)
                self.backend.register(relation, pd.DataFrame({
                    "v": pd.Series(column.values, dtype=object),
                    "g": pd.Series(column.labels(self._level(design, name)), dtype=object).astype(str)}))
                joins.append(f"LEFT JOIN {relation} AS o{n} ON o{n}.v = {text}")
                text = f"o{n}.g"
            if csv_safe:
                text = self.backend.spreadsheet_safe_sql(text)
            if csv:
                text = f"NULLIF({text}, '')"
            columns.append(f"{text} AS {self.backend.q(name)}")
        return DesignPlan.release(columns, joins, limit)

    def _published_records(self, limit: int | None = None) -> None:
        """``published(pos, rid)`` as records, for a release evaluated over the aggregate."""
        if self._released and self._last[0].weighted:
            self.backend.materialize("published", self._records_sql(False, limit))

    def release_rows(self, design: ReleaseDesign, limit: int) -> pd.DataFrame:
        """The first ``limit`` rows of the last evaluated release, as the in-memory
        ``Transformed.published_table`` gives them."""
        self._published_records(limit)
        frame = self.backend.fetch(self._release_sql(design, limit=limit))
        return frame.astype(object)

    def write_release(self, design: "ReleaseDesign | DesignResult", path: str, inputs=(),
                      csv_safe: bool = False) -> None:
        """The last evaluated release written by the engine (``.parquet``/``.pq`` or ``.csv``,
        atomically), never loaded whole (``design``: its design, or its result; ``csv_safe``:
        a CSV for a spreadsheet, as :func:`tklscore.core.files.records.csv_safe` writes it)."""
        from pathlib import Path

        design = design.design if isinstance(design, DesignResult) else design
        self.backend.inputs.extend(str(i) for i in inputs if i)   # never written over, as the files it read
        suffix = Path(path).suffix.lower()
        if Path(path).resolve() == Path(self.source).resolve():
            raise InputError("the output would overwrite the source; choose another file", file=str(path))
        self._published_records()
        if suffix in (".parquet", ".pq"):
            self.backend.write_parquet(self._release_sql(design), path)
        elif suffix == ".csv":
            writer = getattr(self.backend, "write_csv", None)
            if writer is None:
                raise InputError(f"--engine {self.backend.name} writes the release as Parquet only; "
                                 f"give an output ending in .parquet", file=str(path))
            writer(self._release_sql(design, csv=True, csv_safe=csv_safe), path)
        else:
            raise InputError(f"cannot write a '{suffix or 'nameless'}' file; choose .csv or .parquet",
                             file=str(path))


def _utility(designer: EngineDesigner, design: ReleaseDesign, plan: DesignPlan, levels: dict[str, int], selected: int,
             suppressed: int, class_sizes: np.ndarray, whole: bool = False) -> Utility:
    """The release's utility from each QI value's records and those suppressed."""
    qi = []
    if plan.weighted and whole and suppressed:
        designer.backend.materialize("suppressed_values", plan.suppressed_values())
    uses = None
    for j, name in enumerate(designer.roles.qi):
        column = designer.column(name)
        index, size = {v: k for k, v in enumerate(column.values)}, len(column.values)
        if plan.weighted and whole:
            # every row selected: each value's records are the aggregate's, whatever the design,
            # counted with the values (:meth:`column`)
            counts = designer.value_records(name)
            held = (_placed(designer.backend.fetch(plan.suppressed_value_use(j)), "s", index, size) if suppressed
                    else np.zeros(size, dtype=np.int64))
        else:   # every QI's in one statement, at the first
            uses = uses if uses is not None else designer.backend.fetch(plan.value_uses(len(designer.roles.qi), whole))
            use = uses[uses["qi"].to_numpy(dtype=np.int64) == j]
            counts, held = _placed(use, "c", index, size), _placed(use, "s", index, size)
        level = levels[name]
        group_of_value = column.groups(level)[0]
        if name in design.removed:
            height = max(column.height, 1)
            level = height
        else:
            height = column.height
        qi.append(ValueCounts(name, counts, held, group_of_value, level, height))
    return utility_of_values(qi, selected, suppressed, None, class_sizes=class_sizes)


def _group_weights(backend: Backend, name: str, column: _Column, i: int, level: int, weights: Weights,
                   continuous: bool, elements) -> tuple[dict, str | None]:
    """The weight of each group of SA ``name`` (the ``i``-th; ``column``: its values) at
    ``level``, keyed as ``gsrc`` holds it (a label, or a continuous SA's group code): its
    element's (``elements``), else the largest weight of the values it covers (as
    ``ReleaseDesigner._sa_weights``)."""
    group_of_value, groups = column.groups(level)
    if continuous:
        # weights of a continuous SA are read over its sorted numbers
        pairs = backend.fetch(DesignPlan.distinct_numbers(i, RELATION)).sort_values("x", kind="stable")
        index = {v: g for v, g in zip(column.values, group_of_value)}
        group = np.array([index[v] for v in pairs["v"].tolist()], dtype=np.int64)
        per_value = weights.weights_of(name, pairs["x"].to_numpy(dtype=np.float64), True)
    else:
        group = group_of_value
        per_value = weights.weights_of(name, column.values, False)
    per_value = np.where(np.isnan(per_value), 0.0, per_value)
    largest = np.zeros(len(groups), dtype=np.float64)
    np.maximum.at(largest, group, per_value)
    largest, note = generalised_weights(name, level, groups, largest, elements)
    if continuous:
        return {float(g): largest[g] for g in range(len(groups))}, note
    return {str(label): largest[g] for g, label in enumerate(groups)}, note


def _released_totals(backend: Backend, plan: DesignPlan, score_plan: Plan, scored, any_dropped: bool,
                     dropped: np.ndarray | None = None):
    """Over the aggregate, no per-record rows asked: the release's totals are its combinations'
    scores times their records less those suppressed (``gone``, read from the suppressed rows
    only), summed in Python from the fetched combinations — or None: ``published_scored`` is
    a view of them, which :func:`.finish_report` sums —, and each combination's records
    released when the combinations were fetched whole (else None). ``dropped``: each class
    suppressed, when the classes were counted in Python (:mod:`.design_classes`)."""
    if any_dropped:
        backend.materialize("suppressed_g", plan.suppressed_rows())
        gone = replace(score_plan, source="suppressed_g")
        by = ", ".join(scored.combination)
        if dropped is None:
            backend.materialize("gone", f"SELECT {by}, CAST(SUM(cnt) AS BIGINT) AS cnt FROM "
                                        f"({gone.coded(scored.radix)}) AS coded GROUP BY {by}")
    if dropped is not None:    # whole classes suppressed: their combinations' records all
        rows = scored.fetched.rows
        counts = np.where(dropped[rows["cid"]], 0, rows["cnt"])
        return scored.fetched.totals(counts), counts
    if scored.fetched is None:
        backend.view("published_scored", plan.released_combinations(scored.combination, any_dropped))
        return None, None
    gone = backend.fetch("SELECT * FROM gone") if any_dropped else pd.DataFrame()
    places = score_plan.radix(scored.radix)
    if isinstance(scored.fetched, Combinations):
        counts = scored.fetched.released(gone, places)
        return scored.fetched.totals(counts), counts
    return scored.fetched.released_totals(gone, places), None


def _kept_classes(scored, counts: np.ndarray | None) -> np.ndarray | None:
    """Each class of a release over the aggregate that keeps its records (whole classes are
    suppressed): from its combinations' records released when fetched whole (``counts``), else
    as its pieces were read (:attr:`.CombinationPieces.kept`); None when neither is in Python."""
    if counts is not None and isinstance(scored.fetched, Combinations):
        kept = np.zeros(len(scored.fetched.sizes), dtype=bool)
        kept[scored.fetched.rows["cid"][counts > 0]] = True
        return kept
    if isinstance(scored.fetched, CombinationPieces):
        return scored.fetched.kept
    return None


def _released_counts(backend: Backend, plan: Plan, scored, kept: np.ndarray | None,
                     marked: np.ndarray | None = None) -> "ReleasedCounts | None":
    """The release's classes and pairs in Python, numbered as :func:`_code_released` numbers them
    in the engine, by :func:`.design_classes.released_numbering` — from its combinations' pairs
    made in Python (fetched whole, or read in pieces and kept) (``kept``: each class that keeps
    its records, :func:`_kept_classes`; ``marked``: each class whose QIs all hold the marker,
    else asked of ``classes``); None when they are not in Python. By design beside
    :meth:`.Plan.released_coded` (through :func:`_code_released`), the same classes and pairs
    as a relation of the engine when the combinations stay there: one numbering rule for both,
    the measures the same to the bit (``tests/engines/test_engine_design.py``: a release's
    combinations fetched whole against in pieces, where a design at its finest levels is coded there)."""
    from tklscore.core.engines.measures import ReleasedCounts   # the risk code, loaded when measured

    combos = scored.fetched
    if kept is None or combos.pairs is None:
        return None
    released = []
    for cid, idx, c in combos.pairs:
        at = kept[cid]
        released.append((cid[at], idx[at], c[at]))
    held = [np.zeros(len(values), dtype=bool) for values in combos.values]
    for (_, idx, _), h in zip(released, held):
        h[idx] = True
    class_id, codes = released_numbering(kept, held)
    pairs = [(class_id[cid], idx if code is None else code[idx], c) for (cid, idx, c), code in zip(released, codes)]
    if marked is None:
        marked = np.zeros(len(kept), dtype=bool)
        marked[backend.fetch(f"SELECT cid FROM classes WHERE {plan.suppressed('?')}",
                             [SUPPRESSION_MARKER] * plan.n_qi)["cid"].to_numpy(dtype=np.int64)] = True
    marked = np.flatnonzero(marked & kept)
    return ReleasedCounts(combos.sizes[kept], pairs, int(combos.sizes[marked].sum()))


def _source_rows(designer: EngineDesigner, fetched) -> "SourceCombinations | None":
    """The whole source's combinations fetched whole — or, read in pieces, kept in the engine as
    ``source_combos`` and each class's records and first row — and its classes' QI values
    (while ``classes`` and ``combos`` are the whole source's), from which a design's classes are
    counted in Python; else None."""
    relation = None
    if isinstance(fetched, CombinationPieces) and fetched.first is not None:
        designer.backend.rename("combos", relation := "source_combos")
        rows = {"cid": np.arange(len(fetched.sizes), dtype=np.int64), "cnt": fetched.sizes, "rid": fetched.first}
    elif isinstance(fetched, Combinations) and "rid" in fetched.rows:
        rows = fetched.rows
    else:
        return None
    qi = ", ".join(f"q{j}" for j in range(len(designer.roles.qi)))
    classes = designer.backend.fetch_arrow(f"SELECT {qi} FROM classes ORDER BY cid")
    return source_combinations(rows, classes, [designer.column(c) for c in designer.roles.qi],
                               [len(v) for v in fetched.values], relation)


def _code_released(backend: Backend, plan: Plan, scored, any_dropped: bool) -> None:
    """``classes``, ``codes_{i}`` and ``coded`` of a release evaluated over the aggregate,
    from its scores' (``plan``, ``scored``), numbered in the engine as
    :func:`.design_classes.released_numbering` (the rule) says from the classes kept and the
    codes held, a few rows fetched."""
    if not any_dropped:
        backend.view("coded", plan.released_coded(any_dropped=False))
        return
    backend.materialize("gone_classes", plan.suppressed_class_ids(scored.combination))
    kept = np.ones(scored.radix[0], dtype=bool)
    kept[backend.fetch("SELECT cid FROM gone_classes")["cid"].to_numpy(dtype=np.int64)] = False
    held = [np.zeros(size, dtype=bool) for size in scored.radix[1:]]
    if plan.sa:
        values = backend.fetch(plan.released_values())
        for i, h in enumerate(held):
            h[values[f"c{i}"].dropna().to_numpy(dtype=np.int64)] = True
    class_id, codes = released_numbering(kept, held)
    was = np.flatnonzero(kept)
    backend.register("released_ids", pd.DataFrame({"was": was, "cid": class_id[was]}))
    recoded = tuple(i for i, code in enumerate(codes) if code is not None)
    for i in recoded:
        was = np.flatnonzero(codes[i] >= 0)
        backend.register(f"released_code_ids_{i}", pd.DataFrame({"was": was, f"c{i}": codes[i][was]}))
        backend.materialize(f"released_codes_{i}", plan.released_codes(i))
    backend.materialize("released_classes", plan.released_classes())
    backend.materialize("coded", plan.released_coded(recoded))
    backend.materialize("classes", f"SELECT {', '.join(plan.qi)}, k, cid FROM released_classes")
    for i in recoded:
        backend.materialize(f"codes_{i}", f"SELECT s{i}, c{i} FROM released_codes_{i}")


def _placed(frame: pd.DataFrame, column: str, index: dict, size: int) -> np.ndarray:
    """``frame[column]`` per value ``frame["v"]``, placed at each value's ``index`` (0 elsewhere)."""
    out = np.zeros(size, dtype=np.int64)
    out[np.array([index[v] for v in frame["v"].tolist()], dtype=np.int64)] = \
        frame[column].fillna(0).to_numpy(dtype=np.int64)
    return out


def _steps(progress, total: int):
    done = [0]

    def step():
        done[0] += 1
        if progress is not None:
            progress(min(1.0, done[0] / total))
    return step
