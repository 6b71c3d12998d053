"""The main window's navigation (gui.md §5): a sidebar of views grouped by person and in
working order, built from one registry; a purpose line atop each view; Ctrl+1… shortcuts;
the current release and its weights named once; a first-run welcome; the patient mode."""

import os

import pytest
from PySide6.QtCore import QSettings, Qt

from paths import DATA
from tklscore import cli
from tklscore.core.errors import InputError
from tklscore.core.release.transform import ReleaseDesign
from tklscore.gui.main_window import MainWindow
from tklscore.gui.navigation import EXPERT, GROUPS, LEARN, OFFICER, PATIENT, VIEWS, WELCOME, ViewEntry, ordered


def make_window(qtbot, tmp_path, monkeypatch, **kwargs):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(settings=settings, **kwargs)
    qtbot.addWidget(win, before_close_func=discard)
    return win


def discard(win):
    """Close without the unsaved-changes question."""
    win.workbench.undo_stack.setClean()
    win.workbench._mark(False)
    win.workbench.runner.cancel_all()
    win.workbench.runner.wait()


def scored(qtbot, win):
    qtbot.waitUntil(lambda: bool(win.workbench.reports) and not win.workbench.runner.current, timeout=15000)


def sidebar_rows(win):
    return [(win.sidebar.item(i).text().strip(), win.sidebar.item(i).data(Qt.ItemDataRole.UserRole))
            for i in range(win.sidebar.count())]


def test_the_sidebar_groups_views_by_person_in_working_order(window):
    rows = sidebar_rows(window)
    headers = [text for text, key in rows if key is None]
    assert headers == [g for g in GROUPS if any(e.group == g for e in VIEWS)]
    assert headers[:3] == [OFFICER, EXPERT, PATIENT]
    keys = window.sidebar_keys()
    assert keys == [e.key for e in ordered()] == list(window.views)
    working_order = ["release", "design", "scores", "risk", "pseudonymization", "model", "ahp", "patient", "learn"]
    assert [k for k in working_order if k in keys] == [k for k in keys if k in working_order]
    group_of = {}
    for text, key in rows:
        if key is None:
            group = text
        else:
            group_of[key] = group
    assert group_of["release"] == group_of["scores"] == OFFICER
    assert group_of["model"] == group_of["ahp"] == EXPERT and group_of["patient"] == PATIENT
    assert [text for text, key in rows if key in ("release", "model", "ahp")] == ["Release", "tkl-Data Model", "AHP"]


def test_a_new_view_is_one_entry_placed_in_its_group():
    entries = (ViewEntry("learn", "Learn", LEARN, "p", "m:C"), ViewEntry("release", "Release", OFFICER, "p", "m:C"),
               ViewEntry("ahp", "AHP", EXPERT, "p", "m:C"), ViewEntry("design", "Design", OFFICER, "p", "m:C"),
               ViewEntry("patient", "Patient", PATIENT, "p", "m:C"))
    assert [e.key for e in ordered(entries)] == ["release", "design", "ahp", "patient", "learn"]
    with pytest.raises(ValueError, match="unknown group 'Officer'"):
        ordered(entries + (ViewEntry("x", "X", "Officer", "p", "m:C"),))
    with pytest.raises(ValueError, match="unique"):
        ordered(entries + (ViewEntry("ahp", "AHP 2", EXPERT, "p", "m:C"),))
    with pytest.raises(ValueError, match=WELCOME):
        ordered(entries + (ViewEntry(WELCOME, "W", LEARN, "p", "m:C"),))


def test_each_view_starts_with_its_purpose(window):
    for entry in VIEWS:
        window.show_view(entry.key)
        page = window.stack.currentWidget()
        assert page.layout().itemAt(0).widget().text() == entry.purpose
        assert page.layout().itemAt(1).widget() is window.views[entry.key] is window.current_view()
        assert window.sidebar.currentItem().data(Qt.ItemDataRole.UserRole) == entry.key


def test_a_window_builds_each_view_when_it_is_first_shown(window):
    assert window.views.built() == {}                      # constructed: no view built yet
    assert "design" in window.views and list(window.views) == window.sidebar_keys() and not window.views.built()
    window.show()                                          # shown on the Release view: that one only
    assert list(window.views.built()) == ["release"] and window.views["release"].isVisible()
    window.show_view("risk")
    risk = window.views["risk"]
    assert list(window.views.built()) == ["release", "risk"] and risk.isVisible() and window.views["risk"] is risk
    assert window.stack.currentWidget().layout().itemAt(1).widget() is risk


def test_a_designed_release_made_current_reaches_the_design_view_built_later(thesis_window):
    win, workbench = thesis_window, thesis_window.workbench
    assert not win.views.is_built("design")
    design = ReleaseDesign("Alberta", {"City": 1}, selection=workbench.project.release("Scenario 1"))
    workbench.project.settings.setdefault("design", {})["saved"] = [design.to_dict()]
    workbench.set_current_release("Alberta")
    assert not win.views.is_built("design") and win.current_key() == "release"   # no view built for it
    view = win.views["design"]
    assert view.sliders["City"].value() == 1 and view.design().selection.name == "Scenario 1"
    assert view.design().levels == design.levels


def test_ctrl_number_opens_the_views_in_sidebar_order(qtbot, window):
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    for number, key in enumerate(window.sidebar_keys()[:9], start=1):
        assert window.view_actions[key].shortcut().toString() == f"Ctrl+{number}"
    last = window.sidebar_keys()[-1]
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)   # a view not built: on show a turn later
    qtbot.waitUntil(lambda: window.current_key() == window.sidebar_keys()[1])
    window.view_actions[last].trigger()
    qtbot.waitUntil(lambda: window.current_key() == last)
    qtbot.keyClick(window, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    assert window.current_key() == "release"                                          # built: at once


def test_a_click_builds_a_view_in_one_turn_and_shows_it_in_the_next(qtbot, window):
    """Neither turn of the event loop blocks the window for as long as both would; the row
    clicked is marked at once; a view clicked meanwhile wins."""
    window.show()
    qtbot.waitExposed(window)
    window.open_view("risk")
    assert window.views.is_built("risk") and window.current_key() == "release"   # built off screen
    assert window.sidebar.currentItem().data(Qt.ItemDataRole.UserRole) == "risk"
    qtbot.waitUntil(lambda: window.current_key() == "risk")
    assert window.views["risk"].isVisible()
    window.open_view("model")                   # asked for, then another view before the next turn
    window.open_view("ahp")
    qtbot.waitUntil(lambda: window.current_key() == "ahp")
    qtbot.wait(20)
    assert window.current_key() == "ahp" and window.views.is_built("model") and not window.views["model"].isVisible()


def test_the_current_release_and_its_weights_are_named_once(qtbot, window):
    header, chooser, status = window.release_header, window.release_chooser, window.release_info
    assert status.text() == "No release yet · no weights yet"
    window.workbench.load_example("thesis")
    scored(qtbot, window)
    window.show()
    window.show_view("release")
    assert header.isVisible() and chooser.currentText() == "Scenario 1"
    assert [chooser.itemText(i) for i in range(chooser.count())] == ["Scenario 1", "Scenario 2"]
    assert window.release_details.text() == "(4 of 7 records) · weights from the tkl-Data Model"
    assert status.text() == "Release: Scenario 1 (4 of 7 records) · weights from the tkl-Data Model"
    window.show_view("scores")
    assert not window.views["scores"].release_combo.isVisible()     # named once: in the header
    window.show_view("model")
    assert not header.isVisible() and status.isVisible()
    window.show_view("release")
    chooser.activated.emit(1)                      # the officer switches the release at the top
    scored(qtbot, window)
    assert window.workbench.project.current_release == "Scenario 2"
    assert window.views["release"].selected_release() == "Scenario 2"
    window.workbench.use_weights_file(str(DATA / "thesis_table_4_2_weights.csv"))
    scored(qtbot, window)
    assert window.release_details.text() == "(7 of 7 records) · weights from thesis_table_4_2_weights.csv"
    assert status.text() == "Release: Scenario 2 (7 of 7 records) · weights from thesis_table_4_2_weights.csv"


def test_first_run_welcome_then_straight_to_work(qtbot, tmp_path, monkeypatch):
    first = make_window(qtbot, tmp_path, monkeypatch)
    assert not first.welcome_seen()
    assert first.start(None, opened=False) == WELCOME and first.current_view() is first.welcome
    assert first.welcome_seen()
    assert set(first.welcome.buttons) == {"example", "open"} | ({"learn"} & set(first.views))
    again = make_window(qtbot, tmp_path, monkeypatch)
    assert again.start(None, opened=False) == "release"
    assert again.start("ahp", opened=False) == "ahp"
    help_menu = next(a.menu() for a in again.menuBar().actions() if a.text() == "&Help")
    next(a for a in help_menu.actions() if a.text() == "&Welcome page").trigger()
    assert again.current_key() == WELCOME
    fresh = make_window(qtbot, tmp_path / "other", monkeypatch)
    assert fresh.start(None, opened=True) == "release"


def test_welcome_entry_points(qtbot, window, monkeypatch):
    asked = []
    monkeypatch.setattr("PySide6.QtWidgets.QFileDialog.getOpenFileName",
                        lambda *a, **k: asked.append(a) or ("", ""))
    window.show_welcome()
    qtbot.mouseClick(window.welcome.buttons["open"], Qt.MouseButton.LeftButton)
    assert window.current_key() == "release" and len(asked) == 1
    window.show_welcome()
    qtbot.mouseClick(window.welcome.buttons["example"], Qt.MouseButton.LeftButton)
    scored(qtbot, window)
    assert window.current_key() == "scores" and window.workbench.project.builtin == "thesis"


def test_patient_mode_shows_only_the_patient_view(qtbot, tmp_path, monkeypatch):
    win = make_window(qtbot, tmp_path, monkeypatch, patient_mode=True)
    win.show()
    assert list(win.views) == ["patient"] and win.current_key() == "patient"
    assert not win.sidebar.isVisible() and not win.statusBar().isVisible() and not win.release_header.isVisible()
    assert [a.text() for a in win.menuBar().actions()] == ["&File", "&Help"]
    assert win.start(None, opened=False) == "patient"
    with pytest.raises(InputError, match="there is no view 'scores' here"):
        win.show_view("scores")


def test_the_command_line_offers_every_registered_view():
    parser = cli.build_parser()
    for entry in VIEWS:
        assert parser.parse_args(["gui", "--view", entry.key]).view == entry.key
    assert parser.parse_args(["gui", "--view", WELCOME]).view == WELCOME
    assert parser.parse_args(["gui"]).view is None


def test_patient_mode_from_the_command_line(tmp_path):
    import subprocess
    import sys

    from PySide6.QtGui import QImage

    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_DATA_HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path))
    out = tmp_path / "patient.png"
    done = subprocess.run([sys.executable, "-m", "tklscore", "gui", "--patient", "--screenshot", str(out)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (QImage(str(out)).width(), QImage(str(out)).height()) == (1600, 1000)
    refused = subprocess.run([sys.executable, "-m", "tklscore", "gui", "--patient", "--view", "scores"],
                             env=env, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2
    assert refused.stderr.startswith("tklscore: error: there is no view 'scores' here (views: patient)")


def test_a_view_shown_for_the_first_time_is_laid_out_before_its_first_paint(qtbot, thesis_window):
    """Its word-wrapped labels and charts settle their sizes before it paints, so that its
    first paint is not followed by a second one of the whole view (the AHP view's, laid out
    again, painted twice over the work its first edit started)."""
    thesis_window.show_view("ahp")
    view = thesis_window.views["ahp"]
    parts = [view.judgements, view.results.chart, view.sensitivity.chart, view.note, view.score_label]
    laid_out = [part.geometry() for part in parts]     # before the event loop has run
    thesis_window.workbench.runner.cancel_all()        # its sweep would change the view again: not asked for here
    qtbot.waitUntil(lambda: not thesis_window.workbench.runner.current, timeout=10000)
    qtbot.wait(100)
    assert [part.geometry() for part in parts] == laid_out and view.judgements.width() > 300


def test_the_views_modules_are_imported_off_the_ui_thread_once_the_window_is_idle(qtbot, window, monkeypatch):
    import threading

    from tklscore.gui import preload

    monkeypatch.setattr(preload, "_started", threading.Event())
    monkeypatch.setattr(preload, "done", threading.Event())
    imported = []
    monkeypatch.setattr(preload, "import_module",
                        lambda name: imported.append((name, threading.current_thread() is threading.main_thread())))
    release = threading.Event()
    window.workbench.runner.start("Opening", lambda control: release.wait(10), lambda _: None, lambda _: None)
    window.show()
    preload.preload_views(window)
    qtbot.wait(50)                                 # painted, but a task runs: the open's work goes first
    assert not preload._started.is_set() and imported == []
    release.set()
    qtbot.waitUntil(preload.done.is_set, timeout=5000)
    assert imported == [(entry.factory.partition(":")[0], False) for entry in window.entries]
    assert list(window.views.built()) == ["release"]   # imported, not built
    preload.preload_views(window)                      # once per process
    qtbot.wait(20)
    assert len(imported) == len(window.entries)


def test_closing_never_waits_for_the_preload():
    """The interpreter exits while the preload thread is still importing (each module here
    takes 30 s): the thread is a daemon, and once the application quits it imports no more."""
    import subprocess
    import sys
    import time

    code = ("import time\n"
            "from PySide6.QtCore import QCoreApplication, QTimer\n"
            "from tklscore.gui import preload\n"
            "app = QCoreApplication([])\n"
            "imported = []\n"
            "preload.import_module = lambda name: imported.append(name) or time.sleep(30)\n"
            "thread = preload.start(['first', 'second'])\n"
            "QTimer.singleShot(200, app.quit)\n"
            "app.exec()\n"
            "print(thread.daemon, thread.is_alive(), preload._quitting.is_set(), imported, flush=True)\n")
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    took = time.perf_counter() - began
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True True True ['first']"   # quit mid-import: 'second' is never begun
    assert took < 20, took   # not the 30 s the import still had to go
