"""Benchmark of Orooji–Knapp D(r) out of core: ``tklscore disclosure-risk --engine duckdb``
on Parquet sources larger than a memory limit, the whole process timed, with the in-memory
engine measured in the same run on 1,000,000 rows for the ratio.

    .venv/bin/python benchmarks/bench_risk_engine.py [--rows 20000000] [--memory-limit 2GB]
                                                     [--memory-rows 1000000] [--dir DIR]

Writes, chunk by chunk (never the whole table in memory), bench_risk.py's D(r) table (the
scale benchmarks' generator, bench_scoring.make_source, plus 19 flags and small
categoricals: 27 attributes; PK such that ε = 0.01 keeps 111 known sets, α = 100) as
Parquet at N/2 and N rows, and runs

    tklscore disclosure-risk SOURCE.parquet --attributes PARAMS.csv --value-weights VW.csv
             --alpha 100 --epsilon 0.01 --threshold 0.01 --engine duckdb --memory-limit 2GB
             --output records.parquet --format json

printing wall time, CPU time and peak RSS of the process (measured in a process of its own) and the
time ratio between the two sizes (linear: ≈ 2). On the 1M-row file it runs the same
command with ``--engine duckdb`` and with the in-memory engine (``--output records.json``:
the in-memory command writes every record) and prints the ratio. The machine may be
shared: the CPU time of the process is printed next to the wall time.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (CHUNK, ParquetChunks, Stopwatch, machine, make_source, megabytes, run_measured,  # noqa: E402
                     tklscore_command, verdict, work_folder)
from bench_risk import dr_table  # noqa: E402

TARGET_RSS_MB = 3072.0


def write_inputs(folder: Path, n: int, seed: int) -> dict[str, Path]:
    paths = {"source": folder / f"dr_source_{n}.parquet", "params": folder / "dr_params.csv",
             "weights": folder / "dr_value_weights.csv"}
    with ParquetChunks(paths["source"]) as source:
        for start in range(0, n, CHUNK):
            rows = min(CHUNK, n - start)
            frame, _ = make_source(rows, seed + start // CHUNK)
            table, params, value_weights = dr_table(frame, seed + start // CHUNK)
            source.write(pa.Table.from_pandas(table, preserve_index=False))  # Arrow-backed text already
    paths["params"].write_text("attribute,pk,weight\n" + "".join(f"{p.attribute},{p.pk!r},{p.weight!r}\n"
                                                                  for p in params))
    paths["weights"].write_text("attribute,value,weight\n" + "".join(f"{e.attribute},\"{e.value}\",{e.weight!r}\n"
                                                                     for e in value_weights.entries))
    return paths


def run(paths: dict[str, Path], output: Path, engine: str, memory_limit: str) -> tuple[float, float, float, str]:
    command = tklscore_command("disclosure-risk", paths["source"], "--attributes", paths["params"],
                               "--value-weights", paths["weights"], "--alpha", "100", "--epsilon", "0.01",
                               "--threshold", "0.01", "--output", output, "--format", "json")
    if engine != "memory":
        command += ["--engine", engine, "--memory-limit", memory_limit]
    done = run_measured(command)
    return done.wall, done.cpu, done.rss_mb, done.out


def above(output: Path, summary: str) -> int:
    if output.suffix == ".parquet":
        return int(json.loads(summary)["above_threshold"])
    return int(json.loads(output.read_text())["above_threshold"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--memory-rows", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--memory-limit", default="2GB")
    parser.add_argument("--dir", help="folder for the inputs (default: a temporary folder; ~20 bytes a row)")
    args = parser.parse_args(argv)
    with work_folder(args.dir) as folder:
        print(f"{machine()}; memory limit {args.memory_limit}")
        paths = write_inputs(folder, args.memory_rows, args.seed)
        n = args.memory_rows
        wall_m, cpu_m, rss_m, _ = run(paths, folder / "memory.json", "memory", args.memory_limit)
        wall_e, cpu_e, rss_e, out = run(paths, folder / "engine.parquet", "duckdb", args.memory_limit)
        same = above(folder / "memory.json", "") == above(folder / "engine.parquet", out)
        print(f"{n:,} rows × 27 attributes, 111 known sets: in memory {wall_m:.1f} s wall (CPU {cpu_m:.1f} s), "
              f"peak RSS {rss_m:.0f} MB; --engine duckdb {wall_e:.1f} s wall (CPU {cpu_e:.1f} s), peak RSS "
              f"{rss_e:.0f} MB → engine/in-memory {wall_e / wall_m:.2f}× wall, {cpu_e / cpu_m:.2f}× CPU, "
              f"{rss_e / rss_m:.2f}× RSS; records above the threshold agree: {same}")
        paths["source"].unlink()
        figures = []
        for n in (args.rows // 2, args.rows):
            watch = Stopwatch()
            paths = write_inputs(folder, n, args.seed)
            print(f"{n:,} rows: inputs written in {watch.wall:.0f} s (source {megabytes(paths['source'])} MB Parquet)")
            output = folder / f"records_{n}.parquet"
            wall, cpu, rss, out = run(paths, output, "duckdb", args.memory_limit)
            records = pq.ParquetFile(output).metadata.num_rows
            summary = json.loads(out)
            figures.append((n, wall, rss))
            print(f"  --engine duckdb: {wall:7.1f} s wall (CPU {cpu:.1f} s), peak RSS {rss:7.0f} MB; "
                  f"{summary['above_threshold']:,} records with D > 0.01, largest D {summary['largest_d']:.6g}; "
                  f"{records:,} records written; {wall / wall_m * args.memory_rows / n:.2f}× the in-memory "
                  f"time per row")
            paths["source"].unlink()
            output.unlink()
        (n1, t1, _), (n2, t2, rss2) = figures
        ok_rss = rss2 <= TARGET_RSS_MB
        print(f"rows ×{n2 / n1:.0f} → time ×{t2 / t1:.2f} (linear ≈ 2)")
        print(f"{n2:,} rows: {t2:.1f} s; peak RSS {rss2:.0f} MB, target ≤ {TARGET_RSS_MB:g} MB "
              f"{verdict(ok_rss)}")
    return 0 if ok_rss else 1


if __name__ == "__main__":
    sys.exit(main())
