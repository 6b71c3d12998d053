"""The ontology graph with its tools: find, zoom, fit, "show only what matters" and "show
everything" (drill down by clicking a box)."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from tklscore.gui.patient.ontology_graph import OntologyGraph
from tklscore.gui.patient.words import edge_words, sentence, term_name


class GraphPanel(QWidget):
    """The graph with its tools: find, zoom, fit, only-what-matters and show-everything."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.graph = OntologyGraph(self)
        self.focus_keys: set | None = None
        tools = QHBoxLayout()
        self.find = QLineEdit()
        self.find.setPlaceholderText("Find a word in the graph…")
        self.find.setClearButtonEnabled(True)
        self.find.setMaximumWidth(260)
        self.find.textChanged.connect(self._find)
        self.found = QLabel("")
        tools.addWidget(self.find)
        tools.addWidget(self.found)
        tools.addStretch(1)
        self.focus_button = QPushButton("Show only what matters")
        self.focus_button.setToolTip("Hide everything except the facts at risk; click a box to see its neighbours")
        self.focus_button.clicked.connect(self.focus)
        self.all_button = QPushButton("Show everything")
        self.all_button.clicked.connect(self.show_all)
        for text, tip, slot in (("−", "Zoom out", lambda: self.graph.zoom(1 / 1.25)),
                                ("+", "Zoom in", lambda: self.graph.zoom(1.25)),
                                ("Fit", "Show the whole graph", self.graph.fit)):
            button = QPushButton(text)
            button.setToolTip(tip)
            button.setMaximumWidth(48)
            button.clicked.connect(slot)
            tools.addWidget(button)
        tools.addWidget(self.focus_button)
        tools.addWidget(self.all_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(tools)
        layout.addWidget(self.graph, 1)
        self.graph.nodeClicked.connect(self._drill)
        self._sync()

    def _find(self, text: str) -> None:
        found = self.graph.search(text)
        self.found.setText("" if not text.strip() else (f"{len(found)} found" if found else "not found"))

    def _drill(self, key) -> None:
        if self.graph.visible_keys is not None:
            self.graph.reveal_neighbours(key)

    def set_focus_keys(self, keys: set | None) -> None:
        self.focus_keys = set(keys) if keys else None
        self._sync()

    def focus(self) -> None:
        if self.focus_keys:
            self.graph.show_keys(self.focus_keys)
            self.graph.fit()
        self._sync()

    def show_all(self) -> None:
        self.graph.show_keys(None)
        self.graph.fit()
        self._sync()

    def _sync(self) -> None:
        self.focus_button.setEnabled(bool(self.focus_keys))
        self.all_button.setEnabled(self.graph.visible_keys is not None)


def draw_triples(graph: OntologyGraph, triples, kind: str, ontology, relations: set) -> None:
    """Facts as arrows between boxes (``kind``: ontology, patient or inferred); a fact about a
    relation itself (``likelyHas`` is a ``diagnosedWith``) is the reasoner's business, not a
    box for the patient."""
    onto_terms = {t for tr in ontology for t in (tr.s, tr.o)}
    relations = relations | {t.p for t in triples}
    for t in triples:
        if t.s in relations or t.o in relations:
            continue
        for term in (t.s, t.o):
            node_kind = "concept" if term in onto_terms else ("inferred" if kind == "inferred" else "patient")
            graph.add_node(term, term_name(term), node_kind)
        graph.add_edge(t, t.s, t.o, edge_words(t.p), kind, tooltip=sentence(t))
