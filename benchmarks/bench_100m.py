"""Benchmark of 100 million rows out of core (issue 23 §2): ``tklscore score``, ``measures``
and ``disclosure-risk`` over 10 attributes with ``--engine duckdb --memory-limit 2GB``, run
as a user runs them, each in a process of its own, on Parquet sources written chunk by chunk.

    .venv/bin/python benchmarks/bench_100m.py [--rows 50000000 100000000] [--part score measures disclosure]
                                              [--memory-limit 2GB] [--dir /tmp/tkl100m] [--keep-source]

**The source.** One pass writes, a million rows at a time (never the whole table in memory),
a Parquet file per size asked for; the smaller ones are prefixes of the largest (each chunk
is seeded on its own), so the sizes differ only in their length. Columns: an integer ``id``;
4 QIs (``age`` 73 levels as integers, ``workclass`` 12, ``occupation`` 41, ``education`` 16);
4 SAs (``disease`` 14, ``medication`` 20, ``diagnosis`` 6 as integers, and the continuous
``amount``: 500 values with two decimals per chunk, so ~50,000 distinct at 100M); and
``sex`` (2) and ``region`` (9), so that D(r) reads 10 attributes. A 10 % release of each
(``release_N.parquet``, its ids), the weights of the 4 SAs, and D(r)'s parameters are
written beside it. ~10 bytes a row (100M rows: ~1 GB).

Why Parquet: it is what a registry of this size is kept in, and what the engines read
fastest — columnar and compressed (DuckDB reads only the columns a query names, in
parallel row groups, with their types: no text to parse, no delimiter or encoding to
detect and no line to check for a second encoding, which ``check_engine_file`` does for
every line of a CSV). A 100M-row CSV would be ~5 GB and measure the CSV reader as much as
the plan.

**The parts** (``--part``, default all three, in this order):

- ``score``: ``tklscore score SOURCE --published RELEASE --id-column id --qi … --sa …
  --continuous amount --weights W.csv --engine duckdb --memory-limit 2GB --output
  records.parquet --format json`` (the release's records streamed to Parquet);
- ``measures``: ``tklscore measures SOURCE --qi … --sa … --continuous amount --id-column id
  --engine duckdb --memory-limit 2GB --format json`` (every privacy model and the
  prosecutor risk of the whole table, as of a release of that size);
- ``disclosure``: ``tklscore disclosure-risk SOURCE --attributes PARAMS.csv --value-weights
  VW.csv --alpha 100 --epsilon 0.01 --id-column id --engine duckdb --memory-limit 2GB
  --output records.parquet --format json`` over the 10 attributes (PK 0.8 … 0.02:
  ε = 0.01 keeps 118 of the 1,024 known sets, as the paper keeps ~110).

Each command is measured in a process of its own: wall time, CPU time of the process tree
(user + system of every descendant waited for), the peak RSS of the tree (the /proc sum over
the command and its descendants, polled twice a second, beside the largest process's own
high-water mark), and the load average at its start, its end and at most while it ran —
the machine is shared, so a figure is read beside its load. Then the time ratio between
consecutive sizes (linear ≈ their row ratio) and, at 100M rows (or ``--target-rows``), the
targets: score ≤ 10 min, measures ≤ 10 min, disclosure-risk ≤ 20 min, and each peak RSS ≤ 3 GB
(near the 2 GB limit: a continuous SA's pairs are streamed, never all in Python); below that size the
time projected linearly to it is printed for information. The exit status is 1 when a
target fails. Outputs are removed after each run; the sources at the end unless
``--keep-source`` (with ``--dir``, a kept source is reused by the next run).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (CHUNK, CONTINUOUS_SA, QI, SA, ParquetChunks, Stopwatch, _PROBE, load_average,  # noqa: E402
                     machine, make_weights, megabytes, tklscore_command, typed_schema, typed_table, verdict,
                     write_typed_weights)

from tklscore.core.engines.scoring import parse_memory_limit  # noqa: E402

PARTS = ("score", "measures", "disclosure")
TARGETS_S = {"score": 600.0, "measures": 600.0, "disclosure": 1200.0}
TARGET_ROWS = 100_000_000
TARGET_RSS_MB = 3072.0   # peak RSS of each command at the target size, near the 2 GB --memory-limit
BASELINE_MB = 512   # the command's Python and libraries beside DuckDB's buffers
REGIONS = 9
# D(r)'s 10 attributes: PK(A) (how likely an attacker knows A) and W(A) ∈ {0, 1} as in the paper
DR_ATTRIBUTES = (("age", 0.8, 0.0), ("sex", 0.8, 0.0), ("region", 0.6, 0.0), ("education", 0.5, 0.0),
                 ("workclass", 0.4, 0.0), ("occupation", 0.2, 0.0), ("disease", 0.05, 1.0),
                 ("diagnosis", 0.05, 1.0), ("medication", 0.02, 1.0), ("amount", 0.02, 1.0))
DR_VALUE_WEIGHTS = ([("disease", f"disease-{i:02d}", 1.0) for i in range(0, 14, 3)]
                    + [("medication", f"medication-{i:02d}", 1.0) for i in range(0, 20, 4)]
                    + [("diagnosis", "[4,inf)", 1.0), ("amount", "[200,inf)", 1.0)])


# --------------------------------------------------------------------------------- the sources

def schema():
    """The typed source's columns and the two D(r) needs beside them."""
    import pyarrow as pa

    return typed_schema().append(pa.field("sex", pa.string())).append(pa.field("region", pa.string()))


def chunk_table(rows: int, seed: int, start: int):
    """Rows ``start …`` of the source: the typed table of ``_common`` and ``sex``, ``region``."""
    import pyarrow as pa

    table, pool = typed_table(rows, seed, start)
    rng = np.random.default_rng([seed, 1])
    sex = pa.array(["F", "M"]).take(pa.array((rng.random(rows) >= 0.49).astype(np.int64)))
    p = 1.0 / np.arange(1, REGIONS + 1)
    region = pa.array([f"region-{i}" for i in range(REGIONS)]).take(
        pa.array(rng.choice(REGIONS, size=rows, p=p / p.sum())))
    return table.append_column("sex", sex).append_column("region", region), pool


def paths_of(folder: Path, n: int) -> dict[str, Path]:
    return {"source": folder / f"source_{n}.parquet", "release": folder / f"release_{n}.parquet"}


def common_paths(folder: Path) -> dict[str, Path]:
    return {"weights": folder / "weights.csv", "params": folder / "dr_params.csv",
            "value_weights": folder / "dr_value_weights.csv"}


def write_sources(folder: Path, sizes: list[int], seed: int, chunk: int = CHUNK) -> dict[int, dict[str, Path]]:
    """Every size's source and 10 % release in one pass over the largest, chunk by chunk;
    the weights, D(r)'s parameters and value weights once. A source already there (kept by
    ``--keep-source``) is reused."""
    import pyarrow as pa

    paths = {n: paths_of(folder, n) for n in sizes}
    common = common_paths(folder)
    todo = [n for n in sizes if not (paths[n]["source"].exists() and paths[n]["release"].exists()
                                     and common["weights"].exists())]
    if todo:
        largest, pool = max(todo), None
        writers = {n: (ParquetChunks(paths[n]["source"], schema()), ParquetChunks(paths[n]["release"], schema()))
                   for n in todo}
        try:
            for start in range(0, largest, chunk):
                rows = min(chunk, largest - start)
                table, chunk_pool = chunk_table(rows, seed + start // chunk, start)
                pool = chunk_pool if pool is None else pool
                picked = np.sort(np.random.default_rng([seed, 2, start // chunk])
                                 .choice(rows, size=max(1, rows // 10), replace=False))
                for n, (source, release) in writers.items():
                    if start < n:
                        part = min(rows, n - start)
                        source.write(table.slice(0, part))
                        release.write(table.take(pa.array(picked[picked < part])))
        finally:
            for source, release in writers.values():
                source.__exit__(None, None, None)
                release.__exit__(None, None, None)
        write_typed_weights(make_weights(pool, seed), common["weights"])
    common["params"].write_text("attribute,pk,weight\n" + "".join(f"{a},{pk!r},{w!r}\n"
                                                                  for a, pk, w in DR_ATTRIBUTES))
    common["value_weights"].write_text("attribute,value,weight\n" + "".join(f"{a},\"{v}\",{w!r}\n"
                                                                           for a, v, w in DR_VALUE_WEIGHTS))
    return {n: {**paths[n], **common} for n in sizes}


# --------------------------------------------------------------------------------- measuring

@dataclass
class Measured:
    """A command's wall and CPU seconds, the peak RSS of its process tree (polled sum) and of
    its largest process (high-water mark) in MB, the load average (start, end, highest) and
    its standard output."""

    wall: float
    cpu: float
    tree_mb: float
    largest_mb: float
    load: tuple[float, float, float]
    out: str

    @property
    def rss_mb(self) -> float:
        return max(self.tree_mb, self.largest_mb)

    @property
    def load_text(self) -> str:
        start, end, high = self.load
        return f"{start:.1f}→{end:.1f} (max {high:.1f})"


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            tree.setdefault(parent, []).append(int(entry))
    return tree


def tree_rss_mb(root: int) -> float:
    """The resident memory of ``root``'s descendants (not ``root`` itself), summed, in MB."""
    tree, total = _children(), 0
    todo = list(tree.get(root, []))
    while todo:
        pid = todo.pop()
        todo.extend(tree.get(pid, []))
        try:
            with open(f"/proc/{pid}/statm") as statm:
                total += int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            pass
    return total / 2 ** 20


def run_tree(command: list[str], poll: float = 0.5) -> Measured:
    """Run ``command`` below a small probe process (``_common._PROBE``: wall time, and the CPU
    time and high-water mark of what it waited for) while /proc is polled for the tree's RSS."""
    if sys.platform != "linux":
        raise SystemExit("bench_100m.py polls /proc for the process tree's memory: Linux only")
    start_load = high_load = load_average()
    probe = subprocess.Popen([sys.executable, "-c", _PROBE, *map(str, command)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    peak = 0.0
    while probe.poll() is None:
        peak = max(peak, tree_rss_mb(probe.pid))
        high_load = max(high_load, load_average())
        time.sleep(poll)
    out, err = probe.communicate()
    if probe.returncode != 0:
        raise SystemExit(f"the probe failed ({probe.returncode}):\n{err}")
    result = json.loads(out)
    if result["code"] != 0:
        raise SystemExit(f"{' '.join(map(str, command[:3]))} … failed ({result['code']}):\n{result['err']}")
    end_load = load_average()
    return Measured(result["wall"], result["cpu"], peak, result["rss_kb"] / 1024,
                    (start_load, end_load, max(high_load, end_load)), result["out"])


# --------------------------------------------------------------------------------- the parts

def command_of(part: str, paths: dict[str, Path], output: Path, memory_limit: str) -> list[str]:
    engine = ("--engine", "duckdb", "--memory-limit", memory_limit)
    roles = ("--qi", ",".join(QI), "--sa", ",".join(SA), "--continuous", CONTINUOUS_SA)
    if part == "score":
        return tklscore_command("score", paths["source"], "--published", paths["release"], "--id-column", "id",
                                *roles, "--weights", paths["weights"], *engine, "--output", output,
                                "--format", "json")
    if part == "measures":
        return tklscore_command("measures", paths["source"], *roles, "--id-column", "id", *engine,
                                "--output", output, "--format", "json")
    return tklscore_command("disclosure-risk", paths["source"], "--attributes", paths["params"], "--value-weights",
                            paths["value_weights"], "--alpha", "100", "--epsilon", "0.01", "--id-column", "id",
                            *engine, "--output", output, "--format", "json")


def outcome(part: str, run: Measured, output: Path) -> str:
    """What the command found, in a few figures (so that runs can be compared)."""
    import pyarrow.parquet as pq

    if part == "score":
        summary = json.loads(run.out)
        records = pq.ParquetFile(output).metadata.num_rows
        return f"tkl = {summary['scores']['tkl']:.10g}, {records:,} records written"
    if part == "measures":
        j = json.loads(output.read_text())
        return (f"k = {j['k']}, l = {j['l_distinct']}, t = {j['t']:.4f}, {j['classes']['count']:,} classes, "
                f"average prosecutor risk {j['risk']['prosecutor']['average']:.6g}")
    summary = json.loads(run.out)
    records = pq.ParquetFile(output).metadata.num_rows
    return (f"{summary['above_threshold']:,} records with D > 0.01, largest D {summary['largest_d']:.6g}; "
            f"{records:,} records written")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[50_000_000, 100_000_000],
                        help="source sizes, each run in turn (default 50M and 100M: the ratio)")
    parser.add_argument("--part", nargs="+", choices=PARTS, default=list(PARTS))
    parser.add_argument("--seed", type=int, default=20231123)
    parser.add_argument("--memory-limit", default="2GB")
    parser.add_argument("--dir", help="folder for the sources and outputs (default: a temporary folder; "
                                      "~11 bytes a row of each size)")
    parser.add_argument("--keep-source", action="store_true",
                        help="keep the sources at the end (with --dir, the next run reuses them)")
    parser.add_argument("--target-rows", type=int, default=TARGET_ROWS,
                        help="the size the targets are for (default 100,000,000)")
    parser.add_argument("--chunk", type=int, default=CHUNK, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sizes = sorted(set(args.rows))
    limit_mb = float(parse_memory_limit(args.memory_limit).removesuffix("MiB"))
    parts = [p for p in PARTS if p in args.part]
    folder = Path(args.dir) if args.dir else None
    scratch = None
    if folder is None:
        import tempfile

        scratch = folder = Path(tempfile.mkdtemp(prefix="tklscore-bench-100m-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        print(f"{machine()}; memory limit {args.memory_limit}; folder {folder}")
        # the commands' aggregate cache (core/engines/finest.py) in the folder, emptied before each
        # run: every figure is a first run over its file, never one that reuses an earlier run's cache
        cache = folder / "aggregate-cache"
        os.environ["TKLSCORE_CACHE_DIR"] = str(cache)
        watch = Stopwatch()
        inputs = write_sources(folder, sizes, args.seed, args.chunk)
        print(f"sources written in {watch.wall:.0f} s wall (CPU {watch.cpu:.0f} s), load {load_average():.1f}: "
              + ", ".join(f"{n:,} rows {megabytes(inputs[n]['source']):,} MB" for n in sizes))
        figures: list[tuple[int, str, Measured]] = []
        ok = True
        for part in parts:
            previous = None
            for n in sizes:
                output = folder / (f"{part}_{n}.json" if part == "measures" else f"{part}_{n}.parquet")
                shutil.rmtree(cache, ignore_errors=True)
                run = run_tree(command_of(part, inputs[n], output, args.memory_limit))
                found = outcome(part, run, output)
                output.unlink(missing_ok=True)
                ratio = ""
                if previous is not None:
                    ratio = f"; rows ×{n / previous[0]:.2f} → time ×{run.wall / previous[1].wall:.2f}"
                print(f"{part:10s} {n:>13,} rows: {run.wall:8.1f} s wall, CPU {run.cpu:8.1f} s, peak RSS "
                      f"{run.rss_mb:6.0f} MB (tree {run.tree_mb:.0f}, largest process {run.largest_mb:.0f}), "
                      f"load {run.load_text}{ratio}\n{'':12s}{found}", flush=True)
                if run.rss_mb > limit_mb + BASELINE_MB:
                    print(f"{'':12s}peak RSS over {BASELINE_MB} MB above --memory-limit {args.memory_limit}: the "
                          f"limit bounds DuckDB's buffers, not the aggregates fetched into Python and what is "
                          f"computed from them")
                limit = TARGETS_S[part]
                if n == args.target_rows:
                    passed = run.wall <= limit
                    small = run.rss_mb <= TARGET_RSS_MB
                    ok &= passed and small
                    note = "" if passed or run.cpu > limit else \
                        f" (CPU time {run.cpu:.0f} s would pass; load {run.load_text} on {os.cpu_count()} CPUs)"
                    print(f"{'':12s}target at {n:,} rows ≤ {limit / 60:g} min: {verdict(passed)}{note}")
                    print(f"{'':12s}target at {n:,} rows peak RSS ≤ {TARGET_RSS_MB:.0f} MB: {run.rss_mb:.0f} MB "
                          f"{verdict(small)}")
                elif n >= 1_000_000:   # below, the start-up of the command is most of the time
                    projected = run.wall * args.target_rows / n
                    print(f"{'':12s}projected linearly to {args.target_rows:,} rows: {projected / 60:.1f} min wall, "
                          f"{run.cpu * args.target_rows / n / 60:.1f} min CPU (target ≤ {limit / 60:g} min wall: "
                          f"projected {verdict(projected <= limit)}; load {run.load_text})")
                figures.append((n, part, run))
                previous = (n, run)
        print("\n| rows | part | wall s | CPU s | peak RSS MB | load (start→end, max) | time ratio |")
        print("|---:|---|---:|---:|---:|---|---|")
        last: dict[str, tuple[int, Measured]] = {}
        for n, part, run in figures:
            ratio = "—"
            if part in last:
                m, before = last[part]
                ratio = f"×{run.wall / before.wall:.2f} for rows ×{n / m:.2f}"
            last[part] = (n, run)
            print(f"| {n:,} | {part} | {run.wall:.1f} | {run.cpu:.1f} | {run.rss_mb:.0f} | {run.load_text} | "
                  f"{ratio} |")
        if args.target_rows in sizes:
            print(f"overall at {args.target_rows:,} rows: {verdict(ok)}")
        return 0 if ok else 1
    finally:
        if not args.keep_source:
            for path in [*common_paths(folder).values(), *(p for n in sizes for p in paths_of(folder, n).values())]:
                path.unlink(missing_ok=True)
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
            elif not any(folder.iterdir()):
                folder.rmdir()
        else:
            print(f"sources kept in {folder}")


if __name__ == "__main__":
    sys.exit(main())
