"""Summarise the schedule of a parallel test run recorded with TKLSCORE_TEST_TIMELINE=FILE
(tests/conftest.py writes a JSON line per test: worker, file, start, end, CPU of the worker's
process tree). Prints each worker's busy and idle time, the files in the order each worker ran
them, and the files that cost the most.

    TKLSCORE_TEST_TIMELINE=/tmp/timeline.jsonl bash scripts/test.sh
    python scripts/test_timeline.py /tmp/timeline.jsonl [--files 15]
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


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("timeline")
    parser.add_argument("--files", type=int, default=15, help="how many of the costliest files to list")
    args = parser.parse_args(argv)
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
