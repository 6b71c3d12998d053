"""How long exporting a chart blocks the window for a release scored out of core.

A synthetic project (``bench_gui.py``'s source, 10 % published) is opened in a window whose
memory share sends every source to DuckDB, so the release's per-record scores stay on disk.
In the Scores view the per-record chart's order is changed and, before its points arrive,
each chart is exported (the export must read the points first); then the charts, drawn, are
exported again (drawing only). A 10 ms timer measures the longest event-loop block from the
click until the file is written. Target: no block over 100 ms (the guide); on a busy machine
the UI thread's CPU time in the longest block is printed beside it (the rest is waiting for a CPU).

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_gui_export.py [--rows N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from PySide6.QtCore import QSettings, QStandardPaths  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from _common import Stopwatch, load_average, machine, peak_rss_mb, sample as published_sample  # noqa: E402
from bench_gui import BlockMeter, project_inputs, wait  # noqa: E402
from tklscore.core.project import Project  # noqa: E402
from tklscore.core.release.selection import ReleaseDefinition  # noqa: E402
from tklscore.gui.app import prepare_ui_process  # noqa: E402
from tklscore.gui.main_window import MainWindow  # noqa: E402
from tklscore.gui.scores.charts import SORT_THESIS, SORT_TKL  # noqa: E402

TARGET_BLOCK_S = 0.1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--keep", metavar="FOLDER", help="copy the exported charts into FOLDER (to look at them)")
    args = parser.parse_args(argv)
    app = QApplication.instance() or QApplication([])
    frame, roles, model, folder, source = project_inputs(args.rows, args.seed, "tklscore-bench-export-")
    sample = published_sample(args.rows, np.random.default_rng(args.seed))
    Project(source_path=str(source), roles=roles,
            releases=[ReleaseDefinition("most records", "filter", expression="workclass != 'workclass-00'"),
                      ReleaseDefinition("10 % sample", "ids", ids=tuple(map(str, sample)))],
            current_release="most records",
            model_turtle=model.to_graph().serialize(format="turtle")).save(folder / "bench.tklproj")
    del frame
    QStandardPaths.setTestModeEnabled(True)
    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue("engines/memory_share", 1e-9)   # every source out of core: the records stay on disk
    window = MainWindow(settings=settings)
    prepare_ui_process()
    window.workbench.autosave_timer.stop()
    window.resize(1400, 900)
    window.show()
    bench = window.workbench
    watch = Stopwatch()
    bench.open_project(str(folder / "bench.tklproj"))
    wait(app, lambda: bench.reports and not bench.runner.current, timeout=3600.0)
    window.show_view("scores")
    view = window.views["scores"]
    wait(app, lambda: not view.charts_pending() and not bench.runner.current)
    report = bench.current_report()
    print(f"rows = {args.rows:,}; release '{bench.project.current_release}' of {report.published_rows:,} records, "
          f"out of core: {report.stored is not None}; opened and drawn in {watch.wall:.1f} s (CPU {watch.cpu:.1f} s)")
    meter = BlockMeter(bench)
    verdicts = []
    for case, chart_name, reorder in (("per-record chart, its points still to read", "per_record_chart", True),
                                      ("growth chart, its points still to read", "growth_chart", True),
                                      ("per-record chart, drawn", "per_record_chart", False)):
        path = folder / f"{chart_name}-{int(reorder)}.png"
        if reorder:   # the order changed: the per-record chart's points are being read
            order = SORT_TKL if view.per_record_chart.order == SORT_THESIS else SORT_THESIS
            view.order_combo.setCurrentIndex(view.order_combo.findData(order))
            view.charts_panel.steps = [view.charts_panel.draw_growth]   # and the growth chart is still to draw
        meter.start()
        watch = Stopwatch()
        view.export_chart(str(path), getattr(view, chart_name))
        wait(app, lambda: path.exists() and not bench.runner.current)
        blocked = meter.stop()
        ok = blocked <= TARGET_BLOCK_S
        print(f"export {case}: written in {watch.wall * 1000:.0f} ms (CPU {watch.cpu * 1000:.0f} ms, "
              f"{path.stat().st_size / 1e3:.0f} kB); longest event-loop block {blocked * 1000:.0f} ms "
              f"(UI-thread CPU of the longest {meter.longest_cpu * 1000:.0f} ms) target ≤ 100 ms "
              f"{'PASS' if ok else 'MISS'}; load average {load_average():.1f}")
        print(meter.where())
        verdicts.append(f"no block > 100 ms exporting the {case}: {'PASS' if ok else 'MISS'} "
                        f"(longest {blocked * 1000:.0f} ms; on the UI thread's CPU time alone, "
                        f"{meter.longest_cpu * 1000:.0f} ms: {'PASS' if meter.longest_cpu <= TARGET_BLOCK_S else 'MISS'})")
        if args.keep:
            shutil.copy(path, Path(args.keep) / path.name)
    print(f"peak RSS {peak_rss_mb():.0f} MB; {machine()}")
    print(f"verdicts ({args.rows:,} rows; load average {load_average():.1f}):")
    for line in verdicts:
        print(f"  {line}")
    bench.undo_stack.setClean()
    bench._mark(False)
    bench.runner.cancel_all()
    bench.runner.wait()
    window.close()
    shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
