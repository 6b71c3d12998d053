"""Benchmark of an out-of-core source as the application reads it: describing the source
(columns, record count, first 200 rows), counting the values of each quasi-identifier,
and scoring a filter release, all through DuckDB without loading the table.

    .venv/bin/python benchmarks/bench_source_engine.py [--rows 20000000] [--memory-rows 1000000]
                                                       [--memory-limit 2GB] [--dir DIR]

Writes (chunk by chunk) the seeded Parquet source of ``bench_engines.py`` (an integer id,
4 QIs, 3 categorical SAs, 1 continuous) with N rows, then, each in a fresh process so
that the peak RSS is its own:

* the engine on N rows: an ``EngineSource``'s ``describe``, ``column_values`` of the 4 QIs
  (limit 20), and the filter release ``workclass == '<first row's>' and amount >= 100``
  scored out of core (``score``: the source and the release opened in DuckDB, then
  ``score_in_engine``) under the limit;
* the same three steps on M rows with the engine and in memory (the peer: ``load_table``
  and its first rows, ``Table.codes`` + counts of the QIs, ``filter_positions`` + the
  in-memory ``Scorer``), on the same file, with the ratio — and on N rows too when N ≤ M.

Prints wall and CPU time per step and the peak RSS of each process; the machine may be
shared (the load average is printed).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (CONTINUOUS_SA, QI, SA, Stopwatch, machine, megabytes, peak_rss_mb, run_measured,  # noqa: E402
                     timed, work_folder, write_typed_source)


def _timed(step, figures: dict, name: str):
    timing = timed(step)
    figures[name] = (timing.wall, timing.cpu)
    return timing.result


def child(kind: str, source: str, weights: str, expression: str, memory_limit: str) -> dict:
    """One measurement in this process: the three steps by the engine or in memory."""
    import numpy as np

    from tklscore.core.scoring.weights import load_weights
    from tklscore.core.tables.roles import Roles

    roles = Roles(qi=QI, sa=SA, continuous=[CONTINUOUS_SA], identifier="id")
    weights = load_weights(weights)
    figures: dict = {}
    if kind == "engine":
        from tklscore.core.release.selection import ReleaseDefinition
        from tklscore.core.source import EngineSource

        with EngineSource(source, roles, "duckdb", memory_limit=memory_limit).session() as files:
            summary = _timed(files.describe, figures, "describe")
            counts = _timed(lambda: {c: files.column_values(c, limit=20) for c in QI}, figures, "values")
            release = ReleaseDefinition("filter", "filter", expression=expression)
            report = _timed(lambda: files.score(release, weights, 1.0, skip_unlocated=False), figures, "filter")
        rows, distinct = summary.rows, {c: v.attrs["distinct"] for c, v in counts.items()}
    else:
        from tklscore.core.release.selection import filter_positions
        from tklscore.core.scoring.scores import Scorer
        from tklscore.core.tables.loading import load_table
        from tklscore.core.tables.published import Release

        def describe():
            table = load_table(source)
            table.frame.iloc[:200]  # the first rows as text, as the source panel shows them
            return table

        table = _timed(describe, figures, "describe")
        counts = _timed(lambda: {c: np.bincount(table.codes(c).codes) for c in QI}, figures, "values")

        def score():
            positions = filter_positions(table, roles, expression)
            ids = table.text("id").iloc[positions].to_numpy(dtype=object)
            return Scorer(table, roles).score(Release(positions, ids), weights, 1.0)

        report = _timed(score, figures, "filter")
        rows, distinct = len(table), {c: len(v) for c, v in counts.items()}
    return {"figures": figures, "rows": rows, "distinct": distinct, "published": report.published_rows,
            "tkl": report.scores.tkl, "rss_mb": peak_rss_mb()}


def measure(kind: str, paths: dict, expression: str, memory_limit: str) -> dict:
    command = [sys.executable, __file__, "--child", kind, "--source", paths["source"], "--weights", paths["weights"],
               "--expression", expression, "--memory-limit", memory_limit]
    return json.loads(run_measured(command).out.strip().splitlines()[-1])


def show(label: str, result: dict) -> float:
    total = sum(w for w, _ in result["figures"].values())
    steps = ", ".join(f"{name} {w:.2f} s (CPU {c:.2f})" for name, (w, c) in result["figures"].items())
    print(f"  {label:<9} {total:7.2f} s wall in all: {steps}; peak RSS {result['rss_mb']:.0f} MB; "
          f"{result['published']:,} of {result['rows']:,} records published, tkl = {result['tkl']:.10g}")
    return total


def expression_for(source: Path) -> str:
    import pyarrow.parquet as pq

    first = pq.ParquetFile(source).read_row_group(0, columns=["workclass"]).column(0)[0].as_py()
    return f"workclass == '{first}' and amount >= 100"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--memory-rows", type=int, default=1_000_000,
                        help="rows of the file measured both by the engine and in memory (the peer)")
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--memory-limit", default="2GB")
    parser.add_argument("--dir", help="folder for the inputs (default: a temporary folder; ~10 bytes a row)")
    parser.add_argument("--child", choices=["engine", "memory"], help=argparse.SUPPRESS)
    parser.add_argument("--source", help=argparse.SUPPRESS)
    parser.add_argument("--weights", help=argparse.SUPPRESS)
    parser.add_argument("--expression", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.source, args.weights, args.expression, args.memory_limit)))
        return 0

    with work_folder(args.dir) as folder:
        print(f"{machine()}; DuckDB memory limit {args.memory_limit}")
        for n in sorted({args.rows, args.memory_rows}, reverse=True):
            watch = Stopwatch()
            paths = write_typed_source(folder, n, args.seed)
            paths["release"].unlink()
            expression = expression_for(paths["source"])
            print(f"{n:,} rows ({megabytes(paths['source'])} MB Parquet, written in {watch.wall:.0f} s); "
                  f"filter: {expression}")
            engine = show("engine", measure("engine", paths, expression, args.memory_limit))
            if n <= args.memory_rows:
                memory = show("in memory", measure("memory", paths, expression, args.memory_limit))
                print(f"  engine / in memory = {engine / memory:.2f} (time of the three steps, same file)")
            paths["source"].unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
