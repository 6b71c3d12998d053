"""The group-by plan of the distinguishing factors and scores, written once as SQL (kept
to what DuckDB and Spark SQL both run) (spec scoring.md; the same definitions as
:mod:`tklscore.core.scoring.distinguishing_factors` and :mod:`tklscore.core.scoring.scores`).

A back-end (:mod:`.duckdb_engine`) provides the relation ``src`` with
internal column names — ``rid`` (0-based record position), ``id`` (text; the position
without an identifier column), ``q0..`` (quasi-identifiers, text), ``s0..`` (sensitive
attributes: text, or DOUBLE for a continuous one) — and runs these statements. Only
aggregated relations (one row per equivalence class, per distinct value, ...) come back
to Python, where the same numpy code as the in-memory engine finishes them; per-record
results stay in the engine and are written from there.

Categorical values are compared as text, continuous ones as numbers, exactly as the
in-memory engine factorises them, and the record scores are computed with the same
floating-point operations in the same order, so the engine never changes a number.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Plan:
    """The statements for ``q`` quasi-identifiers and the sensitive attributes
    ``continuous`` (True for a continuous one) in role order."""

    n_qi: int
    continuous: tuple[bool, ...]

    @property
    def qi(self) -> list[str]:
        return [f"q{i}" for i in range(self.n_qi)]

    @property
    def sa(self) -> list[str]:
        return [f"s{i}" for i in range(len(self.continuous))]

    # ------------------------------------------------------------------ checks

    def duplicate_ids(self) -> str:
        return "SELECT id, COUNT(*) AS times FROM src GROUP BY id HAVING COUNT(*) > 1 ORDER BY id LIMIT 1"

    def distinct_values(self, i: int) -> str:
        """The distinct values of SA i (sorted numbers for a continuous one)."""
        return f"SELECT DISTINCT s{i} AS v FROM src ORDER BY v" if self.continuous[i] else \
            f"SELECT DISTINCT s{i} AS v FROM src"

    # ------------------------------------------------------------------ equivalence classes

    def classes(self) -> str:
        """One row per equivalence class: its QI values, size k and a dense id ``cid``."""
        keys = ", ".join(self.qi)
        return (f"SELECT {keys}, k, CAST(ROW_NUMBER() OVER (ORDER BY {keys}) - 1 AS BIGINT) AS cid "
                f"FROM (SELECT {keys}, COUNT(*) AS k FROM src GROUP BY {keys}) AS grouped")

    def variational_distance(self, i: int, n: int) -> str:
        """½ Σ_v |c_v·n − C_v·k| / (k·n) per class, absent values adding C_v/n, on exact
        integers (as ``variational_distance_by_class``), ordered by class id."""
        keys = ", ".join(self.qi)
        return (
            f"SELECT c.cid, (CAST(v.inside AS DOUBLE) + CAST(({n} - v.covered) * c.k AS DOUBLE)) "
            f"/ (2.0 * c.k * {n}) AS t "
            f"FROM (SELECT {keys}, SUM(ABS(pairs.c * {n} - totals.c * classes.k)) AS inside, "
            f"SUM(totals.c) AS covered "
            f"FROM (SELECT {keys}, s{i}, COUNT(*) AS c FROM src GROUP BY {keys}, s{i}) AS pairs "
            f"JOIN (SELECT s{i}, COUNT(*) AS c FROM src GROUP BY s{i}) AS totals USING (s{i}) "
            f"JOIN classes USING ({keys}) GROUP BY {keys}) AS v "
            f"JOIN classes AS c USING ({keys}) ORDER BY c.cid")

    def value_index(self, i: int) -> str:
        """The sorted distinct values of continuous SA i with their 0-based rank."""
        return (f"SELECT v AS s{i}, CAST(ROW_NUMBER() OVER (ORDER BY v) - 1 AS BIGINT) AS idx "
                f"FROM (SELECT DISTINCT s{i} AS v FROM src) AS d")

    def class_value_pairs(self, i: int) -> str:
        """The distinct (class, value rank) pairs of continuous SA i with their counts,
        sorted by class then value (the input of the ordered EMD)."""
        keys = ", ".join(self.qi)
        return (f"SELECT classes.cid, ranks.idx, COUNT(*) AS c FROM src JOIN classes USING ({keys}) "
                f"JOIN value_index_{i} AS ranks USING (s{i}) GROUP BY classes.cid, ranks.idx "
                f"ORDER BY classes.cid, ranks.idx")

    def value_counts(self, i: int) -> str:
        """How many records hold each value rank of continuous SA i, by rank."""
        return (f"SELECT ranks.idx, COUNT(*) AS c FROM src JOIN value_index_{i} AS ranks USING (s{i}) "
                f"GROUP BY ranks.idx ORDER BY ranks.idx")

    # ------------------------------------------------------------------ per record

    def records(self) -> str:
        """k, l, t and W(r) of every source record (needs ``classes``, ``class_t(cid, t)``
        and ``weights_{i}(s{i}, w)`` for each SA).

        l-DF: for each SA A_i the number of distinct A_i values in the record's group of
        QI ∪ (SA \\\\ {A_i}); the minimum over the SAs."""
        keys = self.qi
        joins, distinct = [], []
        for i in range(len(self.sa)):
            by = ", ".join(keys + [s for j, s in enumerate(self.sa) if j != i])
            joins.append(f"JOIN (SELECT {by}, COUNT(DISTINCT s{i}) AS d FROM src GROUP BY {by}) AS g{i} "
                         f"USING ({by})")
            distinct.append(f"g{i}.d")
        weight_sum = "0.0"
        for i in range(len(self.sa)):
            weight_sum = f"({weight_sum} + w{i}.w)"
            joins.append(f"JOIN weights_{i} AS w{i} USING (s{i})")
        least = distinct[0] if len(distinct) == 1 else f"LEAST({', '.join(distinct)})"
        return (f"SELECT src.rid, classes.k, CAST({least} AS BIGINT) AS l, class_t.t, "
                f"CAST({weight_sum} AS DOUBLE) AS w "
                f"FROM src JOIN classes USING ({', '.join(keys)}) JOIN class_t USING (cid) "
                + " ".join(joins))

    @staticmethod
    def record_scores() -> str:
        """The record scores: RS_tkl = (t + W) / l, RS_M = min(1, W) / k, RS_L = W / k."""
        return ("(records.t + records.w) / records.l AS tkl, "
                "LEAST(1.0, records.w) / records.k AS m_score, records.w / records.k AS l_severity")

    def totals(self, relation: str) -> str:
        """Σ RS_tkl, max RS_tkl, max RS_M, Σ RS_L, |relation|, and how many W(r) exceed 1."""
        return (f"SELECT COUNT(*) AS n, SUM(tkl) AS tkl, MAX(tkl) AS tkl_max, MAX(m_score) AS m_inf, "
                f"SUM(l_severity) AS l_severity, MAX(w) AS w_max, "
                f"SUM(CASE WHEN w > 1.0 + 1e-12 THEN 1 ELSE 0 END) AS w_above FROM {relation}")

    def scored(self) -> str:
        return f"SELECT records.*, {self.record_scores()} FROM records"

    @staticmethod
    def published() -> str:
        """The published records in published order (needs ``published(pos, id)``)."""
        return ("SELECT p.pos, p.id, s.k, s.l, s.t, s.w AS weight_sum, s.w, s.tkl, s.m_score, s.l_severity "
                "FROM published AS p JOIN src ON src.id = p.id JOIN scored AS s ON s.rid = src.rid")

    @staticmethod
    def unlocated() -> str:
        return ("SELECT p.pos, p.id FROM published AS p LEFT JOIN src ON src.id = p.id "
                "WHERE src.id IS NULL ORDER BY p.pos")
