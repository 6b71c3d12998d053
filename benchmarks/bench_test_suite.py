"""How long the test suite takes (issue 22 §1: ``bash scripts/test.sh`` ≤ 6 minutes wall on a
2-core machine, setup included; pytest ≤ 270 s in every run, for a margin), and its slowest files
one at a time.

    .venv/bin/python benchmarks/bench_test_suite.py                 # the slowest files, one pytest each
    .venv/bin/python benchmarks/bench_test_suite.py --whole         # and bash scripts/test.sh itself
    .venv/bin/python benchmarks/bench_test_suite.py --whole --no-files
    .venv/bin/python benchmarks/bench_test_suite.py --whole --no-files --timeline /tmp/timeline.jsonl

Each run is a process of its own measured with every process it starts (Spark's JVM, strace,
xdist's workers: ``_common.run_measured``), wall and CPU time (user + sys) with the load
average before and after. The targets are wall times on an idle machine; on a loaded one the
wall time says little, and the verdict line says whether the CPU time alone would pass. The
whole suite's pytest time is the one pytest prints ("in 287.12s"); ``scripts/test.sh`` adds
its setup (pip checking the installed packages). The suite's CPU verdict divides its CPU time by
its two workers: the time it would take were both cores busy to the end. ``--timeline FILE``
records each test (tests/conftest.py) and prints each worker's schedule (scripts/test_timeline.py):
how long each worker was idle at the end, and the files it ran.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, load_average, machine, overall, run_measured  # noqa: E402

# file (as pytest takes it): its target wall time on an idle 2-core machine, run alone
FILES = {
    "tests/engines/test_engine_spark.py": 200.0,     # one Spark session for the module (test JVM settings)
    "tests/test_offline.py": 75.0,                    # the CLI under strace, the Spark run's JVM included
    "tests/core/risk/test_risk_measures.py": 30.0,   # pycanon, the peer, is the slow part
    "tests/engines/test_engine_design.py": 45.0,
}
# file: its CPU target (user + sys of the process tree, the JVM included), on any load: issue 22
# session 10 asked to halve the Spark file's ~200 CPU-s (session 9, idle)
FILES_CPU = {"tests/engines/test_engine_spark.py": 100.0}
SUITE_PYTEST = 270.0       # pytest's own time for the whole suite, in every run (the margin the lead asked for)
SUITE_SCRIPT = 360.0       # bash scripts/test.sh, setup included (issue 22 §1)
# the CPU the tests outside the Spark file use (tests/conftest.py's timeline: each test with its
# fixtures, not the collection), idle: about 370 CPU-s in session 9; session 10 asks for 100 less
OUTSIDE_SPARK_CPU = 270.0
PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:warnings", "-q"]


def verdict_line(label: str, wall: float, cpu: float, limit: float, before: float, workers: int = 1) -> bool:
    """``label: 212 s wall, 190 s CPU (load 0.4 -> 1.9); target ≤ 200 s  PASS``; on a loaded
    machine a miss on wall time says whether the CPU time alone (over ``workers`` busy
    cores) is within the target."""
    ok = wall <= limit
    if ok:
        word = "PASS"
    elif cpu / workers <= limit:
        word = f"MISS on wall time, PASS on CPU time (load average {load_average():.1f} on {os.cpu_count()} CPUs)"
    else:
        word = "MISS"
    per = f" ({cpu / workers:,.0f} s a worker)" if workers > 1 else ""
    print(f"  {label}: {wall:,.0f} s wall, {cpu:,.0f} s CPU{per} (load {before:.1f} -> {load_average():.1f}); "
          f"target ≤ {limit:g} s  {word}", flush=True)
    return ok


def pytest_seconds(output: str) -> float:
    """pytest's own time from its summary line (``1781 passed ... in 393.05s (0:06:33)``)."""
    found = re.findall(r" in ([0-9.]+)s", output)
    if not found:
        raise SystemExit(f"no pytest summary line in the output:\n{output[-2000:]}")
    return float(found[-1])


def outside_spark_verdict(path: str) -> bool:
    """The tests' CPU outside tests/engines/test_engine_spark*.py, from the timeline, against
    :data:`OUTSIDE_SPARK_CPU`, with the load the tests saw (CPU time grows with the load too)."""
    from test_timeline import load

    tests = [t for t in load(path) if not Path(t["file"]).name.startswith("test_engine_spark")]
    cpu, loads = sum(t["cpu"] for t in tests), [t["load"] for t in tests]
    ok = cpu <= OUTSIDE_SPARK_CPU
    print(f"  the tests outside the Spark file: {cpu:,.0f} CPU-s in {len(tests)} tests (load seen by the tests "
          f"{min(loads):.1f}-{max(loads):.1f}); target ≤ {OUTSIDE_SPARK_CPU:g} CPU-s  {'PASS' if ok else 'MISS'}",
          flush=True)
    return ok


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--whole", action="store_true", help="also run bash scripts/test.sh (the whole suite)")
    parser.add_argument("--no-files", action="store_true", help="skip the files one at a time")
    parser.add_argument("--timeline", metavar="FILE", help="with --whole: record each test there and print "
                                                           "each worker's schedule")
    parser.add_argument("files", nargs="*", help=f"test files to time (default: {', '.join(FILES)})")
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    print(machine())
    ok = True
    if not args.no_files:
        print("test files, one pytest each (wall and CPU of the process and every process it starts):")
        for file in args.files or FILES:
            before = load_average()
            run = run_measured([*PYTEST, file])
            ok &= verdict_line(file, run.wall, run.cpu, FILES.get(file, float("inf")), before)
            if file in FILES_CPU:
                fits = run.cpu <= FILES_CPU[file]
                print(f"  {file}: {run.cpu:,.0f} s CPU (load {load_average():.1f}); target ≤ {FILES_CPU[file]:g} s CPU  "
                      f"{'PASS' if fits else 'MISS'}", flush=True)
                ok &= fits
    if args.whole:
        print("the whole suite, as CI runs it (bash scripts/test.sh):")
        if args.timeline:
            Path(args.timeline).unlink(missing_ok=True)
            os.environ["TKLSCORE_TEST_TIMELINE"] = str(Path(args.timeline).resolve())
        before = load_average()
        run = run_measured(["bash", "scripts/test.sh", "-p", "no:cacheprovider"])
        seconds = pytest_seconds(run.out)
        asked = os.environ.get("TEST_WORKERS", "auto")   # scripts/test.sh: -n auto, a worker per CPU
        workers = (os.cpu_count() or 1) if asked == "auto" else int(asked)
        ok &= verdict_line("pytest (its own time)", seconds, run.cpu, SUITE_PYTEST, before, workers)
        ok &= verdict_line("bash scripts/test.sh (setup included)", run.wall, run.cpu, SUITE_SCRIPT, before, workers)
        if args.timeline:
            sys.path.insert(0, str(ROOT / "scripts"))
            from test_timeline import main as timeline

            timeline([args.timeline, "--files", "10"])
            ok &= outside_spark_verdict(args.timeline)
    return overall(ok)


if __name__ == "__main__":
    sys.exit(main())
