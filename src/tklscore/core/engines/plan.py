"""The group-by plan of the distinguishing factors and scores, written once as SQL (kept
to what DuckDB and Spark SQL both run) (spec scoring.md; the same definitions as
:mod:`tklscore.core.scoring.distinguishing_factors` and :mod:`tklscore.core.scoring.scores`).

A back-end (:mod:`.duckdb_engine`, :mod:`.spark_engine`; inputs in :mod:`.backend`) provides the relation ``src`` with
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

from dataclasses import dataclass, replace

from tklscore.core.scoring.sums import HALF_BITS, UNIT_BELOW


@dataclass(frozen=True)
class Plan:
    """The statements for ``q`` quasi-identifiers and the sensitive attributes
    ``continuous`` (True for a continuous one) in role order."""

    n_qi: int
    continuous: tuple[bool, ...]
    source: str = "src"    # the relation of the records measured (the measures: a subset of ``src``)
    weighted: bool = False  # ``source`` holds distinct rows with ``cnt``, the records each stands for
                            # (the finest aggregate, :mod:`.finest`): counts are sums of ``cnt``
    counted: str = "coded"  # the relation the (class, value) counts read: ``coded``, or ``combos`` (weighted)
    distinct: bool = False  # (weighted) each row of ``source`` is a combination of its own: no two rows share
                            # their QI and SA values (the finest aggregate, :func:`.finest.rows_are_combinations`)
    class_codes: bool = False   # ``source`` also holds ``k0..``, each QI's integer code, one-to-one with its
                                # text (a design's ``gsrc``): classes are grouped and joined on the codes

    @property
    def count(self) -> str:
        """How many records a group holds."""
        return "CAST(COALESCE(SUM(cnt), 0) AS BIGINT)" if self.weighted else "COUNT(*)"

    def times(self, value: str) -> str:
        """``value`` once for each record a row stands for (in a sum)."""
        return f"{value} * cnt" if self.weighted else value

    @property
    def qi(self) -> list[str]:
        return [f"q{i}" for i in range(self.n_qi)]

    @property
    def sa(self) -> list[str]:
        return [f"s{i}" for i in range(len(self.continuous))]

    # ------------------------------------------------------------------ codes

    def value_codes(self, i: int) -> str:
        """The distinct values of SA i, sorted (text, or numbers for a continuous one), with
        a dense integer code: every later group-by and join runs on integers."""
        return (f"SELECT v AS s{i}, CAST(ROW_NUMBER() OVER (ORDER BY v) - 1 AS BIGINT) AS c{i} "
                f"FROM (SELECT DISTINCT s{i} AS v FROM {self.source}) AS d")

    def distinct_values(self) -> str:
        """Every SA's values in code order, in one statement (one job on Spark): ``(sa, c, v,
        x)`` with a categorical SA's value as text in ``v``, a continuous one's number in ``x``
        (needs ``codes_{i}``)."""
        return " UNION ALL ".join(
            f"SELECT {i} AS sa, c{i} AS c, "
            + (f"CAST(NULL AS STRING) AS v, s{i} AS x" if continuous else f"s{i} AS v, CAST(NULL AS DOUBLE) AS x")
            + f" FROM codes_{i}" for i, continuous in enumerate(self.continuous)) + " ORDER BY sa, c"

    # ------------------------------------------------------------------ equivalence classes

    @property
    def class_keys(self) -> list[str]:
        """The columns a record's class is found by: the QIs' codes (:attr:`class_codes`), else their values."""
        return [f"k{j}" for j in range(self.n_qi)] if self.class_codes else self.qi

    def classes(self) -> str:
        """One row per equivalence class: its QI values (and with :attr:`class_codes` their
        codes), size k and a dense id ``cid`` in the order of the values."""
        keys = ", ".join(self.qi)
        if self.class_codes:   # grouped on integers; a code's value is the one its rows hold
            codes = ", ".join(self.class_keys)
            values = ", ".join(f"MIN({q}) AS {q}" for q in self.qi)
            grouped = f"SELECT {codes}, {values}, {self.count} AS k FROM {self.source} GROUP BY {codes}"
            keys_out = f"{keys}, {codes}"
        else:
            grouped, keys_out = f"SELECT {keys}, {self.count} AS k FROM {self.source} GROUP BY {keys}", keys
        return (f"SELECT {keys_out}, k, CAST(ROW_NUMBER() OVER (ORDER BY {keys}) - 1 AS BIGINT) AS cid "
                f"FROM ({grouped}) AS grouped")

    def coded(self, sizes: tuple[int, ...] | None = None) -> str:
        """Every record as integers: its class id and the code of each SA value (needs
        ``classes`` and ``codes_{i}``); with ``sizes`` (the number of classes and of each
        SA's codes) also its combination's ``key`` (:meth:`combination_key`) when it fits."""
        codes = [f"codes_{i}.c{i}" for i in range(len(self.sa))]
        joins = " ".join(f"JOIN codes_{i} USING (s{i})" for i in range(len(self.sa)))
        key = self.combination_key(sizes, ["classes.cid"] + codes) if sizes is not None else None
        selected = ", ".join(["src.rid", "src.id", "classes.cid"] + codes + (["src.cnt"] if self.weighted else [])
                             + ([f"{key} AS key"] if key is not None else []))
        return f"SELECT {selected} FROM {self.source} AS src JOIN classes USING ({', '.join(self.class_keys)}) {joins}"

    def variational_distance(self, i: int, n: int, pairs: str | None = None) -> str:
        """½ Σ_v |c_v·n − C_v·k| / (k·n) per class, absent values adding C_v/n, on exact
        integers (as ``variational_distance_by_class``), ordered by class id; ``pairs``: a
        relation of :meth:`class_value_pairs` already made (else grouped here)."""
        pairs = (f"(SELECT cid, idx AS c{i}, c FROM {pairs})" if pairs is not None
                 else f"(SELECT cid, c{i}, {self.count} AS c FROM {self.counted} GROUP BY cid, c{i})")
        return (
            f"SELECT classes.cid, (CAST(v.inside AS DOUBLE) + CAST(({n} - v.covered) * classes.k AS DOUBLE)) "
            f"/ (2.0 * classes.k * {n}) AS t "
            f"FROM (SELECT pairs.cid, SUM(ABS(pairs.c * {n} - totals.c * classes.k)) AS inside, "
            f"SUM(totals.c) AS covered "
            f"FROM {pairs} AS pairs "
            f"JOIN (SELECT c{i}, {self.count} AS c FROM {self.counted} GROUP BY c{i}) AS totals USING (c{i}) "
            f"JOIN classes USING (cid) GROUP BY pairs.cid) AS v "
            f"JOIN classes ON classes.cid = v.cid ORDER BY classes.cid")

    def class_value_pairs(self, i: int, ordered: bool = True) -> str:
        """The distinct (class, value code) pairs of SA i with their counts, sorted by class
        then value unless not ``ordered`` (the input of the ordered EMD; codes are value ranks)."""
        return (f"SELECT cid, c{i} AS idx, {self.count} AS c FROM {self.counted} GROUP BY cid, c{i}"
                + (" ORDER BY cid, idx" if ordered else ""))

    def all_class_value_pairs(self) -> str:
        """Every SA's (class, value code, count) pairs in one grouping, ``(sa, cid, idx, c)``
        in no order (the caller sorts the few it fetches: Spark's sort would cost a job
        sampling the rows): each record's (SA, code) pairs stacked (Spark SQL's ``STACK``).
        For an engine whose statements cost a job each (Spark): one job instead of one
        grouping, one count and one fetch per SA."""
        stacked = ", ".join(f"{i}, c{i}" for i in range(len(self.sa)))
        return (f"SELECT t.sa, cid, t.idx, {self.count} AS c FROM {self.counted} "
                f"LATERAL VIEW STACK({len(self.sa)}, {stacked}) t AS sa, idx GROUP BY t.sa, cid, t.idx")

    def value_counts(self, i: int) -> str:
        """How many records hold each value code of SA i, by code."""
        return f"SELECT c{i} AS idx, {self.count} AS c FROM {self.counted} GROUP BY c{i} ORDER BY idx"

    # ------------------------------------------------------------------ the measures (privacy models, risk)

    def suppressed(self, marker_sql: str) -> str:
        """The condition of a suppressed record: every QI holds the marker."""
        return " AND ".join(f"{q} = {marker_sql}" for q in self.qi)

    def population_sizes(self, population: str) -> str:
        """F of each class: the records of ``population`` (its ``q0..``) with the class's QI
        values (NULL: none), by class id."""
        keys = ", ".join(self.qi)
        return (f"SELECT classes.cid, pop.f FROM classes LEFT JOIN (SELECT {keys}, {self.count} AS f FROM {population} "
                f"GROUP BY {keys}) AS pop USING ({keys}) ORDER BY classes.cid")

    def distinct_identifiers(self, n_y: int) -> str:
        """Each class's number of distinct identifier tuples ``y0..`` ((X,Y)-anonymity), by class id."""
        ys = ", ".join(f"src.y{j}" for j in range(n_y))
        return (f"SELECT cid, COUNT(*) AS d FROM (SELECT DISTINCT classes.cid, {ys} FROM {self.source} AS src "
                f"JOIN classes USING ({', '.join(self.qi)})) AS pairs GROUP BY cid ORDER BY cid")

    def subset_groups(self, subsets: list[tuple[int, ...]]) -> str:
        """For each subset A of the QIs (by its position in ``subsets``): the number of
        distinct A-tuples and Σ_G |G|(|G|−1) over its groups G, from the classes' sizes
        (QI importance: α-distinction and α-separation)."""
        parts = []
        for position, subset in enumerate(subsets):
            keys = ", ".join(f"q{j}" for j in subset)
            parts.append(f"SELECT {position} AS subset, COUNT(*) AS groups, CAST(SUM(c * (c - 1)) AS BIGINT) AS same "
                         f"FROM (SELECT CAST(SUM(k) AS BIGINT) AS c FROM classes GROUP BY {keys}) AS g{position}")
        return " UNION ALL ".join(parts)

    @staticmethod
    def class_risks() -> str:
        """Each class's size k and population size F (``class_f(cid, f)``), by class id."""
        return "SELECT classes.cid, classes.k, class_f.f FROM classes JOIN class_f USING (cid) ORDER BY classes.cid"

    @staticmethod
    def riskiest(count: int) -> str:
        """The published records with the highest prosecutor risk 1/k, ties by the highest
        D(r), then by position, with their journalist risk 1/F (needs ``coded``,
        ``classes``, ``class_f`` and ``dr_records(rid = published position, id)``)."""
        return ("SELECT dr.id AS record, dr.rid AS row, classes.k AS size, 1.0 / CAST(classes.k AS DOUBLE) AS prosecutor, "
                "1.0 / CAST(class_f.f AS DOUBLE) AS journalist, dr.d FROM dr_records AS dr "
                "JOIN coded ON coded.id = dr.id JOIN classes ON classes.cid = coded.cid "
                "JOIN class_f ON class_f.cid = coded.cid "
                f"ORDER BY prosecutor DESC, dr.d DESC, dr.rid LIMIT {int(count)}")

    # ------------------------------------------------------------------ per combination

    def radix(self, sizes: tuple[int, ...]) -> tuple[int, ...] | None:
        """The place value of the class id and of each SA's code in one BIGINT key of a
        (class, SA values) combination — ``sizes``: the number of classes and of each SA's
        codes — or None when the key would not fit (the combination is then its columns)."""
        places, space = [], 1
        for size in reversed(sizes):
            places.append(space)
            space *= max(int(size), 1)
            if space > KEY_SPACE:
                return None
        return tuple(reversed(places))

    def combination(self, sizes: tuple[int, ...]) -> list[str]:
        """The columns that name a combination: its key, or its class id and codes."""
        return ["key"] if self.radix(sizes) is not None else ["cid"] + [f"c{i}" for i in range(len(self.sa))]

    def combination_key(self, sizes: tuple[int, ...], columns: list[str]) -> str | None:
        """A record's combination key in mixed radix of its ``columns`` (class id, SA codes)."""
        places = self.radix(sizes)
        if places is None:
            return None
        return " + ".join(f"{c} * {place}" if place != 1 else c for c, place in zip(columns, places))

    def combinations(self, sizes: tuple[int, ...], groups: bool = True) -> str:
        """``combos``: the distinct (class, SA values) combinations of the records of
        ``source`` (coded as :meth:`coded` codes them, in the same statement: the records are
        never kept as codes), each with ``cnt``, the records holding it, and (with a key and
        ``groups``; :meth:`combination_scores` reads them) ``g{i}``, the key of its group of
        QI ∪ (SA \\ {A_i}): the key with A_i's code zeroed. Every record score is a function
        of its combination."""
        codes = [f"c{i}" for i in range(len(self.sa))]
        places = self.radix(sizes)
        coded = f"({self.coded(sizes)}) AS coded"
        columns = (["key"] if places is not None else []) + ["cid"] + codes
        named = ", ".join(columns)
        picked = ", ".join(f"MIN({c}) AS {c}" for c in ["cid"] + codes + ["rid"])
        keyed = ""
        if places is not None and groups:
            keyed = ", " + ", ".join(f"key - {c} * {place} AS g{i}" for i, (c, place) in enumerate(zip(codes, places[1:])))
        space = places[0] * max(int(sizes[0]), 1) if places is not None else None    # the number of keys
        if space is not None and not self.distinct and space <= EXACT_DOUBLE:
            # the class id and codes read back from the key: one aggregate a row, not six (at 1M rows
            # 0.20 CPU-s, not 0.36); an exact multiple below 2**53 divides exactly as a double
            bounds = [space] + list(places[:-1])
            named = ", ".join(["key"] + [f"{_digit(bound, place)} AS {c}"
                                         for c, bound, place in zip(["cid"] + codes, bounds, places)])
            picked = "MIN(rid) AS rid"
            if groups:   # the key with code i zeroed, on integers
                keyed = ", " + ", ".join(f"key - key % {bound} + key % {place} AS g{i}"
                                         for i, (bound, place) in enumerate(zip(bounds[1:], places[1:])))
        if self.distinct:    # every row its own combination: coded as it is, nothing to group
            assert self.weighted, "distinct rows are the finest aggregate's, each with its cnt"
            return f"SELECT {named}, cnt, rid{keyed} FROM {coded}"
        if places is None:
            return f"SELECT {named}, {self.count} AS cnt, MIN(rid) AS rid FROM {coded} GROUP BY {named}"
        return (f"SELECT {named}, cnt, rid{keyed} FROM (SELECT key, {picked}, {self.count} AS cnt FROM {coded} "
                f"GROUP BY key) AS grouped")

    def combinations_of_classes(self, sizes: tuple[int, ...], sa: list[int], relation: str) -> str | None:
        """``combos`` as :meth:`combinations` makes them (no ``g{i}``), from the combinations of
        another plan over the same records (``relation``: ``cid``, ``c{i}``, ``cnt``, ``rid``; the
        whole source's) whose classes this plan's merge — ``class_map(was, cid)``: each of its
        classes' class here — and whose SA ``sa[new]`` is SA ``new`` here, coded alike: integers
        grouped, no value read again. None when the key would not fit (:meth:`radix`)."""
        places = self.radix(sizes)
        if places is None:
            return None
        codes = [f"c{i}" for i in range(len(self.sa))]
        key = " + ".join([f"m.cid * {places[0]}"] + [f"s.c{i} * {place}" if place != 1 else f"s.c{i}"
                                                      for i, place in zip(sa, places[1:])])
        space = places[0] * max(int(sizes[0]), 1)
        if space <= EXACT_DOUBLE:    # read back from the key, as :meth:`combinations` does
            bounds = [space] + list(places[:-1])
            named, picked = ", ".join(["key"] + [f"{_digit(bound, place)} AS {c}" for c, bound, place in
                                                 zip(["cid"] + codes, bounds, places)]), ""
        else:
            named = ", ".join(["key", "cid"] + codes)
            picked = ", MIN(m.cid) AS cid, " + ", ".join(f"MIN(s.c{i}) AS c{new}" for new, i in enumerate(sa))
        return (f"SELECT {named}, cnt, rid FROM (SELECT {key} AS key{picked}, {self.count} AS cnt, "
                f"MIN(s.rid) AS rid FROM {relation} AS s JOIN class_map AS m ON m.was = s.cid GROUP BY {key}) "
                f"AS grouped")

    # ------------------------------------------------------------------ a release measured as it is coded

    def suppressed_class_ids(self, combination: list[str]) -> str:
        """The class ids of the suppressed records (needs ``combos`` and ``gone``, the
        suppressed records per combination: suppression drops whole classes)."""
        return f"SELECT DISTINCT combos.cid FROM combos JOIN gone USING ({', '.join(combination)})"

    def released_classes(self) -> str:
        """The classes released, numbered as ``released_ids(was, cid)`` says (made by
        :func:`.design_classes.released_numbering`, the rule), with ``was``, the class id among
        all of them."""
        keys = ", ".join(f"classes.{q}" for q in self.qi)
        return (f"SELECT {keys}, classes.k, r.cid, r.was FROM classes JOIN released_ids AS r "
                f"ON r.was = classes.cid")

    def released_values(self) -> str:
        """The codes of each SA the released combinations hold (not in ``gone_classes``): one row
        per SA's code, its own column set, the others NULL (codes are never NULL)."""
        codes = ", ".join(f"c{i}" for i in range(len(self.sa)))
        sets = ", ".join(f"(c{i})" for i in range(len(self.sa)))
        return (f"SELECT {codes} FROM combos WHERE cid NOT IN (SELECT cid FROM gone_classes) "
                f"GROUP BY GROUPING SETS ({sets})")

    @staticmethod
    def released_codes(i: int) -> str:
        """The codes of SA i the released combinations hold, ranked again by ``released_code_ids_{i}(was,
        c{i})`` (made by :func:`.design_classes.released_numbering`), with ``was``, the code among all."""
        return (f"SELECT v.s{i}, r.c{i}, r.was FROM codes_{i} AS v JOIN released_code_ids_{i} AS r "
                f"ON r.was = v.c{i}")

    def released_coded(self, recoded: tuple[int, ...] = (), any_dropped: bool = True) -> str:
        """The released combinations as :meth:`coded` codes a release's records — ``rid``,
        ``id``, class id, each SA's code and ``cnt`` — from ``combos``: with ``any_dropped``,
        the classes renumbered by ``released_classes`` and each SA in ``recoded`` by
        ``released_codes_{i}``; else ``combos`` as they are. What the release's measures
        read (:class:`~.measures.EngineAggregates` with ``coded``): never re-coded from values.
        By design beside :func:`.design._released_counts`, the same classes and pairs in numpy
        when the combinations are already in Python (fetched whole or kept in pieces); this is
        for combinations that stay in the engine. Both number by one rule,
        :func:`.design_classes.released_numbering`, and give the same measures (the combinations
        fetched whole against fetched in pieces, ``tests/engines/test_engine_design.py``)."""
        if not any_dropped:
            return (f"SELECT rid, '' AS id, cid, {', '.join(f'c{i}' for i in range(len(self.sa)))}, cnt "
                    f"FROM combos")
        codes = [f"r{i}.c{i}" if i in recoded else f"c.c{i}" for i in range(len(self.sa))]
        joins = " ".join(f"JOIN released_codes_{i} AS r{i} ON r{i}.was = c.c{i}" for i in recoded)
        return (f"SELECT c.rid, '' AS id, k.cid, {', '.join(codes)}, c.cnt FROM combos AS c "
                f"JOIN released_classes AS k ON k.was = c.cid {joins}")

    def combination_scores(self, sizes: tuple[int, ...]) -> str:
        """k, l, t, W(r), the record scores and ``cnt`` of every combination (needs ``combos``,
        ``class_t(cid, k, t)`` and ``weights_{i}(c{i}, w)``).

        l-DF: for each SA A_i the number of distinct A_i values in the record's group of
        QI ∪ (SA \\ {A_i}), i.e. the number of combinations in it (one grouped count per
        SA over the combinations, on one integer key when it fits; a group not counted holds
        one); the minimum over the SAs."""
        codes = [f"c{i}" for i in range(len(self.sa))]
        keyed = self.radix(sizes) is not None
        joins, distinct = [], []
        for i in range(len(codes)):
            by = f"g{i}" if keyed else ", ".join(["cid"] + [c for j, c in enumerate(codes) if j != i])
            # only the groups holding more than one combination: the join's build side stays small
            joins.append(f"LEFT JOIN (SELECT {by}, COUNT(*) AS d FROM combos GROUP BY {by} HAVING COUNT(*) > 1) "
                         f"AS l{i} USING ({by})")
            distinct.append(f"COALESCE(l{i}.d, 1)")
        weight_sum = "0.0"
        for i in range(len(codes)):
            weight_sum = f"({weight_sum} + w{i}.w)"
            joins.append(f"JOIN weights_{i} AS w{i} USING (c{i})")
        least = distinct[0] if len(distinct) == 1 else f"LEAST({', '.join(distinct)})"
        named = ", ".join(f"combos.{c}" for c in self.combination(sizes))
        per_combination = (f"SELECT {named}, combos.cnt, class_t.k, CAST({least} AS BIGINT) AS l, class_t.t, "
                           f"CAST({weight_sum} AS DOUBLE) AS w FROM combos JOIN class_t USING (cid) "
                           + " ".join(joins))
        return f"SELECT records.*, {self.record_scores()} FROM ({per_combination}) AS records"

    @staticmethod
    def record_scores() -> str:
        """The record scores: RS_tkl = (t + W) / l, RS_M = min(1, W) / k, RS_L = W / k."""
        return ("(records.t + records.w) / records.l AS tkl, "
                "LEAST(1.0, records.w) / records.k AS m_score, records.w / records.k AS l_severity")

    def totals(self, relation: str, weighted: bool | None = None) -> str:
        """Σ RS_tkl and Σ RS_L as integer sums by unit (``ut``, ``ul``; ``{t,l}_high``,
        ``{t,l}_low``: :mod:`~tklscore.core.scoring.sums`), and the records, max RS_tkl, max RS_M,
        max RS_L, max W(r), how many W(r) exceed 1 and how many scores are NaN or ±inf
        (``{t,l}_odd``), for each pair of units of ``relation``'s rows — a few rows, which
        :func:`.scoring.fetch_totals` adds up (``weighted``: each row stands for ``cnt`` records;
        default: the plan's). The engine sums integers only: a sum of doubles there would depend
        on the order of the rows and the threads."""
        plan = self if weighted is None else replace(self, weighted=weighted)
        units = ", ".join(f"{_unit(x)} AS {u}" for x, u in (("tkl", "ut"), ("l_severity", "ul")))
        sums = ", ".join(f"CAST(COALESCE(SUM(CAST({part} AS BIGINT) * c), 0) AS BIGINT) AS {name}_{half}"
                         for x, u, name in (("tkl", "ut", "t"), ("l_severity", "ul", "l"))
                         for half, part in zip(("high", "low"), _halves(x, u)))
        odd = ", ".join(f"CAST(SUM(CASE WHEN {_finite(x)} THEN 0 ELSE c END) AS BIGINT) AS {name}_odd"
                        for x, name in (("tkl", "t"), ("l_severity", "l")))
        return (f"SELECT ut, ul, {sums}, CAST(SUM(c) AS BIGINT) AS n, MAX(tkl) AS tkl_max, MAX(m_score) AS m_inf, "
                f"MAX(l_severity) AS l_max, MAX(w) AS w_max, "
                f"CAST(SUM(CASE WHEN w > 1.0 + 1e-12 THEN c ELSE 0 END) AS BIGINT) AS w_above, {odd} FROM (SELECT tkl, l_severity, m_score, w, {'cnt' if plan.weighted else '1'} AS c, "
                f"{units} FROM {relation}) AS scores GROUP BY ut, ul")

    def published_records(self, on: str = "id", source: str = "src") -> str:
        """The plan over the published records only (``published`` joined to ``source`` on
        ``on``): its :meth:`coded` codes the records whose scores are read."""
        return replace(self, source=f"(SELECT s.* FROM published AS p JOIN {source} AS s ON s.{on} = p.{on})")

    @staticmethod
    def published(combination: list[str]) -> str:
        """The published records in published order with their combination's scores (needs
        ``published(pos, id)``, ``coded`` of the published records (:meth:`published_records`)
        and ``scored``, the scores by ``combination``)."""
        return ("SELECT p.pos, p.id, s.k, s.l, s.t, s.w AS weight_sum, s.w, s.tkl, s.m_score, s.l_severity "
                f"FROM published AS p JOIN coded AS c ON c.id = p.id JOIN scored AS s USING "
                f"({', '.join(combination)})")


def _finite(x: str) -> str:
    """``x`` is a number (not NaN, not ±inf: both engines order NaN above every number)."""
    return f"ABS({x}) <= 1.7976931348623157E308"


def _unit(x: str) -> str:
    """The exponent of the unit of ``x`` (:data:`~tklscore.core.scoring.sums.UNIT_BELOW` below
    its leading bit, whatever LOG2's last bit; never below a double's smallest, 2**-1074),
    NULL for 0, NaN and ±inf: ``x / 2**unit`` is an integer below 2**56."""
    return (f"CASE WHEN {x} <> 0 AND {_finite(x)} THEN "
            f"GREATEST(CAST(FLOOR(LOG2(ABS({x}))) AS BIGINT) - {UNIT_BELOW}, -1074) END")


def _halves(x: str, unit: str) -> tuple[str, str]:
    """``x / 2**unit`` (exact: a power of two) as its high and low integers of
    :data:`~tklscore.core.scoring.sums.HALF_BITS` bits (doubles, each exact)."""
    scaled = f"({x} / POWER(2E0, {unit}))"
    high = f"FLOOR({scaled} / {1 << HALF_BITS}E0)"
    return high, f"({scaled} - {high} * {1 << HALF_BITS}E0)"


@dataclass(frozen=True)
class DesignPlan:
    """The statements of a release design (privacy-models.md §5) over ``src``, as
    :func:`tklscore.core.release.transform.transform` applies it in memory
    (:mod:`.design` runs them). The hierarchies' value → generalised value mapping of each
    column at its level is a small registered table ``map_{column}(v, g, c)``: the value as
    written, its label and the code the in-memory engine gives the label (a continuous SA's
    groups in numeric order). ``gsrc(rid, id, q0.., k0.., s0..)`` is the source generalised:
    each QI's label ``q`` and code ``k``, each published SA at its level (``sa``: for each,
    its index in ``src`` and how it is published — its ``value``, its ``label``, or the
    numeric ``code`` of a continuous SA's group)."""

    qi_maps: tuple[str, ...]
    sa: tuple[tuple[int, str, str | None], ...]    # (index in src, value | label | code, map relation)
    source: str = "src"      # the records, or the finest aggregate (``weighted``: rows with ``cnt``, :mod:`.finest`)
    weighted: bool = False

    @property
    def keys(self) -> list[str]:
        return [f"k{j}" for j in range(len(self.qi_maps))]

    @staticmethod
    def first_appearance(column: str, source: str = "src", counted: bool = False) -> str:
        """Each distinct value of a ``src`` column with its first record (the in-memory codes'
        order: values as they first appear); ``counted``: and ``c``, the records holding it
        (``source`` weighted: the finest aggregate's ``cnt`` summed)."""
        count = ", CAST(SUM(cnt) AS BIGINT) AS c" if counted else ""
        return f"SELECT {column} AS v, MIN(rid) AS first{count} FROM {source} GROUP BY {column}"

    @staticmethod
    def distinct_numbers(i: int, source: str = "src") -> str:
        """The distinct (as written, as a number) pairs of continuous SA i."""
        return f"SELECT DISTINCT r{i} AS v, s{i} AS x FROM {source}"

    @property
    def _cnt(self) -> str:
        return ", cnt" if self.weighted else ""

    def generalised(self) -> str:
        """``gsrc``."""
        parts, joins = ["src.rid", "src.id"] + (["src.cnt"] if self.weighted else []), []
        for j, relation in enumerate(self.qi_maps):
            parts += [f"m{j}.g AS q{j}", f"m{j}.c AS k{j}"]
            joins.append(f"JOIN {relation} AS m{j} ON m{j}.v = src.q{j}")
        for new, (i, how, relation) in enumerate(self.sa):
            if how == "value":
                parts.append(f"src.s{i} AS s{new}")
            elif how == "label":
                parts.append(f"n{new}.g AS s{new}")
                joins.append(f"JOIN {relation} AS n{new} ON n{new}.v = src.s{i}")
            else:
                parts.append(f"CAST(n{new}.c AS DOUBLE) AS s{new}")
                joins.append(f"JOIN {relation} AS n{new} ON n{new}.v = src.r{i}")
        return f"SELECT {', '.join(parts)} FROM {self.source} AS src {' '.join(joins)}"

    def selected(self, by_ids: bool) -> str:
        """``sel(pos, rid)``: the rows a release selects, ``pos`` their order (``published``
        holds the selection by id), or every record in record order (the finest aggregate:
        every row, with ``cnt``; a selection by id needs the records)."""
        if by_ids:
            assert not self.weighted, "a selection by id is made over the records"
            return "SELECT p.pos, src.rid FROM published AS p JOIN src ON src.id = p.id"
        return f"SELECT rid AS pos, rid{self._cnt} FROM {self.source}"

    @staticmethod
    def _selection(whole: bool) -> tuple[str, str]:
        """The selected rows joined to ``gsrc`` (``whole``: every row, ``gsrc`` itself, its
        position its ``rid``) and the selected row's alias."""
        return ("gsrc AS g", "g") if whole else ("sel JOIN gsrc AS g ON g.rid = sel.rid", "sel")

    def selection_classes(self, whole: bool = False) -> str:
        """The classes of the selected rows on the generalised QIs: codes, size and first row."""
        keys = ", ".join(f"g.{k}" for k in self.keys)
        rows, row = self._selection(whole)
        size = f"CAST(SUM({row}.cnt) AS BIGINT)" if self.weighted else "COUNT(*)"
        first = "g.rid" if whole else "sel.pos"
        return f"SELECT {keys}, {size} AS size, MIN({first}) AS first FROM {rows} GROUP BY {keys}"

    def marked(self, any_dropped: bool, whole: bool = False) -> str:
        """``marked(pos, rid, id, dropped)``: each selected record, 1 when its class is
        suppressed (``dropped`` lists the suppressed classes' codes). Over the finest aggregate
        nothing is marked: the utility counts :meth:`suppressed_values`."""
        assert not self.weighted, "over the aggregate the suppressed rows are gsrc's in dropped classes"
        rows, _ = self._selection(whole)
        chosen = (["g.rid AS pos", "g.rid"] if whole else ["sel.pos", "sel.rid"]) + ["g.id"]
        if not any_dropped:
            return f"SELECT {', '.join(chosen + ['0 AS dropped'])} FROM {rows}"
        on = " AND ".join(f"d.{k} = g.{k}" for k in self.keys)
        flag = f"CASE WHEN d.{self.keys[0]} IS NULL THEN 0 ELSE 1 END AS dropped"
        return f"SELECT {', '.join(chosen + [flag])} FROM {rows} LEFT JOIN dropped AS d ON {on}"

    def suppressed_values(self) -> str:
        """Over the finest aggregate: the rows of the suppressed classes (``suppressed_g``,
        :meth:`suppressed_rows` kept) with each QI's value as written and ``cnt`` (few: within
        the suppression budget)."""
        values = ", ".join(f"f.q{j}" for j in range(len(self.keys)))
        return f"SELECT {values}, f.cnt FROM suppressed_g AS g JOIN {self.source} AS f ON f.rid = g.rid"

    @staticmethod
    def suppressed_value_use(j: int) -> str:
        """For each value of QI j as written, the suppressed records holding it (needs
        ``suppressed_values``)."""
        return f"SELECT q{j} AS v, CAST(SUM(cnt) AS BIGINT) AS s FROM suppressed_values GROUP BY q{j}"

    def suppressed_rows(self) -> str:
        """``suppressed_g``: the rows of ``gsrc`` in a suppressed class (``dropped``), kept once
        for the release's scores and utility (one pass over ``gsrc``)."""
        on = " AND ".join(f"d.{k} = g.{k}" for k in self.keys)
        return f"SELECT g.* FROM gsrc AS g JOIN dropped AS d ON {on}"

    def published(self) -> str:
        """``published(pos, id, rid)``: the rows released, in selection order."""
        return f"SELECT pos, id, rid{self._cnt} FROM marked WHERE dropped = 0"

    def published_scored(self, combination: list[str]) -> str:
        """The released records' factors and scores in release order (``Plan.published``,
        joined on the record position)."""
        return ("SELECT p.pos, p.id, s.k, s.l, s.t, s.w AS weight_sum, s.w, s.tkl, s.m_score, s.l_severity"
                f"{', c.cnt' if self.weighted else ''} FROM published AS p JOIN coded AS c ON c.rid = p.rid "
                f"JOIN scored AS s USING ({', '.join(combination)})")

    def published_values(self, n_sa: int) -> str:
        """The released records' class codes ``k0..`` and their ``n_sa`` SA values ``s0..`` as
        published, in no order (their combinations' records, counted in Python)."""
        columns = ", ".join(f"g.{c}" for c in self.keys + [f"s{i}" for i in range(n_sa)])
        return f"SELECT {columns} FROM published AS p JOIN gsrc AS g ON g.rid = p.rid"

    def value_use(self, j: int, whole: bool = False) -> str:
        """For each value of QI j as written: the selected rows holding it and how many of
        them are suppressed (the utility's counts; over the aggregate every row is selected: each
        value's records counted with the values, :meth:`first_appearance`)."""
        assert not self.weighted, "over the aggregate the values' records are the aggregate's"
        return (f"SELECT src.q{j} AS v, COUNT(*) AS c, SUM(marked.dropped) AS s FROM marked "
                f"JOIN src ON src.rid = marked.rid GROUP BY src.q{j}")

    def value_uses(self, n_qi: int, whole: bool = False) -> str:
        """:meth:`value_use` of every QI in one statement (one job on Spark), ``(qi, v, c, s)``."""
        return " UNION ALL ".join(f"SELECT {j} AS qi, u.v, u.c, u.s FROM ({self.value_use(j, whole)}) AS u"
                                  for j in range(n_qi))

    @staticmethod
    def published_generalised() -> str:
        """The released rows generalised (what the privacy models measure; over the finest
        aggregate :meth:`Plan.released_coded` instead)."""
        return "SELECT g.* FROM published AS p JOIN gsrc AS g ON g.rid = p.rid"

    def released_combinations(self, combination: list[str], any_dropped: bool) -> str:
        """Over the finest aggregate, the scores of the released records' combinations with
        ``cnt`` the released records (needs ``scored`` and, when classes are suppressed,
        ``gone``: the suppressed records per combination): what the release's totals sum."""
        if not any_dropped:
            return "SELECT * FROM scored"
        return (f"SELECT * FROM (SELECT s.k, s.l, s.t, s.w, s.tkl, s.m_score, s.l_severity, "
                f"s.cnt - COALESCE(g.cnt, 0) AS cnt FROM scored AS s LEFT JOIN gone AS g "
                f"USING ({', '.join(combination)})) AS released WHERE cnt > 0")

    @staticmethod
    def release(columns: list[str], joins: list[str], limit: int | None = None) -> str:
        """The published table: ``columns`` over ``__source`` AS s (the file) and the maps
        ``joins``, in release order."""
        return (f"SELECT {', '.join(columns)} FROM published AS p JOIN __source AS s ON s.__rid = p.rid "
                f"{' '.join(joins)} ORDER BY p.pos" + (f" LIMIT {int(limit)}" if limit is not None else ""))


def double(value: float) -> str:
    """A DOUBLE literal that both engines read as exactly ``value`` (a decimal literal
    would be a DECIMAL, rounded differently)."""
    return f"CAST('{float(value)!r}' AS DOUBLE)"


KEY_SPACE = 1 << 62    # a known set's values as one BIGINT key while the product of the cardinalities fits
EXACT_DOUBLE = 1 << 53  # every integer up to this is a double


def _digit(bound: int, place: int) -> str:
    """The digit of ``key`` at ``place`` of a mixed radix whose next place is ``bound``."""
    if place == 1:
        return f"key % {bound}"
    return f"CAST((key % {bound} - key % {place}) / {place} AS BIGINT)"


@dataclass(frozen=True)
class DisclosurePlan:
    """Orooji–Knapp D(r) (spec disclosure-risk.md Part B; the same definitions and the same
    floating-point operations in the same order as
    :func:`tklscore.core.risk.disclosure_risk.disclosure_risk`).

    Inputs: ``text`` (a relation or subquery ``(rid, id, a0..)``), the records with the
    attributes as text;
    ``dr_w{j}(v, w)``, W(A_j)·W(v) of each distinct value of each attribute in
    ``contributing``. Each attribute of a known set gets dense integer codes
    (``dr_c{j}(v, c)``, ``cardinality[j]`` of them) and ``dr_src(rid, id, c{j}.., w{j}..,
    c_total)`` holds the records as codes and weights. Per known set KS (``sets``: Fig. 1's
    pre-order; the first is ∅) a grouped count ``dr_ks{i}(c.., key, cnt)`` (a set inside
    another known set is summed from that set's counts, so only the largest sets read
    every record); ``key`` is the set's codes in mixed radix, extended by one attribute from
    the parent's, as the in-memory engine's group keys. The records then join each count
    once and sum Σ L = Σ PK(KS)/count and Σ L·C_KS, from which
    D = α (C_total · Σ L − Σ L·C_KS)."""

    sets: tuple[tuple[int, ...], ...]
    pk: tuple[float, ...]
    contributing: tuple[int, ...]
    cardinality: tuple[tuple[int, int], ...]    # (attribute, number of distinct values) of the counted ones
    n: int
    alpha: float
    text: str = "dr_text"    # the records' relation (or a subquery)

    @property
    def counted(self) -> list[int]:
        return sorted({j for s in self.sets for j in s})

    def dictionary(self, j: int) -> str:
        """The distinct values of attribute j with dense codes (sorted text)."""
        return (f"SELECT v, CAST(ROW_NUMBER() OVER (ORDER BY v) - 1 AS BIGINT) AS c "
                f"FROM ({self.distinct(j)}) AS d")

    def distinct(self, j: int) -> str:
        return f"SELECT DISTINCT a{j} AS v FROM {self.text} AS t"

    def coded(self) -> str:
        """``dr_src``: every record's codes, the weights of the counted attributes that
        weigh, and C_total = Σ_A W(A)·W(r(A)) (needs ``dr_c{j}``, ``dr_w{j}``)."""
        contributing = set(self.contributing)
        columns = ["r.rid", "r.id"] + [f"d{j}.c AS c{j}" for j in self.counted]
        columns += [f"w{j}.w AS w{j}" for j in self.counted if j in contributing]
        c_total = None
        for j in self.contributing:
            c_total = f"w{j}.w" if c_total is None else f"({c_total} + w{j}.w)"
        columns.append(f"{c_total or double(0.0)} AS c_total")
        joins = [f"LEFT JOIN dr_c{j} AS d{j} ON d{j}.v = r.a{j}" for j in self.counted]
        joins += [f"LEFT JOIN dr_w{j} AS w{j} ON w{j}.v = r.a{j}" for j in self.contributing]
        return f"SELECT {', '.join(columns)} FROM {self.text} AS r " + " ".join(joins)

    def _key(self, s: tuple[int, ...], alias: str) -> str | None:
        """Set ``s``'s codes in mixed radix (None when they do not fit one BIGINT)."""
        cards = dict(self.cardinality)
        space, key = 1, None
        for j in s:
            space *= max(cards[j], 1)
            if space > KEY_SPACE:
                return None
            key = f"{alias}c{j}" if key is None else f"({key} * {max(cards[j], 1)} + {alias}c{j})"
        return key

    def _groups_at_most(self, s: tuple[int, ...]) -> int:
        """The most groups set ``s`` can have: its records, or the product of its cardinalities."""
        cards, space = dict(self.cardinality), 1
        for j in s:
            space *= max(cards[j], 1)
            if space >= self.n:
                return self.n
        return space

    def count_order(self) -> list[int]:
        """The known sets but ∅ (by index) in the order their counts are made: larger sets
        first, so that each set's superset is made before it (:meth:`set_counts`)."""
        return sorted(range(1, len(self.sets)), key=lambda i: (-len(self.sets[i]), i))

    def rolled_up_from(self, i: int) -> int | None:
        """The known set whose counts set i is summed from: of its strict supersets (made
        before it in :meth:`count_order`; known sets are closed under subsets), the one with
        the fewest possible groups; None: counted from the records."""
        s = set(self.sets[i])
        supersets = [t for t in range(1, len(self.sets)) if len(self.sets[t]) > len(s) and s <= set(self.sets[t])]
        return min(supersets, key=lambda t: (self._groups_at_most(self.sets[t]), t)) if supersets else None

    def set_counts(self, i: int) -> str:
        """How many records share each value combination of known set i: the counts of a
        superset summed (:meth:`rolled_up_from`; materialise in :meth:`count_order`), or the
        records counted — one pass over every record only for the sets no other contains."""
        s = self.sets[i]
        codes = ", ".join(f"c{j}" for j in s)
        key = self._key(s, "")
        keyed = f"{codes}, {key} AS key" if key is not None else codes
        superset = self.rolled_up_from(i)
        if superset is not None:
            return f"SELECT {keyed}, CAST(SUM(cnt) AS BIGINT) AS cnt FROM dr_ks{superset} GROUP BY {codes}"
        return f"SELECT {keyed}, COUNT(*) AS cnt FROM dr_src GROUP BY {codes}"

    def keys_fit(self) -> bool:
        """Every known set's codes fit one BIGINT key (:meth:`all_set_counts` needs them)."""
        return all(self._key(s, "") is not None for s in self.sets[1:])

    def all_set_counts(self) -> str:
        """``dr_ks(ks, key, cnt)``: the counts of every known set but ∅ in one grouping of each
        record's (set, key) pairs from ``dr_src`` (Spark SQL's ``STACK``; needs :meth:`keys_fit`:
        a key is its set's codes in mixed radix, one-to-one). For an engine whose statements
        cost a job each (Spark): one job instead of one per set."""
        pairs = ", ".join(f"{i}, {self._key(s, 'r.')}" for i, s in enumerate(self.sets[1:], start=1))
        return (f"SELECT t.ks, t.key, COUNT(*) AS cnt FROM dr_src AS r "
                f"LATERAL VIEW STACK({len(self.sets) - 1}, {pairs}) t AS ks, key GROUP BY t.ks, t.key")

    def _known_sets(self):
        """(i, PK(KS_i), KS_i's key over ``r.``, C_KS as SQL or None) of every set but ∅."""
        contributing = set(self.contributing)
        pk_of: dict[tuple[int, ...], float] = {(): 1.0}
        known_of: dict[tuple[int, ...], str | None] = {(): None}
        for i, s in enumerate(self.sets[1:], start=1):
            parent, j = s[:-1], s[-1]
            pk_of[s] = pk_of[parent] * self.pk[j]
            known = known_of[parent]
            if j in contributing:
                known = f"r.w{j}" if known is None else f"({known} + r.w{j})"
            known_of[s] = known
            yield i, pk_of[s], s, known

    def records_in_order(self) -> str:
        """``rid, id, l_sum, d`` of every record (needs ``dr_src`` and ``dr_ks`` of
        :meth:`all_set_counts`) in one join of the records' (set, key) pairs to the counts,
        the terms then summed per record in the sets' order with the same operations as
        :meth:`records` (Spark SQL's ``aggregate`` over the terms sorted by set), so every
        number is the same. For Spark, whose optimiser takes minutes over :meth:`records`'
        nested levels."""
        pairs = []
        for i, pk, s, known in self._known_sets():
            pairs.append(f"{i}, {self._key(s, 'r.')}, {double(pk)}, "
                         f"{known if known is not None else 'CAST(NULL AS DOUBLE)'}")
        terms = (f"SELECT r.rid, r.id, r.c_total, t.ks, t.key, t.pk, t.known FROM dr_src AS r "
                 f"LATERAL VIEW STACK({len(pairs)}, {', '.join(pairs)}) t AS ks, key, pk, known")
        summed = (f"SELECT p.rid, p.id, p.c_total, AGGREGATE(ARRAY_SORT(COLLECT_LIST(STRUCT(p.ks AS ks, "
                  f"p.pk / CAST(k.cnt AS DOUBLE) AS l, p.known AS known))), "
                  f"NAMED_STRUCT('l', {double(1.0 / self.n)}, 'lc', {double(0.0)}), "
                  f"(acc, x) -> NAMED_STRUCT('l', acc.l + x.l, 'lc', "
                  f"CASE WHEN x.known IS NULL THEN acc.lc ELSE acc.lc + (x.l * x.known) END)) AS s "
                  f"FROM ({terms}) AS p JOIN dr_ks AS k ON k.ks = p.ks AND k.key = p.key "
                  f"GROUP BY p.rid, p.id, p.c_total")
        return (f"SELECT rid, id, s.l AS l_sum, (s.l * c_total - s.lc) * {double(self.alpha)} AS d "
                f"FROM ({summed}) AS sums")

    def records(self) -> str:
        """``rid, id, l_sum, d`` of every record (needs ``dr_src`` and ``dr_ks{i}``). Each
        known set's count is joined in a level of its own that adds its term to the
        running sums, so no level carries the counts of the levels before it."""
        contributing = set(self.contributing)
        carried = ", ".join(["r.rid", "r.id", "r.c_total"] + [f"r.c{j}" for j in self.counted]
                            + [f"r.w{j}" for j in self.counted if j in contributing])
        level = (f"SELECT {carried}, {double(1.0 / self.n)} AS l_sum, {double(0.0)} AS lc_sum FROM dr_src AS r")
        first_lc = True
        for i, pk, s, known in self._known_sets():
            key = self._key(s, "r.")
            on = (f"k.key = {key}" if key is not None else " AND ".join(f"k.c{a} = r.c{a}" for a in s))
            L = f"({double(pk)} / CAST(k.cnt AS DOUBLE))"
            lc = "r.lc_sum"
            if known is not None:
                # the in-memory engine starts Σ L·C_KS at 0 and adds: 0 + x = x exactly
                lc = f"({L} * {known})" if first_lc else f"(r.lc_sum + ({L} * {known}))"
                first_lc = False
            level = (f"SELECT {carried}, (r.l_sum + {L}) AS l_sum, {lc} AS lc_sum "
                     f"FROM ({level}) AS r JOIN dr_ks{i} AS k ON {on}")
        return (f"SELECT rid, id, l_sum, (l_sum * c_total - lc_sum) * {double(self.alpha)} AS d "
                f"FROM ({level}) AS sums")

    @staticmethod
    def summary(threshold: float) -> str:
        """How many records, how many with D above the threshold, with D = 0, and the
        smallest positive and the largest D (needs ``dr_records``)."""
        return (f"SELECT COUNT(*) AS n, SUM(CASE WHEN d > {double(threshold)} THEN 1 ELSE 0 END) AS above, "
                f"SUM(CASE WHEN d > 0 THEN 0 ELSE 1 END) AS zero, MIN(CASE WHEN d > 0 THEN d END) AS d_min, "
                f"MAX(d) AS d_max FROM dr_records")

    @staticmethod
    def histogram(bounds) -> str:
        """Records per bin over the records with D > 0 (needs ``dr_records``): a record's bin
        is how many of the inner ``bounds`` (values of D, ascending) are ≤ its D — the rule of
        :func:`tklscore.core.risk.disclosure_risk.bin_bounds`, D compared as it is."""
        counted = " + ".join(f"CASE WHEN d >= {double(b)} THEN 1 ELSE 0 END" for b in bounds) or "0"
        return (f"SELECT b, COUNT(*) AS c FROM (SELECT CAST({counted} AS BIGINT) AS b FROM dr_records "
                f"WHERE d > 0) AS binned GROUP BY b ORDER BY b")

    @staticmethod
    def riskiest(count: int, order: str = "d DESC, rid") -> str:
        return f"SELECT rid, id, l_sum, d FROM dr_records ORDER BY {order} LIMIT {int(count)}"
