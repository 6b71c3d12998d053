"""Peak memory of a large release through the application's path and the command line, with
the per-record results kept on disk (issue 23 §1: "per-record outputs stream (Parquet) and
the views fetch the first rows and the totals; peak memory of a 20M-row release through the
GUI path <= 3 GB").

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_gui_stream.py [--rows 20000000]
                                                                              [--dir DIR]

Writes (chunk by chunk, never the whole table in memory: ``_common.write_typed_source``) a
seeded Parquet source of N rows, and measures, each in a fresh process (its peak RSS its own):

1. the GUI path: a ``Workbench`` (offscreen) with the memory share set so that the source is
   read out of core, as the application reads a file larger than its share of memory: the
   source described, its roles checked, a release of every record (a filter) scored and
   measured (``score_project``), then the Scores view's ``PagedRecordsModel`` over the
   report's record store: the first page with the riskiest border, three more pages
   (fetchMore), the first page sorted by RS tkl, and the charts' points (ranks of both
   orders, the running scores);
2. ``tklscore score SOURCE --filter … --engine duckdb --memory-limit 2GB --format csv
   --output records.csv`` (the records written from the store batch by batch).

Every figure: wall and CPU time, peak RSS; the machine may be shared (load average printed).
Target: peak RSS ≤ 3 GB for both.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (CONTINUOUS_SA, QI, SA, Stopwatch, add_source_arguments, load_average, machine,  # noqa: E402
                     megabytes, peak_rss_mb, run_measured, tklscore_command, verdict, work_folder,
                     write_typed_source)

TARGET_RSS_MB = 3072.0
RELEASE = "age >= 0"      # every record: the largest release the source allows


def gui_child(source: str, weights: str, memory_limit: str) -> dict:
    """The GUI path in this process (offscreen), its steps timed."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from tklscore.core.release.selection import ReleaseDefinition
    from tklscore.core.report.charts import PER_RECORD_KEYS, SORT_THESIS, SORT_TKL
    from tklscore.core.tables.roles import Roles
    from tklscore.gui.charts import decimate
    from tklscore.gui.scores.paged_model import PagedRecordsModel
    from tklscore.gui.workbench import Workbench

    app = QApplication.instance() or QApplication([])
    steps: dict[str, list[float]] = {}

    def wait(condition, what: str, timeout: float = 3600.0) -> None:
        watch = Stopwatch()
        deadline = time.monotonic() + timeout
        while not condition():
            app.processEvents()
            time.sleep(0.005)
            if time.monotonic() > deadline:
                raise SystemExit(f"timed out waiting for {what}")
        steps[what] = [watch.wall, watch.cpu]

    workbench = Workbench()
    workbench.autosave_timer.stop()
    workbench.memory_share = 1e-9     # read out of core, as a file larger than the share of memory
    failures: list[str] = []
    workbench.failed.connect(failures.append)
    workbench.use_weights_file(weights)
    workbench.open_source(source, roles=Roles(qi=list(QI), sa=list(SA), continuous=[CONTINUOUS_SA],
                                              identifier="id"))
    workbench.add_release(ReleaseDefinition("Everyone", "filter", expression=RELEASE))
    workbench.set_current_release("Everyone")
    wait(lambda: ("Everyone" in workbench.reports and not workbench.runner.current) or failures, "scores")
    if failures:
        raise SystemExit("; ".join(failures))
    report = workbench.current_report()
    assert workbench.out_of_core and report.stored is not None and report.records.empty
    model = PagedRecordsModel(workbench.runner)
    model.set_store(report.stored)
    wait(lambda: model.rowCount() > 0 and model.border is not None and not model.loading, "first page")
    for _ in range(3):
        model.fetchMore()
        wait(lambda: not model.loading, "next page")
    pages = model.rowCount()
    model.sort(5, Qt.SortOrder.DescendingOrder)
    wait(lambda: model.rowCount() > 0 and not model.loading, "sorted first page")
    top = float(model.data(model.index(0, 5), Qt.ItemDataRole.UserRole))
    watch = Stopwatch()
    ranks = decimate(report.published_rows)
    for kind in (SORT_THESIS, SORT_TKL):
        report.stored.at_ranks(PER_RECORD_KEYS[kind], ranks, ["id", "tkl", "m_score", "l_severity"])
    steps["chart points"] = [watch.wall, watch.cpu]
    watch = Stopwatch()
    report.stored.cumulative_at(ranks, report.x)
    steps["running scores"] = [watch.wall, watch.cpu]
    result = {"steps": steps, "limit": workbench.engine_choice.memory_limit(), "rss_mb": peak_rss_mb(), "published": report.published_rows, "rows": pages,
              "tkl": report.scores.tkl, "top": top, "riskiest": model.border.count,
              "measured": "Everyone" in workbench.measures}
    workbench.runner.cancel_all()
    workbench.runner.wait()
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_source_arguments(parser)
    parser.add_argument("--skip-cli", action="store_true", help="measure the GUI path only")
    parser.add_argument("--child", nargs=3, metavar=("SOURCE", "WEIGHTS", "LIMIT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(gui_child(*args.child)))
        return 0
    with work_folder(args.dir) as folder:
        print(f"{machine()}; {args.rows:,} rows; CLI --memory-limit {args.memory_limit}")
        watch = Stopwatch()
        inputs = write_typed_source(folder, args.rows, args.seed)
        print(f"inputs written chunk by chunk in {watch.wall:.0f} s (source {megabytes(inputs['source'])} MB Parquet)")
        me = [sys.executable, str(Path(__file__).resolve())]
        gui = run_measured(me + ["--child", str(inputs["source"]), str(inputs["weights"]), args.memory_limit])
        g = json.loads(gui.out)
        ok = gui.rss_mb <= TARGET_RSS_MB
        print(f"1. GUI path (Workbench out of core + the Scores view's paged model), {g['published']:,}-record "
              f"release: {gui.wall:.1f} s wall, CPU {gui.cpu:.1f} s, peak RSS {gui.rss_mb:.0f} MB "
              f"{verdict(ok)} (≤ {TARGET_RSS_MB:.0f}); load average now {load_average():.1f}")
        for step, (wall, cpu) in g["steps"].items():
            print(f"   {step:<18} {wall:8.2f} s wall {cpu:8.2f} s CPU (UI thread's process)")
        print(f"   the application's DuckDB memory limit: {g['limit']}")
        print(f"   tkl = {g['tkl']:.10g}; {g['rows']:,} rows paged in; riskiest {g['riskiest']:,}, top RS tkl "
              f"{g['top']:.6g}; measured: {g['measured']}")
        if not args.skip_cli:
            output = folder / "records.csv"
            command = tklscore_command("score", inputs["source"], "--filter", RELEASE, "--id-column", "id",
                                       "--qi", ",".join(QI), "--sa", ",".join(SA), "--continuous", CONTINUOUS_SA,
                                       "--weights", inputs["weights"], "--engine", "duckdb", "--memory-limit",
                                       args.memory_limit, "--format", "csv", "--output", output)
            cli = run_measured(command)
            cli_ok = cli.rss_mb <= TARGET_RSS_MB
            ok = ok and cli_ok
            print(f"2. tklscore score --engine duckdb --format csv --output records.csv: {cli.wall:.1f} s wall, "
                  f"CPU {cli.cpu:.1f} s, peak RSS {cli.rss_mb:.0f} MB {verdict(cli_ok)} (≤ {TARGET_RSS_MB:.0f}); "
                  f"{megabytes(output)} MB written; load average now {load_average():.1f}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
