"""The rule between a continuous SA's (class, value) table summed whole and its distinct pairs
(``distinguishing_factors.EMD_CELLS_A_ROW``), measured: the ordered EMD of every class both ways,
for rows of memory (one record each) and for an aggregate's weighted rows, at several cells a row.

    .venv/bin/python benchmarks/bench_emd_table.py [--rows N] [--values M] [--cells 1 2 4 ...]

Each figure is the thread CPU of one computation, the least of five; the peer of the table is
the pairs' way in the same run (ratio table / pairs: below 1, the table is cheaper). Both give
the same t to the bit (checked).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine  # noqa: E402

import tklscore.core.scoring.distinguishing_factors as factors  # noqa: E402


def least(run, repeats: int = 5) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.thread_time()
        run()
        best = min(best, time.thread_time() - start)
    return best * 1e3


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--values", type=int, default=500)
    parser.add_argument("--cells", type=int, nargs="+", default=[1, 2, 4, 6, 8, 12, 16])
    args = parser.parse_args(argv)
    rows, m = args.rows, args.values
    print(f"ordered EMD, table or pairs; {rows:,} rows, {m} values, rule at {factors.EMD_CELLS_A_ROW} cells a row; "
          f"{machine()}")
    rng = np.random.default_rng(1)
    values = np.minimum(rng.geometric(10.0 / m, rows) - 1, m - 1).astype(np.int64)   # skewed, like an amount
    records = rng.integers(1, 4, rows).astype(np.uint8)     # an aggregate row's records, narrow as the lattice keeps them
    plain = (np.bincount(values, minlength=m), rows)
    weighted = (np.bincount(values, weights=records, minlength=m).astype(np.int64), int(records.sum()))
    for cells in args.cells:
        n_classes = max(1, cells * rows // m)
        classes = rng.integers(0, n_classes, rows)
        sizes = np.bincount(classes, minlength=n_classes)
        weighted_sizes = np.bincount(classes, weights=records, minlength=n_classes).astype(np.int64)

        def table(counts=None):
            key = np.multiply(classes, np.int64(m), dtype=np.int64)
            key += values
            if counts is None:
                return factors._ordered_emd_of_table(np.bincount(key, minlength=n_classes * m).reshape(n_classes, m),
                                                     sizes, *plain)
            cells_ = factors._records_by_key(key, counts, n_classes * m)
            return factors._ordered_emd_of_table(cells_.reshape(n_classes, m), weighted_sizes, *weighted)

        def pairs(counts=None):
            cls, val, pair_counts = factors.weighted_class_value_pairs(
                classes, n_classes, values, m, np.ones(rows, dtype=np.int64) if counts is None else counts)
            return factors.ordered_emd_from_pairs(cls, val, pair_counts, n_classes,
                                                  sizes if counts is None else weighted_sizes,
                                                  *(plain if counts is None else weighted))

        assert np.array_equal(table(), pairs()) and np.array_equal(table(records), pairs(records))
        a, b = least(table), least(pairs)
        c, d = least(lambda: table(records)), least(lambda: pairs(records))
        print(f"  {cells:3d} cells a row ({n_classes:,} classes): rows table {a:6.1f} ms, pairs {b:6.1f} ms "
              f"(ratio {a / b:.2f}); weighted table {c:6.1f} ms, pairs {d:6.1f} ms (ratio {c / d:.2f})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
