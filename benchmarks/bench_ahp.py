"""Benchmark of the AHP engine (``tklscore.core.model.ahp.ahp``): priorities + CR.

    .venv/bin/python benchmarks/bench_ahp.py [--repeats R] [--seed S]

For n = 3, 5, 7, 9 criteria, a seeded random judgement matrix on the Saaty scale is
analysed with the eigenvector and the geometric method, complete and with 3 missing
judgements (completed by Harker's method; the missing cells are chosen so that the
judgements still connect all criteria). Each case runs R times (default 2000) after a
warm-up; the median and 99th percentile of ``time.perf_counter`` per call are printed,
with PASS/FAIL against the target: 9×9 well under 5 ms (checked: p99 ≤ 5 ms).
The exit status is 1 when a target fails.
"""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, timed, verdict  # noqa: E402

from tklscore.core.model.ahp import ahp

SCALE = np.array([1 / 9, 1 / 8, 1 / 7, 1 / 6, 1 / 5, 1 / 4, 1 / 3, 1 / 2, 1, 2, 3, 4, 5, 6, 7, 8, 9])
TARGET_S = 5e-3


def random_matrix(n: int, rng: np.random.Generator, missing: int = 0) -> np.ndarray:
    a = np.ones((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            a[i, j] = rng.choice(SCALE)
            a[j, i] = 1 / a[i, j]
    # drop judgements off the chain 0-1-2-...-(n-1), which keeps the criteria connected
    candidates = [(i, j) for i in range(n) for j in range(i + 2, n)]
    for k in rng.choice(len(candidates), size=min(missing, len(candidates)), replace=False):
        i, j = candidates[k]
        a[i, j] = a[j, i] = np.nan
    return a


def time_case(matrix: np.ndarray, method: str, repeats: int) -> tuple[float, float]:
    timing = timed(lambda: ahp(matrix, method=method), repeats, warmup=20)
    times = sorted(timing.walls)
    return timing.wall, times[min(len(times) - 1, int(0.99 * len(times)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    print(f"AHP benchmark: python {platform.python_version()}, numpy {np.__version__}, "
          f"{args.repeats} runs per case, seed {args.seed}; {machine()}")
    print(f"{'n':>2}  {'method':<11}  {'judgements':<12}  {'median ms':>9}  {'p99 ms':>8}  {'CR':>7}  target")
    failed = False
    for n in (3, 5, 7, 9):
        for missing in (0, 3):
            if missing and n < 3:
                continue
            matrix = random_matrix(n, rng, missing)
            holes = int(np.isnan(matrix).sum() // 2)
            for method in ("eigenvector", "geometric"):
                median, p99 = time_case(matrix, method, args.repeats)
                cr = ahp(matrix, method=method).cr
                result = ""
                if n == 9:
                    ok = p99 <= TARGET_S
                    failed |= not ok
                    result = f"{verdict(ok)} (≤ {TARGET_S * 1e3:g} ms)"
                label = "complete" if not holes else f"{holes} missing"
                print(f"{n:>2}  {method:<11}  {label:<12}  {median * 1e3:9.4f}  {p99 * 1e3:8.4f}  {cr:7.4f}  {result}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
