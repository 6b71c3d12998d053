"""A deliberately naive reference implementation of shared/spec/scoring.md.

Written straight from the definitions with plain Python loops over rows and dicts, exact
arithmetic (fractions.Fraction) wherever the definition is rational, and nothing shared
with ``tklscore.core``. It is quadratic in the rows on purpose: it is only meant for the
small random tables of the property tests.

Tables are lists of dicts (column -> cell text, exactly as in the source file). A
continuous SA's cell is compared as the number it denotes ("1", "1.0" and "1e0" are the
same value), a categorical cell as its text.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

SCORE_NAMES = ("tkl", "tkl_max", "m_score", "m_score_inf", "l_severity")


# --------------------------------------------------------------------------- values

def sa_value(row: dict, attribute: str, continuous) -> object:
    """The value of an SA used for grouping/distributions: text, or the number for a
    continuous SA (as an exact Fraction of the float the text denotes)."""
    text = row[attribute]
    if attribute in continuous:
        return Fraction(float(text))
    return text


def qi_key(row: dict, qi) -> tuple:
    return tuple(row[a] for a in qi)


# --------------------------------------------------------------------------- k, l, t

def k_df(rows: list[dict], qi, index: int) -> int:
    """Size of row ``index``'s equivalence class in ``rows``."""
    mine = qi_key(rows[index], qi)
    count = 0
    for other in rows:
        if qi_key(other, qi) == mine:
            count += 1
    return count


def l_df(rows: list[dict], qi, sa, continuous, index: int) -> int:
    """min over SAs A_i of the number of distinct A_i values in the group of ``rows``
    sharing row ``index``'s values of QI ∪ (SA \\ {A_i})."""
    best = None
    me = rows[index]
    for target in sa:
        others = [a for a in sa if a != target]

        def key(row):
            return qi_key(row, qi) + tuple(sa_value(row, a, continuous) for a in others)

        mine = key(me)
        distinct = set()
        for row in rows:
            if key(row) == mine:
                distinct.add(sa_value(row, target, continuous))
        if best is None or len(distinct) < best:
            best = len(distinct)
    return best


def distribution(rows: list[dict], attribute: str, continuous) -> dict:
    """value -> relative frequency (Fraction) among ``rows``."""
    counts: dict = {}
    for row in rows:
        v = sa_value(row, attribute, continuous)
        counts[v] = counts.get(v, 0) + 1
    total = len(rows)
    return {v: Fraction(c, total) for v, c in counts.items()}


def variational_distance(p: dict, q: dict) -> Fraction:
    """½ Σ_v |p_v − q_v| over every value of either distribution."""
    total = Fraction(0)
    for v in set(p) | set(q):
        total += abs(p.get(v, Fraction(0)) - q.get(v, Fraction(0)))
    return total / 2


def ordered_emd(p: dict, q: dict, domain: list) -> Fraction:
    """(1/(m−1)) Σ_i |Σ_{j≤i} (p_j − q_j)| over the m sorted distinct values ``domain``;
    0 when m = 1."""
    values = sorted(domain)
    m = len(values)
    if m <= 1:
        return Fraction(0)
    total = Fraction(0)
    for i in range(m):
        running = Fraction(0)
        for j in range(i + 1):
            running += p.get(values[j], Fraction(0)) - q.get(values[j], Fraction(0))
        total += abs(running)
    return total / (m - 1)


def t_df(rows: list[dict], qi, sa, continuous, index: int) -> Fraction:
    """max over SAs of the distance between the SA's distribution in row ``index``'s
    equivalence class (normalised by the class size) and in all of ``rows``."""
    mine = qi_key(rows[index], qi)
    members = [row for row in rows if qi_key(row, qi) == mine]
    best = Fraction(0)
    for attribute in sa:
        p = distribution(members, attribute, continuous)
        q = distribution(rows, attribute, continuous)
        if attribute in continuous:
            domain = list({sa_value(row, attribute, continuous) for row in rows})
            d = ordered_emd(p, q, domain)
        else:
            d = variational_distance(p, q)
        if d > best:
            best = d
    return best


@dataclass(frozen=True)
class Factors:
    k: int
    l: int
    t: Fraction


def source_factors(rows: list[dict], qi, sa, continuous) -> list[Factors]:
    """k-, l-, t-DF of every source row (needs at least one QI)."""
    assert qi, "use published_factors_without_qi when there are no QIs"
    return [Factors(k_df(rows, qi, i), l_df(rows, qi, sa, continuous, i), t_df(rows, qi, sa, continuous, i))
            for i in range(len(rows))]


def published_factors_without_qi(published_rows: list[dict], sa, continuous) -> list[Factors]:
    """No QIs: k = |P|, l from P grouped by the SAs only, t = 0."""
    n = len(published_rows)
    return [Factors(n, l_df(published_rows, [], sa, continuous, i), Fraction(0)) for i in range(n)]


# --------------------------------------------------------------------------- weights

def parse_interval(text: str):
    """(low, low_closed, high, high_closed) of ``[a,b)``-style text (',' or ';'), or of a
    single number (the interval holding just it). Infinite ends are never closed."""
    s = text.strip()
    if s and s[0] in "[(" and s[-1] in "])":
        inner = s[1:-1].replace(";", ",")
        low_text, high_text = inner.split(",")
        low, high = float(low_text.strip()), float(high_text.strip())
        return low, s[0] == "[" and math.isfinite(low), high, s[-1] == "]" and math.isfinite(high)
    value = float(s)
    return value, True, value, True


def in_interval(value: float, interval) -> bool:
    low, low_closed, high, high_closed = interval
    above = value > low or (low_closed and value == low)
    below = value < high or (high_closed and value == high)
    return above and below


def value_weight(attribute: str, text: str, continuous, weights, missing_weight_zero: bool) -> Fraction:
    """The weight of one SA cell: the entry for the value (categorical) or for the interval
    holding the number (continuous)."""
    found = None
    for entry_attribute, entry_value, entry_weight in weights:
        if entry_attribute != attribute:
            continue
        if attribute in continuous:
            if in_interval(float(text), parse_interval(entry_value)):
                found = entry_weight
        elif entry_value == text:
            found = entry_weight
    if found is None:
        if not missing_weight_zero:
            raise KeyError((attribute, text))
        return Fraction(0)
    return Fraction(found)


def weight_sum(row: dict, sa, continuous, weights, missing_weight_zero: bool = False) -> Fraction:
    """W(r) = Σ_i weight(A_i = r[A_i])."""
    total = Fraction(0)
    for attribute in sa:
        total += value_weight(attribute, row[attribute], continuous, weights, missing_weight_zero)
    return total


# --------------------------------------------------------------------------- scores

@dataclass(frozen=True)
class RecordScore:
    k: int
    l: int
    t: Fraction
    w: Fraction
    tkl: Fraction
    m_score: Fraction
    l_severity: Fraction


def record_score(f: Factors, w: Fraction) -> RecordScore:
    return RecordScore(
        k=f.k, l=f.l, t=f.t, w=w,
        tkl=(f.t + w) / f.l,
        m_score=min(Fraction(1), w) / f.k,
        l_severity=w / f.k,
    )


def m_table(n: int, max_record: Fraction, x: float) -> float:
    """n^(1/x) · max (x → ∞: max), exact when x = 1."""
    if math.isinf(x):
        return max_record
    if x == 1:
        return n * max_record
    return n ** (1.0 / x) * float(max_record)


def table_scores(records: list[RecordScore], x: float) -> dict:
    n = len(records)
    if n == 0:
        return {name: Fraction(0) for name in SCORE_NAMES}
    tkl = Fraction(0)
    l_sev = Fraction(0)
    tkl_max = None
    m_max = None
    for r in records:
        tkl += r.tkl
        l_sev += r.l_severity
        if tkl_max is None or r.tkl > tkl_max:
            tkl_max = r.tkl
        if m_max is None or r.m_score > m_max:
            m_max = r.m_score
    return {"tkl": tkl, "tkl_max": tkl_max, "m_score": m_table(n, m_max, x), "m_score_inf": m_max,
            "l_severity": l_sev}


def normalise_by_source(scores: dict, whole: dict, n: int) -> dict:
    """score(P) / score(S whole); None when S scores 0; 0 for an empty P."""
    out = {}
    for name in SCORE_NAMES:
        if n == 0:
            out[name] = Fraction(0)
        elif whole[name] == 0:
            out[name] = None
        else:
            out[name] = scores[name] / whole[name]
    return out


def normalise_by_max(scores: dict, n: int, x: float) -> dict:
    """tkl / 2n, tkl_max / 2, M / n^(1/x), M(x→∞) / 1, L / n; 0 for an empty P."""
    if n == 0:
        return {name: Fraction(0) for name in SCORE_NAMES}
    return {
        "tkl": scores["tkl"] / (2 * n),
        "tkl_max": scores["tkl_max"] / 2,
        "m_score": scores["m_score"] / m_table(n, Fraction(1), x),
        "m_score_inf": scores["m_score_inf"],
        "l_severity": scores["l_severity"] / n,
    }


@dataclass
class Report:
    records: list[RecordScore]
    scores: dict
    normalized_source: dict
    normalized_max: dict
    whole: dict


def score(rows: list[dict], qi, sa, continuous, weights, positions, x: float = 1.0,
          missing_weight_zero: bool = False) -> Report:
    """Score the published table made of the source rows at ``positions`` (in that order).

    ``weights`` is a list of (attribute, value, weight) triples."""
    qi, sa, continuous = list(qi), list(sa), set(continuous)
    positions = list(positions)
    published = [rows[p] for p in positions]

    def scored(factors, members):
        return [record_score(f, weight_sum(r, sa, continuous, weights, missing_weight_zero))
                for f, r in zip(factors, members)]

    if qi:
        all_factors = source_factors(rows, qi, sa, continuous)
        whole_records = scored(all_factors, rows)
        records = [whole_records[p] for p in positions]
    else:
        whole_records = scored(published_factors_without_qi(rows, sa, continuous), rows)
        records = scored(published_factors_without_qi(published, sa, continuous), published)
    whole = table_scores(whole_records, x)
    scores = table_scores(records, x)
    n = len(records)
    return Report(records, scores, normalise_by_source(scores, whole, n), normalise_by_max(scores, n, x), whole)
