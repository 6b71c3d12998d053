"""The patient view (PIA's Patient Data Visualizer, pia.md §1.3, gui.md §3)."""

import shutil

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QMessageBox

from tklscore.core.pia.analysis import analyze_files
from tklscore.core.pia.preferences import (
    PREFERENCE_MEANINGS,
    load_preferences,
    suggested_preferences,
)
from tklscore.core.files.resources import resource_path
from tklscore.gui.patient.view import (
    CATEGORIES,
    FUNCTION_KEYS,
    PatientView,
    preferences_path_for,
)

PIA = resource_path("pia/bob_data.ttl").parent


@pytest.fixture
def bob(tmp_path):
    path = tmp_path / "bob_data.ttl"
    shutil.copy(PIA / "bob_data.ttl", path)
    return path


@pytest.fixture
def view(qtbot, monkeypatch, bob):
    monkeypatch.setattr("PySide6.QtWidgets.QFileDialog.getOpenFileName", lambda *a, **k: (str(bob), ""))
    v = PatientView()
    v.resize(1400, 860)
    qtbot.addWidget(v)
    v.show()
    return v


def analysed(qtbot, view, action, *args):
    """Do what starts an analysis and wait for it: it runs on the task runner, not the UI thread."""
    with qtbot.waitSignal(view.analysisFinished, timeout=60_000):
        action(*args)


def reference(preferences=None):
    return analyze_files(PIA / "bob_ontology.ttl", PIA / "bob_data.ttl", PIA / "bob.rules",
                         PIA / "bob_patterns.csv", "Medium", method="efficient", preferences=preferences)


def test_every_toolbar_function_opens_its_screen(qtbot, view, monkeypatch):
    pages = {"information": "information", "places": "places", "load": "graph", "discover": "graph",
             "preferences": "graph", "about": "about"}
    headings = {"places": "Where do organizations send my data?"}
    for key in FUNCTION_KEYS[:-1]:
        if key == "discover":
            analysed(qtbot, view, qtbot.mouseClick, view.buttons[key], Qt.MouseButton.LeftButton)
        else:
            qtbot.mouseClick(view.buttons[key], Qt.MouseButton.LeftButton)
        if key == "load":
            qtbot.mouseClick(view.choose_button, Qt.MouseButton.LeftButton)   # the dialog is answered with bob
        assert view.current_function == key
        assert view.buttons[key].isChecked()
        assert view.stack.currentWidget() is view.pages[pages[key]], key
        assert view.heading.text() == headings.get(key, view.heading.text())
    assert view.preference_box.isVisible() is False or view.current_function == "preferences"
    asked = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: asked.append(box.text()) or QMessageBox.StandardButton.No)
    qtbot.mouseClick(view.buttons["exit"], Qt.MouseButton.LeftButton)
    assert asked and "close" in asked[0] and view.isVisible()       # "No": stays open
    monkeypatch.setattr(QMessageBox, "exec", lambda box: QMessageBox.StandardButton.Yes)
    qtbot.mouseClick(view.buttons["exit"], Qt.MouseButton.LeftButton)
    assert not view.isVisible()                                      # "Yes": the window closes


def test_information_learn_more_documents_and_sample_graph(qtbot, view, monkeypatch):
    opened = []
    monkeypatch.setattr("PySide6.QtGui.QDesktopServices.openUrl", lambda url: opened.append(url.toString()))
    assert len(CATEGORIES) == 4 and all(len(c[3]) == 3 for c in CATEGORIES)
    for key, _, _, items in CATEGORIES:
        for _, _, target in items:
            if target != "graph:sample":
                assert resource_path(f"patient/{target}").is_file()
    qtbot.mouseClick(view.learn_buttons["regulations"], Qt.MouseButton.LeftButton)
    dialog = view.learn_dialog
    assert len(dialog.buttons) == 3
    qtbot.mouseClick(dialog.buttons[0], Qt.MouseButton.LeftButton)
    assert view.stack.currentWidget() is view.pages["document"]
    assert "HIPAA" in view.document.toPlainText() and opened == []        # offline until a click
    link = next(a for a in ("https://www.hhs.gov/hipaa/for-individuals/guidance-materials-for-consumers/index.html",)
                if a in view.document.toHtml())
    view.document.anchorClicked.emit(__import__("PySide6.QtCore", fromlist=["QUrl"]).QUrl(link))
    assert opened == [link]
    view.open_function("information")
    view.learn_more(CATEGORIES[3])
    qtbot.mouseClick(view.learn_dialog.buttons[2], Qt.MouseButton.LeftButton)
    assert view.stack.currentWidget() is view.pages["sample"]
    graph = view.sample_panel.graph
    shown = {k for k, n in graph.nodes.items() if n.isVisible()}
    assert shown and len(shown) < len(graph.nodes)                # starts at the top concepts
    person = next(k for k in shown if graph.nodes[k].label == "Person")
    qtbot.mouseClick(graph.viewport(), Qt.MouseButton.LeftButton, pos=graph.click_point(person))
    assert {"Patient", "Physician"} <= {n.label for n in graph.nodes.values() if n.isVisible()}   # drill-down
    assert "Person" in view.sample_explain.toPlainText()


def test_places_table_is_sortable_searchable_sample(qtbot, view):
    view.open_function("places")
    proxy = view.places_proxy
    assert proxy.rowCount() == 44 and proxy.columnCount() == 4
    assert [view.places_model.headerData(i, Qt.Orientation.Horizontal) for i in range(4)] == \
        ["Information", "How Released", "Released By", "Released To"]
    view.places_search.setText("unos")
    assert proxy.rowCount() == 1 and proxy.index(0, 0).data() == "Potential Organ Recipients"
    view.places_search.clear()
    view.places_table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    first = [proxy.index(i, 0).data() for i in range(proxy.rowCount())]
    assert first == sorted(first, key=str.casefold)
    assert "Sample content" in view.pages["places"].findChildren(type(view.heading))[0].text()


def test_load_shows_ontology_then_patient_facts(qtbot, view, bob, monkeypatch):
    asked = []
    monkeypatch.setattr("PySide6.QtWidgets.QFileDialog.getOpenFileName",
                        lambda *a, **k: asked.append(a) or (str(bob), ""))
    qtbot.mouseClick(view.buttons["load"], Qt.MouseButton.LeftButton)
    assert asked == [] and view.data == []                              # no dialog on arrival
    assert view.example_button.isVisible() and view.example_button.text() == "Use the example patient"
    assert view.choose_button.isVisible() and view.choose_button.text() == "Open a file…"
    assert {n.label for n in view.graph.nodes.values()} >= {"Hepatologist", "Interferon", "Person"}
    qtbot.mouseClick(view.choose_button, Qt.MouseButton.LeftButton)
    assert len(asked) == 1 and asked[0][2] == str(__import__("pathlib").Path.home())   # starts in the home folder
    assert view.data_path == bob and len(view.data) == 6
    kinds = {e.kind for e in view.graph.edges.values()}
    assert kinds == {"ontology", "patient"}
    for fact in view.data:
        assert view.graph.edges[fact].kind == "patient"
    bob_node = next(k for k, n in view.graph.nodes.items() if n.label == "Bob")
    assert view.graph.nodes[bob_node].kind == "patient"
    # every node and edge explains itself on click
    qtbot.mouseClick(view.graph.viewport(), Qt.MouseButton.LeftButton, pos=view.graph.click_point(bob_node))
    assert "Bob" in view.explanation.toPlainText() and "your record" in view.explanation.toPlainText()
    for key in list(view.graph.edges)[:]:
        view.graph.activate(view.graph.edges[key])
        assert len(view.explanation.toPlainText()) > 40


def test_discover_colours_match_the_analyzer(qtbot, view):
    view.open_function("discover")                       # not loaded yet: prompted, sent to load
    assert view.current_function == "load" and view.findChild(QMessageBox, "loadFirstDialog") is not None
    view.findChild(QMessageBox, "loadFirstDialog").close()
    view.load_patient(view.example_path)
    analysed(qtbot, view, qtbot.mouseClick, view.buttons["discover"], Qt.MouseButton.LeftButton)
    ref = reference()
    red = view.graph.edges_with_role("violation")
    yellow = view.graph.edges_with_role("participant")
    assert red == {v.triple for v in ref.assessment.violations}
    assert yellow == set(ref.assessment.participants.facts)
    assert red and yellow and all(view.graph.edges[t].kind == "inferred" for t in red)
    inferred = {k for k, e in view.graph.edges.items() if e.kind == "inferred"}
    assert red <= inferred and len(inferred) == len(view.inferred) > 1
    violation = next(iter(red))
    qtbot.mouseClick(view.graph.viewport(), Qt.MouseButton.LeftButton, pos=view.graph.click_point(violation))
    text = view.explanation.toPlainText()
    assert "Bob likely has Hepatitis-C" in text and "likely has hepatitis c" in text   # the rule
    assert "Bob is treated by Hepatologist" in text and "Bob was given Interferon" in text   # from which facts
    assert "Why this is a problem" in text and "High" in text and "Medium" in text
    found = view.findings.toPlainText()
    assert "Bob was given Medication" in found and "instead of" in found      # the chosen disruption
    alt = ref.result.solution.alterations[0]
    assert str(alt.new_object).endswith("Medication")
    # it starts with what matters: the facts behind the findings; everything on request
    shown = {k for k, n in view.graph.nodes.items() if n.isVisible()}
    assert {violation.s, violation.o} <= shown and len(shown) < len(view.graph.nodes)
    view.panel.show_all()
    assert all(n.isVisible() for n in view.graph.nodes.values())


def test_suggested_preferences_match_the_analyzer(qtbot, view):
    view.load_patient(view.example_path)
    analysed(qtbot, view, view.open_function, "preferences")
    expected = suggested_preferences(reference().assessment)
    assert view.suggested == expected and expected
    assert view.graph.edges_with_role("suggested") == set(expected)
    fact = next(t for t, level in expected.items() if level == 3)
    view.graph.activate(view.graph.edges[fact])
    green = view.pref_buttons[3]
    assert "#2e9d4a" in green.styleSheet() and green.isEnabled()
    assert [b.text().split("  ", 1)[1] for b in view.pref_buttons] == list(PREFERENCE_MEANINGS.values())
    # an ontology relation cannot be given a preference
    onto_edge = next(k for k, e in view.graph.edges.items() if e.kind == "ontology")
    view.graph.activate(view.graph.edges[onto_edge])
    assert view.selected_fact is None and not view.pref_buttons[0].isEnabled()


def test_set_save_reload_preference(qtbot, view, bob, monkeypatch):
    qtbot.mouseClick(view.buttons["load"], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(view.choose_button, Qt.MouseButton.LeftButton)
    analysed(qtbot, view, qtbot.mouseClick, view.buttons["preferences"], Qt.MouseButton.LeftButton)
    fact = next(t for t in view.data if t.p.endswith("given"))
    qtbot.mouseClick(view.graph.viewport(), Qt.MouseButton.LeftButton, pos=view.graph.click_point(fact))
    assert view.selected_fact == fact
    qtbot.mouseClick(view.pref_buttons[1], Qt.MouseButton.LeftButton)
    assert view.preferences == {fact: 1} and view.graph.edges[fact].role == "current"
    assert "#f2b705" in view.pref_buttons[1].styleSheet()                       # current: yellow
    analysed(qtbot, view, qtbot.mouseClick, view.save_button, Qt.MouseButton.LeftButton)
    path = preferences_path_for(bob)
    assert path == bob.with_name("bob_data.preferences.csv") and path.is_file()
    assert load_preferences(path, view.data) == {fact: 1}                        # the analyzer's format
    again = PatientView()
    qtbot.addWidget(again)
    again.open_function("preferences")                   # nothing loaded: prompted to load first
    again.findChild(QMessageBox, "loadFirstDialog").close()
    assert again.load_patient(bob)
    assert again.preferences == {fact: 1}                # preferences load with the patient data
    analysed(qtbot, again, again.open_function, "preferences")
    assert again.preferences == {fact: 1} and again.graph.edges[fact].role == "current"
    again.graph.activate(again.graph.edges[fact])
    assert again.pref_buttons[1].isChecked()
    # discovering again uses the saved preferences, like `tklscore pia analyze --preferences`
    again.open_function("discover")
    ref = reference(preferences=path)
    assert again.analysis.preferences == {fact: 1}
    assert again.analysis.result.impact == pytest.approx(ref.result.impact)
    assert [a.source for a in again.analysis.result.solution.alterations] == \
        [a.source for a in ref.result.solution.alterations]
    assert "saved preferences were taken into account" in again.findings.toPlainText()


def test_bad_patient_file_gives_a_plain_dialog(qtbot, view, tmp_path):
    bad = tmp_path / "bad.ttl"
    bad.write_text("this is not turtle {")
    assert not view.load_patient(bad)
    box = view.findChild(QMessageBox, "errorDialog")
    assert box is not None and "bad.ttl" in box.text() and "Traceback" not in box.text()
    box.close()
    assert view.data == []


def test_bundled_example_saves_preferences_outside_the_installation(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    path = preferences_path_for(resource_path("pia/bob_data.ttl"))
    assert path.name == "bob_data.preferences.csv" and resource_path("pia/bob_data.ttl").parent != path.parent


def test_main_window_has_the_patient_tab(qtbot, tmp_path, monkeypatch):
    from tklscore import cli
    from tklscore.gui.main_window import MainWindow

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    win = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(win)
    assert isinstance(win.views["patient"], PatientView)
    win.show_view("patient")
    assert win.current_view() is win.views["patient"]
    args = cli.build_parser().parse_args(["gui", "--patient"])
    assert args.patient and cli.build_parser().parse_args(["gui", "--view", "patient"]).view == "patient"


def test_graph_scales_to_hundreds_of_nodes(qtbot):
    from tklscore.gui.patient.ontology_graph import OntologyGraph

    graph = OntologyGraph()
    qtbot.addWidget(graph)
    for i in range(300):
        graph.add_node(f"n{i}", f"Concept {i}")
    for i in range(1, 300):
        graph.add_edge(("e", i), f"n{i}", f"n{(i - 1) // 4}", "is a")
    graph.layout()
    positions = {(round(n.pos().x()), round(n.pos().y())) for n in graph.nodes.values()}
    assert len(positions) == 300                                   # no two boxes on the same spot
    graph.resize(900, 600)
    graph.fit()
    assert graph.search("Concept 123") == ["n123"]
    graph.show_keys({"n0"})
    assert graph.reveal_neighbours("n0") == {"n1", "n2", "n3", "n4"}


def test_the_analysis_runs_on_the_workbench_task_runner(qtbot, monkeypatch):
    import threading

    from tklscore.core.pia import analysis as pia_analysis
    from tklscore.gui.workbench import Workbench

    threads, real = [], pia_analysis.analyze_files
    monkeypatch.setattr(pia_analysis, "analyze_files",
                        lambda *a, **k: threads.append(threading.current_thread()) or real(*a, **k))
    bench = Workbench()
    view = PatientView(bench)
    qtbot.addWidget(view)
    assert view.runner is bench.runner
    view.load_patient(view.example_path)
    with qtbot.waitSignal(bench.runner.busy) as busy:
        view.open_function("discover")
    assert busy.args == [True, "Discovering information"]
    assert view.analysis is None and "Working it out" in view.findings.toPlainText()   # the UI goes on
    qtbot.waitUntil(lambda: view.analysis is not None, timeout=60_000)
    assert threads and threads[0] is not threading.main_thread()
    assert "too private" in view.findings.toPlainText()
    # a result for a patient that has since been replaced is dropped
    view.load_patient(view.example_path)
    view.open_function("preferences")
    view.open_function("information")
    view.load_patient(view.example_path)
    bench.runner.wait()
    qtbot.wait(50)
    assert view.analysis is None


def test_the_graph_shows_relations_as_arrows_never_as_boxes(qtbot, view):
    from tklscore.core.pia import load_rules, load_triples
    from tklscore.core.pia.facts import property_terms

    ontology = load_triples(PIA / "bob_ontology.ttl")
    relations = {t.split("#")[-1] for t in map(str, property_terms(ontology, load_rules(PIA / "bob.rules")))}
    assert relations == {"ISA", "treats", "givenFor", "treatedBy", "given", "likelyHas"}
    view.load_patient(view.example_path)
    for function in ("load", "discover"):
        if function == "discover":
            analysed(qtbot, view, view.open_function, function)
        else:
            view.open_function(function)
        labels = {n.label for n in view.graph.nodes.values()}
        assert not labels & {"diagnosedWith", "likelyHas", "treatedBy", "ISA"}, function
        assert {"Bob", "Leonard", "Hepatitis-C"} <= labels


def test_edge_labels_do_not_overlap(qtbot, view):
    view.load_patient(view.example_path)
    analysed(qtbot, view, view.open_function, "discover")
    for show in (view.panel.focus, view.panel.show_all):
        show()
        rects = [e._label_rect for e in view.graph.edges.values() if e.isVisible() and e.show_label()]
        assert len(rects) >= 5
        overlapping = [(a, b) for i, a in enumerate(rects) for b in rects[i + 1:] if a.intersects(b)]
        assert overlapping == []
        # a gap between two labels (they never touch, so each reads as its own arrow's) and none on a box
        gap_x, gap_y = view.graph.LABEL_GAP
        touching = [(a, b) for i, a in enumerate(rects) for b in rects[i + 1:]
                    if a.adjusted(-gap_x, -gap_y, gap_x, gap_y).intersects(b)]
        assert touching == []
        boxes = [n.sceneBoundingRect().adjusted(4, 4, -4, -4) for n in view.graph.nodes.values() if n.isVisible()]
        assert not [r for r in rects for b in boxes if r.intersects(b)]
