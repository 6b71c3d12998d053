"""Functions 3-5, load patient information, discover information and patient privacy
preferences: one page with the ontology graph, the buttons to load a patient, an explanation
of what was clicked, the preference of the selected fact (0-3) and what the analyzer found."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSplitter, QTextBrowser, QVBoxLayout, QWidget

from tklscore.gui.patient.graph_panel import GraphPanel, draw_triples
from tklscore.gui.patient.ontology_graph import ROLE_COLOUR
from tklscore.gui.patient.preference_box import PreferenceBox


class GraphPage(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        splitter = QSplitter()
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        actions = QHBoxLayout()
        self.example_button = QPushButton("Use the example patient")
        self.example_button.setObjectName("useExamplePatient")
        self.example_button.setToolTip("Bob, a made-up patient treated for a liver disease")
        self.choose_button = QPushButton("Open a file…")
        self.choose_button.setObjectName("openPatientFile")
        self.choose_button.setToolTip("A file with your information (Turtle, N-Triples, RDF/XML or JSON-LD)")
        for button in (self.example_button, self.choose_button):
            button.setMinimumHeight(34)
            button.setStyleSheet("QPushButton { background:#1d3557; color:white; border-radius:6px; padding:4px 18px;"
                                 " font-size:11pt; } QPushButton:hover { background:#2c4c78; }")
        self.data_label = QLabel("No patient information loaded.")
        self.data_label.setStyleSheet("color:#44515f;")
        actions.addWidget(self.example_button)
        actions.addWidget(self.choose_button)
        actions.addWidget(self.data_label, 1)
        left_layout.addLayout(actions)
        self.panel = GraphPanel()
        self.graph = self.panel.graph
        left_layout.addWidget(self.panel, 1)
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        left_layout.addWidget(self.legend)
        splitter.addWidget(left)

        side = QWidget()
        side.setMinimumWidth(340)
        side.setMaximumWidth(460)
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(6, 0, 0, 0)
        title = QLabel("What this means")
        title.setStyleSheet("font-size:13pt; font-weight:bold; color:#1d3557;")
        self.explanation = QTextBrowser()
        self.explanation.setOpenLinks(False)
        self.explanation.setStyleSheet("QTextBrowser { background:white; color:#1b2733; font-size:11pt; }")
        side_layout.addWidget(title)
        side_layout.addWidget(self.explanation, 3)
        self.preference_box = PreferenceBox()
        side_layout.addWidget(self.preference_box)
        self.findings = QTextBrowser()
        self.findings.setOpenLinks(False)
        self.findings.setStyleSheet("QTextBrowser { background:#f7f9fc; color:#1b2733; font-size:10.5pt; }")
        side_layout.addWidget(self.findings, 2)
        splitter.addWidget(side)
        splitter.setStretchFactor(0, 1)
        splitter.setSizes([1000, 400])
        layout.addWidget(splitter)

    def set_mode(self, mode: str, analysed: bool) -> None:
        """load, discover or preferences: which controls and which colours of the legend show."""
        self.preference_box.setVisible(mode == "preferences")
        self.example_button.setVisible(mode == "load")
        self.choose_button.setVisible(mode == "load")
        self.findings.setVisible(mode in ("discover", "preferences") and analysed)
        legend = ["<span style='background:#d6e6ff'>&nbsp;blue: your record&nbsp;</span>",
                  "<span style='background:#eef1f5'>&nbsp;grey: medical knowledge&nbsp;</span>"]
        if mode == "discover":
            legend += ["<span style='color:#7b4fa0'>- - - purple dashed: worked out</span>",
                       f"<span style='background:{ROLE_COLOUR['violation']}; color:white'>&nbsp;red: too private&nbsp;</span>",
                       f"<span style='background:{ROLE_COLOUR['participant']}'>&nbsp;yellow: your facts that allow it&nbsp;</span>"]
        elif mode == "preferences":
            legend += [f"<span style='background:{ROLE_COLOUR['suggested']}; color:white'>&nbsp;green: suggested&nbsp;</span>",
                       f"<span style='background:{ROLE_COLOUR['current']}'>&nbsp;yellow: your current setting&nbsp;</span>"]
        self.legend.setText("  ".join(legend) + "  — click anything to learn what it means; drag to move, "
                            "wheel to zoom.")

    # ------------------------------------------------------------------ what the graph shows

    def draw(self, ontology, relations: set, data, inferred) -> None:
        """The medical knowledge, the patient's facts and the facts worked out, laid out whole."""
        graph = self.graph
        graph.clear()
        draw_triples(graph, ontology, "ontology", ontology, relations)
        if data:
            draw_triples(graph, data, "patient", ontology, relations)
        if inferred:
            draw_triples(graph, inferred, "inferred", ontology, relations)
        graph.layout()
        self.panel.set_focus_keys(None)
        graph.fit()

    def colour_discoveries(self, assessment, data) -> None:
        """Violations red (and what they reveal), participating facts yellow; only the facts
        behind the findings are in focus."""
        graph = self.graph
        graph.clear_roles()
        for fact in assessment.participants.facts:
            graph.set_edge_role(fact, "participant")
        for v in assessment.violations:
            graph.set_edge_role(v.triple, "violation")
            if v.triple.o in graph.nodes:
                graph.nodes[v.triple.o].set_role("violation")     # what is revealed
        graph.tidy_labels()
        keys = {term for fact in data for term in (fact.s, fact.o)}
        for conclusion, just in assessment.participants.rules:
            for t in (conclusion, *just.body):
                keys |= {t.s, t.o}
        for v in assessment.violations:
            keys |= {v.triple.s, v.triple.o}
        self.panel.set_focus_keys(keys & set(graph.nodes))

    def colour_preferences(self, data, preferences: dict, suggested: dict) -> None:
        """Each fact of the record with its preference (yellow) or the suggested one (green)."""
        graph = self.graph
        graph.clear_roles()
        for fact in data:
            current, advised = preferences.get(fact), suggested.get(fact)
            if current is not None:
                badge = f"yours: {current}" + (f" · suggested: {advised}" if advised is not None else "")
                graph.set_edge_role(fact, "current", badge)
            elif advised is not None:
                graph.set_edge_role(fact, "suggested", f"suggested: {advised}")
        graph.tidy_labels()
