"""The core's work in a process that has loaded Qt, as the application's: Qt imported through
``tklscore.gui.qt_import.import_qt`` (Python's own import statement kept) against PySide6
imported plainly (shiboken's ``__feature_import__`` hook left on every later import), each in
a process of its own, alternately, the same work: the thesis example scored, measured and its
releases suggested, as a person's edits in the Design and Risk views ask for them, and its table read from its CSV text.

    .venv/bin/python benchmarks/bench_qt_import.py [--pairs 3] [--rounds 40]

Prints the CPU seconds of the work alone (imports excluded) per process, the medians and their
ratio, with the load average. Target: import_qt's work at most 0.95 of the hooked one's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, load_average, machine, overall, verdict  # noqa: E402

CHILD = """
import builtins, json, sys, time
sys.path.insert(1, {src!r})
if {mode!r} == "import_qt":
    from tklscore.gui.qt_import import import_qt
    import_qt()
else:
    import PySide6.QtCore  # noqa: F401
import tempfile
from pathlib import Path
from tklscore.core import load_table
from tklscore.core.examples import thesis_example, thesis_hierarchies, thesis_source_csv
from tklscore.core.release.designer import ReleaseDesigner
from tklscore.core.release.suggest import Constraints, suggest
from tklscore.core.risk import measure_table
from tklscore.core.scoring.scores import Scorer
example = thesis_example()
positions = [int(i) for i in example.published_ids]
start = time.process_time()
path = Path(tempfile.mkdtemp()) / "table_3_1.csv"
path.write_text(thesis_source_csv(), encoding="utf-8")
for _ in range({rounds}):
    load_table(path)
    Scorer(example.source, example.roles).score(positions, example.weights)
    measure_table(example.source.frame, qi=example.roles.qi, sa=example.roles.sa,
                  continuous=example.roles.continuous)
    suggest(ReleaseDesigner(example.source, example.roles, thesis_hierarchies()), example.weights,
            Constraints(k=2, suppression_limit=0.4))
print(json.dumps({{"cpu": time.process_time() - start, "hook": builtins.__import__.__name__}}))
"""


def run(mode: str, rounds: int) -> dict:
    code = CHILD.format(src=str(ROOT / "src"), mode=mode, rounds=rounds)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"})
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    print(machine())
    cpu = {"hooked": [], "import_qt": []}
    for _ in range(args.pairs):
        for mode in cpu:
            result = run(mode, args.rounds)
            cpu[mode].append(result["cpu"])
            print(f"  {mode:9s} {result['cpu']:7.2f} CPU-s  (builtins.__import__: {result['hook']}, "
                  f"load {load_average():.1f})")
    hooked, kept = statistics.median(cpu["hooked"]), statistics.median(cpu["import_qt"])
    ratio = kept / hooked
    ok = ratio <= 0.95
    print(f"{args.rounds} rounds of read + score + measures + suggest on the thesis example: median {kept:.2f} CPU-s "
          f"with import_qt against {hooked:.2f} with PySide6's hook: {ratio:.2f}x  {verdict(ok)}")
    return overall(ok)


if __name__ == "__main__":
    sys.exit(main())
