"""Benchmark of the filter language (core/release/filters.py) in memory against what it
replaced, pandas' ``DataFrame.eval`` (which the language exists not to call: it runs code).

    .venv/bin/python benchmarks/bench_filters.py [--copies 10]

On the UCI Adult table (tests/data/adult) stacked ``--copies`` times, each
filter is evaluated by ``filter_positions`` (the table's factorised codes, cached by the
Table as the scorer's are: the first filter pays the factorisation, printed apart) and by
``DataFrame.eval`` on the same text frame with the numbers parsed once (as the old
``filter_positions`` did for continuous columns); the selections must agree. Prints wall and
CPU time per filter, the ratio, and the load average (the machine may be shared).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, load_average, machine, timed  # noqa: E402

FILTERS = [  # (our language, the same in pandas' eval over the frame with numbers parsed)
    ("age >= 60", "age >= 60"),
    ("age >= 30 and age < 40 and sex == 'Female'", "age >= 30 and age < 40 and sex == 'Female'"),
    ("race in ['Black', 'Other'] or `native-country` != 'United-States'",
     "race in ['Black', 'Other'] or `native-country` != 'United-States'"),
    ("not (education == 'Bachelors' | education == 'Masters') & `salary-class` == '>50K'",
     "not (education == 'Bachelors' | education == 'Masters') & `salary-class` == '>50K'"),
]


def adult_path() -> Path:
    path = ROOT / "tests" / "data" / "adult" / "adult.csv"
    if not path.exists():
        raise SystemExit(f"the Adult table is not found ({path})")
    return path


def once(step):
    timing = timed(step)
    return timing.result, timing.wall, timing.cpu


def main() -> None:
    import numpy as np
    import pandas as pd

    from tklscore.core.release.selection import filter_positions
    from tklscore.core.tables.loading import Table, load_table
    from tklscore.core.tables.roles import Roles

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=10, help="Adult stacked this many times (default 10)")
    args = parser.parse_args()
    frame = load_table(adult_path()).frame
    frame = pd.concat([frame] * args.copies, ignore_index=True)
    table = Table.from_frame(frame, "adult x%d" % args.copies)
    roles = Roles(qi=["sex", "age", "race"], sa=["salary-class"])
    numbers = frame.copy()
    numbers["age"] = pd.to_numeric(numbers["age"])
    print(f"Adult x{args.copies}: {len(frame):,} records; {machine()}")
    _, wall, cpu = once(lambda: [table.codes(c) for c in frame.columns])
    print(f"factorising the columns once (the scorer's codes, cached): {wall * 1000:8.1f} ms wall {cpu * 1000:8.1f} ms CPU")
    print(f"{'filter':72s} {'records':>9s} {'ours ms':>9s} {'(cpu)':>7s} {'eval ms':>9s} {'(cpu)':>7s} {'ratio':>6s}")
    for ours, theirs in FILTERS:
        positions, wall, cpu = once(lambda: filter_positions(table, roles, ours))
        mask, wall_eval, cpu_eval = once(lambda: numbers.eval(theirs, engine="python"))
        assert positions.tolist() == np.flatnonzero(mask.to_numpy()).tolist(), ours
        print(f"{ours[:72]:72s} {len(positions):9,d} {wall * 1000:9.1f} {cpu * 1000:7.1f} {wall_eval * 1000:9.1f} "
              f"{cpu_eval * 1000:7.1f} {wall_eval / wall:6.1f}x")
    print(f"load average after: {load_average():.2f}")


if __name__ == "__main__":
    main()
