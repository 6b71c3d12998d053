"""Issue 19 §4–§6 in the application: hostile project files and inputs end in a specific
message — never a traceback, "failed unexpectedly" for bad input, or a release hidden
behind another of the same name."""

from __future__ import annotations

import copy
import json
import shutil

import pytest

from tklscore.core.errors import InputError
from tklscore.core.project import Project


@pytest.fixture
def project_dir(tmp_path, data_dir):
    shutil.copy(data_dir / "thesis_table_3_1.csv", tmp_path / "table.csv")
    shutil.copy(data_dir / "thesis_table_4_2_weights.csv", tmp_path / "weights.csv")
    return tmp_path


BASE = {"format": "tklscore-project", "version": 1, "source": {"path": "table.csv", "options": {}},
        "roles": {"qi": ["Job", "City", "Gender"], "sa": ["Disease"], "continuous": [], "identifier": "id"},
        "releases": [{"name": "A", "kind": "ids", "ids": ["3", "4"]}], "current_release": "A",
        "weights": {"path": "weights.csv", "model": None, "use": None, "score_models": []},
        "x": 1.0, "settings": {}}


def project_file(folder, name="p.tklproj", **changes):
    data = copy.deepcopy(BASE)
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def window(window):
    """The main window of gui/conftest.py, shown."""
    window.show()
    return window


@pytest.fixture(scope="module")
def _one_window_for_refusals(qapp, tmp_path_factory):
    """One main window for the project files that are refused (a main window costs about half
    a CPU-second to build): a refused file leaves the window as it was, which
    ``refusing_window`` checks after each test."""
    from PySide6.QtCore import QSettings

    from conftest import end_tasks, isolate_home
    from tklscore.gui.main_window import MainWindow

    folder = tmp_path_factory.mktemp("refusals")
    with pytest.MonkeyPatch.context() as patch:
        isolate_home(folder, patch)
        win = MainWindow(settings=QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat))
        win.workbench.autosave_timer.stop()
        yield win
        end_tasks(win.workbench)
        win.close()
        win.deleteLater()


def window_state(window) -> tuple:
    bench = window.workbench
    return (bench.project_path, json.dumps(bench.project.to_dict(), sort_keys=True, default=str), bench.table,
            window.windowTitle(), bench.undo_stack.count(), bench.undo_stack.isClean())


@pytest.fixture
def refusing_window(_one_window_for_refusals):
    """The shared window, shown, with no error dialog left from an earlier test (the conftest's
    teardown rejects them); after the test it must be as before: nothing was opened."""
    window = _one_window_for_refusals
    before = window_state(window)
    window.show()
    assert error_dialogs(window) == []
    yield window
    assert window_state(window) == before, "a refused project file changed the window"


def error_dialogs(window) -> list[str]:
    from PySide6.QtWidgets import QMessageBox

    return [box.text() for box in window.findChildren(QMessageBox, "errorDialog") if box.isVisible()]


# --------------------------------------------------------------------------- §4 two releases of one name

def test_a_second_release_of_the_same_name_is_renamed_with_a_note(project_dir):
    path = project_file(project_dir, releases=[{"name": "A", "kind": "ids", "ids": ["3", "4"]},
                                               {"name": "A", "kind": "ids", "ids": ["5"]},
                                               {"name": "A (2)", "kind": "ids", "ids": ["6"]}])
    project = Project.load(path)
    assert [r.name for r in project.releases] == ["A", "A (3)", "A (2)"]
    assert [r.ids for r in project.releases] == [("3", "4"), ("5",), ("6",)]
    assert project.notes == ["release 2 has the name of an earlier release, 'A'; it is opened as 'A (3)'"]


def test_the_window_says_which_release_was_renamed_and_shows_both(qtbot, window, project_dir):
    path = project_file(project_dir, releases=[{"name": "A", "kind": "ids", "ids": ["3", "4"]},
                                               {"name": "A", "kind": "ids", "ids": ["5"]}])
    assert window.open_project(str(path))
    qtbot.waitUntil(lambda: not window.workbench.runner.current and len(window.workbench.reports) == 2,
                    timeout=30000)
    assert error_dialogs(window) == [f"{path}: release 2 has the name of an earlier release, 'A'; it is opened as "
                                     f"'A (2)'"]
    assert window.workbench.reports["A (2)"].published_rows == 1
    assert window.workbench.reports["A"].published_rows == 2


# --------------------------------------------------------------------------- §6 project fields

def test_a_missing_current_release_shows_the_first_with_a_note(qtbot, window, project_dir):
    path = project_file(project_dir, current_release="Gone")
    assert window.open_project(str(path))
    assert window.workbench.project.current_release == "A"
    qtbot.waitUntil(lambda: not window.workbench.runner.current, timeout=30000)
    for key in ("release", "design", "scores", "risk", "pseudonymization"):
        window.show_view(key)
        qtbot.waitUntil(lambda: not window.workbench.runner.current, timeout=30000)
    assert error_dialogs(window) == [f"{path}: the release shown last, 'Gone', is not among the project's releases; "
                                     f"'A' is shown instead"]


@pytest.mark.parametrize("changes, message", [
    ({"source": {"path": "table.csv", "options": {"bogus": "x"}}},
     "'source.options' holds an unknown option 'bogus' (the options: delimiter, encoding, sheet, keep_spaces)"),
    ({"source": {"path": "table.csv", "options": {"encoding": 5}}},
     "'source.options.encoding' must be text, not a number (5)"),
    ({"source": {"path": "table.csv", "options": {"sheet": [1]}}},
     "'source.options.sheet' must be text or a number, not a list ([1])"),
    ({"source": {"builtin": "nope"}}, "'source.builtin' names no built-in example ('nope'; the built-in examples: "
                                      "thesis)"),
    ({"settings": {"design": "x"}}, "'settings.design' must be an object, not text"),
    ({"settings": {"design": {"hierarchies": "abc"}}}, "'settings.design.hierarchies' must be a list, not text"),
    ({"settings": {"design": {"hierarchies": [1]}}}, "'settings.design.hierarchies[1]' must be an object, not a number"),
    ({"settings": {"design": {"hierarchies": [{"column": "Age", "kind": "intervals", "levels": ["x"]}]}}},
     "'settings.design.hierarchies[1]' cannot be read: "),
    ({"settings": {"design": {"saved": [{"levels": {"Age": 2.7}}]}}},
     "'settings.design.saved[1]' cannot be read: the level of column 'Age' of a design must be a whole number, "
     "not 2.7"),
    ({"settings": {"design": {"saved": [{"levels": "x"}]}}},
     "'settings.design.saved[1]' cannot be read: the levels of a design must map each column to its value "
     "({column: value}), not 'x'"),
    ({"settings": {"design": {"current": {"noise": {"Age": "loud"}}}}},
     "'settings.design.current' cannot be read: a design holds something that is not a number"),
    ({"settings": {"per_record_order": 5}}, "'settings.per_record_order' must be text, not a number"),
    ({"settings": {"pseudonymization": []}}, "'settings.pseudonymization' must be an object whose 'rules' is a list"),
    ({"settings": {"pseudonymization": {"rules": ["no such rule"]}}},
     "'settings.pseudonymization.rules[1]' cannot be read: "),
    ({"weights": {"path": "weights.csv", "use": "zzz"}}, "'weights.use' names no source of weights ('zzz'; one of "
                                                        "model, file, score models)"),
])
def test_project_fields_are_validated_on_opening(qtbot, refusing_window, project_dir, changes, message):
    window = refusing_window
    path = project_file(project_dir, **changes)
    with pytest.raises(InputError) as caught:
        Project.load(path)
    assert str(caught.value).startswith(f"{path}: {message}")
    assert not window.open_project(str(path))
    assert [text[:len(str(path)) + 2 + len(message)] for text in error_dialogs(window)] == [f"{path}: {message}"]


def test_deeply_nested_project_json_is_refused(qtbot, refusing_window, project_dir):
    window = refusing_window
    path = project_dir / "deep.tklproj"
    path.write_text('{"format": "tklscore-project", "version": 1, "settings": {"x": ' + "[" * 100_000
                    + "]" * 100_000 + "}}", encoding="utf-8")
    with pytest.raises(InputError, match="nested deeper than"):
        Project.load(path)
    assert not window.open_project(str(path))
    assert len(error_dialogs(window)) == 1 and "nested deeper than" in error_dialogs(window)[0]


# --------------------------------------------------------------------------- §6 the guards

def test_the_guard_says_what_other_libraries_raise_for_bad_input():
    import json as json_module
    import zipfile

    from tklscore.gui.guard import error_text, run_guarded

    said: list[str] = []

    def bad(error):
        def raising():
            raise error
        return raising

    errors = [UnicodeDecodeError("utf-8", b"\xe9", 0, 1, "invalid continuation byte"),
              json_module.JSONDecodeError("Expecting value", "x", 0), zipfile.BadZipFile("File is not a zip file"),
              RecursionError("maximum recursion depth exceeded"), MemoryError(), OverflowError("too large"),
              ValueError("could not convert string to float: 'x'"), InputError("a specific message", file="f.csv"),
              FileNotFoundError(2, "No such file or directory", "missing.csv")]
    for error in errors:
        assert not run_guarded(said.append, bad(error))
    assert said[-2:] == ["f.csv: a specific message", "missing.csv: No such file or directory"]
    assert "nested too deeply" in said[3] and "not enough memory" in said[4] and "not in the expected encoding" in said[0]
    assert not any("unexpectedly" in text or "Traceback" in text for text in said)
    assert "failed unexpectedly: KeyError" in error_text(KeyError("x"), "Scoring")


def test_a_guarded_call_gives_what_the_function_returned_or_says_why_not():
    from tklscore.gui.guard import call_guarded

    said: list[str] = []
    drawn = call_guarded(said.append, lambda path: f"chart for {path}", "c.png")
    assert drawn and drawn.value == "chart for c.png" and said == []
    refused = call_guarded(said.append, open, "/nonexistent/folder/c.png")
    assert not refused and refused.value is None and said == ["/nonexistent/folder/c.png: No such file or directory"]


def test_a_task_failing_on_bad_input_says_so_without_failed_unexpectedly(qtbot, capfd):
    from tklscore.gui.tasks import TaskRunner

    runner = TaskRunner()
    messages: list[str] = []

    def read(_control):
        b"\xe9t\xe9".decode("utf-8")

    runner.start("Reading the table", read, lambda _r: None, messages.append)
    qtbot.waitUntil(lambda: bool(messages), timeout=10000)
    assert messages[0].startswith("Reading the table: the input holds text that is not in the expected encoding")
    assert "Traceback" not in capfd.readouterr().err


def test_a_deferred_refresh_that_fails_is_said_not_raised_in_the_event_filter(qtbot, workbench):
    from PySide6.QtWidgets import QMainWindow, QWidget

    from tklscore.gui.when_shown import WhenShown

    main = QMainWindow()
    qtbot.addWidget(main)
    view = QWidget()
    view.workbench = workbench
    main.setCentralWidget(view)
    failures: list[str] = []
    workbench.failed.connect(failures.append)

    def refresh():
        workbench.project.release("no such release")

    WhenShown(view, refresh).request()
    main.show()
    qtbot.waitUntil(lambda: bool(failures), timeout=5000)
    assert failures == ["the project has no release named 'no such release'"]


def test_the_application_hook_says_what_no_guard_caught(capfd):
    from tklscore.gui.guard import report_uncaught

    said: list[str] = []
    hook = report_uncaught(said.append)
    try:
        raise InputError("bad cell", file="t.csv", row=3)
    except InputError as error:
        hook(type(error), error, error.__traceback__)
    assert said == ["t.csv, row 3: bad cell"] and "Traceback" not in capfd.readouterr().err


# --------------------------------------------------------------------------- §5 special files in the application

def test_a_fifo_as_the_source_is_refused_in_the_application(qtbot, workbench, tmp_path):
    from hostile import fifo

    failures: list[str] = []
    workbench.failed.connect(failures.append)
    with fifo(tmp_path / "pipe.csv") as pipe:
        workbench.open_source(str(pipe))
        qtbot.waitUntil(lambda: bool(failures), timeout=20000)
    assert failures[0] == (f"{pipe}: is a named pipe (FIFO), not a regular table file; it is refused before it is "
                           f"opened (save the data to a regular file and give that file)")
    assert workbench.table is None


def test_a_project_whose_source_is_a_fifo_opens_with_the_message(qtbot, window, project_dir):
    from hostile import fifo

    with fifo(project_dir / "pipe.csv"):
        path = project_file(project_dir, source={"path": "pipe.csv"})
        assert window.open_project(str(path))
        qtbot.waitUntil(lambda: bool(error_dialogs(window)), timeout=20000)
    assert "pipe.csv: is a named pipe (FIFO), not a regular table file" in error_dialogs(window)[0]
    assert window.workbench.table is None


def test_a_mixed_encoding_source_is_read_line_by_line_in_the_application(qtbot, workbench, tmp_path, data_dir):
    from hostile import mixed_encoding_csv

    source = mixed_encoding_csv(tmp_path / "mixed.csv", (data_dir / "thesis_table_3_1.csv").read_text("utf-8"))
    workbench.open_source(str(source))
    qtbot.waitUntil(lambda: workbench.table is not None, timeout=20000)
    assert sorted(set(workbench.table.frame["City"])) == ["Edmonton", "Montréal"]
    assert workbench.table.notes == [f"{source}: the file is UTF-8 but line 9 is not; read as Windows-1252 (cp1252), "
                                     f"every other line as UTF-8"]


def test_the_release_view_says_which_lines_were_read_as_windows_1252(qtbot, window, tmp_path, data_dir):
    from hostile import mixed_encoding_csv

    source = mixed_encoding_csv(tmp_path / "mixed.csv", (data_dir / "thesis_table_3_1.csv").read_text("utf-8"))
    window.show_view("release")
    window.workbench.open_source(str(source))
    qtbot.waitUntil(lambda: window.workbench.table is not None and not window.workbench.runner.current, timeout=20000)
    view = window.current_view()
    qtbot.waitUntil(lambda: "Note:" in view.source.detected_label.text(), timeout=5000)
    assert view.source.detected_label.text().endswith(
        "Note: the file is UTF-8 but line 9 is not; read as Windows-1252 (cp1252), every other line as UTF-8.")


# --------------------------------------------------------------------------- §4 a judgement inside a project

def test_a_project_whose_model_holds_a_nan_judgement_says_so(qtbot, window, project_dir):
    from rdflib import Graph, Literal, Namespace

    from tklscore.core.examples import thesis_model

    tklm = Namespace("https://tklscore.org/ns/tkl-model#")
    graph = Graph()
    graph.parse(data=thesis_model().to_graph().serialize(format="turtle"), format="turtle")
    graph.set((next(iter(graph.subjects(tklm.rating, None))), tklm.rating, Literal("NaN")))
    path = project_file(project_dir, weights={"path": "weights.csv", "model": graph.serialize(format="turtle"),
                                              "use": "model"})
    assert window.open_project(str(path))
    qtbot.waitUntil(lambda: bool(error_dialogs(window)), timeout=30000)
    assert "' by expert 1 is not a finite number" in error_dialogs(window)[0]
    assert window.workbench.model is None
