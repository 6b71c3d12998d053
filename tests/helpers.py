"""Helpers shared by the test modules."""

import os

from tklscore.cli import main


def examples(thorough: int) -> int:
    """How many examples a costly hypothesis comparison runs (an out-of-core engine against
    memory: dozens of DuckDB statements each; a brute-force or peer oracle: pycanon, the
    exhaustive PIA optimum recomputed): half of ``thorough`` by default, all of them with
    ``TKLSCORE_THOROUGH=1``. Every other hypothesis setting is hypothesis' default."""
    return thorough if os.environ.get("TKLSCORE_THOROUGH") == "1" else max(1, thorough // 2)


def run_cli(capsys, argv) -> tuple[int, str, str]:
    """``main(argv)``'s exit status, stdout and stderr; main must return, never exit."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def window_with_memory_share(tmp_path, share: float, name: str):
    """A shown MainWindow whose settings (its own file under ``tmp_path``) set the memory
    share: tiny, every source is read out of core; 1.0, loaded. No autosave."""
    from PySide6.QtCore import QSettings, QStandardPaths

    from tklscore.gui.main_window import MainWindow

    QStandardPaths.setTestModeEnabled(True)
    settings = QSettings(str(tmp_path / f"{name}.ini"), QSettings.Format.IniFormat)
    settings.setValue("engines/memory_share", share)
    window = MainWindow(settings=settings)
    window.workbench.autosave_timer.stop()
    window.resize(1400, 900)
    window.show()
    return window


def close_window(window) -> None:
    """End a window's tasks and close it without asking to save."""
    workbench = window.workbench
    workbench.runner.cancel_all()
    workbench.runner.wait()
    workbench.undo_stack.setClean()
    workbench._mark(False)
    window.close()


# The Spark driver's JVM in a test runs tiny tables for a few minutes; none of these settings
# changes a number, and none is the product's: a user's long jobs on big tables want them all.
# - The client compiler (C1) alone and one garbage-collector thread halve its CPU time on two
#   shared cores (C2's compiling of Spark's planner never pays back within a test).
# - Memory pages of 1 MB: local mode sizes them from the heap (16 MB with 1 GB), and every hash
#   aggregate, sort and broadcast relation takes at least one, zeroed, even for 7 rows. Measured
#   (session 10, JFR): the broadcast relations alone kept about 400 MB live in 1 GB, the heap was
#   collected in full about 20 times in a few minutes (11 CPU-s of garbage collection; 5 with 1 MB).
# - Expressions interpreted, not compiled: Janino compiling each projection and looking its
#   names up in every jar of the class path took half the executor threads' CPU (23 -> 11 CPU-s
#   in the same probe). Whole-stage code and adaptive re-planning likewise cost more than they
#   save on tables this small.
TEST_SPARK_CONF = {"spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
                   "spark.buffer.pageSize": "1m",
                   "spark.sql.codegen.factoryMode": "NO_CODEGEN",
                   "spark.sql.codegen.wholeStage": "false",
                   "spark.sql.adaptive.enabled": "false"}


def cancelled_at_once(qtbot, runner, start):
    """``start()`` a task on the idle ``runner`` and press Cancel (``cancel_shown``, the status
    bar's) before its thread begins, so its function never runs; the task, once settled."""
    start()
    task = runner.shown
    assert task is not None and not task.begun
    assert runner.cancel_shown() is task
    qtbot.waitUntil(lambda: not runner.current, timeout=10_000)
    return task
