"""The patient view: the "Patient Data Visualizer" of PIA (Daniels 2018, Ch. 7; pia.md §1.3).

A left tool bar with the seven functions of the original, a main area that changes with
the function (one widget per page, in this package). Written for a patient: plain words,
and every box and arrow of the graph explains itself when clicked.

1. Privacy and knowledge information (``information.py``) — four topics, "Learn more"
   opens three items each (local documents; public pages open in the browser only on a
   click; one item is an explorable sample ontology graph);
2. Places your data is sent (``places.py``) — the sample table of pia.md §4.9;
3. Load patient information (``graph_page.py``) — the medical knowledge, and two buttons:
   "Use the example patient" and "Open a file…" (no dialog pops up on arrival); the
   patient's facts join the graph; preferences saved earlier load with them;
4. Discover information — runs the analyzer (:func:`tklscore.core.pia.analysis.analyze_files`,
   efficient method with the patient's preferences) on the task runner, off the UI thread;
   inferred facts join the graph, violations red, participating facts yellow, and the
   disruption the analyzer would choose;
5. Patient privacy preferences — click a fact of the patient's record to set 0–3
   (Table 6.1); suggested settings green, current ones yellow; Save writes the CSV that
   ``tklscore pia analyze --preferences`` reads;
6. About this application (``about.py``); 7. Exit (with confirmation).

The graph starts with what matters: relations (``likelyHas``, ``diagnosedWith``) are arrows,
never boxes, and after a discovery only the facts behind the findings are shown ("Show
everything" shows the rest).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QMessageBox, QStackedWidget, QVBoxLayout, QWidget

from tklscore.core.errors import InputError
from tklscore.core.files.resources import resource_path
from tklscore.core.pia.facts import Triple, property_terms
from tklscore.gui.guard import error_text
from tklscore.gui.patient.about import AboutPage
from tklscore.gui.patient.explanations import (DISCOVERIES_INTRO, KNOWLEDGE_INTRO, PREFERENCES_INTRO, SAMPLE_INTRO,
                                               SUGGESTIONS, WORKING, edge_html, findings_html, loaded_html, node_html)
from tklscore.gui.patient.function_bar import FUNCTION_KEYS, FUNCTIONS, FunctionBar, heading
from tklscore.gui.patient.graph_page import GraphPage
from tklscore.gui.patient.graph_panel import draw_triples
from tklscore.gui.patient.information import CATEGORIES, DocumentPage, InformationPage, LearnMoreDialog, SamplePage
from tklscore.gui.patient.places import PlacesPage
from tklscore.gui.patient.words import TITLE, preferences_path_for, sentence, term_name
from tklscore.gui.tasks import TaskRunner

PATIENT_FILES = "Patient data (*.ttl *.nt *.n3 *.rdf *.owl *.xml *.jsonld);;All files (*)"


class PatientView(QWidget):
    """The seven functions of PIA's Patient Data Visualizer (module docstring)."""

    functionChanged = Signal(str)
    analysisFinished = Signal()

    def __init__(self, workbench=None, parent=None):
        super().__init__(parent)
        self.workbench = workbench
        self.runner = workbench.runner if workbench is not None else TaskRunner(self)
        self._use_light_palette()
        self.ontology_path = resource_path("pia/bob_ontology.ttl")
        self.rules_path = resource_path("pia/bob.rules")
        self.labels_path = resource_path("pia/bob_patterns.csv")
        self.example_path = resource_path("pia/bob_data.ttl")
        self.threshold = "Medium"
        self.ontology: list[Triple] = []
        self.relations: set = set()
        self.data: list[Triple] = []
        self.data_path: Path | None = None
        self.preferences_path: Path | None = None
        self.preferences: dict[Triple, int] = {}
        self.suggested: dict[Triple, int] = {}
        self.analysis = None
        self.inferred: list[Triple] = []
        self._analysis_generation = 0
        self.preferences_dirty = False
        self.current_function = "information"
        self.selected_fact: Triple | None = None
        self.opened_documents: list[str] = []
        self._build()
        self.open_function("information")

    def _use_light_palette(self) -> None:
        """The patient pages have their own light colours (like a printed leaflet), so the
        view keeps a light palette whatever the desktop theme: text stays dark on light."""
        palette = self.palette()
        for role, colour in [(QPalette.ColorRole.Window, "#ffffff"), (QPalette.ColorRole.WindowText, "#1b2733"),
                             (QPalette.ColorRole.Base, "#ffffff"), (QPalette.ColorRole.AlternateBase, "#f4f7fb"),
                             (QPalette.ColorRole.Text, "#1b2733"), (QPalette.ColorRole.Button, "#eef2f7"),
                             (QPalette.ColorRole.ButtonText, "#1b2733"), (QPalette.ColorRole.ToolTipBase, "#ffffff"),
                             (QPalette.ColorRole.ToolTipText, "#1b2733")]:
            palette.setColor(role, QColor(colour))
        self.setPalette(palette)
        self.setAutoFillBackground(True)

    # ------------------------------------------------------------------ layout

    def _build(self) -> None:
        outer = QHBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        self.function_bar = FunctionBar()
        self.function_bar.chosen.connect(self.open_function)
        self.buttons = self.function_bar.buttons
        outer.addWidget(self.function_bar)
        main = QVBoxLayout()
        main.setContentsMargins(16, 10, 16, 10)
        self.heading = QLabel()
        self.heading.setObjectName("patientHeading")
        self.heading.setStyleSheet("font-size:18pt; font-weight:bold; color:#1d3557;")
        self.subheading = QLabel()
        self.subheading.setWordWrap(True)
        self.subheading.setStyleSheet("font-size:11pt; color:#44515f;")
        main.addWidget(self.heading)
        main.addWidget(self.subheading)
        self.stack = QStackedWidget()
        main.addWidget(self.stack, 1)
        outer.addLayout(main, 1)

        information, document, sample = InformationPage(), DocumentPage(), SamplePage()
        places, graph_page, about = PlacesPage(), GraphPage(), AboutPage()
        self.pages = {"information": information, "places": places, "graph": graph_page, "document": document,
                      "sample": sample, "about": about}
        for page in self.pages.values():
            self.stack.addWidget(page)
        self._connect_pages()

    def _connect_pages(self) -> None:
        """The pages' signals to the functions below, and the pages' parts they work with."""
        information, document, sample = self.pages["information"], self.pages["document"], self.pages["sample"]
        places, graph_page = self.pages["places"], self.pages["graph"]
        information.learnMore.connect(self.learn_more)
        document.back.connect(lambda: self.open_function("information"))
        sample.back.connect(lambda: self.open_function("information"))
        sample.panel.graph.nodeClicked.connect(
            lambda key: sample.explain.setHtml(node_html(key, sample.panel.graph, sample=True)))
        sample.panel.graph.edgeClicked.connect(lambda key: sample.explain.setHtml(self._edge_html(key)))
        graph_page.example_button.clicked.connect(lambda: self.load_patient(self.example_path))
        graph_page.choose_button.clicked.connect(self.load_patient_dialog)
        graph_page.preference_box.pref_group.idClicked.connect(self.set_preference)
        graph_page.preference_box.suggest_button.clicked.connect(self.apply_suggestions)
        graph_page.preference_box.save_button.clicked.connect(self.save)
        graph_page.graph.nodeClicked.connect(self._node_clicked)
        graph_page.graph.edgeClicked.connect(self._edge_clicked)
        # the pages' parts the functions below work with
        self.learn_buttons = information.learn_buttons
        self.document = document.document
        self.sample_panel, self.sample_explain = sample.panel, sample.explain
        self.places_search, self.places_model = places.search, places.model
        self.places_proxy, self.places_table = places.proxy, places.table
        self.graph_page = graph_page
        self.panel, self.graph, self.explanation = graph_page.panel, graph_page.graph, graph_page.explanation
        self.findings, self.preference_box = graph_page.findings, graph_page.preference_box
        self.example_button, self.choose_button = graph_page.example_button, graph_page.choose_button
        box = graph_page.preference_box
        self.data_label, self.save_button, self.save_status = graph_page.data_label, box.save_button, box.save_status
        self.pref_buttons, self.pref_group = box.pref_buttons, box.pref_group

    def _set_heading(self, title: str, help_text: str = "") -> None:
        self.heading.setText(title)
        self.subheading.setText(help_text)
        self.subheading.setVisible(bool(help_text))

    def _show_page(self, name: str) -> None:
        self.stack.setCurrentWidget(self.pages[name])

    # ------------------------------------------------------------------ functions

    def open_function(self, key: str) -> None:
        if key not in FUNCTION_KEYS:
            raise ValueError(f"unknown function {key!r}; one of {', '.join(FUNCTION_KEYS)}")
        if key == "exit":
            self.request_exit()
            return
        self.current_function = key
        self.buttons[key].setChecked(True)
        self._set_heading(*heading(key))
        if key in ("information", "places", "about"):
            self._show_page(key)
        elif key == "load":
            self.show_load()
        elif key == "discover":
            self.show_discover()
        elif key == "preferences":
            self.show_preferences()
        self.functionChanged.emit(key)

    # ---- 1. information

    def learn_more(self, category) -> LearnMoreDialog:
        dialog = LearnMoreDialog(category, self)
        dialog.chosen.connect(self.open_item)
        dialog.open()
        self.learn_dialog = dialog
        return dialog

    def open_item(self, target: str) -> None:
        if target == "graph:sample":
            self.show_sample_graph()
            return
        self.pages["document"].open(target)
        self.opened_documents.append(target)
        self._set_heading("Privacy and knowledge information",
                          "Links to public web pages open in your web browser only when you click them.")
        self._show_page("document")

    def show_sample_graph(self) -> None:
        graph = self.sample_panel.graph
        if not graph.nodes:
            self._load_ontology()
            draw_triples(graph, self.ontology, "ontology", self.ontology, self.relations)
            graph.layout()
            roots = {k for k in graph.nodes if not any(e.source.key == k and e.label == "is a"
                                                         for e in graph.edges.values())}
            self.sample_panel.set_focus_keys(roots)
        self.sample_panel.focus()
        self.sample_explain.setHtml(SAMPLE_INTRO)
        self.opened_documents.append("graph:sample")
        self._set_heading("Sample ontology graph", "Click the boxes to drill down.")
        self._show_page("sample")
        graph.fit()

    # ---- 3-5. the graph

    def _graph_mode(self, mode: str) -> None:
        self._show_page("graph")
        self.graph_page.set_mode(mode, self.analysis is not None)

    def _load_ontology(self) -> None:
        if not self.ontology:
            from tklscore.core.pia import load_rules, load_triples

            self.ontology = load_triples(self.ontology_path)
            self.relations = property_terms(self.ontology, load_rules(self.rules_path))

    def _rebuild_graph(self) -> None:
        self._load_ontology()
        self.graph_page.draw(self.ontology, self.relations, self.data,
                             self.inferred if self.analysis is not None else [])

    def show_load(self) -> None:
        """The medical knowledge, with the patient's facts if loaded; never a dialog on arrival."""
        self._graph_mode("load")
        self._rebuild_graph()
        if self.data:
            self._describe_loaded()
            return
        self.data_label.setText("")
        self.explanation.setHtml(KNOWLEDGE_INTRO)

    def load_patient_dialog(self) -> bool:
        start = str(self.data_path.parent) if self.data_path and self.data_path.parent != self.example_path.parent \
            else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self, "Load patient information", start, PATIENT_FILES)
        return bool(path) and self.load_patient(path)

    def load_patient(self, path) -> bool:
        """Load the patient's facts (and their saved preferences) into the graph."""
        from tklscore.core.pia import load_triples
        from tklscore.core.pia.facts import graph_prefixes
        from tklscore.core.pia.preferences import load_preferences

        try:
            data = list(dict.fromkeys(load_triples(path)))
            if not data:
                raise InputError("the file holds no facts", file=str(path))
            prefs_path = preferences_path_for(path)
            prefs = {}
            if prefs_path.is_file():
                prefs = load_preferences(prefs_path, data, prefixes=graph_prefixes(path))
        except (InputError, OSError) as error:
            self.show_error(f"Could not load your information.\n\n{error_text(error)}")
            return False
        self._analysis_generation += 1       # an analysis of the previous patient is stale
        self.data, self.data_path = data, Path(path)
        self.preferences_path, self.preferences = prefs_path, prefs
        self.preferences_dirty = False
        self.analysis, self.inferred, self.suggested = None, [], {}
        self.selected_fact = None
        if self.current_function not in ("load", "discover", "preferences"):
            self.current_function = "load"
        self._graph_mode(self.current_function)
        self._rebuild_graph()
        self._describe_loaded()
        if self.current_function == "preferences":
            self.show_preferences()
        elif self.current_function == "discover":
            self.show_discover()
        return True

    def _describe_loaded(self) -> None:
        data, prefs = self.data, self.preferences
        known = {x for tr in self.ontology for x in tr}
        subjects = sorted({term_name(t.s) for t in data if t.s not in known})
        self.data_label.setText(f"Loaded {self.data_path.name}: {len(data)} facts"
                                + (f" about {', '.join(subjects[:3])}" if subjects else "")
                                + (f"; {len(prefs)} saved preferences" if prefs else "") + ".")
        self.explanation.setHtml(loaded_html(len(data), len(prefs)))

    def _need_data(self) -> bool:
        if self.data:
            return True
        box = QMessageBox(QMessageBox.Icon.Information, TITLE,
                          "Please load your information first: open your file, or use the example patient.",
                          parent=self)
        box.setObjectName("loadFirstDialog")
        box.open()
        self.current_function = "load"
        self.buttons["load"].setChecked(True)
        self._set_heading(*heading("load"))
        self.show_load()
        return False

    def analyze(self, then=None) -> None:
        """Run the analyzer on the loaded data with the current preferences on the task runner
        (off the UI thread); on success ``self.analysis`` is set, ``analysisFinished`` emitted
        and ``then()`` called. A result for data that has since changed is dropped."""
        from tklscore.core.pia import analysis as pia_analysis
        from tklscore.core.pia.preferences import suggested_preferences

        self._analysis_generation += 1
        generation = self._analysis_generation
        ontology, data_path, rules, labels = self.ontology_path, self.data_path, self.rules_path, self.labels_path
        threshold, preferences = self.threshold, dict(self.preferences) or None

        def work(control):
            control.progress(10, "Discovering information")
            run = pia_analysis.analyze_files(ontology, data_path, rules, labels, threshold, method="efficient",
                                             preferences=preferences)
            control.check()
            return run, run.worked_out(), suggested_preferences(run.assessment)

        def done(result) -> None:
            if generation != self._analysis_generation:
                return
            self.analysis, self.inferred, self.suggested = result
            if then is not None:
                then()
            self.analysisFinished.emit()

        def failed(message: str) -> None:
            if generation == self._analysis_generation:
                self.findings.setHtml("<p>The analysis could not run.</p>")
                self.show_error(f"The analysis could not run.\n\n{message}")

        self.runner.start("Discovering information", work, done, failed)

    def _with_analysis(self, mode: str, show) -> None:
        """Show ``mode`` once the analysis of the loaded data is there (started if needed)."""
        if not self._need_data():
            return
        self._graph_mode(mode)
        if self.analysis is not None:
            show()
            return
        self.findings.setVisible(True)
        self.findings.setHtml(WORKING)
        self.analyze(then=lambda: self.current_function == mode and show())

    def show_discover(self) -> None:
        self._with_analysis("discover", self._show_discoveries)

    def _show_discoveries(self) -> None:
        self._graph_mode("discover")
        self._rebuild_graph()
        self.graph_page.colour_discoveries(self.analysis.assessment, self.data)
        self.findings.setVisible(True)
        self.findings.setHtml(findings_html(self.analysis, self.inferred, self.preferences))
        self.explanation.setHtml(DISCOVERIES_INTRO)
        self.panel.focus()

    def show_preferences(self) -> None:
        self._with_analysis("preferences", self._show_preferences)

    def _show_preferences(self) -> None:
        self._graph_mode("preferences")
        self._rebuild_graph()
        self._colour_preferences()
        mine = {term for fact in self.data for term in (fact.s, fact.o)}
        revealed = {term for v in self.analysis.assessment.violations for term in (v.triple.s, v.triple.o)}
        self.panel.set_focus_keys((mine | revealed) & set(self.graph.nodes))
        self.panel.focus()
        self.findings.setVisible(True)
        self.findings.setHtml(SUGGESTIONS)
        self.explanation.setHtml(PREFERENCES_INTRO)
        self._show_preference_control(self.selected_fact if self.selected_fact in set(self.data) else None)

    def _colour_preferences(self) -> None:
        self.graph_page.colour_preferences(self.data, self.preferences, self.suggested)

    def _show_preference_control(self, fact: Triple | None) -> None:
        self.selected_fact = fact
        self.preference_box.show_fact(fact, self.preferences.get(fact), self.suggested.get(fact),
                                      self.preferences_dirty, bool(self.suggested))

    def set_preference(self, level: int) -> None:
        if self.selected_fact is None:
            return
        self.preferences[self.selected_fact] = int(level)
        self.preferences_dirty = True
        self.save_status.setText("Not saved yet.")
        self._colour_preferences()
        self._show_preference_control(self.selected_fact)

    def apply_suggestions(self) -> None:
        if not self.suggested:
            return
        self.preferences.update(self.suggested)
        self.preferences_dirty = True
        self.save_status.setText("Suggestions applied; not saved yet.")
        self._colour_preferences()
        self._show_preference_control(self.selected_fact)

    def save(self) -> bool:
        from tklscore.core.pia.preferences import save_preferences

        if self.preferences_path is None:
            return False
        try:
            self.preferences_path.parent.mkdir(parents=True, exist_ok=True)
            save_preferences(self.preferences_path, self.preferences)
        except (InputError, OSError) as error:
            self.show_error(f"Your preferences could not be saved.\n\n{error_text(error)}")
            return False
        self.preferences_dirty = False
        self.save_button.setEnabled(False)
        self.save_status.setText(f"Saved to {self.preferences_path}. Discover information again to see "
                                 "what the analyzer would now change.")
        self.analysis = None      # the next discovery uses the saved preferences
        self.analyze(then=lambda: self.current_function == "preferences" and self._colour_preferences())
        return True

    # ------------------------------------------------------------------ explanations

    def _node_clicked(self, key) -> None:
        self.explanation.setHtml(node_html(key, self.graph))

    def _edge_html(self, key) -> str:
        return edge_html(key, set(self.ontology), set(self.data), self.analysis, self.preferences, self.suggested)

    def _edge_clicked(self, key) -> None:
        self.explanation.setHtml(self._edge_html(key))
        if self.current_function == "preferences":
            self._show_preference_control(key if key in set(self.data) else None)

    # ------------------------------------------------------------------ errors, exit

    def show_error(self, message: str) -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, TITLE, message, parent=self)
        box.setObjectName("errorDialog")
        box.open()

    def exit_dialog(self) -> QMessageBox:
        text = "Do you want to close the Patient Data Visualizer?"
        if self.preferences_dirty:
            text += "\n\nYou have changed preferences that are not saved yet; they will be lost."
        box = QMessageBox(QMessageBox.Icon.Question, f"Exit — {TITLE}", text,
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setObjectName("exitDialog")
        box.setDefaultButton(QMessageBox.StandardButton.No)
        return box

    def request_exit(self) -> bool:
        """Exit after a confirmation: closes the window this view is in."""
        box = self.exit_dialog()
        self.last_exit_dialog = box
        if box.exec() != QMessageBox.StandardButton.Yes:
            return False
        self.preferences_dirty = False
        self.window().close()
        return True


__all__ = ["CATEGORIES", "FUNCTIONS", "FUNCTION_KEYS", "PatientView", "preferences_path_for", "sentence"]
