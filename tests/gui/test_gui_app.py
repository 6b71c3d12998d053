"""The whole application window: the example, project save/close/reopen, errors as dialogs,
and the --screenshot command line."""

import os
import subprocess
import sys

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QMessageBox

from tklscore.gui.main_window import MainWindow


def scored(qtbot, win):
    qtbot.waitUntil(lambda: bool(win.workbench.reports) and not win.workbench.runner.current, timeout=15000)


def test_example_opens_in_every_view(qtbot, window):
    window.workbench.load_example("thesis")
    scored(qtbot, window)
    assert window.windowTitle().startswith("thesis example")
    for key in ("release", "scores", "model", "ahp"):
        window.show_view(key)
        assert window.current_view() is window.views[key]
    assert window.views["scores"].summary_text(0, 0) == f"{window.workbench.current_report().scores.tkl:.5f}"


def test_save_close_and_reopen_a_project(qtbot, window, tmp_path, monkeypatch):
    bench = window.workbench
    bench.load_example("thesis")
    scored(qtbot, window)
    arv = bench.model.find("V.ARV").iri
    bench.edit_model("label", lambda m: m.set_label(arv, "very restricted"))
    scored(qtbot, window)
    assert window.windowTitle().endswith("* — tkl-Score Workbench")
    path = tmp_path / "saved.tklproj"
    monkeypatch.setattr("PySide6.QtWidgets.QFileDialog.getSaveFileName", lambda *a, **k: (str(path), ""))
    assert window.save_project()
    assert path.exists() and not bench.is_dirty() and "*" not in window.windowTitle()
    state, tkl = bench.model.state(), bench.current_report().scores.tkl
    window.close()
    again = MainWindow(settings=window.settings)
    qtbot.addWidget(again)
    assert again.open_project(str(path))
    scored(qtbot, again)
    assert again.workbench.model.state() == state
    assert again.workbench.current_report().scores.tkl == pytest.approx(tkl)
    assert window.settings.value("recent", [], list)[0] == str(path)
    again.workbench.runner.wait()


def test_a_malformed_project_gives_a_specific_dialog(qtbot, window, tmp_path):
    bad = tmp_path / "bad.tklproj"
    bad.write_text('{"format": "tklscore-project", "version": 1, "source": {}, "roles": {"qi": ["a"], "sa": ["a"]}}')
    assert not window.open_project(str(bad))
    dialog = window.findChild(QMessageBox, "errorDialog")
    assert dialog is not None and dialog.text() == f"{bad}, column 'a': has two roles (quasi-identifier and sensitive); a column has one role"
    dialog.close()


def test_screenshot_command_renders_a_view(tmp_path):
    out = tmp_path / "scores.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_DATA_HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "tklscore", "gui", "--example", "thesis", "--view", "scores",
                           "--screenshot", str(out)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1600, 1000)


def test_the_window_lives_and_dies_while_the_cycle_collector_is_off(qapp, monkeypatch):
    """The collector, triggered by an allocation inside a Qt call that holds one of Qt's locks
    (a disconnect while the window was torn down), deleted a dead QObject that takes the same
    lock: the process hung for good after its screenshot (seen once in CI and once in ~400 runs).
    The window's whole life and teardown run with it off; what they left is collected at once,
    at a safe point, before allocations may trigger it again."""
    import gc
    import weakref

    from PySide6.QtCore import QObject

    from tklscore.gui import app as gui_app

    seen = {}

    def window_life(*_args):
        seen["collecting"] = gc.isenabled()
        left = QObject()
        left.cycle = left   # a QObject in a reference cycle, as a settled task's signals are
        seen["left"] = weakref.ref(left)
        return 0

    monkeypatch.setattr(gui_app, "_run_window", window_life)
    gc.enable()
    try:
        assert gui_app.run() == 0
        assert seen["collecting"] is False
        assert seen["left"]() is None and gc.isenabled()
    finally:
        gc.disable()   # as the GUI tests run (tests/gui/conftest.py)


def test_chart_settings_and_the_model_travel_with_the_project(qtbot, window, tmp_path, monkeypatch):
    from tklscore.gui.scores.charts import SORT_TKL
    from tklscore.core.report import build_report_html
    from tklscore.gui.report import report_input

    bench = window.workbench
    bench.load_example("thesis")
    scored(qtbot, window)
    scores = window.views["scores"]
    scores.order_combo.setCurrentIndex(scores.order_combo.findData(SORT_TKL))
    assert bench.project.settings["per_record_order"] == SORT_TKL and bench.is_dirty()
    html = build_report_html(report_input(bench))
    assert "The tkl-Data Model" in html and "HIV</td><td align='left'>V-0</td>" in html and "0.43169" in html
    path = tmp_path / "charts.tklproj"
    bench.save_project(str(path))
    again = MainWindow(settings=window.settings)
    qtbot.addWidget(again)
    assert again.open_project(str(path))
    scored(qtbot, again)
    assert again.views["scores"].order_combo.currentData() == SORT_TKL
    assert again.views["scores"].per_record_chart.order == SORT_TKL
    again.workbench.runner.wait()


def test_qt_is_loaded_without_its_import_hook():
    """PySide6's first import puts shiboken's hook in place of Python's import statement (every
    later import then runs a Python function: 1.14x the CPU for the core's work);
    ``import_qt`` puts Python's own back. This process loaded Qt through it (tests/conftest.py),
    as the gui and PDF report commands do."""
    import builtins

    assert "PySide6.QtCore" in sys.modules
    assert builtins.__import__.__name__ == "__import__" and builtins.__import__.__self__ is builtins


def test_the_cycle_collector_runs_on_the_ui_thread_only():
    """A cycle holding a Qt object, collected on a task's thread, deadlocked a window (seen in
    CI: a lane thread in ~QObject waiting for the GIL the UI thread held while it waited for that
    object's lock): while the application runs, Python collects cycles on the UI thread's timer
    only, and the collector is as it was once it returns. In its own process, as a user starts it."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent("""
        import gc
        from PySide6.QtWidgets import QApplication
        from tklscore.gui import app as app_module

        seen = []
        def exec_(self):
            seen.append(gc.isenabled())
            for window in QApplication.topLevelWidgets():
                window.close()
            return 0
        QApplication.exec = exec_
        assert app_module.run(example="thesis") == 0 and gc.isenabled()
        gc.disable()
        assert app_module.run(example="thesis") == 0 and not gc.isenabled()
        print(seen)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[False, False]"


def test_the_application_s_start_up_sets_the_switch_interval_freezes_and_lowers_core_s_helpers(monkeypatch):
    import threading

    from tklscore.core.scoring.distinguishing_factors import BESIDE, BESIDE_THREADS
    from tklscore.gui import app
    from tklscore.gui.tasks import BACKGROUND_NICE

    def nice() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    import gc

    before = sys.getswitchinterval()
    monkeypatch.setattr(app, "_prepared", False)
    sys.setswitchinterval(0.005)   # Python's default
    frozen = gc.get_freeze_count()
    try:
        app.prepare_ui_process()
        assert sys.getswitchinterval() <= app.UI_SWITCH_INTERVAL == 0.001
        assert gc.get_freeze_count() > frozen    # the start-up's objects: out of the collector's reach
        if sys.platform.startswith("linux"):      # memory in small pages (core/memory.py)
            import pyarrow as pa

            assert pa.default_memory_pool().backend_name != "mimalloc"
        sys.setswitchinterval(0.005)
        app.prepare_ui_process()      # once per process
        assert sys.getswitchinterval() == 0.005
    finally:
        sys.setswitchinterval(before)
        gc.unfreeze()
    if not sys.platform.startswith("linux"):
        return   # threads have a priority of their own on Linux only
    background = min(19, nice() + BACKGROUND_NICE)
    every = threading.Barrier(BESIDE_THREADS)

    def helper_nice() -> int:
        every.wait(timeout=5)
        return nice()

    assert [job.result(10) for job in [BESIDE.submit(helper_nice) for _ in range(BESIDE_THREADS)]] \
        == [background] * BESIDE_THREADS
    assert nice() == background - BACKGROUND_NICE   # the UI thread keeps its own
