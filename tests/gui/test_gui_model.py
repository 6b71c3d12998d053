"""The Model view (gui.md §2.1, §2.3, §2.4): the tkl-Data Model tree with labels,
priorities and weights, the vocabulary browser, labels, elements, drag and drop, aligning
a column with a class (taxonomy re-extraction, conflicts), problems and undo — driven
with pytest-qt, offscreen."""

import pytest
from PySide6.QtCore import QSettings, Qt

from tklscore.gui.model.tree import (
    CLASS_MIME,
    CODE_COL,
    KIND_COL,
    LABEL_COL,
    LABEL_SCORE_COL,
    NODE_COL,
    PRIORITY_COL,
    WEIGHT_COL,
)
from tklscore.gui.model.view import SETTINGS_KEY, ModelView

DPV = "http://www.w3.org/ns/dpv#"


@pytest.fixture
def settings(tmp_path):
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def view(qtbot, thesis_workbench, settings):
    widget = ModelView(thesis_workbench, settings=settings)
    qtbot.addWidget(widget)
    widget.resize(1200, 800)
    widget.show()
    return widget


def cell(view, label, column):
    iri = view.workbench.model.find(label).iri
    return view.tree_model.index_of(iri, column).data()


def test_tree_shows_the_taxonomy_above_the_table_model(view):
    model = view.tree_model
    assert model.rowCount() == 1
    top = model.index(0, 0)
    assert top.data() == "PersonalDataCategory"
    assert model.index(0, KIND_COL).data() == "root"
    disease = view.tree_model.index_of(view.workbench.model.find("A.Disease").iri)
    assert disease.parent().data() == "Health"
    assert cell(view, "V-0.HIV", WEIGHT_COL) == "0.43169"
    assert cell(view, "V-0.HIV", LABEL_COL) == "very restricted"
    assert cell(view, "V-0.H1N1", LABEL_COL) == "(restricted)"  # propagated from E.Viral
    assert "inherits" not in cell(view, "V-0.H1N1", LABEL_COL)
    assert cell(view, "MedicalHealth", PRIORITY_COL) == "0.80000"
    assert cell(view, "Prescription", PRIORITY_COL) == "0.16342"
    # taxonomy nodes are styled apart from the table model
    health = view.tree_model.index_of(view.workbench.model.find("Health").iri)
    assert health.data(Qt.ItemDataRole.FontRole).italic()
    assert not disease.data(Qt.ItemDataRole.FontRole).italic()
    assert view.problems_box.isHidden()
    # the built-in vocabulary, searchable; the thesis' conflict is listed with the parent kept
    assert "built-in" in view.vocabulary_label.text()
    view.search.setText("prescr")
    assert view.class_filter.rowCount() == 1 and view.select_class(DPV + "Prescription")
    assert [c.node for c in view.conflicts] == [DPV + "MedicalHealth"]
    assert view.conflict_list.topLevelItem(0).text(0) == "MedicalHealth"
    assert "SpecialCategoryPersonalData" in view.pruning_label.text()
    # the browser shows which classes are in the model, aligned, or pruned
    view.search.setText("")
    view.select_class(DPV + "Health")
    assert view.class_tree.currentIndex().data().startswith("Health  ▸")
    assert view.class_tree.currentIndex().data(Qt.ItemDataRole.FontRole).bold()
    view.select_class(DPV + "SpecialCategoryPersonalData")
    assert view.class_tree.currentIndex().data(Qt.ItemDataRole.FontRole).strikeOut()


def test_set_label_through_the_view_and_undo(view, thesis_workbench):
    arv = thesis_workbench.model.find("V.ARV").iri
    view.select(arv)
    assert view.set_label_button.isEnabled()
    view.label_combo.setCurrentText("very restricted")
    view.set_label_button.click()
    expected = round(0.8 * 0.16342 * 1.0, 5)
    assert float(cell(view, "V.ARV", WEIGHT_COL)) == pytest.approx(expected, abs=1e-5)
    assert cell(view, "V.ARV", LABEL_COL) == "very restricted"
    weights = {(e.attribute, e.value): e.weight for e in thesis_workbench.weights.entries}
    assert weights[("Medication", "ARV")] == pytest.approx(expected, abs=1e-5)
    assert view.selected_iri() == arv  # the selection survives the rebuild
    thesis_workbench.undo_stack.undo()
    assert cell(view, "V.ARV", WEIGHT_COL) == "0.10459"
    assert {(e.attribute, e.value): e.weight for e in thesis_workbench.weights.entries}[("Medication", "ARV")] == \
        pytest.approx(0.10459, abs=1e-5)


def test_drop_moves_a_value_into_an_element(view, thesis_workbench):
    model = view.tree_model
    hypertension = thesis_workbench.model.find("V-0.Hypertension").iri
    viral = thesis_workbench.model.find("E.Viral").iri
    mime = model.mimeData([model.index_of(hypertension)])
    target = model.index_of(viral)
    assert model.canDropMimeData(mime, Qt.DropAction.CopyAction, -1, -1, target)
    # a value of another column, or onto a value, is refused
    medication = model.index_of(thesis_workbench.model.find("A.Medication").iri)
    assert not model.canDropMimeData(mime, Qt.DropAction.CopyAction, -1, -1, medication)
    assert model.dropMimeData(mime, Qt.DropAction.CopyAction, -1, -1, target)
    assert thesis_workbench.model.nodes[hypertension].parent == viral
    assert view.tree_model.index_of(hypertension).parent().data() == "Viral"
    assert thesis_workbench.undo_stack.undoText().startswith("Move V-0.Hypertension into E.Viral")
    thesis_workbench.undo_stack.undo()
    assert thesis_workbench.model.nodes[hypertension].parent == thesis_workbench.model.find("A.Disease").iri


def test_create_and_remove_an_element(view, thesis_workbench):
    disease = thesis_workbench.model.find("A.Disease").iri
    view.select(disease)
    assert view.new_element_button.isEnabled()
    created = view.new_element("Chronic")
    assert created is not None and thesis_workbench.model.nodes[created].label == "E.Chronic"
    assert view.tree_model.index_of(created).parent().data() == "Disease"
    # a new first-level element without a label is a problem to report
    assert any("E.Chronic" in view.problem_list.item(i).text() for i in range(view.problem_list.count()))
    assert view.move(thesis_workbench.model.find("V-0.Hypertension").iri, created)
    assert view.set_label("restricted", created)
    assert view.problems_box.isHidden()
    view.select(created)
    assert view.remove_element()
    assert thesis_workbench.model.find("V-0.Hypertension").parent == disease
    assert "E.Chronic" not in {n.label for n in thesis_workbench.model.nodes.values()}


def test_bad_edits_are_shown_and_change_nothing(view, thesis_workbench, qtbot):
    before = thesis_workbench.model.state()
    errors = []
    thesis_workbench.failed.connect(errors.append)
    assert view.new_element("Viral", thesis_workbench.model.find("V.ARV").iri) is None
    assert "not under the value" in view.message.text() and errors
    # an edit that fails inside the model (a label the scale lacks)
    assert not view.set_label("secret", thesis_workbench.model.find("V.ARV").iri)
    assert "not a label of the scale" in view.message.text()
    assert thesis_workbench.model.state() == before and thesis_workbench.undo_stack.count() == 0


def test_problem_shown_when_a_first_level_value_loses_its_label(view, thesis_workbench):
    view.select(thesis_workbench.model.find("V-0.Hypertension").iri)
    view.label_combo.setCurrentText("none")
    view.set_label_button.click()
    assert not view.problems_box.isHidden()
    texts = [view.problem_list.item(i).text() for i in range(view.problem_list.count())]
    assert texts == ["first-level value V-0.Hypertension of A.Disease has no label"]
    assert thesis_workbench.weights is None and "has no label" in thesis_workbench.weights_problem
    thesis_workbench.undo_stack.undo()
    assert view.problems_box.isHidden()


def test_dropping_an_attribute_onto_a_class_realigns_and_keeps_untouched_judgements(view, thesis_workbench):
    model = view.tree_model
    diagnosis = thesis_workbench.model.find("A.Initial-Diagnosis").iri
    health = thesis_workbench.model.find("Health").iri
    external_judgements = dict(thesis_workbench.model.judgements[DPV + "External"]["expert 1"])
    mime = model.mimeData([model.index_of(diagnosis)])
    assert model.dropMimeData(mime, Qt.DropAction.CopyAction, -1, -1, model.index_of(health))
    assert thesis_workbench.model.nodes[diagnosis].parent == health
    assert "HealthRecord" not in {n.label for n in thesis_workbench.model.nodes.values()}
    assert thesis_workbench.model.judgements[DPV + "External"]["expert 1"] == external_judgements
    assert thesis_workbench.model.judgements[DPV + "MedicalHealth"]["expert 1"] == {
        (DPV + "Health", DPV + "Prescription"): 3.0}
    assert view.tree_model.index_of(diagnosis).parent().data() == "Health"
    assert "HealthRecord" in view.pruning_label.text()
    assert cell(view, "PhysicalCharacteristic", PRIORITY_COL) == "0.20000"
    assert cell(view, "V.LT-30", WEIGHT_COL) == "0.08000"
    texts = [view.problem_list.item(i).text() for i in range(view.problem_list.count())]
    assert texts == ["the criteria group under Health (A.Disease, A.Initial-Diagnosis) needs pairwise judgements"]
    thesis_workbench.undo_stack.undo()
    assert thesis_workbench.model.find("A.Initial-Diagnosis").parent == DPV + "HealthRecord"
    assert view.problems_box.isHidden()


def test_dropping_a_class_from_the_browser_onto_an_attribute(view, thesis_workbench):
    view.select_class(DPV + "MedicalHealth")
    source = view.class_tree.currentIndex()
    mime = view.class_filter.mimeData([source])
    assert mime.hasFormat(CLASS_MIME)
    disease = view.tree_model.index_of(thesis_workbench.model.find("A.Disease").iri)
    assert view.tree_model.dropMimeData(mime, Qt.DropAction.CopyAction, -1, -1, disease)
    assert thesis_workbench.model.find("A.Disease").parent == DPV + "MedicalHealth"
    assert "Health" not in {n.label for n in thesis_workbench.model.nodes.values()}
    # the reverse: the attribute dropped onto a class of the browser
    mime = view.tree_model.mimeData([view.tree_model.index_of(thesis_workbench.model.find("A.Disease").iri)])
    view.select_class(DPV + "Health")
    target = view.class_tree.currentIndex()
    assert view.class_filter.dropMimeData(mime, Qt.DropAction.CopyAction, -1, -1, target)
    assert thesis_workbench.model.find("A.Disease").parent == DPV + "Health"
    assert thesis_workbench.undo_stack.count() == 2


def test_a_conflict_resolved_by_keeping_the_other_parent(view, thesis_workbench):
    combo = view.conflict_list.itemWidget(view.conflict_list.topLevelItem(0), 2)
    assert combo.currentText() == "External"
    index = combo.findText("SpecialCategoryPersonalData")
    combo.setCurrentIndex(index)
    combo.activated.emit(index)
    assert thesis_workbench.model.find("MedicalHealth").parent == DPV + "SpecialCategoryPersonalData"
    assert view.conflict_list.itemWidget(view.conflict_list.topLevelItem(0), 2).currentText() == \
        "SpecialCategoryPersonalData"
    thesis_workbench.undo_stack.undo()
    assert thesis_workbench.model.find("MedicalHealth").parent == DPV + "External"


def test_opened_vocabulary_is_remembered(qtbot, thesis_workbench, settings, tmp_path):
    path = tmp_path / "mini.ttl"
    path.write_text("""@prefix dpv: <http://www.w3.org/ns/dpv#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
dpv:PersonalDataCategory a rdfs:Class .
dpv:External rdfs:subClassOf dpv:PersonalDataCategory .
dpv:MedicalHealth rdfs:subClassOf dpv:External .
dpv:Health rdfs:subClassOf dpv:MedicalHealth .
dpv:HealthRecord rdfs:subClassOf dpv:MedicalHealth .
dpv:Prescription rdfs:subClassOf dpv:MedicalHealth .
dpv:PhysicalCharacteristic rdfs:subClassOf dpv:External .
dpv:Age rdfs:subClassOf dpv:PhysicalCharacteristic .
dpv:Diagnosis rdfs:subClassOf dpv:HealthRecord .
""", encoding="utf-8")
    view = ModelView(thesis_workbench, settings=settings)
    qtbot.addWidget(view)
    assert view.open_vocabulary([str(path)])
    assert view.vocabulary_label.text() == "Reading mini.ttl…"   # in a process of its own
    qtbot.waitUntil(lambda: view.vocabulary_paths == [str(path)], timeout=30000)
    assert settings.value(SETTINGS_KEY, [], list) == [str(path)]
    assert view.vocabulary_label.text() == "mini.ttl — 9 classes"
    assert view.vocabulary.parents(DPV + "Diagnosis") == [DPV + "HealthRecord"]
    assert view.conflicts == []  # this vocabulary has no class with two parents
    again = ModelView(thesis_workbench, settings=settings)
    qtbot.addWidget(again)
    qtbot.waitUntil(lambda: again.vocabulary_paths == [str(path)], timeout=30000)
    assert DPV + "Diagnosis" in again.vocabulary
    assert again.align("Initial Diagnosis", DPV + "Diagnosis")
    assert thesis_workbench.model.find("A.Initial-Diagnosis").parent == DPV + "Diagnosis"
    assert view.open_vocabulary([str(tmp_path / "missing.ttl")])
    qtbot.waitUntil(lambda: view.message.text() != "", timeout=30000)
    assert "missing.ttl" in view.message.text() and view.vocabulary_paths == [str(path)]
    assert view.vocabulary_label.text() == "mini.ttl — 9 classes"   # the vocabulary read before stays
    again.use_builtin_vocabulary()
    assert settings.value(SETTINGS_KEY, [], list) == []


def test_a_vocabulary_file_is_parsed_apart_and_its_errors_said(qtbot, thesis_workbench, settings, tmp_path,
                                                                monkeypatch):
    """The files are parsed in another process: this one never parses RDF for them; a file
    that cannot be read is said with its line, and the remembered files that cannot be read
    give way to the shipped vocabulary."""
    import rdflib

    parsed = []
    parse = rdflib.Graph.parse
    monkeypatch.setattr(rdflib.Graph, "parse", lambda self, *a, **k: parsed.append(k) or parse(self, *a, **k))
    bad = tmp_path / "bad.ttl"
    bad.write_text("@prefix x: <urn:x#> .\nx:a x:b .\nx:c x:d\n", encoding="utf-8")
    settings.setValue(SETTINGS_KEY, [str(bad)])
    view = ModelView(thesis_workbench, settings=settings)
    qtbot.addWidget(view)
    assert view.vocabulary is None and view.vocabulary_label.text() == "Reading bad.ttl…"
    qtbot.waitUntil(lambda: view.vocabulary is not None, timeout=30000)
    assert view.message.text().startswith("The remembered vocabulary could not be opened, using the shipped one: "
                                          f"{bad}: cannot be read as turtle")
    assert "bad syntax" in view.message.text()
    assert view.vocabulary.key == "thesis" and view.vocabulary_label.text().startswith("built-in: ")
    assert parsed == []


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_a_real_drop_event_on_the_tree(view, thesis_workbench):
    from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
    from PySide6.QtWidgets import QApplication

    tree = view.tree
    hypertension = thesis_workbench.model.find("V-0.Hypertension").iri
    viral = view.tree_model.index_of(thesis_workbench.model.find("E.Viral").iri)
    mime = view.tree_model.mimeData([view.tree_model.index_of(hypertension)])
    tree.scrollTo(viral)
    point = tree.visualRect(viral).center()
    args = (Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    for event in (QDragEnterEvent(point, *args), QDragMoveEvent(point, *args), QDropEvent(point.toPointF(), *args)):
        QApplication.sendEvent(tree.viewport(), event)
    assert thesis_workbench.model.nodes[hypertension].parent == thesis_workbench.model.find("E.Viral").iri
    assert thesis_workbench.undo_stack.count() == 1


def test_tree_names_nodes_readably_and_keeps_label_scores_apart(view):
    from PySide6.QtCore import Qt as _Qt

    model = view.tree_model
    # the value itself as the name, its code as a small grey tag of its own
    assert cell(view, "V-0.Flu", NODE_COL) == "Flu" and cell(view, "V-0.Flu", CODE_COL) == "V-0"
    assert cell(view, "V-1.Flu", NODE_COL) == "Flu" and cell(view, "V-1.Flu", CODE_COL) == "V-1"
    assert cell(view, "A.Initial-Diagnosis", NODE_COL) == "Initial Diagnosis"
    assert cell(view, "A.Initial-Diagnosis", CODE_COL) == "A"
    assert cell(view, "E.Viral", NODE_COL) == "Viral" and cell(view, "E.Viral", CODE_COL) == "E"
    assert cell(view, "V.LT-30", NODE_COL) == "[0,30)"
    assert cell(view, "Health", CODE_COL) == ""
    tag = model.index_of(view.workbench.model.find("V-0.Flu").iri, CODE_COL)
    assert tag.data(_Qt.ItemDataRole.FontRole).pointSizeF() < view.tree.font().pointSizeF()
    # AHP priorities of criteria and label scores of values in columns of their own
    assert cell(view, "Health", PRIORITY_COL) == "0.53961" and cell(view, "Health", LABEL_SCORE_COL) == ""
    assert cell(view, "V-0.HIV", PRIORITY_COL) == "" and cell(view, "V-0.HIV", LABEL_SCORE_COL) == "1.00"
    assert cell(view, "E.Viral", LABEL_SCORE_COL) == "0.80" and cell(view, "V-0.H1N1", LABEL_SCORE_COL) == "0.80"
    assert model.headerData(PRIORITY_COL, _Qt.Orientation.Horizontal) == "AHP priority"
    assert model.headerData(LABEL_SCORE_COL, _Qt.Orientation.Horizontal) == "Label score"
    # a bracketed label is explained: tooltip on the cell and a legend under the tree
    tip = model.index_of(view.workbench.model.find("V-0.H1N1").iri, LABEL_COL).data(_Qt.ItemDataRole.ToolTipRole)
    assert "takes 'restricted' from Viral" in tip and "no label of its own" in tip
    assert "(restricted)" in view.tree_legend.text() and "inherits" in view.tree_legend.text()
    assert view.tree_legend.isVisibleTo(view)


def test_off_screen_the_tree_is_re_read_when_the_view_is_shown(qtbot, tmp_path, settings, monkeypatch):
    from tklscore.gui.main_window import MainWindow

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    window.workbench.autosave_timer.stop()
    window.resize(1400, 900)
    window.show()
    thesis_workbench, view = window.workbench, window.views["model"]
    try:
        thesis_workbench.load_example("thesis")
        window.show_view("model")
        assert cell(view, "V-0.HIV", LABEL_COL) == "very restricted"
        window.show_view("ahp")
        hiv = thesis_workbench.model.find("V-0.HIV").iri
        thesis_workbench.edit_model("label", lambda m: m.set_label(hiv, "low"))
        assert cell(view, "V-0.HIV", LABEL_COL) == "very restricted"   # not re-read off screen
        window.show_view("model")
        assert cell(view, "V-0.HIV", LABEL_COL) == "low"               # re-read when shown
        assert cell(view, "V-0.HIV", LABEL_SCORE_COL) == "0.20"
    finally:
        thesis_workbench.runner.cancel_all()
        thesis_workbench.runner.wait()
        thesis_workbench.undo_stack.setClean()
        thesis_workbench._mark(False)  # closing asks nothing


def test_the_view_reads_only_the_vocabulary_its_model_was_built_with(qtbot, thesis_workbench, settings, monkeypatch):
    """Built for a model of a shipped vocabulary (the thesis'), the view reads that one, not
    first the one remembered (DPV 2.3: a fifth of a second of the UI thread's time)."""
    import tklscore.core.model.vocabulary as vocabulary

    read, shipped = [], vocabulary._shipped
    monkeypatch.setattr(vocabulary, "_shipped", lambda key: read.append(key) or shipped(key))
    view = ModelView(thesis_workbench, settings=settings)
    qtbot.addWidget(view)
    assert read == ["thesis"] and view.vocabulary.key == "thesis" and "built-in" in view.vocabulary_label.text()


def test_a_shipped_vocabulary_is_read_at_once_from_its_digest(qtbot, thesis_workbench, settings, monkeypatch):
    import rdflib

    import tklscore.core.model.vocabulary as vocabulary

    monkeypatch.setattr(rdflib.Graph, "parse", lambda *a, **k: pytest.fail("a shipped vocabulary was parsed"))
    vocabulary._shipped.cache_clear()   # as in a fresh application
    try:
        view = ModelView(thesis_workbench, settings=settings)
        qtbot.addWidget(view)
        assert view.vocabulary.key == "thesis" and view.vocabulary_label.text().startswith("built-in: ")
        view.use_shipped("dpv-2.3")
        assert view.vocabulary_label.text() == "built-in: DPV 2.3 personal data categories (W3C) — 269 classes"
    finally:
        vocabulary._shipped.cache_clear()


def test_reading_a_vocabulary_cancelled_says_so(qtbot, thesis_workbench, settings, tmp_path):
    path = tmp_path / "mini.ttl"
    path.write_text("@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
                    "<urn:x#B> rdfs:subClassOf <urn:x#A> .\n", encoding="utf-8")
    view = ModelView(thesis_workbench, settings=settings)
    qtbot.addWidget(view)
    view.open_vocabulary([str(path)])
    thesis_workbench.runner.cancel_all()     # the status bar's Cancel
    qtbot.waitUntil(lambda: "not read (cancelled)" in view.vocabulary_label.text(), timeout=30000)
    assert view.vocabulary_label.text().startswith("mini.ttl not read (cancelled); still built-in: ")
    assert view.vocabulary.key == "thesis" and view.vocabulary_panel.reading is None
    assert settings.value(SETTINGS_KEY, [], list) == []   # not remembered
    view.use_shipped("dpv-2.3")                # the officer chooses one: read at once
    assert view.vocabulary.key == "dpv-2.3" and "built-in" in view.vocabulary_label.text()
