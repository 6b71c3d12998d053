"""Linearity of the work issue 19 §5 found super-linear: extracting a taxonomy along a long
``rdfs:subClassOf`` chain, and opening a project with many releases.

    .venv/bin/python benchmarks/bench_bad_input.py [--classes 2000 10000] [--releases 1000 10000] [--no-gui]

For each size it prints CPU seconds (this process; the machine is shared) beside wall
seconds and the load average, and for the larger size the ratio of the time per item to
the smaller size's (1 = linear; a quadratic step would show ≈ the size ratio).

- taxonomy: ``Vocabulary.load`` of a chain C0 ⊂ C1 ⊂ … (parsing, not timed against the
  target), then ``extract_taxonomy`` from the deepest class and ``Taxonomy.from_edges``
  (the model's check of a saved taxonomy). Target: ≤ 1 s CPU for 10,000 classes (was 96 s
  for 4,000).
- project: ``Project.load`` of a project with N releases (ids) on the thesis table, then
  the application opening it: ``MainWindow.open_project`` until the Release view lists the
  N releases (``open``), and until every release is scored on the task thread (``scored``;
  main-thread CPU and wall). Target: ≤ 1 s CPU to open 10,000 releases (was 140 s for
  1,000).
The exit status is 1 when a target fails.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

TARGET_S = 1.0


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def timed(function, repeats: int = 3):
    """``function()``'s result, and its median CPU and wall seconds over ``repeats`` runs."""
    runs = []
    for _ in range(repeats):
        cpu, wall = time.process_time(), time.perf_counter()
        result = function()
        runs.append((time.process_time() - cpu, time.perf_counter() - wall))
    return (result, statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs))


def report(name: str, sizes: list[int], cpus: list[float], walls: list[float], unit: str,
           one: str | None = None) -> bool:
    for size, cpu, wall in zip(sizes, cpus, walls):
        print(f"  {name:<34} {size:>7,} {unit}: {cpu:8.3f} s CPU  {wall:8.3f} s wall   ({load()})")
    if len(sizes) > 1 and cpus[0] > 0:
        ratio = (cpus[-1] / sizes[-1]) / (cpus[0] / sizes[0])
        print(f"  {name:<34} CPU per {one or unit[:-1]} at {sizes[-1]:,} / at {sizes[0]:,}: {ratio:.2f} "
              f"(size ratio {sizes[-1] / sizes[0]:.0f})")
    return True


def bench_taxonomy(sizes: list[int], folder: Path) -> bool:
    from hostile import subclass_chain_vocabulary
    from tklscore.core.model.taxonomy import Taxonomy, extract_taxonomy
    from tklscore.core.model.vocabulary import Vocabulary

    print("taxonomy along a subClassOf chain")
    extract_cpu, extract_wall, check_cpu, check_wall = [], [], [], []
    for size in sizes:
        vocabulary = Vocabulary.load(subclass_chain_vocabulary(folder / f"chain{size}.ttl", size))
        taxonomy, cpu, wall = timed(lambda: extract_taxonomy(vocabulary, ["C0"]))
        assert len(taxonomy.nodes) == size
        extract_cpu.append(cpu)
        extract_wall.append(wall)
        _, cpu, wall = timed(lambda: Taxonomy.from_edges(taxonomy.root, taxonomy.edges, taxonomy.labels,
                                                         taxonomy.mapped))
        check_cpu.append(cpu)
        check_wall.append(wall)
    report("extract_taxonomy", sizes, extract_cpu, extract_wall, "classes", "class")
    report("Taxonomy.from_edges", sizes, check_cpu, check_wall, "classes", "class")
    passed = extract_cpu[-1] <= TARGET_S or sizes[-1] < 10_000
    print(f"  target ≤ {TARGET_S:g} s CPU for {sizes[-1]:,} classes: {'PASS' if passed else 'FAIL'}")
    return passed


def project_file(folder: Path, releases: int) -> Path:
    import shutil

    shutil.copy(ROOT / "resources" / "learn" / "Job.csv", folder / "table.csv")
    shutil.copy(ROOT / "resources" / "learn" / "Job_weights.csv", folder / "weights.csv")
    rows = len((folder / "table.csv").read_text(encoding="utf-8").splitlines()) - 1
    data = {"format": "tklscore-project", "version": 1, "source": {"path": "table.csv", "options": {}},
            "roles": {"qi": ["age", "gender", "city"], "sa": ["job"], "continuous": [], "identifier": None},
            "releases": [{"name": f"R{i}", "kind": "ids", "ids": [str(i % rows), str((i + 1) % rows)]}
                         for i in range(releases)],
            "current_release": "R0", "weights": {"path": "weights.csv", "model": None, "use": None,
                                                 "score_models": []},
            "x": 1.0, "settings": {}}
    path = folder / f"project{releases}.tklproj"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def bench_project(sizes: list[int], folder: Path, gui: bool) -> bool:
    from tklscore.core.project import Project

    print("a project with many releases")
    paths = [project_file(folder, size) for size in sizes]
    Project.load(paths[0])  # the first load imports what checking a project needs
    cpus, walls = [], []
    for path in paths:
        _, cpu, wall = timed(lambda: Project.load(path))
        cpus.append(cpu)
        walls.append(wall)
    report("Project.load", sizes, cpus, walls, "releases")
    if not gui:
        return True
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from tklscore.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    open_cpu, open_wall, scored_cpu, scored_wall = [], [], [], []
    for size, path in zip(sizes, paths):
        window = MainWindow(settings=QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat))
        window.workbench.autosave_timer.stop()
        window.show()
        window.show_view("release")
        app.processEvents()
        cpu, wall = time.thread_time(), time.perf_counter()
        assert window.open_project(str(path))
        while window.workbench.table is None:  # the source is read on the task thread
            app.processEvents()
            time.sleep(0.005)
        app.processEvents()
        open_cpu.append(time.thread_time() - cpu)
        open_wall.append(time.perf_counter() - wall)
        while window.workbench.runner.current or len(window.workbench.reports) < size:
            app.processEvents()
            time.sleep(0.005)
        app.processEvents()
        scored_cpu.append(time.thread_time() - cpu)
        scored_wall.append(time.perf_counter() - wall)
        window.workbench.runner.cancel_all()
        window.workbench.runner.wait()
        window.workbench.undo_stack.setClean()
        window.workbench._mark(False)
        window.close()
        app.processEvents()
    report("open in the application (UI thread)", sizes, open_cpu, open_wall, "releases")
    report("… until every release is scored", sizes, scored_cpu, scored_wall, "releases")
    passed = open_cpu[-1] + cpus[-1] <= TARGET_S or sizes[-1] < 10_000
    print(f"  target ≤ {TARGET_S:g} s CPU to open {sizes[-1]:,} releases: {'PASS' if passed else 'FAIL'}")
    return passed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classes", type=int, nargs="+", default=[2000, 10_000])
    parser.add_argument("--releases", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--no-gui", action="store_true", help="time Project.load only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tklscore-bench-") as folder:
        results = [bench_taxonomy(args.classes, Path(folder)),
                   bench_project(args.releases, Path(folder), not args.no_gui)]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
