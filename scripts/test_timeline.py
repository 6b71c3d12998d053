"""Summarise the schedule of a parallel test run recorded with TKLSCORE_TEST_TIMELINE=FILE
(tests/conftest.py writes a JSON line per test: worker, file, start, end, CPU of the worker's
process tree). Prints each worker's busy and idle time, the files in the order each worker ran
them, and the files that cost the most.

    TKLSCORE_TEST_TIMELINE=/tmp/timeline.jsonl bash scripts/test.sh
    python scripts/test_timeline.py /tmp/timeline.jsonl [--files 15]
    python scripts/test_timeline.py AFTER.jsonl --before BEFORE.jsonl [--target 60]   # CPU saved per file
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict


def load(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def runs_of_files(tests: list[dict]) -> list[dict]:
    """Each worker's consecutive tests of one file as one run: worker, file, start, end, cpu, tests."""
    runs: list[dict] = []
    for test in sorted(tests, key=lambda t: (t["worker"], t["start"])):
        last = runs[-1] if runs else None
        if last and last["worker"] == test["worker"] and last["file"] == test["file"]:
            last["end"], last["cpu"], last["tests"] = test["end"], last["cpu"] + test["cpu"], last["tests"] + 1
        else:
            runs.append({"worker": test["worker"], "file": test["file"], "start": test["start"], "end": test["end"],
                         "cpu": test["cpu"], "tests": 1})
    return runs


def compare(before: list[dict], after: list[dict], target: float | None) -> None:
    """Each file's CPU (sum over its tests) before and after, the load each run saw, the total saved."""
    def per_file(tests):
        cpu: dict[str, float] = defaultdict(float)
        for test in tests:
            cpu[test["file"]] += test["cpu"]
        return cpu

    for name, tests in (("before", before), ("after", after)):
        loads = [t["load"] for t in tests]
        print(f"{name}: {len(tests)} tests, load average {min(loads):.1f}-{max(loads):.1f} "
              f"(mean {sum(loads) / len(loads):.1f})")
    old, new = per_file(before), per_file(after)
    print(f"{'before':>8} {'after':>8} {'saved':>8}  file (CPU s of the worker's process tree)")
    for file in sorted(old.keys() | new.keys(), key=lambda f: -old.get(f, 0.0)):
        print(f"{old.get(file, 0.0):8.1f} {new.get(file, 0.0):8.1f} {old.get(file, 0.0) - new.get(file, 0.0):+8.1f}  {file}")
    saved = sum(old.values()) - sum(new.values())
    print(f"{sum(old.values()):8.1f} {sum(new.values()):8.1f} {saved:+8.1f}  total")
    if target is not None:
        print(f"CPU saved {saved:.1f} s, target {target:.1f} s: {'PASS' if saved >= target else 'MISS'}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("timeline")
    parser.add_argument("--files", type=int, default=15, help="how many of the costliest files to list")
    parser.add_argument("--before", help="a timeline of the same files before a change: print the CPU each file saved")
    parser.add_argument("--target", type=float, help="with --before: the CPU seconds to save, for a PASS/MISS line")
    args = parser.parse_args(argv)
    if args.before:
        compare(load(args.before), load(args.timeline), args.target)
        return
    tests = load(args.timeline)
    if not tests:
        raise SystemExit(f"{args.timeline}: no tests recorded")
    t0, t1 = min(t["start"] for t in tests), max(t["end"] for t in tests)
    runs = runs_of_files(tests)
    by_worker: dict[str, list[dict]] = defaultdict(list)
    for run in runs:
        by_worker[run["worker"]].append(run)
    for test in tests:
        if test.get("outcome", "passed") == "failed":
            print(f"FAILED {test['test']} ({test['end'] - test['start']:.1f} s, CPU {test['cpu']:.1f} s)")
    loads = [t["load"] for t in tests]
    print(f"{len(tests)} tests, first start to last end {t1 - t0:.1f} s; load average seen by the tests "
          f"{min(loads):.1f}-{max(loads):.1f} (mean {sum(loads) / len(loads):.1f})")
    for worker, mine in sorted(by_worker.items()):
        busy = sum(t["end"] - t["start"] for t in tests if t["worker"] == worker)
        cpu = sum(r["cpu"] for r in mine)
        end = max(r["end"] for r in mine)
        print(f"\n{worker}: {len(mine)} files, in tests {busy:.1f} s, CPU {cpu:.1f} s, "
              f"done at {end - t0:.1f} s (idle {t1 - end:.1f} s at the end)")
        for run in mine:
            print(f"  {run['start'] - t0:7.1f} {run['end'] - run['start']:7.1f} s  cpu {run['cpu']:6.1f}  "
                  f"{run['tests']:4d}  {run['file']}")
    print(f"\nThe {args.files} costliest files (wall in tests, CPU of the worker's process tree):")
    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for run in runs:
        totals[run["file"]][0] += run["end"] - run["start"]
        totals[run["file"]][1] += run["cpu"]
    for name, (wall, cpu) in sorted(totals.items(), key=lambda kv: -kv[1][0])[:args.files]:
        print(f"  {wall:7.1f} s  cpu {cpu:6.1f}  {name}")


if __name__ == "__main__":
    main()
