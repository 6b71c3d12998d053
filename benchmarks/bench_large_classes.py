"""Large classes out of core (issue 23 §1): ``tklscore suggest --engine duckdb`` with its pieces
the share of the aggregate they are at 20M rows under a 2 GB limit (598k of 19.97M rows), so the
coarse nodes' classes are as many pieces as there; a class larger than a piece counted over its
own SA combinations (at once up to ``own_rows``, both nodes at once; beyond, in parts of
``own_rows`` one node at a time), against the peer in the same run: the same search with every
such class read in parts of a piece, one node at a time (``own_rows`` the piece's rows). The
fronts must be equal to the last bit. (Session 17's path, every such class over every
combination of the source, is gone: session 20 measured the two against the commit before.)

    .venv/bin/python benchmarks/bench_large_classes.py [--rows 5000000] [--share 0.02994] [--pairs 2]
                                                       [--dir DIR]

Each run in a process of its own, the two alternating (``--pairs`` of them), after one run
that reads the file into the aggregate's cache: wall and CPU time, peak RSS, the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (CONTINUOUS_SA, QI, SA, load_average, machine, run_measured, verdict,  # noqa: E402
                     work_folder, write_typed_source)
from bench_release_engine import hierarchy_files  # noqa: E402

# the search with its pieces at a share of the aggregate's rows; "own": classes up to own_rows read at
# once, "piece": every class larger than a piece read in parts of a piece, one node at a time
CHILD = """
import sys
import tklscore.core.engines.lattice as lattice
share, path = float(sys.argv[1]), sys.argv[2]
sized = lattice.AggregateLattice._size_pieces
def at_share(self, backend, budget):
    sized(self, backend, budget)
    self.chunk_rows, self.whole = max(1, int(self.rows * share)), False
    self.own_rows = lattice.own_rows(self.chunk_rows) if path == "own" else self.chunk_rows
lattice.AggregateLattice._size_pieces = at_share
from tklscore.cli import main
sys.argv = ["tklscore"] + sys.argv[3:]
sys.exit(main())
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--share", type=float, default=598_000 / 19_972_824, help="a piece's share of the rows")
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--dir", help="folder for the inputs (default: a temporary folder; ~10 bytes a row)")
    args = parser.parse_args(argv)
    with work_folder(args.dir) as folder:
        os.environ["TKLSCORE_CACHE_DIR"] = str(folder / "aggregate-cache")
        (folder / str(args.rows)).mkdir(exist_ok=True)
        inputs = write_typed_source(folder / str(args.rows), args.rows, args.seed)
        hierarchies = hierarchy_files(folder)
        print(f"{machine()}; {args.rows:,} rows, pieces {args.share:.2%} of the aggregate's rows")

        def command(path: str) -> list[str]:
            return ["-c", CHILD, args.share, path, "suggest", inputs["source"], "--id-column", "id", "--qi",
                    ",".join(QI), "--sa", ",".join(SA), "--continuous", CONTINUOUS_SA, "--weights",
                    inputs["weights"], *hierarchies, "--k", "5", "--suppression-limit", "0.02", "--format", "json",
                    "--engine", "duckdb", "--memory-limit", "2GB"]

        python = sys.executable
        run_measured([python, *command("own")])       # the file read into the aggregate's cache
        fronts, cpu = {}, {"own": [], "piece": []}
        for pair in range(args.pairs):
            for path in ("piece", "own"):
                run = run_measured([python, *command(path)])
                fronts[path] = json.loads(run.out)["front"]
                cpu[path].append(run.cpu)
                print(f"{pair + 1}. {path:5s}: {run.wall:.1f} s wall, CPU {run.cpu:.1f} s, peak RSS "
                      f"{run.rss_mb:.0f} MB (load {load_average():.1f})")
        ratio = min(cpu["own"]) / min(cpu["piece"])
        print(f"CPU, best of each: own {min(cpu['own']):.1f} s against piece {min(cpu['piece']):.1f} s: {ratio:.2f}x")
        same = fronts["own"] == fronts["piece"]
        print(f"the fronts equal to the last bit: {verdict(same)}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
