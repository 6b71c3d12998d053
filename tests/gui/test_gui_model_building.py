"""The domain expert's tkl-Data Model of UCI Adult in the window (issue 20): new model from the
source, alignment by click and drag, bins, labels in bulk and in place, judgements in the AHP
view, save, and an officer who opens the model and scores — the same numbers as the command
line on the same choices; the model follows the table; a foreign model is checked; bad input
changes nothing and everything undoes. pytest-qt, offscreen."""

from __future__ import annotations

import contextlib

import pytest
from PySide6.QtCore import QSettings, Qt

import adult_model
from helpers import run_cli
from tklscore.core.examples import write_thesis_example
from tklscore.core.model.data_model import TklDataModel
from tklscore.core.model.vocabulary import DPV_PD, Vocabulary
from tklscore.core.release.selection import ReleaseDefinition
from tklscore.core.tables.roles import Roles
from tklscore.gui.ahp.view import GREEN, AhpView
from tklscore.gui.model.alignment_panel import CONFIRMED, NONE, SUGGESTED
from tklscore.gui.model.new_model_dialog import NewModelChoices
from tklscore.gui.model.tree import LABEL_COL, NODE_COL, SHOW_UNJUDGED
from tklscore.gui.model.tree import CLASS_MIME
from tklscore.gui.model.view import ModelView
from tklscore.gui.workbench import Workbench

TIMEOUT = 30_000


@pytest.fixture
def settings(tmp_path):
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


def new_bench(qtbot, path, roles):
    bench = Workbench()
    bench.autosave_timer.stop()
    bench.open_source(str(path), roles=roles)
    qtbot.waitUntil(lambda: bench.table is not None and bench.scorer is not None, timeout=TIMEOUT)
    return bench


@pytest.fixture
def adult_path(data_dir):
    return data_dir / "adult" / "adult.csv"


@pytest.fixture
def bench(qtbot, adult_path, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    workbench = new_bench(qtbot, adult_path, adult_model.ROLES)
    yield workbench
    workbench.runner.cancel_all()
    workbench.runner.wait()


@pytest.fixture
def view(qtbot, bench, settings):
    widget = ModelView(bench, settings=settings)
    qtbot.addWidget(widget)
    widget.resize(1400, 900)
    widget.show()
    return widget


def build(qtbot, view, **choices) -> TklDataModel:
    bench = view.workbench
    before = bench.undo_stack.count()
    assert view.new_model_from_source(NewModelChoices(Vocabulary.shipped("dpv-2.3"), **choices))
    qtbot.waitUntil(lambda: bench.undo_stack.count() == before + 1, timeout=TIMEOUT)
    return bench.model


def node(bench, column, value):
    return bench.model.nodes.value_of(column, value)


@contextlib.contextmanager
def model_view_of(qtbot, settings, path, roles):
    """A Model view over a new Workbench on ``path``, the model built from the source."""
    bench = new_bench(qtbot, path, roles)
    try:
        view = ModelView(bench, settings=settings)
        qtbot.addWidget(view)
        view.show()
        build(qtbot, view)
        yield bench, view
    finally:
        bench.runner.cancel_all()
        bench.runner.wait()


def expert_in_the_window(qtbot, view, ahp):
    """What the expert does in the window, step by step (the choices of adult_model)."""
    bench = view.workbench
    model = build(qtbot, view)
    # alignment: three suggestions confirmed by a click, native-country by a drag of pd:Country
    for column in ("occupation", "salary-class", "age"):
        assert view.alignment.status_of(column) == SUGGESTED
        assert view.alignment.accept(column)
        assert view.alignment.status_of(column) == CONFIRMED
    view.select_class(DPV_PD + "Country")
    mime = view.class_filter.mimeData([view.class_tree.currentIndex()])
    assert mime.hasFormat(CLASS_MIME)
    target = view.tree_model.index_of(bench.model.attribute("native-country").iri)
    assert view.tree_model.dropMimeData(mime, Qt.DropAction.CopyAction, -1, -1, target)
    assert bench.model.nodes[bench.model.attribute("native-country").parent].label == "Country"
    assert view.alignment.status_of("native-country") == CONFIRMED
    # bins from edges, in the bins panel
    view.bins.choose("age")
    view.bins.edges_edit.setText("0, 30, 50, inf")
    assert view.bins.apply_edges()
    assert [n.value for n in bench.model.values_of("age")] == adult_model.AGE_BINS
    # labels: every country at once (search, select shown values, one label), then one by one
    view.model_search.setText("native-country")
    view.select_shown_values()
    assert len(view.selected_iris()) == 41
    view.label_combo.setCurrentText("moderate")
    view.set_label_button.click()
    view.model_search.setText("")
    for key, level in adult_model.LABELS.items():
        column, _, value = key.partition(":")
        if value != "*":
            assert view.set_label(level, node(bench, column, value)), key
    assert not bench.model.unjudged() and view.count_label.text().count("0 not yet judged") == 1
    # judgements in the AHP view, as the sliders commit them
    for group, (criteria, ratings) in adult_model.JUDGEMENTS.items():
        index = next(k for k in range(ahp.group_combo.count()) if ahp.group_combo.itemText(k).startswith(f"Under {group}:"))
        ahp.group_combo.setCurrentIndex(index)
        labels = ahp.labels()
        for a, b, rating in ratings:
            i, j = labels.index(a), labels.index(b)
            ahp.set_judgement((i, j) if i < j else (j, i), rating if i < j else 1 / rating)
        assert ahp.result is not None and ahp.result.cr <= 0.10 and ahp.light.color == GREEN
    return model


def test_the_expert_builds_aligns_labels_judges_and_the_officer_scores(qtbot, view, bench, adult_path, tmp_path,
                                                                      settings, capsys):
    ahp = AhpView(bench)
    qtbot.addWidget(ahp)
    ahp.show()
    assert "No tkl-Data Model" in ahp.model_label.text()
    expert_in_the_window(qtbot, view, ahp)
    assert "Judging the tkl-Data Model of <b>adult.csv</b> (4 sensitive column(s)) — built from adult.csv in this " \
           "session (not saved yet). 2 of 2 criteria group(s) judged." == ahp.model_label.text()
    model = bench.model
    assert not model.problems() and not model.suggested_alignments() and bench.weights is not None
    # the same choices on the command line give the same model weights
    maps = [arg for column, cls in adult_model.ALIGNMENT.items() for arg in ("--map", f"{column}={cls}")]
    labels = [arg for key, level in adult_model.LABELS.items() for arg in ("--label", f"{key}={level}")]
    cli_model = tmp_path / "cli.ttl"
    assert run_cli(capsys, ["model", "new", adult_path, "--sa", ",".join(adult_model.SA), "--continuous", "age",
                            "--bins", f"age={adult_model.AGE_EDGES}", *maps, *labels, "--output", cli_model])[0] == 0
    for group in adult_model.JUDGEMENTS:
        matrix = tmp_path / f"{group}.csv"
        matrix.write_text(adult_model.matrix_csv(group), encoding="utf-8")
        assert run_cli(capsys, ["model", "judge", cli_model, "--group", group, "--matrix", matrix,
                                "--output", cli_model])[0] == 0
    assert sorted(TklDataModel.load(cli_model).weight_triples()) == sorted(model.weight_triples())
    # saved; the project keeps it too
    saved = tmp_path / "adult-model.ttl"
    bench.save_model(str(saved))
    assert "saved as" in bench.model_origin and ahp.model_label.text().count("saved as") == 1
    bench.save_project(str(tmp_path / "adult.tklproj"))
    # the officer opens the expert's model on the same table and scores a release with it
    officer = new_bench(qtbot, adult_path, adult_model.ROLES)
    try:
        officer.open_model(str(saved))
        qtbot.waitUntil(lambda: officer.model is not None, timeout=TIMEOUT)
        assert sorted(officer.model.weight_triples()) == sorted(model.weight_triples())
        assert officer.follower.mismatches == []
        ids = tuple(str(i) for i in range(0, 300, 2))
        officer.add_release(ReleaseDefinition("every second", "ids", ids=ids))
        qtbot.waitUntil(lambda: officer.current_report() is not None, timeout=TIMEOUT)
        code, out, err = run_cli(capsys, ["score", adult_path, "--rows", ",".join(ids), "--qi",
                                          ",".join(adult_model.ROLES.qi), "--sa", ",".join(adult_model.ROLES.sa),
                                          "--continuous", "age", "--model", cli_model, "--format", "json"])
        import json

        assert officer.current_report().scores.tkl == pytest.approx(json.loads(out)["scores"]["tkl"], rel=1e-12)
        assert "opened from" in officer.model_origin
        assert officer.undo_stack.count() == 1   # opening a model is undoable
    finally:
        officer.runner.cancel_all()
        officer.runner.wait()


def test_a_new_model_marks_what_is_not_yet_judged_and_undo_takes_it_back(qtbot, view, bench):
    model = build(qtbot, view)
    assert bench.model_origin == "built from adult.csv in this session (not saved yet)"
    sales = node(bench, "occupation", "Sales")
    assert view.label_text(sales) == "normal · not yet judged"
    assert view.tree_model.index_of(sales, LABEL_COL).data(Qt.ItemDataRole.FontRole).italic()
    assert "61 values · 61 not yet judged · 0 without a label" in view.count_label.text()
    assert "Job" in view.tree_model.index_of(model.attribute("occupation").iri).parent().data()
    # the unjudged values shown, all confirmed at once
    view.show_combo.setCurrentIndex(view.show_combo.findData(SHOW_UNJUDGED))
    assert view.tree_model.matching == 61 + 4    # 61 values and 4 suggested classes
    view.select_shown_values()
    view.confirm_button.click()
    assert not bench.model.unjudged()
    assert view.tree_model.matching == 4          # the four attributes' suggested classes
    bench.undo_stack.undo()
    assert len(bench.model.unjudged()) == 61
    bench.undo_stack.undo()
    assert bench.model is None and "No tkl-Data Model" in view.origin_label.text()
    bench.undo_stack.redo()
    assert bench.model.state() == model.state()
    # a new build cancelled: named in plain words; the view says the model shown is the one there was
    from helpers import cancelled_at_once

    task = cancelled_at_once(qtbot, bench.runner, view.new_model_from_source)
    assert (task.cancel_text, task.stops) == ("Cancel building the model", "building a tkl-Data Model from adult.csv")
    assert view.message.isVisibleTo(view) and view.message.text() == (
        "Building a new model from adult.csv was cancelled: the model shown is the one you had.")
    assert bench.model.state() == model.state()


def test_bins_and_labels_edited_in_place(qtbot, view, bench):
    build(qtbot, view)
    young = node(bench, "age", "[0,28)")
    index = view.tree_model.index_of(young, NODE_COL)
    assert view.tree_model.flags(index) & Qt.ItemFlag.ItemIsEditable
    assert view.tree_model.setData(index, "[0,25)")
    qtbot.waitUntil(lambda: node(bench, "age", "[0,25)") is not None, timeout=5000)
    assert [n.value for n in bench.model.values_of("age")] == ["[0,25)", "[25,37)", "[37,47)", "[47,inf)"]
    sales = node(bench, "occupation", "Sales")
    label = view.tree_model.index_of(sales, LABEL_COL)
    assert view.tree_model.setData(label, "restricted")
    qtbot.waitUntil(lambda: bench.model.nodes[sales].qualitative == "restricted", timeout=5000)
    assert not bench.model.nodes[sales].provisional and view.label_text(sales) == "restricted"
    # bins that leave a gap: refused by name, nothing changes, nothing to undo
    state, count = bench.model.state(), bench.undo_stack.count()
    view.bins.edges_edit.setText("0, 30, 20, inf")
    assert not view.bins.apply_edges()
    assert "bin edges of 'age' must increase" in view.message.text()
    assert not view.edits.set_bins("age", ["[0,30)", "[40,inf)"], "Bins")
    assert "bins [0,30) and [40,inf) leave a gap: values from 30 to 40" in view.message.text()
    assert bench.model.state() == state and bench.undo_stack.count() == count
    assert view.bins.propose("round")
    assert [n.value for n in bench.model.values_of("age")] == ["[0,20)", "[20,40)", "[40,60)", "[60,80)", "[80,inf)"]
    bench.undo_stack.undo()
    assert bench.model.state() == state


def test_the_model_follows_the_table_and_lists_the_changes(qtbot, view, bench):
    model = build(qtbot, view)
    professional = model.find("Professional").iri
    view.workbench.edit_model("judge", lambda m: m.set_judgement(professional, m.find("Job").iri,
                                                                 m.find("Salary").iri, 3))
    labelled = node(bench, "occupation", "Sales")
    view.set_label("low", labelled)
    roles = Roles(qi=adult_model.ROLES.qi[:-1], sa=("occupation", "salary-class", "education", "age"),
                  continuous=("age",))
    bench.set_roles(roles)
    assert bench.undo_stack.undoText() == "Follow the table adult.csv"
    assert "education" in bench.model.columns and "native-country" not in bench.model.columns
    assert bench.model.nodes[labelled].qualitative == "low"                      # kept
    assert bench.model.judgements[professional]                                  # kept
    lines = [view.status.change_list.item(i).text() for i in range(view.status.change_list.count())]
    assert "new sensitive column education, aligned with Education (suggested)" in lines
    assert any(line.startswith("column native-country is no longer sensitive") for line in lines)
    assert any("16 new value(s) of education start with the default label" in line for line in lines)
    assert view.status.changes_box.isVisibleTo(view)
    bench.undo_stack.undo()
    assert "native-country" in bench.model.columns and "education" not in bench.model.columns


def test_a_model_built_for_another_table_is_checked_not_refused(qtbot, view, bench, tmp_path):
    write_thesis_example(tmp_path)
    bench.open_model(str(tmp_path / "model.ttl"))
    qtbot.waitUntil(lambda: bench.model is not None, timeout=TIMEOUT)
    mismatches = bench.follower.mismatches
    assert {m.column for m in mismatches if m.kind == "missing column"} == {"Disease", "Medication", "Age",
                                                                           "Initial Diagnosis"}
    assert {m.column for m in mismatches if m.kind == "no attribute"} == {"occupation", "salary-class",
                                                                         "native-country", "age"}
    assert view.status.mismatch_box.isVisibleTo(view) and view.status.mismatch_list.count() == len(mismatches)
    assert "opened from" in view.origin_label.text()
    # the expert makes it follow this table: one edit, undone as one
    view.status.follow_button.click()
    assert set(bench.model.columns) == set(adult_model.ROLES.sa) and bench.model.source == "adult.csv"
    assert bench.undo_stack.undoText() == "Follow the table adult.csv"
    bench.undo_stack.undo()
    assert "Disease" in bench.model.columns


def test_opening_a_file_that_is_not_a_model_says_so_and_keeps_the_model(qtbot, view, bench, tmp_path):
    model = build(qtbot, view)
    errors = []
    bench.failed.connect(errors.append)
    bad = tmp_path / "not-a-model.ttl"
    bad.write_text("@prefix ex: <https://example.org/> .\nex:a ex:b ex:c .\n", encoding="utf-8")
    bench.open_model(str(bad))
    qtbot.waitUntil(lambda: bool(errors), timeout=TIMEOUT)
    assert "not-a-model.ttl" in errors[0] and "holds 0 tkl-Data Models" in errors[0]
    assert bench.model.state() == model.state()
    assert view.open_vocabulary([str(bad.with_name("missing.ttl"))])   # read on the side lane: said when it fails
    qtbot.waitUntil(lambda: "missing.ttl" in view.message.text(), timeout=TIMEOUT)
    assert view.message.text() == f"{bad.with_name('missing.ttl')}: vocabulary file not found"


def test_new_model_needs_a_source_and_sensitive_columns(qtbot, settings):
    bench = Workbench()
    bench.autosave_timer.stop()
    view = ModelView(bench, settings=settings)
    qtbot.addWidget(view)
    assert not view.new_model_from_source()
    assert "Open the source table first" in view.message.text()
    assert bench.model is None and bench.undo_stack.count() == 0


def test_a_20000_value_column_is_searchable_and_labelled_in_bulk(qtbot, settings, tmp_path):
    import pandas as pd

    from tklscore.core.tables.loading import Table

    frame = pd.DataFrame({"zip": [f"{i:05d}" for i in range(20_000)],
                          "diagnosis": [f"D{i:05d}" for i in range(20_000)]})
    path = tmp_path / "clinic.csv"
    frame.to_csv(path, index=False)
    with model_view_of(qtbot, settings, path, Roles(qi=["zip"], sa=["diagnosis"])) as (bench, view):
        attribute = bench.model.attribute("diagnosis")
        assert bench.model.nodes[attribute.parent].label == "Health"
        index = view.tree_model.index_of(attribute.iri)
        assert index.data() == "diagnosis  (20,000 values)" and view.tree_model.rowCount(index) == 20_000
        assert not view.tree.isExpanded(index)                      # too many to open by default
        view.model_search.setText("D1234")                          # D12340 … D12349
        assert view.tree_model.matching == 10 and view.tree.isExpanded(view.tree_model.index_of(attribute.iri))
        view.model_search.setText("")
        view.show_combo.setCurrentIndex(view.show_combo.findData(SHOW_UNJUDGED))
        view.select_shown_values()
        assert len(view.selected_iris()) == 20_000
        view.label_combo.setCurrentText("restricted")
        view.set_label_button.click()
        assert not bench.model.unjudged() and bench.undo_stack.undoText() == "Label 20,000 value(s) restricted"
        assert view.tree_model.matching == 1                        # the attribute's suggested class is left
        bench.undo_stack.undo()
        assert len(bench.model.unjudged()) == 20_000
        assert Table is not None


def test_the_new_model_dialog_shows_suggestions_and_bin_choices(qtbot, bench):
    from tklscore.gui.model.new_model_dialog import NewModelDialog

    dialog = NewModelDialog(bench.table, bench.project.roles, Vocabulary.shipped("dpv-2.3"))
    qtbot.addWidget(dialog)
    rows = {dialog.columns.item(r, 0).text(): dialog.columns.item(r, 1).text() for r in range(dialog.columns.rowCount())}
    assert rows == {"occupation": "Job", "salary-class": "Salary", "native-country": "Nationality", "age": "Age"}
    method, count = dialog.bin_choices["age"]
    method.setCurrentIndex(method.findData("round"))
    assert not count.isEnabled()
    dialog.label_combo.setCurrentText("moderate")
    choices = dialog.choices()
    assert choices.vocabulary.key == "dpv-2.3" and choices.bins == {"age": ("round", None)}
    assert choices.default_label == "moderate"
    dialog.vocabulary_combo.setCurrentIndex(dialog.vocabulary_combo.findText(Vocabulary.shipped("thesis").title))
    assert dialog.columns.item(0, 1).text().startswith("—")          # the thesis' taxonomy has no Job


def test_file_menu_builds_opens_and_saves_models_and_the_project_keeps_it(qtbot, bench, settings, tmp_path,
                                                                        monkeypatch, adult_path):
    from PySide6.QtWidgets import QDialog, QFileDialog

    from tklscore.gui.main_window import MainWindow
    from tklscore.gui.model.new_model_dialog import NewModelDialog

    window = MainWindow(bench, settings=settings)
    qtbot.addWidget(window)
    window.show()
    actions = {a.text(): a for a in window.menuBar().actions()[0].menu().actions()}
    assert {"New &model from source…", "Open mo&del…", "Save model as…"} <= set(actions)
    monkeypatch.setattr(NewModelDialog, "exec", lambda self: QDialog.DialogCode.Accepted)
    actions["New &model from source…"].trigger()
    qtbot.waitUntil(lambda: bench.model is not None, timeout=TIMEOUT)
    assert window.current_key() == "model" and bench.model.source == "adult.csv"
    target = tmp_path / "adult-model"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), "")))
    actions["Save model as…"].trigger()
    saved = tmp_path / "adult-model.ttl"
    assert saved.is_file() and TklDataModel.load(saved).state() == bench.model.state()
    project = tmp_path / "adult.tklproj"
    bench.save_project(str(project))
    state = bench.model.state()
    bench.new_project()
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(saved), "")))
    actions["Open mo&del…"].trigger()
    qtbot.waitUntil(lambda: bench.model is not None, timeout=TIMEOUT)
    assert bench.model.state() == state and bench.model_origin == f"opened from {saved}"
    bench.open_project(str(project))
    qtbot.waitUntil(lambda: bench.model is not None and not bench.model_pending(), timeout=TIMEOUT)
    assert bench.model.state() == state and bench.model_origin == "the project adult.tklproj"
    bench.undo_stack.setClean()
    bench._mark(False)


def test_the_effect_of_each_judgement_is_shown(qtbot, bench):
    """Moving a judgement shows what it does: the priorities' change (and dashed outlines of
    the priorities before), the columns below each criterion and their weight factors, and
    once kept, the current release's tkl-Score before and after."""
    from tklscore.core.model.data_model.derivation import criterion_effects
    from tklscore.gui.ahp.saaty_slider import position_of

    bench.replace_model("The expert's model", adult_model.build(bench.table, Vocabulary.shipped("dpv-2.3")), "built")
    bench.add_release(ReleaseDefinition("every second record", "ids", ids=tuple(str(i) for i in range(0, 30162, 2))))
    qtbot.waitUntil(lambda: bench.current_report() is not None and bench.current_report().scores.tkl is not None,
                    timeout=TIMEOUT)
    old_report = bench.current_report()
    ahp = AhpView(bench)
    qtbot.addWidget(ahp)
    ahp.show()
    assert ahp.labels() == ["External", "Social", "Tracking"]
    before = [float(p) for p in ahp.result.priorities]
    table = ahp.priority_table

    def row(k):
        return [table.item(k, c).text() for c in range(table.columnCount())]

    assert row(1) == ["Social", "occupation, salary-class", f"{before[1]:.4f}", "", f"{before[1]:.4f}"]
    count = bench.undo_stack.count()
    ahp.sliders[(1, 2)].slider.setValue(position_of(3.0))      # Social vs Tracking: 5 → 3, previewed
    previewed = [float(p) for p in ahp.result.priorities]
    assert previewed[1] < before[1] and bench.undo_stack.count() == count
    assert row(1)[3] == f"{previewed[1] - before[1]:+.4f}".replace("-", "−")
    assert row(2)[3] == f"+{previewed[2] - before[2]:.4f}"
    assert ahp.results.before_bars is not None
    qtbot.waitUntil(lambda: bench.undo_stack.count() == count + 1, timeout=TIMEOUT)   # kept
    qtbot.waitUntil(lambda: bench.current_report() is not old_report and "from" in ahp.score_label.text(),
                    timeout=TIMEOUT)
    after = [float(p) for p in ahp.result.priorities]
    assert after == pytest.approx(previewed, abs=1e-15)
    assert row(1)[3] == f"{after[1] - before[1]:+.4f}".replace("-", "−")     # the change of the last one kept
    factors = [e.factor for e in criterion_effects(bench.model, ahp.parent_iri, ahp.result.priorities)]
    assert [float(row(k)[4]) for k in range(3)] == pytest.approx(factors, abs=5e-5)
    new, old = bench.current_report().scores.tkl, old_report.scores.tkl
    assert new != old
    assert (f"tkl-Score <b>{new:.5f}</b> — {new - old:+.5f} from {old:.5f} by the last judgement kept: "
            f"Social is moderately more important than Tracking (3)") in ahp.score_label.text()
    # another group: nothing to compare with; undo: the score no longer claims the judgement
    ahp.group_combo.setCurrentIndex(next(k for k in range(ahp.group_combo.count())
                                         if ahp.group_combo.itemText(k).startswith("Under Professional:")))
    assert all(row(k)[3] == "" for k in range(table.rowCount()))
    assert ahp.results.before_bars is None
    bench.undo_stack.undo()
    qtbot.waitUntil(lambda: bench.current_report() is not None and "from" not in ahp.score_label.text()
                    and bench.current_report().scores.tkl == pytest.approx(old, abs=1e-9), timeout=TIMEOUT)


def test_the_mono_hierarchy_choice_is_shown_and_changed_in_the_window(qtbot, settings, tmp_path):
    """DPV 2.3's Medical Health has two parents: the kept one is shown with why, and choosing
    the other rebuilds the taxonomy as one undoable edit that keeps the labels."""
    path = tmp_path / "clinic.csv"
    path.write_text("zip,diagnosis\n" + "".join(f"{10000 + i},D{i % 7}\n" for i in range(40)), encoding="utf-8")
    with model_view_of(qtbot, settings, path, Roles(qi=["zip"], sa=["diagnosis"])) as (bench, view):
        view.set_label("restricted", node(bench, "diagnosis", "D3"))
        panel = view.alignment
        assert [panel.conflict_list.topLevelItem(0).text(c) for c in (0, 1)] == [
            "Medical Health", "Special Category Personal Data, External"]
        combo = panel.conflict_list.itemWidget(panel.conflict_list.topLevelItem(0), 2)
        assert combo.currentText() == "External"
        path_labels = [bench.model.nodes[i].label for i in bench.model.path_to_root(bench.model.attribute("diagnosis").iri)]
        assert "External" in path_labels
        other = combo.findText("Special Category Personal Data")
        combo.setCurrentIndex(other)
        combo.activated.emit(other)
        assert bench.undo_stack.undoText() == "Medical Health keeps parent Special Category Personal Data"
        path_labels = [bench.model.nodes[i].label for i in bench.model.path_to_root(bench.model.attribute("diagnosis").iri)]
        assert "Special Category Personal Data" in path_labels and "External" not in path_labels
        assert bench.model.nodes[node(bench, "diagnosis", "D3")].qualitative == "restricted"
        combo = panel.conflict_list.itemWidget(panel.conflict_list.topLevelItem(0), 2)
        assert combo.currentText() == "Special Category Personal Data"
        bench.undo_stack.undo()
        path_labels = [bench.model.nodes[i].label for i in bench.model.path_to_root(bench.model.attribute("diagnosis").iri)]
        assert "External" in path_labels
