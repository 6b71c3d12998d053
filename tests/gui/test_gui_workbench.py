"""The application state (Workbench): example, background scoring, undo/redo, project
save/reopen, recovery copy, bad input — driven with pytest-qt, offscreen."""

import pytest

from tklscore.core.errors import InputError
from tklscore.core.examples import thesis_example, thesis_model
from tklscore.core.release.selection import ReleaseDefinition
from tklscore.core.scoring.scores import Scorer
from tklscore.gui.workbench import Workbench, score_again


def wait_scored(qtbot, bench, names=("Scenario 1", "Scenario 2")):
    qtbot.waitUntil(lambda: all(n in bench.reports for n in names) and not bench.runner.current, timeout=10000)


def test_example_is_scored_in_the_background(qtbot, workbench):
    workbench.load_example("thesis")
    wait_scored(qtbot, workbench)
    assert round(workbench.reports["Scenario 1"].scores.tkl, 5) == round(
        Scorer(thesis_example().source, thesis_example().roles).score([3, 4, 5, 6], thesis_model().to_weights()).scores.tkl, 5)
    assert workbench.reports["Scenario 2"].normalized_source.tkl == pytest.approx(1.0)
    assert workbench.current_report() is workbench.reports["Scenario 1"]


def test_the_scores_are_shown_before_the_releases_are_measured(qtbot, workbench):
    """In memory the releases' privacy models and risk are taken in a task of their own after
    their scores (the scores come first); measures kept by the source come with the scores."""
    events = []
    workbench.scoresChanged.connect(lambda: events.append(
        ("scores", sorted(workbench.measures), workbench.measures_pending())))
    workbench.measuresChanged.connect(lambda: events.append(("measures", sorted(workbench.measures), False)))
    workbench.load_example("thesis")
    wait_scored(qtbot, workbench)
    qtbot.waitUntil(lambda: "Scenario 2" in workbench.measures and not workbench.runner.current, timeout=10000)
    scored = [e for e in events if e[0] == "scores" and "Scenario 1" in [*workbench.reports]]
    assert ("scores", [], True) in events and events[-1] == ("measures", ["Scenario 1", "Scenario 2"], False)
    assert scored and events.index(("scores", [], True)) < len(events) - 1
    # the numbers of measuring with the scores, as before
    from tklscore.core.source import MemorySource, score_project

    at_once = score_project(MemorySource(workbench.table, workbench.project.roles), list(workbench.project.releases),
                            workbench.weights, workbench.project.x).measures
    assert sorted(at_once) == ["Scenario 1", "Scenario 2"] and workbench.measures["Scenario 1"].k == 2
    for name, measures in at_once.items():
        assert workbench.measures[name].to_json_dict() == measures.to_json_dict()
    before, events[:] = workbench.measures["Scenario 1"], []
    with qtbot.waitSignal(workbench.scoresChanged, timeout=10000):
        workbench.set_x(2.0)   # new scores, the same releases: their measures are kept, none taken again
    qtbot.waitUntil(lambda: not workbench.runner.current)
    assert events == [("scores", ["Scenario 1", "Scenario 2"], False)]
    assert workbench.measures["Scenario 1"] is before


def test_model_edits_undo_and_redo(qtbot, workbench):
    workbench.load_example("thesis")
    wait_scored(qtbot, workbench)
    before = workbench.reports["Scenario 1"].scores.tkl
    arv = workbench.model.find("V.ARV").iri
    with qtbot.waitSignal(workbench.scoresChanged, timeout=10000):
        workbench.edit_model("Label ARV", lambda m: m.set_label(arv, "very restricted"))
    qtbot.waitUntil(lambda: not workbench.runner.current)
    after = workbench.reports["Scenario 1"].scores.tkl
    assert after > before and workbench.is_dirty()
    expected = thesis_model()
    expected.set_label(expected.find("V.ARV").iri, "very restricted")
    assert workbench.weights.fingerprint == expected.to_weights().fingerprint
    workbench.undo_stack.undo()
    qtbot.waitUntil(lambda: not workbench.runner.current and
                    workbench.reports["Scenario 1"].scores.tkl == pytest.approx(before), timeout=10000)
    assert workbench.model.find("V.ARV").qualitative == "restricted"
    workbench.undo_stack.redo()
    assert workbench.model.find("V.ARV").qualitative == "very restricted"
    with pytest.raises(InputError, match="not a label of the scale"):
        workbench.edit_model("bad", lambda m: m.set_label(arv, "secret"))
    assert workbench.undo_stack.count() == 1  # the bad edit left nothing behind


def test_incomplete_model_shows_the_problem_instead_of_scores(qtbot, workbench):
    workbench.load_example("thesis")
    wait_scored(qtbot, workbench)
    arv = workbench.model.find("V.ARV").iri
    workbench.edit_model("Unlabel ARV", lambda m: m.set_label(arv, None))
    qtbot.waitUntil(lambda: not workbench.runner.current)
    assert workbench.weights is None and "V.ARV of A.Medication has no label" in workbench.weights_problem
    assert workbench.reports == {}


def test_project_save_and_reopen_gives_the_same_state(qtbot, workbench, tmp_path):
    workbench.load_example("thesis")
    wait_scored(qtbot, workbench)
    workbench.add_release(ReleaseDefinition("Edmonton", "filter", expression="City == 'Edmonton'"))
    workbench.set_x(float("inf"))
    medical = workbench.model.find("MedicalHealth").iri
    health, record = workbench.model.find("Health").iri, workbench.model.find("HealthRecord").iri
    workbench.edit_model("judge", lambda m: m.set_judgement(medical, health, record, 5))
    wait_scored(qtbot, workbench, ("Scenario 1", "Scenario 2", "Edmonton"))
    path = tmp_path / "release.tklproj"
    workbench.save_project(str(path))
    assert not workbench.is_dirty()
    scores = {name: report.scores for name, report in workbench.reports.items()}
    state = workbench.model.state()
    other = Workbench()
    other.open_project(str(path))
    wait_scored(qtbot, other, ("Scenario 1", "Scenario 2", "Edmonton"))
    assert other.model.state() == state
    assert other.project.current_release == "Edmonton" and other.project.x == float("inf")
    assert {name: report.scores for name, report in other.reports.items()} == scores
    assert not other.is_dirty()


def test_recovery_copy_is_written_while_unsaved(qtbot, workbench):
    workbench.load_example("thesis")
    wait_scored(qtbot, workbench)
    assert workbench.autosave() is None  # nothing to recover yet
    workbench.set_x(2.0)
    path = workbench.autosave()
    assert path is not None
    qtbot.waitUntil(lambda: not workbench.saving(), timeout=10000)
    assert path.exists()
    from tklscore.core.project import Project

    assert Project.load(path).x == 2.0


def test_bad_input_is_reported_specifically(qtbot, workbench, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("")
    with qtbot.waitSignal(workbench.failed, timeout=10000) as failed:
        workbench.open_source(str(bad))
    assert failed.args[0] == f"{bad}: the file is empty"
    broken = tmp_path / "broken.tklproj"
    broken.write_text("{")
    with pytest.raises(InputError, match="not JSON"):
        workbench.open_project(str(broken))
    with pytest.raises(InputError, match="x must be at least 1"):
        workbench.set_x(0.5)


def test_a_source_that_fails_to_load_leaves_no_stale_table(qtbot, workbench, tmp_path):
    workbench.load_example("thesis")
    wait_scored(qtbot, workbench)
    missing = tmp_path / "missing.csv"
    with qtbot.waitSignal(workbench.failed, timeout=10000) as failed:
        workbench.open_source(str(missing))
    assert failed.args[0] == f"{missing}: table file not found"
    assert workbench.table is None and workbench.scorer is None and workbench.reports == {}
    assert workbench.project.source_path == str(missing)  # named, so that the user can retry


def test_one_bad_release_does_not_hide_the_others(qtbot, workbench):
    workbench.load_example("thesis")
    wait_scored(qtbot, workbench)
    # as a large table's release is only resolved while scoring (add_release checks small ones)
    workbench.project.releases.append(ReleaseDefinition("Bad filter", "filter", expression="Nope == 1"))
    with qtbot.waitSignal(workbench.failed, timeout=10000) as failed:
        workbench.rescore()
    assert failed.args[0].startswith("Release 'Bad filter': filter \"Nope == 1\": 'Nope' is not a column of the "
                                     "source")
    qtbot.waitUntil(lambda: not workbench.runner.current)
    assert set(workbench.reports) == {"Scenario 1", "Scenario 2"}
    assert "Bad filter" in workbench.release_errors


def test_a_recovery_copy_reopens_as_unsaved_work(qtbot, workbench):
    workbench.autosave_timer.stop()  # on a slow machine its 30 s tick would write the copy again
    workbench.load_example("thesis")
    wait_scored(qtbot, workbench)
    arv = workbench.model.find("V.ARV").iri
    workbench.edit_model("label", lambda m: m.set_label(arv, "low"))
    path = workbench.autosave()
    qtbot.waitUntil(lambda: not workbench.saving(), timeout=10000)
    assert workbench.recovery_copies() == [path]
    other = Workbench()
    other.autosave_timer.stop()
    other.open_recovery(str(path))
    wait_scored(qtbot, other)
    assert other.model.find("V.ARV").qualitative == "low"
    assert other.is_dirty() and other.project_path is None and not path.exists()
    other.undo_stack.setClean()
    other._mark(False)


def slow_project_saves(monkeypatch, threads):
    """Project.save that takes a while and notes the thread it runs on."""
    import threading
    import time

    from tklscore.core.project import Project

    real_save = Project.save

    def save(project, path):
        threads.append(threading.current_thread())
        time.sleep(0.3)
        real_save(project, path)

    monkeypatch.setattr(Project, "save", save)


def test_the_recovery_copy_is_written_off_the_ui_thread_from_a_snapshot(qtbot, workbench, monkeypatch):
    import threading

    from tklscore.core.project import Project

    workbench.autosave_timer.stop()
    workbench.load_example("thesis")
    wait_scored(qtbot, workbench)
    arv = workbench.model.find("V.ARV").iri
    workbench.set_x(2.0)
    workbench.edit_model("label", lambda m: m.set_label(arv, "low"))
    threads = []
    slow_project_saves(monkeypatch, threads)
    path = workbench.autosave()
    assert workbench.saving() and workbench.autosave() is None  # one copy at a time
    workbench.set_x(3.0)                                         # edits go on meanwhile
    workbench.edit_model("label", lambda m: m.set_label(arv, "restricted"))
    qtbot.waitUntil(lambda: not workbench.saving(), timeout=10000)
    assert threads and threads[0] is not threading.main_thread()
    monkeypatch.undo()
    saved = Project.load(path)                                   # the project as it was when the copy began
    assert saved.x == 2.0 and saved.releases == workbench.project.releases
    other = Workbench()
    other.autosave_timer.stop()
    other.open_recovery(str(path))
    qtbot.waitUntil(lambda: other.model is not None, timeout=10000)
    assert other.model.find("V.ARV").qualitative == "low"
    other.runner.cancel_all()
    other.runner.wait()
    other.undo_stack.setClean()
    other._mark(False)
    workbench.undo_stack.setClean()
    workbench._mark(False)


def test_a_failed_recovery_copy_says_so(qtbot, workbench, tmp_path, monkeypatch):
    workbench.autosave_timer.stop()
    workbench.load_example("thesis")
    wait_scored(qtbot, workbench)
    workbench.set_x(2.0)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the recovery folder should be")
    monkeypatch.setattr(workbench, "_recovery_path", lambda: blocker / "recovery-untitled.tklproj")
    messages = []
    workbench.status.connect(messages.append)
    workbench.autosave()
    qtbot.waitUntil(lambda: not workbench.saving(), timeout=10000)
    failures = [m for m in messages if m.startswith("Could not write the recovery copy: ")]
    assert len(failures) == 1 and str(blocker) in failures[0]
    assert workbench.is_dirty()                                  # the work is still unsaved, and says so
    workbench.undo_stack.setClean()
    workbench._mark(False)


def test_a_project_saved_while_its_recovery_copy_was_written_leaves_no_copy(qtbot, workbench, tmp_path,
                                                                             monkeypatch):
    workbench.autosave_timer.stop()
    workbench.load_example("thesis")
    wait_scored(qtbot, workbench)
    workbench.set_x(2.0)
    threads = []
    slow_project_saves(monkeypatch, threads)
    path = workbench.autosave()
    workbench.save_project(str(tmp_path / "saved.tklproj"))     # the user saves meanwhile
    qtbot.waitUntil(lambda: not workbench.saving(), timeout=10000)
    assert len(threads) == 2 and not path.exists()               # nothing stale is offered next time
    assert (tmp_path / "saved.tklproj").exists() and not workbench.is_dirty()


def test_closing_the_window_completes_a_recovery_copy_being_written(qtbot, tmp_path, monkeypatch):
    from PySide6.QtCore import QSettings

    from tklscore.core.project import Project
    from tklscore.gui.main_window import MainWindow

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    window = MainWindow(settings=QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    workbench = window.workbench
    workbench.autosave_timer.stop()
    window.show()
    workbench.load_example("thesis")
    wait_scored(qtbot, workbench)
    workbench.set_x(2.0)
    threads = []
    slow_project_saves(monkeypatch, threads)
    path = workbench.autosave()
    path.unlink(missing_ok=True)
    assert workbench.saving()
    workbench.undo_stack.setClean()
    workbench._mark(False)                                       # closing asks nothing
    window.close()                                               # while the copy is being written
    assert path.exists() and Project.load(path).x == 2.0
    path.unlink()


def test_a_projects_model_is_read_off_the_ui_thread_and_saving_meanwhile_keeps_it(qtbot, workbench, tmp_path,
                                                                                  monkeypatch):
    import threading

    from tklscore.core.model.data_model import TklDataModel
    from tklscore.core.project import Project

    workbench.autosave_timer.stop()
    workbench.load_example("thesis")
    wait_scored(qtbot, workbench)
    path = tmp_path / "thesis.tklproj"
    workbench.save_project(str(path))
    state = workbench.model.state()
    threads = []
    real = TklDataModel.from_graph.__func__

    def from_graph(cls, graph, name="<model>"):
        threads.append(threading.current_thread())
        return real(cls, graph, name)

    monkeypatch.setattr(TklDataModel, "from_graph", classmethod(from_graph))
    other = Workbench()
    other.autosave_timer.stop()
    other.open_project(str(path))
    assert other.model_pending() and other.model is None
    other.save_project(str(tmp_path / "copy.tklproj"))   # saved before the model arrived: nothing lost
    assert Project.load(tmp_path / "copy.tklproj").model_turtle == Project.load(path).model_turtle
    wait_scored(qtbot, other)
    assert threads and threads[0] is not threading.main_thread()
    assert not other.model_pending() and other.model.state() == state
    assert other.reports["Scenario 1"].scores == workbench.reports["Scenario 1"].scores
    other.runner.cancel_all()
    other.runner.wait()


def test_a_model_read_after_its_table_was_loaded_follows_it_and_scores_alike(qtbot, workbench, tmp_path,
                                                                             monkeypatch):
    """The model is read beside the source (side lane): when the table comes first, the model
    follows it once it arrives, as it would have on the table's arrival."""
    import threading

    from tklscore.core.model.data_model import TklDataModel

    workbench.autosave_timer.stop()
    workbench.load_example("thesis")
    wait_scored(qtbot, workbench)
    path = tmp_path / "thesis.tklproj"
    workbench.save_project(str(path))
    table_loaded = threading.Event()
    real = TklDataModel.from_graph.__func__

    def from_graph(cls, graph, name="<model>"):
        assert table_loaded.wait(10)   # the model is parsed only once the table is there
        return real(cls, graph, name)

    monkeypatch.setattr(TklDataModel, "from_graph", classmethod(from_graph))
    other = Workbench()
    other.autosave_timer.stop()
    other.sourceChanged.connect(lambda: other.table is not None and table_loaded.set())
    followed, follow = [], other.follower.follow
    monkeypatch.setattr(other.follower, "follow",
                        lambda force=False: followed.append((other.table is not None, other.model is not None))
                        or follow(force))
    other.open_project(str(path))
    wait_scored(qtbot, other)
    assert (True, False) in followed and followed[-1] == (True, True)   # the table first, then the model
    assert other.model.state() == workbench.model.state()
    for name in ("Scenario 1", "Scenario 2"):
        assert other.reports[name].scores == workbench.reports[name].scores
    other.runner.cancel_all()
    other.runner.wait()


def test_a_project_whose_model_cannot_be_read_says_so_and_keeps_the_rest(qtbot, workbench, tmp_path):
    from tklscore.core.project import Project

    workbench.autosave_timer.stop()
    workbench.load_example("thesis")
    wait_scored(qtbot, workbench)
    path = tmp_path / "broken-model.tklproj"
    workbench.save_project(str(path))
    project = Project.load(path)
    project.model_turtle = "@prefix : <http://example.org/> .\n:a :b"   # cut short
    project.save(path)
    other = Workbench()
    other.autosave_timer.stop()
    with qtbot.waitSignal(other.failed, timeout=10000) as failed:
        other.open_project(str(path))
    assert failed.args[0].startswith(f"{path}: the tkl-Data Model inside the project cannot be read")
    qtbot.waitUntil(lambda: other.table is not None and not other.runner.current, timeout=10000)
    assert other.model is None and not other.model_pending() and other.project.releases == project.releases
    other.runner.cancel_all()
    other.runner.wait()


def test_what_the_ui_thread_reads_of_a_large_source_is_computed_off_it(qtbot, workbench, monkeypatch):
    """Issue 23 §4: the sensitive columns' codes and distinct numbers (read by the model
    following its table, on the UI thread) are computed while the table loads, and the
    riskiest records the Scores view highlights while the releases are scored."""
    import threading

    from tklscore.core.tables.loading import Table

    computed = []
    codes, counts = Table.codes, Table.numeric_counts

    def spy_codes(self, column):
        if column not in self._codes:
            computed.append((column, threading.current_thread() is threading.main_thread()))
        return codes(self, column)

    def spy_counts(self, column):
        if column not in self._numeric_counts:
            computed.append((column, threading.current_thread() is threading.main_thread()))
        return counts(self, column)

    monkeypatch.setattr(Table, "codes", spy_codes)
    monkeypatch.setattr(Table, "numeric_counts", spy_counts)
    workbench.load_example("thesis")
    wait_scored(qtbot, workbench)
    sensitive = set(workbench.project.roles.sa)
    assert sensitive <= {column for column, _ in computed}
    assert [column for column, on_ui in computed if on_ui and column in sensitive] == []
    for report in workbench.reports.values():
        assert "_riskiest" in report.__dict__ and report.riskiest() is report.__dict__["_riskiest"][2]


def test_an_opened_project_s_tasks_begin_after_the_views_have_repainted(qtbot, window, tmp_path):
    from PySide6.QtCore import QEvent, QObject

    bench = window.workbench
    window.resize(1200, 800)
    window.show()
    qtbot.waitExposed(window)
    bench.load_example("thesis")
    wait_scored(qtbot, bench)
    path = tmp_path / "thesis.tklproj"
    bench.save_project(str(path))
    scores = bench.reports["Scenario 1"].scores
    log = []

    class Paints(QObject):
        def eventFilter(self, watched, event):
            if event.type() == QEvent.Type.Paint:
                log.append("paint")
            return False

    paints = Paints()
    window.views["release"].installEventFilter(paints)
    window.show_view("release")
    qtbot.waitUntil(lambda: not bench.runner.current, timeout=5000)
    begin = bench.runner._start_waiting

    def threads_begin():
        log.append("tasks: " + ", ".join(task.name for _, task in bench.runner._waiting))
        begin()

    bench.runner._start_waiting = threads_begin
    log.clear()
    bench.open_project(str(path))
    assert bench.project_path == str(path) and bench.model_pending()   # the project is held at once
    assert [t.name for t in bench.runner.current] == ["Reading the tkl-Data Model", "Loading the source table"]
    wait_scored(qtbot, bench)
    begun = log.index("tasks: Reading the tkl-Data Model, Loading the source table")
    assert "paint" in log[:begun], log   # the views repainted the opened project first
    assert bench.reports["Scenario 1"].scores == scores


def test_a_project_closed_before_its_tasks_began_runs_none_of_them(qtbot, workbench, tmp_path, monkeypatch):
    from tklscore.core.tables import loading

    workbench.load_example("thesis")
    wait_scored(qtbot, workbench)
    path = tmp_path / "thesis.tklproj"
    workbench.save_project(str(path))
    ran = []
    monkeypatch.setattr(loading, "warm_columns", lambda *args: ran.append("load"))
    workbench.open_project(str(path))
    workbench.new_project()              # before the event loop ran: the opening's tasks are cancelled
    qtbot.waitUntil(lambda: not workbench.runner.current, timeout=5000)
    assert ran == [] and workbench.table is None and workbench.model is None and not workbench.model_pending()


def test_cancelled_scoring_or_measuring_says_so_and_score_again_computes_it(qtbot, workbench):
    said, runner = [], workbench.runner
    workbench.status.connect(said.append)
    stop = {"Computing the distinguishing factors": "Cancel the scoring",
            "Measuring the releases' risk": "Cancel measuring the risk"}

    def cancel_the_factors() -> None:      # as the status bar's Cancel, before the task's thread begins
        if runner.shown is not None and runner.shown.name in stop:
            assert runner.shown.cancel_text == stop.pop(runner.shown.name)
            runner.cancel_shown()

    runner.shownChanged.connect(cancel_the_factors)
    workbench.load_example("thesis")
    qtbot.waitUntil(lambda: "Computing the distinguishing factors was cancelled" in " ".join(said)
                    and not runner.current, timeout=20000)
    assert said[-1] == ("Computing the distinguishing factors was cancelled: no scores are shown. "
                        "Edit ▸ Score again (F5) computes them.") and workbench.reports == {}
    score_again(workbench)
    qtbot.waitUntil(lambda: {"Scenario 1", "Scenario 2"} <= set(workbench.reports) and not runner.current,
                    timeout=20000)
    runner.shownChanged.disconnect(cancel_the_factors)
    assert stop == {} and workbench.measures == {} and not workbench.measures_pending()   # nothing waits for them
    assert said[-1].startswith("Measuring the releases' risk was cancelled: their scores are shown")
