"""Benchmark of the scoring core on a large synthetic source table.

    .venv/bin/python benchmarks/bench_scoring.py [--rows N] [--seed S] [--repeats R] [--scaling]

Generates a seeded synthetic source of N rows (default 1,000,000), stored as text the way
a CSV loads (Arrow-backed text columns, as ``load_table`` reads a CSV):

- 4 quasi-identifiers with skewed distributions, so equivalence classes vary in size:
  ``age`` (73 levels, 17..89), ``workclass`` (12), ``occupation`` (41), ``education`` (16);
- 4 sensitive attributes: ``disease`` (14 levels), ``medication`` (20), ``diagnosis`` (6),
  all categorical and somewhat correlated with the QIs, and ``amount`` (continuous,
  ~500 distinct numbers written with two decimals, parsed as numbers by the core).

It builds a weights set covering every sensitive value (``amount`` through 5
non-overlapping intervals covering the real line) with W(r) ≤ 1, picks a seeded 10 %
published sample, and measures with ``time.perf_counter``:

- building the Scorer (validation, numeric parsing, factorisation),
- computing the distinguishing factors (``scorer.factors``),
- the first scoring of the sample (record weights W, whole-source scores, record table),
- full scoring = build + factors + first score             (target ≤ 1 s),
- re-scoring after a weights change (new Weights object, median)  (target ≤ 30 ms),
- re-scoring another 10 % sample with unchanged weights (median),
- peak resident memory, ``resource.getrusage(...).ru_maxrss``  (target ≤ 2 GB).

The peak includes the synthetic data and its text frame (as a loaded CSV would be).
The scores are printed too, so runs with the same --rows/--seed can be compared.

``--scaling`` also times the factor computation at 250k/500k/1M rows (scaled with
--rows) and at 100/1000/10000 distinct continuous values, to show nothing is quadratic.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import tklscore
from tklscore.cli.process import tune_process
from tklscore.core import Roles, Scorer, Table, Weights
from tklscore.core.tables.codes import group_ids
from tklscore.core.scoring.distinguishing_factors import (l_distinguishing_factor, ordered_emd_by_class,
                                                  variational_distance_by_class)

TARGET_FULL_S = 1.0
TARGET_REWEIGHT_S = 0.03
TEXT = pd.StringDtype("pyarrow", na_value=np.nan)  # text as load_table reads a CSV: Arrow-backed
TARGET_PEAK_MB = 2048.0

QI = ("age", "workclass", "occupation", "education")
CATEGORICAL_SA = {"disease": 14, "medication": 20, "diagnosis": 6}
CONTINUOUS_SA = "amount"
SA = tuple(CATEGORICAL_SA) + (CONTINUOUS_SA,)
N_INTERVALS = 5


# ---------------------------------------------------------------------------------------
# synthetic data


def _zipf(levels: int, s: float, rng: np.random.Generator) -> np.ndarray:
    """Zipf-like probabilities over ``levels`` values, in a random order of the values."""
    p = 1.0 / np.arange(1, levels + 1) ** s
    return rng.permutation(p / p.sum())


def _draw(rng: np.random.Generator, p: np.ndarray, n: int) -> np.ndarray:
    return rng.choice(len(p), size=n, p=p).astype(np.int64)


def make_source(n: int, seed: int, n_amounts: int = 500) -> tuple[pd.DataFrame, np.ndarray]:
    """The synthetic source as a frame of Arrow-backed text (as a CSV loads), and the sorted pool of the
    continuous attribute's possible values."""
    rng = np.random.default_rng(seed)
    # quasi-identifiers
    ages = np.arange(17, 90)  # 73 levels
    p_age = np.exp(-0.5 * ((ages - 38) / 13.0) ** 2) + 0.01  # bell-shaped, long tails
    p_age /= p_age.sum()
    age = _draw(rng, p_age, n)
    workclass = _draw(rng, _zipf(12, 1.3, rng), n)
    occupation = _draw(rng, _zipf(41, 0.9, rng), n)
    education = _draw(rng, _zipf(16, 1.1, rng), n)
    # sensitive attributes, correlated with the QIs so that l- and t-DF vary by class
    disease = (_draw(rng, _zipf(14, 1.2, rng), n) + age // 15 + (workclass == 0)) % 14
    medication = (disease * 3 + _draw(rng, _zipf(20, 1.5, rng), n)) % 20
    diagnosis = (_draw(rng, _zipf(6, 0.8, rng), n) + education % 2) % 6
    pool = np.round(5.0 + np.cumsum(rng.uniform(0.10, 1.00, n_amounts)), 2)  # strictly increasing
    centre = n_amounts * (0.25 + 0.5 * occupation / 40.0)
    amount = np.clip(np.rint(rng.normal(centre, n_amounts / 8.0)), 0, n_amounts - 1).astype(np.int64)
    uniform = rng.random(n) < 0.05  # so that every value of the pool occurs
    amount[uniform] = rng.integers(0, n_amounts, int(uniform.sum()))

    def text(labels, codes: np.ndarray) -> pd.Series:
        return pd.Series(np.asarray(list(labels), dtype=object)[codes], dtype=TEXT)

    frame = pd.DataFrame({
        "age": text((str(a) for a in ages), age),
        "workclass": text((f"workclass-{i:02d}" for i in range(12)), workclass),
        "occupation": text((f"occupation-{i:02d}" for i in range(41)), occupation),
        "education": text((f"education-{i:02d}" for i in range(16)), education),
        "disease": text((f"disease-{i:02d}" for i in range(14)), disease),
        "medication": text((f"medication-{i:02d}" for i in range(20)), medication),
        "diagnosis": text((f"diagnosis-{i}" for i in range(6)), diagnosis),
        "amount": text((f"{v:.2f}" for v in pool), amount),
    })
    return frame, pool


def make_weights(pool: np.ndarray, seed: int) -> Weights:
    """A weight for every categorical SA value and for 5 intervals of ``amount`` covering
    everything; each weight ≤ 1/4, so W(r) ≤ 1 with 4 SAs."""
    rng = np.random.default_rng(seed)
    entries = []
    for attribute, levels in CATEGORICAL_SA.items():
        prefix = "diagnosis-" if attribute == "diagnosis" else f"{attribute}-"
        width = 1 if attribute == "diagnosis" else 2
        for i in range(levels):
            entries.append((attribute, f"{prefix}{i:0{width}d}", round(float(rng.uniform(0.01, 0.25)), 5)))
    # cut points half-way between pool values (3 decimals; the values have 2): no ties
    positions = np.linspace(0, len(pool), N_INTERVALS + 1)[1:-1].astype(int)
    cuts = [f"{(pool[i - 1] + pool[i]) / 2:.3f}" for i in positions]
    bounds = ["-inf"] + cuts + ["inf"]
    for low, high in zip(bounds[:-1], bounds[1:]):
        opening = "(" if low == "-inf" else "["
        entries.append((CONTINUOUS_SA, f"{opening}{low},{high})", round(float(rng.uniform(0.01, 0.25)), 5)))
    return Weights(entries, name=f"<synthetic weights seed {seed}>")


def sample(n: int, rng: np.random.Generator, fraction: float = 0.10) -> np.ndarray:
    return np.sort(rng.choice(n, size=max(1, int(n * fraction)), replace=False)).astype(np.int64)


# ---------------------------------------------------------------------------------------
# helpers


def peak_mb() -> float:
    """Peak resident set size of this process in MB (ru_maxrss is KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


CPU: dict[float, float] = {}  # wall seconds of a timed call -> its CPU seconds (process_time)


def timed(fn):
    """(wall seconds, result); the call's CPU seconds are kept in CPU under its wall time."""
    gc.collect()
    cpu = time.process_time()
    start = time.perf_counter()
    result = fn()
    wall = time.perf_counter() - start
    CPU[wall] = time.process_time() - cpu
    return wall, result


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def fmt_s(seconds: float, cpu: float | None = None) -> str:
    """Wall seconds, with the CPU seconds beside them (the machine may be shared)."""
    cpu = CPU.get(seconds) if cpu is None else cpu
    return f"{seconds:8.3f} s" + (f" (CPU {cpu:6.3f} s)" if cpu is not None else "")


def roles() -> Roles:
    return Roles(qi=QI, sa=SA, continuous=[CONTINUOUS_SA])


def print_scores(label: str, report) -> None:
    s, ns, nm = report.scores, report.normalized_source, report.normalized_max
    print(f"  {label}: n = {report.published_rows}")
    print(f"    {'score':<12} {'raw':>18} {'norm. source':>14} {'norm. max':>12}")
    for key in ("tkl", "tkl_max", "m_score", "m_score_inf", "l_severity"):
        raw, by_source, by_max = getattr(s, key), getattr(ns, key), getattr(nm, key)
        show = (lambda v: "None" if v is None else f"{v:.6g}")
        print(f"    {key:<12} {raw:>18.10g} {show(by_source):>14} {show(by_max):>12}")
    r = report.records
    print(f"    record checksums: sum k = {int(r['k'].sum())}, sum l = {int(r['l'].sum())}, "
          f"sum t = {r['t'].sum():.6f}, sum W = {r['weight_sum'].sum():.6f}")
    if report.warnings:
        for w in report.warnings:
            print(f"    warning: {w}")


# ---------------------------------------------------------------------------------------
# main benchmark


def run_main(n: int, seed: int, repeats: int) -> bool:
    print(f"tklscore {getattr(tklscore, '__version__', '?')} | Python {platform.python_version()} | "
          f"numpy {np.__version__} | pandas {pd.__version__} | {platform.machine()}")
    print(f"rows = {n:,}, seed = {seed}, repeats = {repeats}")

    t_gen, (frame, pool) = timed(lambda: make_source(n, seed))
    table = Table(frame, name=f"<synthetic {n} rows, seed {seed}>")
    weights = make_weights(pool, seed)
    rng = np.random.default_rng(seed + 1)
    published = sample(n, rng)
    print(f"synthetic source generated in {t_gen:.2f} s (not part of scoring); "
          f"peak RSS so far {peak_mb():.0f} MB")

    t_build, scorer = timed(lambda: Scorer(table, roles()))
    t_factors, factors = timed(lambda: scorer.factors)
    t_score, report = timed(lambda: scorer.score(published, weights))
    full = t_build + t_factors + t_score

    # shape of the data, so the workload is visible
    n_classes = int(factors.equivalence_class.max()) + 1
    sizes = np.bincount(factors.equivalence_class)
    distinct = {c: len(scorer.sa_codes[c].uniques) for c in SA}
    print("QI levels: " + ", ".join(f"{c} {len(scorer.qi_codes[i].uniques)}" for i, c in enumerate(QI)))
    print("SA levels: " + ", ".join(f"{c} {distinct[c]}" for c in SA)
          + f" (continuous: {CONTINUOUS_SA}, {len(weights.entries)} weight entries, "
            f"{N_INTERVALS} intervals)")
    print(f"equivalence classes: {n_classes:,}; size min {sizes.min()}, median {int(np.median(sizes))}, "
          f"max {sizes.max():,}; singletons {int((sizes == 1).sum()):,}")
    print(f"k-DF range {factors.k.min()}..{factors.k.max()}, l-DF range {factors.l.min()}..{factors.l.max()}, "
          f"t-DF range {factors.t.min():.4f}..{factors.t.max():.4f}")
    print(f"published sample: {len(published):,} rows (10 %)")

    # re-score after a weights change: a different Weights object each time
    reweights = [make_weights(pool, seed + 1000 + i) for i in range(repeats)]
    reweight_times = []
    for w in reweights:
        t, last = timed(lambda w=w: scorer.score(published, w))
        reweight_times.append(t)
    t_reweight = statistics.median(reweight_times)
    cpu_reweight = statistics.median(CPU[t] for t in reweight_times)

    # re-score another 10 % sample, weights unchanged (those of the last re-score)
    other_samples = [sample(n, rng) for _ in range(repeats)]
    resample_times = []
    for s in other_samples:
        t, other = timed(lambda s=s: scorer.score(s, reweights[-1]))
        resample_times.append(t)
    t_resample = statistics.median(resample_times)
    cpu_resample = statistics.median(CPU[t] for t in resample_times)

    peak = peak_mb()
    ok_full, ok_rw, ok_mem = full <= TARGET_FULL_S, t_reweight <= TARGET_REWEIGHT_S, peak <= TARGET_PEAK_MB

    print()
    print(f"timings (wall clock, time.perf_counter; CPU: time.process_time of this process; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    print(f"  build Scorer (validate, parse, factorise)    {fmt_s(t_build)}")
    print(f"  distinguishing factors (k, l, t)             {fmt_s(t_factors)}")
    print(f"  first score of the sample (incl. weights)    {fmt_s(t_score)}")
    cpu_full = CPU[t_build] + CPU[t_factors] + CPU[t_score]
    print(f"  full scoring (build + factors + score)       {fmt_s(full, cpu_full)}   target ≤ {TARGET_FULL_S:g} s     "
          f"{verdict(ok_full)}")
    print(f"  re-score after a weights change (median)     {fmt_s(t_reweight, cpu_reweight)}   target ≤ {TARGET_REWEIGHT_S:g} s   "
          f"{verdict(ok_rw)}   [min {min(reweight_times):.3f}, max {max(reweight_times):.3f}, "
          f"{len(reweight_times)} runs]")
    print(f"    (covers Scorer.score(the same {len(published):,} rows, a new Weights object) → a full ScoreReport: "
          f"W(r) of all {n:,} source records, the whole-source scores that normalise, the release's record "
          f"scores, table scores and records frame; kept from before: factors, codes, ids)")
    print(f"  re-score another 10 % sample (median)        {fmt_s(t_resample, cpu_resample)}   (no target)        "
          f"[min {min(resample_times):.3f}, max {max(resample_times):.3f}, {len(resample_times)} runs]")
    print(f"  peak memory (ru_maxrss)                      {peak:8.0f} MB  target ≤ {TARGET_PEAK_MB:g} MB  "
          f"{verdict(ok_mem)}")

    print()
    print("factor computation breakdown (the same work as scorer.factors, step by step)")
    for label, seconds in factor_breakdown(scorer):
        print(f"  {label:<44} {fmt_s(seconds)}")

    print()
    print("scores")
    print_scores("sample, first weights", report)
    print_scores("sample, last changed weights", last)
    print_scores("another sample, last changed weights", other)
    print()
    all_ok = ok_full and ok_rw and ok_mem
    print(f"overall: {verdict(all_ok)}")
    return all_ok


def factor_breakdown(scorer: Scorer) -> list[tuple[str, float]]:
    """Time the parts of compute_distinguishing_factors separately (uses the Scorer's codes)."""
    qi, sa = scorer.qi_codes, scorer.sa_codes
    n = len(scorer)
    out = []
    t, (classes, n_classes) = timed(lambda: group_ids(qi, n))
    class_sizes = np.bincount(classes, minlength=n_classes)
    out.append(("k: equivalence classes (QI group-by)", t))
    t, _ = timed(lambda: l_distinguishing_factor(qi, list(sa.values()), n))
    out.append((f"l: full groups (one sort) + {len(sa) - 1} sort(s) of them", t))
    for name, codes in sa.items():
        if name in scorer.roles.continuous:
            t, _ = timed(lambda: ordered_emd_by_class(classes, n_classes, class_sizes, codes))
            out.append((f"t: ordered EMD of {name} (m = {codes.cardinality}; alone)", t))
        else:
            t, _ = timed(lambda: variational_distance_by_class(classes, n_classes, class_sizes, codes))
            out.append((f"t: variational distance of {name}", t))
    return out


# ---------------------------------------------------------------------------------------
# scaling check


def time_factors(n: int, seed: int, n_amounts: int, repeats: int) -> tuple[float, float, float]:
    """(median seconds of scorer.factors, median seconds of the ordered EMD alone, classes)."""
    frame, _ = make_source(n, seed, n_amounts)
    scorer = Scorer(Table(frame), roles())
    del frame
    times, emd_times = [], []
    for _ in range(repeats):
        scorer.invalidate()
        t, factors = timed(lambda: scorer.factors)
        times.append(t)
        classes = factors.equivalence_class
        n_classes = int(classes.max()) + 1
        sizes = np.bincount(classes, minlength=n_classes)
        t, _ = timed(lambda: ordered_emd_by_class(classes, n_classes, sizes, scorer.sa_codes[CONTINUOUS_SA]))
        emd_times.append(t)
    return statistics.median(times), statistics.median(emd_times), n_classes


def run_scaling(n: int, seed: int, repeats: int) -> None:
    print()
    print("scaling check: distinguishing factors (median of "
          f"{repeats} runs; linear => time per 1M rows stays flat)")
    print(f"  {'rows':>10} {'distinct':>9} {'classes':>9} {'factors':>10} {'per 1M rows':>12} "
          f"{'ratio':>7} {'EMD only':>10}")
    previous = None
    for rows in (n // 4, n // 2, n):
        t, t_emd, classes = time_factors(rows, seed, 500, repeats)
        ratio = "" if previous is None else f"{t / previous:.2f}x"
        print(f"  {rows:>10,} {500:>9} {classes:>9,} {t:>9.3f}s {t * 1e6 / rows:>11.3f}s {ratio:>7} "
              f"{t_emd:>9.3f}s")
        previous = t
    print("  (rows double from line to line: a linear cost gives ratio ≈ 2x, a quadratic one ≈ 4x)")
    print()
    print(f"  {'rows':>10} {'distinct':>9} {'classes':>9} {'factors':>10} {'':>12} {'ratio':>7} {'EMD only':>10}")
    previous = None
    for distinct in (100, 1000, 10000):
        t, t_emd, classes = time_factors(n, seed, distinct, repeats)
        ratio = "" if previous is None else f"{t / previous:.2f}x"
        print(f"  {n:>10,} {distinct:>9,} {classes:>9,} {t:>9.3f}s {'':>12} {ratio:>7} {t_emd:>9.3f}s")
        previous = t
    print("  (distinct values grow 10x from line to line: an O(classes·m) EMD would grow ~10x)")
    print(f"  peak memory after the scaling check (ru_maxrss): {peak_mb():.0f} MB")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="source rows (default 1,000,000)")
    parser.add_argument("--seed", type=int, default=20240611, help="random seed (default 20240611)")
    parser.add_argument("--repeats", type=int, default=7,
                        help="runs of each re-score / scaling measurement; the median is shown (default 7)")
    parser.add_argument("--scaling", action="store_true",
                        help="also time the factors at rows/4, rows/2, rows and at 100/1000/10000 "
                             "distinct continuous values")
    parser.add_argument("--keep-thp", action="store_true",
                        help="leave transparent huge pages as the machine has them (the command line and the "
                             "application turn them off for their process: tklscore.cli.process)")
    args = parser.parse_args(argv)
    if args.rows < 100:
        parser.error("--rows must be at least 100")
    tuned = False if args.keep_thp else tune_process()
    thp = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    print(f"transparent huge pages: machine {thp.read_text().strip() if thp.exists() else 'n/a'}; "
          f"{'off for this process, as the application runs' if tuned else 'as the machine has them'}")
    ok = run_main(args.rows, args.seed, max(1, args.repeats))
    if args.scaling:
        run_scaling(args.rows, args.seed, max(1, min(args.repeats, 3)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
