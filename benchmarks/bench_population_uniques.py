"""Population uniques (core/risk/population_uniqueness.py): SNB's Newton–Raphson, which runs
ARX's 10,000 iterations whenever it does not converge (most sampling fractions below 0.9),
against its peer in the same run: the same solver stepping on NumPy scalars with the
Jacobian at every step (the form before the step moved to Python floats). Both must give
the same estimate to the last bit."""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np
from _common import machine, timed, versions

from tklscore.core.risk import population_uniqueness as pu

HISTOGRAMS = {   # class size: number of classes
    "small": {1: 5, 2: 3, 3: 2, 5: 1},
    "skewed": {1: 40, 2: 12, 3: 6, 4: 3, 7: 2, 20: 1},
    "few uniques": {1: 3, 2: 10, 4: 8, 9: 5, 30: 2},
    "many uniques": {1: 120, 2: 30, 3: 9, 5: 2},
    "wide": {1: 300, 2: 120, 3: 60, 4: 30, 5: 20, 8: 10, 15: 4, 40: 1},
}
FRACTIONS = (0.01, 0.05, 0.1, 0.3, 0.9, 0.95)


def numpy_scalar_snb(sizes, counts, c1, f) -> float:
    """The peer: ``_snb`` with every step's equations and Jacobian on NumPy scalars."""
    def function(x):
        a, b = np.float64(x[0]), np.float64(x[1])
        return (pu._snb_values(k, f, c1, c2, a, b, np.log),
                np.reshape(pu._snb_jacobian(k, f, a, b, np.log), (2, 2)))

    c2, k = float(counts[sizes == 2].sum()), pu.snb_k(sizes, counts, c1, f)
    with np.errstate(all="ignore"):
        solution = pu.solve(function, (1.0, 1.0))
        if solution is None:
            return math.nan
        value = float(np.float64(k) * np.float64(solution[1]) ** np.float64(solution[0]))
    return value if math.isfinite(value) else math.nan


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)
    print(machine())
    print(versions())
    cases = []
    for name, histogram in HISTOGRAMS.items():
        sizes, counts = pu.histogram(np.repeat(np.array(list(histogram)), list(histogram.values())))
        cases += [(name, f, sizes, counts, float(counts[sizes == 1].sum())) for f in FRACTIONS]
    ours = timed(lambda: [pu._snb(s, c, c1, f) for _, f, s, c, c1 in cases], args.repeats, warmup=1)
    peer = timed(lambda: [numpy_scalar_snb(s, c, c1, f) for _, f, s, c, c1 in cases], args.repeats, warmup=1)
    same = all(a == b or (math.isnan(a) and math.isnan(b)) for a, b in zip(ours.result, peer.result))
    failing = sum(math.isnan(v) for v in ours.result)
    print(f"SNB of {len(cases)} histograms x fractions ({failing} without convergence: 10,000 iterations each)")
    print(f"  Python-float steps, Jacobian when needed: {ours}")
    print(f"  NumPy-scalar steps, Jacobian every step:  {peer}")
    print(f"  ratio (CPU, best run): {min(peer.cpus) / min(ours.cpus):.2f}x; the same estimates to the last bit: {same}")
    whole = timed(lambda: [pu.population_uniques(np.repeat(s, c.astype(np.int64)), f) for _, f, s, c, _ in cases],
                  args.repeats, warmup=1)
    print(f"population_uniques (Pitman, Zayatz, SNB, Dankar) of the same {len(cases)}: {whole}, "
          f"{min(whole.cpus) / len(cases) * 1000:.1f} ms CPU a call")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
