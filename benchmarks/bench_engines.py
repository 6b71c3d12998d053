"""Benchmark of the out-of-core engine: ``tklscore score --engine duckdb`` on Parquet
sources larger than a memory limit, the whole process timed.

    .venv/bin/python benchmarks/bench_engines.py [--rows 20000000] [--memory-limit 2GB] [--dir DIR]

Writes, chunk by chunk (never the whole table in memory), a seeded source of N rows with
the columns of ``bench_cli.py`` (an integer id, 4 QIs, 3 categorical SAs, 1 continuous)
as Parquet, and a 10 % release, then runs

    tklscore score SOURCE --published RELEASE --id-column id ... --engine duckdb
             --memory-limit 2GB --output records.parquet --format json

at N/2 and N rows and prints the wall time, the peak resident memory of the process (the
command measured in a process of its own), and the time ratio between the two sizes (linear: ≈ 2).
Targets at N = 20,000,000 under a 2 GB limit: ≤ 90 s, peak RSS ≤ 3 GB. The machine
may be shared: the CPU time of the process is printed next to the wall time.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (CONTINUOUS_SA, QI, SA, Stopwatch, add_source_arguments, machine, megabytes,  # noqa: E402
                     run_measured, tklscore_command, verdict, work_folder, write_typed_source)

TARGET_S = 90.0
TARGET_RSS_MB = 3072.0
write_inputs = write_typed_source   # the typed Parquet source, its 10 % release and the weights


def run(paths: dict[str, Path], memory_limit: str, output: Path, engine: str = "duckdb",
        extra: tuple[str, ...] = ()) -> tuple[float, float, float, dict]:
    command = tklscore_command("score", paths["source"], "--published", paths["release"], "--id-column", "id",
                               "--qi", ",".join(QI), "--sa", ",".join(SA), "--continuous", CONTINUOUS_SA,
                               "--weights", paths["weights"], "--engine", engine, "--memory-limit", memory_limit,
                               "--output", output, "--format", "json", *extra)
    done = run_measured(command)
    return done.wall, done.cpu, done.rss_mb, json.loads(done.out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_source_arguments(parser)
    parser.add_argument("--spark-rows", type=int, default=0,
                        help="also time --engine spark --spark-master local[2] on this many rows (for information; "
                             "CPU time is the driver's, the JVM's is in the wall time)")
    args = parser.parse_args(argv)
    with work_folder(args.dir) as folder:
        print(f"{machine()}; memory limit {args.memory_limit}")
        figures = []
        for n in (args.rows // 2, args.rows):
            watch = Stopwatch()
            paths = write_inputs(folder, n, args.seed)
            print(f"{n:,} rows: inputs written in {watch.wall:.0f} s (source {megabytes(paths['source'])} MB Parquet)")
            wall, cpu, rss, summary = run(paths, args.memory_limit, folder / f"records_{n}.parquet")
            records = pq.ParquetFile(folder / f"records_{n}.parquet").metadata.num_rows
            figures.append((n, wall, rss))
            print(f"  --engine duckdb: {wall:7.1f} s wall (CPU {cpu:.1f} s), peak RSS {rss:7.0f} MB; "
                  f"tkl = {summary['scores']['tkl']:.10g}, {records:,} records written")
            for path in paths.values():
                if path.suffix == ".parquet":
                    path.unlink()
        if args.spark_rows:
            paths = write_inputs(folder, args.spark_rows, args.seed)
            for engine, extra in (("duckdb", ()), ("spark", ("--spark-master", "local[2]"))):
                wall, cpu, rss, summary = run(paths, args.memory_limit, folder / f"records_{engine}.parquet",
                                              engine, extra)
                print(f"{args.spark_rows:,} rows --engine {engine}: {wall:7.1f} s wall (CPU {cpu:.1f} s), "
                      f"peak RSS {rss:7.0f} MB; tkl = {summary['scores']['tkl']:.10g}")
        (n1, t1, _), (n2, t2, rss2) = figures
        ok_time, ok_rss = t2 <= TARGET_S, rss2 <= TARGET_RSS_MB
        print(f"rows ×{n2 / n1:.0f} → time ×{t2 / t1:.2f} (linear ≈ 2)")
        print(f"{n2:,} rows: {t2:.1f} s, target ≤ {TARGET_S:g} s {verdict(ok_time)}; "
              f"peak RSS {rss2:.0f} MB, target ≤ {TARGET_RSS_MB:g} MB {verdict(ok_rss)}")
    return 0 if ok_time and ok_rss else 1


if __name__ == "__main__":
    sys.exit(main())
