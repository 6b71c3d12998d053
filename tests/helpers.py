"""Helpers shared by the test modules."""

from tklscore.cli import main


def engine_examples(thorough: int) -> int:
    """How many examples an engine-versus-memory comparison runs: ``thorough`` under
    HYPOTHESIS_PROFILE=thorough, half of them under the default profile "ci" (tests/conftest.py)."""
    from hypothesis import settings

    return thorough if settings.get_current_profile_name() == "thorough" else max(1, thorough // 2)


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


# The Spark driver's JVM in a test runs tiny tables for a few minutes: its client compiler
# (C1) alone and one garbage-collector thread halve its CPU time on two shared cores (C2's
# compiling of Spark's planner never pays back within a test), and change no number.
# Tests only: a user's long jobs on big tables want C2 and a parallel collector.
TEST_SPARK_CONF = {"spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}
