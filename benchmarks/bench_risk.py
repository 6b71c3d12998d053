"""Benchmark of the risk lens (core/risk) on large synthetic tables, with pycanon measured
in the same run.

    .venv/bin/python benchmarks/bench_risk.py [--rows N] [--seed S] [--repeats R]
                                              [--skip-pycanon] [--skip-cli] [--part all|models|dr]

1. **Privacy models + prosecutor risk** of bench_scoring's synthetic table (default
   1,000,000 rows as text, as a CSV loads: 4 QIs with 73/12/41/16 levels, 3 categorical
   SAs and the continuous ``amount`` with ~500 values): ``measure_table`` with every model
   of privacy-models.md §2 and prosecutor risk, from the text frame (factorising
   included). Target ≤ 1.5 s. pycanon 1.3.6 computes k (``k_anonymity``) and l of one SA
   (``l_diversity`` of ``disease``) on the same frame, and the ratios are printed.
2. **D(r)** (Orooji–Knapp) on N rows × 27 attributes (the 8 above and 19 more: binary
   flags and small categoricals), PK set so that ~110 known sets are kept at ε = 0.01 as in
   the paper, α = 100. Target ≤ 10 s, peak memory (VmHWM of the process, data
   included) ≤ 2 GB.
3. **End to end**: ``tklscore measures FILE.csv ...`` as a user runs it, on the table
   written as CSV (load + measure + JSON), timed as a subprocess.

The medians of ``--repeats`` runs are reported (default 2: each key figure twice).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (CONTINUOUS_SA, QI, SA, TEXT, Timing, machine, make_source, peak_rss_mb, run_measured,  # noqa: E402
                     text, timed, timing_verdict as verdict, tklscore_command, verdict as plain_verdict, versions)

from tklscore.core.risk import measure_table  # noqa: E402
from tklscore.core.risk.disclosure_risk import AttributeParameters, disclosure_risk, known_sets  # noqa: E402
from tklscore.core.scoring.weights import Weights  # noqa: E402

TARGET_MODELS_S = 1.5
TARGET_DR_S = 10.0
TARGET_PEAK_MB = 2048.0
# PK of the 27 attributes: 9 an attacker may know, 18 rarely known (the paper's setting)
DR_PK = [0.05, 0.8, 0.7, 0.6, 0.5, 0.2, 0.2, 0.1, 0.02] + [0.005] * 9 + [0.001] * 9


def run_models(frame: pd.DataFrame, repeats: int, skip_pycanon: bool) -> bool:
    n = len(frame)
    print(f"\n1. privacy models + prosecutor risk, {n:,} rows, QI {', '.join(QI)}; SA {', '.join(SA)} "
          f"({CONTINUOUS_SA} continuous)")
    timing = timed(lambda: measure_table(frame, qi=QI, sa=SA, continuous=[CONTINUOUS_SA]), repeats)
    median, m = timing.wall, timing.result
    j = m.to_json_dict()
    print(f"   tklscore measure_table: {timing}  target ≤ {TARGET_MODELS_S} s  {verdict(timing, TARGET_MODELS_S)}")
    print(f"   k = {j['k']}, l = {j['l_distinct']}, entropy l = {j['l_entropy']:.4f}, t = {j['t']:.4f}, "
          f"classes = {j['classes']['count']:,}, average risk = {j['risk']['prosecutor']['average']:.6f}")
    k_only = timed(lambda: measure_table(frame, qi=QI), repeats)
    l_one = timed(lambda: measure_table(frame, qi=QI, sa=["disease"]), repeats)
    m1 = l_one.result
    print(f"   tklscore k alone: {k_only}; every model of the one SA 'disease': {l_one}")
    if not skip_pycanon:
        from pycanon import anonymity

        pk = timed(lambda: anonymity.k_anonymity(frame, list(QI)))
        pl = timed(lambda: anonymity.l_diversity(frame, list(QI), ["disease"]))
        k, l = pk.result, pl.result
        assert k == j["k"] and l == m1.models.l_distinct, (k, l)
        print(f"   pycanon 1.3.6 k_anonymity: {pk} (k = {k}) → tklscore's k is {pk.wall / k_only.wall:.1f}× faster "
              f"(wall; {pk.cpu / k_only.cpu:.1f}× on CPU); every model + risk is {pk.wall / median:.1f}× faster "
              f"than pycanon's k alone ({pk.cpu / timing.cpu:.1f}× on CPU)")
        print(f"   pycanon 1.3.6 l_diversity('disease'): {pl} (l = {l}) → tklscore (every model of that SA) is "
              f"{pl.wall / l_one.wall:.1f}× faster ({pl.cpu / l_one.cpu:.1f}× on CPU); every model of all four SAs "
              f"+ risk {pl.wall / median:.1f}× faster ({pl.cpu / timing.cpu:.1f}× on CPU)")
    return min(timing.wall, timing.cpu) <= TARGET_MODELS_S


def dr_table(frame: pd.DataFrame, seed: int) -> tuple[pd.DataFrame, list[AttributeParameters], Weights]:
    rng = np.random.default_rng(seed + 1)
    n = len(frame)
    columns = {c: frame[c] for c in ("age", "workclass", "occupation", "education", "disease", "medication",
                                     "diagnosis", "amount")}

    columns["gender"] = text(["F", "M"], (rng.random(n) >= 0.5).astype(np.int8))
    for i in range(10):
        columns[f"flag{i}"] = text(["Yes", "No"], (rng.random(n) >= 0.03 * (i + 1)).astype(np.int8))
    for i in range(8):
        columns[f"cat{i}"] = text([f"c{i}-{v}" for v in range(3 + i)], rng.integers(0, 3 + i, n))
    order = ["age", "gender", "workclass", "education", "cat0", "cat1", "cat2", "occupation", "cat3",
             "cat4", "cat5", "cat6", "cat7", "diagnosis", "flag0", "flag1", "flag2", "flag3",
             "disease", "medication", "amount", "flag4", "flag5", "flag6", "flag7", "flag8", "flag9"]
    table = pd.DataFrame({c: columns[c] for c in order}).astype(TEXT)  # Arrow-backed text, as load_table gives
    weights = [0.0] * 9 + [1.0] * 18  # weights ∈ {0, 1} as in the paper
    params = [AttributeParameters(c, p, w) for c, p, w in zip(order, DR_PK, weights)]
    value_weights = Weights([(f"flag{i}", "Yes", 1.0) for i in range(10)]
                            + [(f"flag{i}", "No", 0.0) for i in range(10)]
                            + [("disease", f"disease-{i:02d}", 1.0) for i in range(0, 14, 3)]
                            + [("amount", "[0,100)", 0.0), ("amount", "[100,inf)", 1.0)])
    return table, params, value_weights


def run_dr(frame: pd.DataFrame, seed: int, repeats: int) -> bool:
    table, params, value_weights = dr_table(frame, seed)
    n, m = table.shape
    kept = len(known_sets([p.pk for p in params], 0.01))
    print(f"\n2. Orooji–Knapp D(r), {n:,} rows × {m} attributes, ε = 0.01 keeps {kept} of 2^{m} = {2 ** m:,} "
          f"known sets, α = 100")
    timing = timed(lambda: disclosure_risk(table, params, value_weights, alpha=100, epsilon=0.01, threshold=0.01),
                   repeats)
    risk = timing.result
    peak = peak_rss_mb()
    print(f"   disclosure_risk: {timing}  target ≤ {TARGET_DR_S} s  {verdict(timing, TARGET_DR_S)}")
    print(f"   records with D > 0.01: {risk.above_threshold:,} ({100 * risk.above_threshold_share:.2f} %); "
          f"max D = {risk.d.max():.4f}")
    print(f"   peak memory (whole process, data included): {peak:.0f} MB  target ≤ {TARGET_PEAK_MB:.0f} MB  "
          f"{plain_verdict(peak <= TARGET_PEAK_MB)}")
    return min(timing.wall, timing.cpu) <= TARGET_DR_S and peak <= TARGET_PEAK_MB


def run_cli(frame: pd.DataFrame, repeats: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "release.csv"
        frame.to_csv(path, index=False)
        out = Path(folder) / "measures.json"
        command = tklscore_command("measures", path, "--qi", ",".join(QI), "--sa", ",".join(SA),
                                   "--continuous", CONTINUOUS_SA, "--format", "json", "--output", out)
        runs = [run_measured(command) for _ in range(max(1, repeats))]
        timing = Timing([r.wall for r in runs], [r.cpu for r in runs])
        print(f"\n3. end to end: tklscore measures {path.name} ({path.stat().st_size / 1e6:.0f} MB CSV, "
              f"{len(frame):,} rows) --format json: {timing.wall:.3f} s wall, {timing.cpu:.3f} s CPU of the "
              f"process (runs: {timing.runs()}), peak {max(r.rss_mb for r in runs):.0f} MB "
              f"— Python start, loading the CSV and writing the JSON included")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--skip-pycanon", action="store_true")
    parser.add_argument("--skip-cli", action="store_true")
    parser.add_argument("--part", choices=["all", "models", "dr"], default="all")
    parser.add_argument("--no-header", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not args.no_header:
        print(f"bench_risk: {versions()}; {machine()}", flush=True)
    frame, _ = make_source(args.rows, args.seed)  # Arrow-backed text columns, as load_table gives them
    ok = True
    if args.part in ("all", "models"):
        ok &= run_models(frame, args.repeats, args.skip_pycanon)
        if not args.skip_cli:
            run_cli(frame, args.repeats)
    if args.part == "dr":
        ok &= run_dr(frame, args.seed, args.repeats)
    elif args.part == "all":
        # D(r) in a fresh process, so that its peak memory is its own and not part 1's
        del frame
        sys.stdout.flush()
        child = subprocess.run([sys.executable, __file__, "--part", "dr", "--rows", str(args.rows), "--seed",
                                str(args.seed), "--repeats", str(args.repeats), "--no-header"])
        ok &= child.returncode == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
