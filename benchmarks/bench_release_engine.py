"""Benchmark of release designs evaluated out of core (issue 14 §2: the Design view on a
source larger than memory, ``tklscore release --engine duckdb``).

    .venv/bin/python benchmarks/bench_release_engine.py [--rows 12000000] [--memory-limit 2GB]
                                                         [--memory-rows 1000000] [--dir DIR] [--rewrite]

``--dir``: the inputs are kept there, and a source an earlier run wrote there (its stamp: rows,
seed, format version, ``_common.typed_inputs``) is reused, never rewritten (``--rewrite``: written
anew); the aggregate cache there is emptied at the start of every run.

Writes (chunk by chunk, as ``bench_engines.py``) a seeded Parquet source of N rows — an
integer id, QIs age, workclass, occupation, education (hierarchies of ``bench_release.py``),
SAs disease, medication, diagnosis and the continuous amount — and times, each in a fresh
process (so that its peak RSS is its own):

1. one out-of-core evaluation: ``EngineDesigner.evaluate`` of the design age=2,
   occupation=1, education=1, suppression below 5 within 2 %, with DuckDB under the limit
   (tkl/M/L raw and normalised, the privacy models and risk, utility, the first rows) —
   the *first*, which reads the file into the source's finest aggregate and caches it
   (``core/engines/finest.py``; the cache in the work folder, ``TKLSCORE_CACHE_DIR``), its
   process alone; then the *second*, in a fresh process, which reuses the cached aggregate,
   and in that process another design (age=1, workclass=1) over the aggregate (issue 23 §1:
   the second ≤ 30 s on 10M rows; the first, its whole process, ≤ 2× the in-memory cost per
   million rows, wall and CPU, each with a VERDICT line), at each size;
2. ``tklscore release SOURCE ... --engine duckdb --memory-limit 2GB --output release.parquet
   --format json`` (the same design; the published table written by DuckDB), whole process;
3. the peer: the in-memory designer (``load_table`` + ``ReleaseDesigner.evaluate``, same
   design) on a source of ``--memory-rows`` rows, and the ratio of the time per million rows.

Every figure: wall and CPU time, peak RSS. The machine may be shared (load average printed).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (CONTINUOUS_SA, QI, SA, Stopwatch, load_average, machine, megabytes, peak_rss_mb,  # noqa: E402
                     run_measured, tklscore_command, typed_inputs, verdict, work_folder)

TARGET_RSS_MB = 3072.0
LEVELS = {"age": 2, "occupation": 1, "education": 1}
SUPPRESS_BELOW, BUDGET = 5, 0.02


def _roles():
    from tklscore.core import Roles

    return Roles(qi=list(QI), sa=list(SA), continuous=[CONTINUOUS_SA], identifier="id")


def _design():
    from tklscore.core.release.transform import ReleaseDesign

    return ReleaseDesign("bench", LEVELS, SUPPRESS_BELOW, BUDGET)


def child(mode: str, source: str, weights: str, memory_limit: str) -> dict:
    """One measurement in this process (its figures read by the parent)."""
    from bench_release import synthetic_hierarchies

    from tklscore.core import load_table, load_weights

    hierarchies, roles, design = synthetic_hierarchies(), _roles(), _design()
    weights = load_weights(weights)
    watch = Stopwatch()
    other = None
    if mode in ("evaluate", "again"):
        from tklscore.core.engines import open_backend
        from tklscore.core.engines.design import EngineDesigner
        from tklscore.core.release.transform import ReleaseDesign

        with open_backend("duckdb", memory_limit) as backend:
            designer = EngineDesigner(backend, source, roles, hierarchies)
            reused = designer.finest.reused
            result = designer.evaluate(design, weights, preview=200)
            wall, cpu = watch.wall, watch.cpu
            if mode == "again":      # the second process: also another design over the same aggregate
                watch.restart()
                designer.evaluate(ReleaseDesign("other", {"age": 1, "workclass": 1}, SUPPRESS_BELOW, BUDGET),
                                  weights, preview=200)
                other = {"wall": watch.wall, "cpu": watch.cpu}
        data = result.to_json_dict()
        return {"wall": wall, "cpu": cpu, "load": 0.0, "rss_mb": peak_rss_mb(), "tkl": data["scores"]["tkl"],
                "k": data["measures"]["k"], "published": data["published_rows"],
                "suppressed": data["suppressed_rows"], "reused": reused, "other": other,
                "rows": designer.finest.rows}
    else:
        from tklscore.core.release.designer import ReleaseDesigner

        table = load_table(source)
        loaded = watch.wall
        result = ReleaseDesigner(table, roles, hierarchies).evaluate(design, weights, record_ids=False)
    data = result.to_json_dict()
    return {"wall": watch.wall, "cpu": watch.cpu, "load": loaded, "rss_mb": peak_rss_mb(), "tkl": data["scores"]["tkl"],
            "k": data["measures"]["k"], "published": data["published_rows"], "suppressed": data["suppressed_rows"]}


def _met(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def hierarchy_files(folder: Path) -> list[str]:
    from bench_release import synthetic_hierarchies

    options = []
    for column, hierarchy in synthetic_hierarchies().items():
        path = folder / f"hierarchy_{column}.json"
        path.write_text(json.dumps(hierarchy.to_dict()))
        options += ["--hierarchy", f"{column}={path}"]
    return options


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--memory-rows", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--memory-limit", default="2GB")
    parser.add_argument("--dir", help="folder for the inputs (default: a temporary folder; ~10 bytes a row)")
    parser.add_argument("--rewrite", action="store_true", help="write the inputs anew even when --dir holds them")
    parser.add_argument("--child", nargs=4, metavar=("MODE", "SOURCE", "WEIGHTS", "LIMIT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(*args.child)))
        return 0
    with work_folder(args.dir) as folder:
        print(f"{machine()}; memory limit {args.memory_limit}; design {LEVELS}, "
              f"suppression below {SUPPRESS_BELOW} within {BUDGET:.0%}")
        inputs = {}
        for n in sorted({args.memory_rows, args.rows}):
            watch = Stopwatch()
            (folder / str(n)).mkdir(exist_ok=True)
            inputs[n], reused = typed_inputs(folder / str(n), n, args.seed, args.rewrite)
            if not reused:
                print(f"{n:,} rows: inputs written in {watch.wall:.0f} s (source {megabytes(inputs[n]['source'])} "
                      f"MB Parquet)")
            else:
                print(f"{n:,} rows: inputs reused from {folder / str(n)} (source {megabytes(inputs[n]['source'])} "
                      f"MB Parquet, written earlier with seed {args.seed}; --rewrite writes them anew)")
        me = [sys.executable, str(Path(__file__).resolve())]
        # the children's cache, emptied first: the first evaluation reads the file, never an earlier run's cache
        cache = folder / "aggregate-cache"
        shutil.rmtree(cache, ignore_errors=True)
        os.environ["TKLSCORE_CACHE_DIR"] = str(cache)
        small = inputs[args.memory_rows]
        peer = run_measured(me + ["--child", "memory", small["source"], small["weights"], args.memory_limit])
        p = json.loads(peer.out)
        per_million_memory = peer.wall / (args.memory_rows / 1e6)
        print(f"0. peer, the in-memory designer, {args.memory_rows:,} rows: {peer.wall:.1f} s wall (process; "
              f"load {p['load']:.1f} s + evaluate {p['wall'] - p['load']:.1f} s), CPU {peer.cpu:.1f} s, "
              f"peak RSS {peer.rss_mb:.0f} MB; tkl = {p['tkl']:.10g}; {per_million_memory:.2f} s per million rows "
              f"(load {load_average():.1f})")
        per_million_memory_cpu = peer.cpu / (args.memory_rows / 1e6)
        for n in sorted(inputs):
            runs = []
            for which, mode in (("first", "evaluate"), ("second", "again")):
                run = run_measured(me + ["--child", mode, inputs[n]["source"], inputs[n]["weights"],
                                         args.memory_limit])
                e = json.loads(run.out)
                runs.append((run, e))
                assert e["reused"] == (which == "second"), e
                print(f"1. {which} out-of-core evaluation, {n:,} rows: {run.wall:.1f} s wall (process; evaluate "
                      f"{e['wall']:.1f} s, CPU {e['cpu']:.1f} s; {'aggregate reused from the cache' if e['reused'] else 'file read into the aggregate, cached'}: "
                      f"{e['rows']:,} combinations), CPU {run.cpu:.1f} s, peak RSS {run.rss_mb:.0f} MB "
                      f"{verdict(run.rss_mb <= TARGET_RSS_MB)}"
                      + (f"; then another design over the aggregate {e['other']['wall']:.1f} s (CPU "
                         f"{e['other']['cpu']:.1f} s)" if e["other"] else "")
                      + f"; tkl = {e['tkl']:.10g}, k = {e['k']}, {e['published']:,} published, "
                        f"{e['suppressed']:,} suppressed (load {load_average():.1f})")
            first, second = runs
            # the first evaluation is its whole process (start, imports, the file read into the
            # aggregate and cached, the evaluation), as the peer is its whole process (load + evaluate)
            ratio = (first[0].wall / (n / 1e6)) / per_million_memory
            cpu_ratio = (first[0].cpu / (n / 1e6)) / per_million_memory_cpu
            print(f"   {n:,} rows: first {first[0].wall / (n / 1e6):.2f} s per million rows = {ratio:.2f}× in memory "
                  f"(CPU {first[0].cpu / (n / 1e6):.2f} s per million = {cpu_ratio:.2f}× in memory's "
                  f"{per_million_memory_cpu:.2f}) (load {load_average():.1f})")
            print(f"   VERDICT first evaluation, {n:,} rows, ≤ 2× the in-memory cost per million rows: wall "
                  f"{ratio:.2f}× {_met(ratio <= 2)}, CPU {cpu_ratio:.2f}× {_met(cpu_ratio <= 2)}")
            if n >= 10_000_000:
                print(f"   VERDICT second evaluation, {n:,} rows, ≤ 30 s: {second[1]['wall']:.1f} s wall "
                      f"{_met(second[1]['wall'] <= 30)} (CPU {second[1]['cpu']:.1f} s; its process "
                      f"{second[0].wall:.1f} s with another design) (load {load_average():.1f})")
            else:
                print(f"   second evaluation {second[1]['wall']:.1f} s wall, CPU {second[1]['cpu']:.1f} s (the "
                      f"≤ 30 s target is for 10M rows) (load {load_average():.1f})")
        evaluation = runs[0][0]
        big = inputs[args.rows]
        output = folder / "release.parquet"
        command = tklscore_command("release", big["source"], "--id-column", "id", "--qi", ",".join(QI),
                                   "--sa", ",".join(SA), "--continuous", CONTINUOUS_SA, "--weights", big["weights"],
                                   *hierarchy_files(folder), "--levels", ",".join(f"{c}={h}" for c, h in LEVELS.items()),
                                   "--suppress-below", SUPPRESS_BELOW, "--suppression-limit", BUDGET,
                                   "--engine", "duckdb", "--memory-limit", args.memory_limit, "--output", output,
                                   "--format", "json")
        release = run_measured(command)
        import pyarrow.parquet as pq

        written = pq.ParquetFile(output).metadata.num_rows
        summary = json.loads(release.out)
        print(f"2. tklscore release --engine duckdb --output release.parquet, {args.rows:,} rows: "
              f"{release.wall:.1f} s wall, CPU {release.cpu:.1f} s, peak RSS {release.rss_mb:.0f} MB "
              f"{verdict(release.rss_mb <= TARGET_RSS_MB)} (≤ {TARGET_RSS_MB:.0f}); "
              f"{written:,} rows written (published {summary['published_rows']:,}), "
              f"tkl = {summary['scores']['tkl']:.10g}")
        per_million_engine = evaluation.wall / (args.rows / 1e6)
        print(f"time per million rows: out of core {per_million_engine:.2f} s, in memory {per_million_memory:.2f} s "
              f"→ ratio {per_million_engine / per_million_memory:.2f} (out of core / in memory); the in-memory "
              f"designer at {args.rows:,} rows would need ≈ {peer.rss_mb * args.rows / args.memory_rows / 1024:.0f} "
              f"GB")
    return 0 if max(evaluation.rss_mb, release.rss_mb) <= TARGET_RSS_MB else 1


if __name__ == "__main__":
    sys.exit(main())
