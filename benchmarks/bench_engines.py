"""Benchmark of the out-of-core engine: ``tklscore score --engine duckdb`` on Parquet
sources larger than a memory limit, the whole process timed.

    .venv/bin/python benchmarks/bench_engines.py [--rows 20000000] [--memory-limit 2GB] [--dir DIR]

Writes, chunk by chunk (never the whole table in memory), a seeded source of N rows with
the columns of ``bench_cli.py`` (an integer id, 4 QIs, 3 categorical SAs, 1 continuous)
as Parquet, and a 10 % release, then runs

    tklscore score SOURCE --published RELEASE --id-column id ... --engine duckdb
             --memory-limit 2GB --output records.parquet --format json

at N/2 and N rows and prints the wall time, the peak resident memory of the process
(ru_maxrss of the child), and the time ratio between the two sizes (linear: ≈ 2).
Targets at N = 20,000,000 under a 2 GB limit: ≤ 90 s, peak RSS ≤ 3 GB. The machine
may be shared: the CPU time of the process is printed next to the wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_cli import typed_source  # noqa: E402
from bench_scoring import CONTINUOUS_SA, QI, SA, make_weights  # noqa: E402

CHUNK = 1_000_000
TARGET_S = 90.0
TARGET_RSS_MB = 3072.0


def write_inputs(folder: Path, n: int, seed: int) -> dict[str, Path]:
    paths = {"source": folder / f"source_{n}.parquet", "release": folder / f"release_{n}.parquet",
             "weights": folder / "weights.csv"}
    rng = np.random.default_rng(seed)
    pool = None
    with pq.ParquetWriter(paths["source"], _schema()) as source, pq.ParquetWriter(paths["release"], _schema()) as release:
        for start in range(0, n, CHUNK):
            rows = min(CHUNK, n - start)
            frame, chunk_pool = typed_source(rows, seed + start // CHUNK)
            pool = chunk_pool if pool is None else pool
            frame["id"] = frame["id"] + start
            table = pa.Table.from_pandas(frame, schema=_schema(), preserve_index=False)
            source.write_table(table)
            picked = np.sort(rng.choice(rows, size=max(1, rows // 10), replace=False))
            release.write_table(table.take(pa.array(picked)))
    weights = make_weights(pool, seed)
    lines = ["attribute,value,weight"] + [
        f"{e.attribute},\"{e.value.removeprefix('diagnosis-') if e.attribute == 'diagnosis' else e.value}\",{e.weight}"
        for e in weights.entries]
    paths["weights"].write_text("\n".join(lines) + "\n")
    return paths


def _schema() -> pa.Schema:
    return pa.schema([("id", pa.int64()), ("age", pa.int64()), ("workclass", pa.string()),
                      ("occupation", pa.string()), ("education", pa.string()), ("disease", pa.string()),
                      ("medication", pa.string()), ("diagnosis", pa.int64()), ("amount", pa.float64())])


def run(paths: dict[str, Path], memory_limit: str, output: Path, engine: str = "duckdb",
        extra: tuple[str, ...] = ()) -> tuple[float, float, float, dict]:
    command = [str(Path(sys.executable).with_name("tklscore")), "score", str(paths["source"]),
               "--published", str(paths["release"]), "--id-column", "id", "--qi", ",".join(QI),
               "--sa", ",".join(SA), "--continuous", CONTINUOUS_SA, "--weights", str(paths["weights"]),
               "--engine", engine, "--memory-limit", memory_limit, "--output", str(output), "--format", "json",
               *extra]
    # a fresh helper process per run, so that ru_maxrss is this run's peak
    probe = ("import resource, subprocess, sys, time, json; t = time.perf_counter(); "
             "done = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
             "wall = time.perf_counter() - t; u = resource.getrusage(resource.RUSAGE_CHILDREN); "
             "print(json.dumps({'wall': wall, 'cpu': u.ru_utime + u.ru_stime, 'rss_kb': u.ru_maxrss, "
             "'code': done.returncode, 'out': done.stdout, 'err': done.stderr}))")
    result = json.loads(subprocess.run([sys.executable, "-c", probe, *command], capture_output=True,
                                       text=True, check=True).stdout)
    if result["code"] != 0:
        raise SystemExit(f"tklscore failed ({result['code']}):\n{result['err']}")
    return result["wall"], result["cpu"], result["rss_kb"] / 1024, json.loads(result["out"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--memory-limit", default="2GB")
    parser.add_argument("--dir", help="folder for the inputs (default: a temporary folder; ~10 bytes a row)")
    parser.add_argument("--spark-rows", type=int, default=0,
                        help="also time --engine spark --spark-master local[2] on this many rows (for information; "
                             "CPU time is the driver's, the JVM's is in the wall time)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.dir or scratch)
        folder.mkdir(parents=True, exist_ok=True)
        print(f"os.cpu_count() = {os.cpu_count()}, load average {os.getloadavg()[0]:.1f} "
              f"(a shared machine slows every figure); memory limit {args.memory_limit}")
        figures = []
        for n in (args.rows // 2, args.rows):
            start = time.perf_counter()
            paths = write_inputs(folder, n, args.seed)
            print(f"{n:,} rows: inputs written in {time.perf_counter() - start:.0f} s "
                  f"(source {paths['source'].stat().st_size >> 20} MB Parquet)")
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
        print(f"{n2:,} rows: {t2:.1f} s, target ≤ {TARGET_S:g} s {'PASS' if ok_time else 'FAIL'}; "
              f"peak RSS {rss2:.0f} MB, target ≤ {TARGET_RSS_MB:g} MB {'PASS' if ok_rss else 'FAIL'}")
    return 0 if ok_time and ok_rss else 1


if __name__ == "__main__":
    sys.exit(main())
