"""The patient view: the "Patient Data Visualizer" of PIA (Daniels 2018, Ch. 7; pia.md §1.3).

A left tool bar with the seven functions of the original, a main area that changes with
the function. Written for a patient: plain words, and every box and arrow of the graph
explains itself when clicked.

1. Privacy and knowledge information — four categories, "Learn more" opens three items
   (local documents in ``resources/patient/``; public pages open in the browser only on a
   click; one item is an explorable sample ontology graph);
2. Places your data is sent — the sample table of pia.md §4.9, sortable and searchable;
3. Load patient information — the ontology graph, then a file dialog; the patient's facts
   join the graph; preferences saved earlier load with them;
4. Discover information — runs the analyzer (:func:`tklscore.core.pia.analysis.analyze_files`,
   efficient method with the patient's preferences); inferred facts join the graph,
   violations red, participating facts yellow, and the disruption the analyzer would choose;
5. Patient privacy preferences — click a fact of the patient's record to set 0–3
   (Table 6.1); suggested settings green, current ones yellow; Save writes the CSV that
   ``tklscore pia analyze --preferences`` reads;
6. About this application; 7. Exit (with confirmation).
"""

from __future__ import annotations

import csv
import html
import os
import re
from pathlib import Path

from PySide6.QtCore import (
    QSize,
    QSortFilterProxyModel,
    QStandardPaths,
    Qt,
    QUrl,
    Signal,
)
from PySide6.QtGui import QColor, QDesktopServices, QPalette, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QButtonGroup,
    QDialog,
    QFileDialog,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QRadioButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QStyle,
    QTableView,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from tklscore import __version__
from tklscore.core.errors import InputError
from tklscore.core.pia.facts import Triple, local_name
from tklscore.core.files.resources import resource_path
from tklscore.gui.patient.ontology_graph import ROLE_COLOUR, OntologyGraph

TITLE = "Patient Data Visualizer"

FUNCTIONS = (   # key, button text, icon, heading, one-line help
    ("information", "Privacy and\nknowledge\ninformation", QStyle.StandardPixmap.SP_MessageBoxInformation,
     "Privacy and knowledge information",
     "Short explanations of your privacy rights, consent, your hospital and medical knowledge."),
    ("places", "Places your\ndata is sent", QStyle.StandardPixmap.SP_DriveNetIcon,
     "Where do organizations send my data?",
     "Typical places a hospital sends health information to, how, and who sends it."),
    ("load", "Load patient\ninformation", QStyle.StandardPixmap.SP_DialogOpenButton,
     "Load patient information",
     "Medical knowledge is shown first; then choose the file with your information."),
    ("discover", "Discover\ninformation", QStyle.StandardPixmap.SP_FileDialogContentsView,
     "Discover information",
     "What others could work out from your information. Click any arrow to see how."),
    ("preferences", "Patient privacy\npreferences", QStyle.StandardPixmap.SP_DialogApplyButton,
     "Patient privacy preferences",
     "Click a blue arrow (a fact from your record) to say how much you mind it being released."),
    ("about", "About this\napplication", QStyle.StandardPixmap.SP_MessageBoxQuestion,
     "About this application", ""),
    ("exit", "Exit\napplication", QStyle.StandardPixmap.SP_DialogNoButton, "Exit application", ""),
)
FUNCTION_KEYS = tuple(f[0] for f in FUNCTIONS)

CATEGORIES = (
    ("regulations", "Data privacy regulations",
     ("Laws say who may see your health information and what they may do with it. You have "
     "rights too: to see your records, to have mistakes corrected and to know where your "
     "information went."),
     (("Your health information privacy rights", "The rights the law gives you, in plain words.", "rights.html"),
      ("Who has to follow the privacy rules", "Which organisations the rules cover, and which not.",
       "who_must_follow.html"),
      ("Getting your own records", "How to ask for a copy of your health records.", "access_rights.html"))),
    ("consent", "Consent",
     ("Consent is your permission to share your information. It should be clear what is shared, "
     "with whom and why, and you should be able to say no or change your mind."),
     (("What meaningful consent means", "When a yes really is your choice.", "meaningful_consent.html"),
      ("Opt in or opt out", "Two ways hospitals ask before sharing records with each other.", "opt_in_out.html"),
      ("Consent for research", "When researchers need your permission, and when not.", "research_consent.html"))),
    ("institution", "Your healthcare institution",
     ("Every hospital must tell you how it uses and shares your information, in a notice of "
     "privacy practices, and research with your data is checked by a review board."),
     (("Notice of privacy practices (example)", "What a typical notice tells you.", "privacy_notice.html"),
      ("Acknowledging the notice (example)", "The form you are asked to sign, and what it means.",
       "privacy_agreement.html"),
      ("How research with your data is reviewed", "What an ethics review board checks.", "irb.html"))),
    ("domain", "Healthcare domain knowledge",
     ("Medical knowledge lets anyone combine harmless-looking facts into something private: "
     "a doctor's speciality and a medicine can reveal a diagnosis. This is the inference problem."),
     (("What is domain knowledge?", "Medical knowledge, ontologies and rules in plain words.", "domain_knowledge.html"),
      ("The inference problem", "How private facts can be worked out, and used against you.",
       "inference_problem.html"),
      ("Explore a sample ontology graph", "Click your way through a small piece of medical knowledge.",
       "graph:sample"))),
)

PHRASES = {"ISA": "is a", "treatedBy": "is treated by", "given": "was given", "likelyHas": "likely has",
           "givenFor": "is given for", "treats": "treats", "diagnosedWith": "is diagnosed with"}
EDGE_WORDS = {"ISA": "is a", "type": "is a", "subClassOf": "is a"}
PREFERENCE_SHORT = {0: "fine to release", 1: "prefer not", 2: "should not", 3: "must not"}


def term_name(term) -> str:
    return local_name(term)


def _words(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).lower()


def edge_words(predicate) -> str:
    name = term_name(predicate)
    return EDGE_WORDS.get(name) or _words(name)


def sentence(triple) -> str:
    """``Bob is treated by Leonard``: a fact in words."""
    s, p, o = triple
    name = term_name(p)
    return f"{term_name(s)} {PHRASES.get(name) or _words(name)} {term_name(o)}"


def preferences_path_for(data_path: str | Path) -> Path:
    """Where the preferences of a patient data file live: ``<name>.preferences.csv`` beside it,
    or in the application's data folder when the data is a bundled example or read-only."""
    data_path = Path(data_path).resolve()
    name = data_path.stem + ".preferences.csv"
    bundled = resource_path("pia/bob_data.ttl").resolve().parents[1]
    if os.access(data_path.parent, os.W_OK) and not data_path.is_relative_to(bundled):
        return data_path.with_name(name)
    folder = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
                  or Path.home() / ".tklscore") / "patient"
    return folder / name


def _banner(text: str, colour: str = "#fff4ce", border: str = "#e0c36a") -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setStyleSheet(f"background:{colour}; border:1px solid {border}; border-radius:4px; padding:6px;"
                        "color:#3b3000;")
    return label


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


class LearnMoreDialog(QDialog):
    chosen = Signal(str)

    def __init__(self, category, parent=None):
        super().__init__(parent)
        key, title, _, items = category
        self.setObjectName(f"learnMore_{key}")
        self.setWindowTitle(f"Learn more: {title}")
        layout = QVBoxLayout(self)
        heading = QLabel(f"<h2>{html.escape(title)}</h2>Choose what you would like to read:")
        layout.addWidget(heading)
        self.buttons = []
        for name, blurb, target in items:
            button = QPushButton(f"{name}\n{blurb}")
            button.setMinimumHeight(58)
            button.setStyleSheet("text-align:left; padding:6px 12px; font-size:11pt;")
            button.clicked.connect(lambda _=False, t=target: (self.chosen.emit(t), self.accept()))
            layout.addWidget(button)
            self.buttons.append(button)
        close = QPushButton("Close")
        close.clicked.connect(self.reject)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignRight)
        self.resize(520, 320)


class PatientView(QWidget):
    """The seven functions of PIA's Patient Data Visualizer (module docstring)."""

    functionChanged = Signal(str)

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

    def __init__(self, workbench=None, parent=None):
        super().__init__(parent)
        self.workbench = workbench
        self._use_light_palette()
        self.ontology_path = resource_path("pia/bob_ontology.ttl")
        self.rules_path = resource_path("pia/bob.rules")
        self.labels_path = resource_path("pia/bob_patterns.csv")
        self.example_path = resource_path("pia/bob_data.ttl")
        self.threshold = "Medium"
        self.ontology: list[Triple] = []
        self.data: list[Triple] = []
        self.data_path: Path | None = None
        self.preferences_path: Path | None = None
        self.preferences: dict[Triple, int] = {}
        self.suggested: dict[Triple, int] = {}
        self.analysis = None
        self.inferred: list[Triple] = []
        self.preferences_dirty = False
        self.current_function = "information"
        self.selected_fact: Triple | None = None
        self.opened_documents: list[str] = []
        self._build()
        self.open_function("information")

    # ------------------------------------------------------------------ layout

    def _build(self) -> None:
        outer = QHBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        bar = QFrame()
        bar.setObjectName("patientToolbar")
        bar.setFixedWidth(168)
        bar.setStyleSheet("#patientToolbar { background:#1d3557; }"
                          "QToolButton { color:white; background:transparent; border:none; border-radius:6px;"
                          " padding:8px 4px; font-size:10pt; }"
                          "QToolButton:hover { background:#2c4c78; }"
                          "QToolButton:checked { background:#f1faee; color:#1d3557; font-weight:bold; }")
        column = QVBoxLayout(bar)
        column.setContentsMargins(8, 12, 8, 12)
        column.setSpacing(6)
        self.buttons: dict[str, QToolButton] = {}
        group = QButtonGroup(self)
        group.setExclusive(True)
        for key, text, icon, _, _ in FUNCTIONS:
            button = QToolButton()
            button.setObjectName(f"patient_{key}")
            button.setText(text)
            button.setIcon(self.style().standardIcon(icon))
            button.setIconSize(QSize(26, 26))
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextUnderIcon)
            button.setCheckable(key != "exit")
            button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
            button.clicked.connect(lambda _=False, k=key: self.open_function(k))
            if key != "exit":
                group.addButton(button)
            else:
                column.addStretch(1)
            column.addWidget(button)
            self.buttons[key] = button
        outer.addWidget(bar)

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

        self.pages = {
            "information": self._information_page(),
            "places": self._places_page(),
            "graph": self._graph_page(),
            "document": self._document_page(),
            "sample": self._sample_page(),
            "about": self._about_page(),
        }
        for page in self.pages.values():
            self.stack.addWidget(page)

    def _set_heading(self, title: str, help_text: str = "") -> None:
        self.heading.setText(title)
        self.subheading.setText(help_text)
        self.subheading.setVisible(bool(help_text))

    def _show_page(self, name: str) -> None:
        self.stack.setCurrentWidget(self.pages[name])

    # ---- 1. information

    def _information_page(self) -> QWidget:
        page = QWidget()
        grid = QGridLayout(page)
        grid.setSpacing(16)
        self.learn_buttons: dict[str, QPushButton] = {}
        for index, category in enumerate(CATEGORIES):
            key, title, text, items = category
            card = QFrame()
            card.setObjectName(f"card_{key}")
            card.setStyleSheet(f"#card_{key} {{ background:#f4f7fb; border:1px solid #c9d3e0; border-radius:10px; }}"
                               "QLabel { color:#1b2733; background:transparent; }")
            box = QVBoxLayout(card)
            box.setContentsMargins(18, 14, 18, 14)
            box.setSpacing(10)
            head = QLabel(title)
            head.setStyleSheet("font-size:15pt; font-weight:bold; color:#1d3557;")
            body = QLabel(text)
            body.setWordWrap(True)
            body.setStyleSheet("font-size:12pt;")
            inside = QLabel("<span style='color:#44515f'>Inside:</span><ul style='margin-top:2px'>"
                            + "".join(f"<li>{html.escape(name)}</li>" for name, _, _ in items) + "</ul>")
            inside.setStyleSheet("font-size:10.5pt;")
            button = QPushButton("Learn more…")
            button.setObjectName(f"learn_{key}")
            button.setMinimumHeight(34)
            button.setStyleSheet("QPushButton { background:#1d3557; color:white; border-radius:6px; padding:4px 18px;"
                                 " font-size:11pt; } QPushButton:hover { background:#2c4c78; }")
            button.clicked.connect(lambda _=False, c=category: self.learn_more(c))
            box.addWidget(head)
            box.addWidget(body)
            box.addWidget(inside)
            box.addStretch(1)
            box.addWidget(button, 0, Qt.AlignmentFlag.AlignLeft)
            grid.addWidget(card, index // 2, index % 2)
            self.learn_buttons[key] = button
        steps = QLabel(
            "<b>To check your own information:</b> 1&nbsp;<i>Load patient information</i> (or use the example "
            "patient) → 2&nbsp;<i>Discover information</i>: what could be worked out about you → "
            "3&nbsp;<i>Patient privacy preferences</i>: say what you mind being released, and save.")
        steps.setWordWrap(True)
        steps.setStyleSheet("font-size:11.5pt; background:#e8f1e4; border:1px solid #b9d3ad; border-radius:8px;"
                            " padding:10px; color:#1b2733;")
        grid.addWidget(steps, 2, 0, 1, 2)
        grid.setRowStretch(3, 1)
        return page

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
        path = resource_path(f"patient/{target}")
        self.document.setSource(QUrl.fromLocalFile(str(path)))
        self.opened_documents.append(target)
        self._set_heading("Privacy and knowledge information",
                          "Links to public web pages open in your web browser only when you click them.")
        self._show_page("document")

    def _document_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        back = QPushButton("← Back to the four topics")
        back.clicked.connect(lambda: self.open_function("information"))
        self.document = QTextBrowser()
        self.document.setOpenLinks(False)
        self.document.setStyleSheet("QTextBrowser { background:white; color:#1b2733; padding:12px; font-size:11.5pt; }")
        self.document.anchorClicked.connect(self._link)
        layout.addWidget(back, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.document, 1)
        return page

    def _link(self, url: QUrl) -> None:
        if url.scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)    # only on the user's click: the application stays offline
        elif url.isLocalFile() or url.isRelative():
            target = self.document.source().resolved(url)
            self.document.setSource(target)

    # ---- sample ontology graph

    def _sample_page(self) -> QWidget:
        page = QWidget()
        layout = QHBoxLayout(page)
        self.sample_panel = GraphPanel()
        self.sample_explain = QTextBrowser()
        self.sample_explain.setMaximumWidth(380)
        self.sample_explain.setStyleSheet("QTextBrowser { background:white; color:#1b2733; font-size:11pt; }")
        self.sample_panel.graph.nodeClicked.connect(
            lambda key: self.sample_explain.setHtml(self._node_html(key, self.sample_panel.graph, sample=True)))
        self.sample_panel.graph.edgeClicked.connect(
            lambda key: self.sample_explain.setHtml(self._edge_html(key)))
        left = QVBoxLayout()
        back = QPushButton("← Back to the four topics")
        back.clicked.connect(lambda: self.open_function("information"))
        left.addWidget(back, 0, Qt.AlignmentFlag.AlignLeft)
        left.addWidget(_banner("Sample content: a small piece of medical knowledge made for this application, "
                               "not an authoritative source."))
        left.addWidget(self.sample_panel, 1)
        layout.addLayout(left, 1)
        layout.addWidget(self.sample_explain)
        return page

    def show_sample_graph(self) -> None:
        graph = self.sample_panel.graph
        if not graph.nodes:
            self._load_ontology()
            self._draw_triples(graph, self.ontology, "ontology")
            graph.layout()
            roots = {k for k in graph.nodes if not any(e.source.key == k and e.label == "is a"
                                                         for e in graph.edges.values())}
            self.sample_panel.set_focus_keys(roots)
        self.sample_panel.focus()
        self.sample_explain.setHtml(
            "<h3>Explore medical knowledge</h3><p>The boxes are ideas (a disease, a medicine, a kind of "
            "doctor); the arrows say how they are related.</p><p>Only the most general ideas are shown "
            "first. <b>Click a box</b> to show what is connected to it; click an arrow to read what it "
            "means. <i>Show everything</i> shows the whole graph.</p><p>Drag to move around; use the "
            "mouse wheel or + and − to zoom.</p>")
        self.opened_documents.append("graph:sample")
        self._set_heading("Sample ontology graph", "Click the boxes to drill down.")
        self._show_page("sample")
        graph.fit()

    # ---- 2. places

    def _places_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addWidget(_banner(
            "<b>Sample content.</b> This table shows where one U.S. hospital reported sending health "
            "information (Daniels 2018, Fig. 7.8). It is an example, not a list for your hospital, and "
            "it is not authoritative."))
        intro = QLabel(
            "<b>Accountability of disclosure</b>: a hospital must be able to say where it sent your "
            "information, how and why. You can ask for this <i>accounting of disclosures</i>; it shows "
            "you, for example, that your vaccinations go to the state registry or that a public health "
            "agency was notified of an infection. Click a column title to sort; type to search.")
        intro.setWordWrap(True)
        intro.setStyleSheet("font-size:11pt;")
        layout.addWidget(intro)
        self.places_search = QLineEdit()
        self.places_search.setPlaceholderText("Search, e.g. DHEC, registry, fax…")
        self.places_search.setClearButtonEnabled(True)
        self.places_search.setMaximumWidth(360)
        layout.addWidget(self.places_search)
        model = QStandardItemModel(self)
        with open(resource_path("patient/places.csv"), newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
        model.setHorizontalHeaderLabels(rows[0])
        for row in rows[1:]:
            items = [QStandardItem(cell) for cell in row]
            for item in items:
                item.setEditable(False)
                item.setToolTip(item.text())
            model.appendRow(items)
        self.places_model = model
        self.places_proxy = QSortFilterProxyModel(self)
        self.places_proxy.setSourceModel(model)
        self.places_proxy.setFilterKeyColumn(-1)
        self.places_proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.places_proxy.setSortCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.places_search.textChanged.connect(self.places_proxy.setFilterFixedString)
        table = QTableView()
        table.setModel(self.places_proxy)
        table.setSortingEnabled(True)
        table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        table.setAlternatingRowColors(True)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.verticalHeader().hide()
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.places_table = table
        layout.addWidget(table, 1)
        return page

    # ---- 3-5. the graph

    def _graph_page(self) -> QWidget:
        page = QWidget()
        layout = QHBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        splitter = QSplitter()
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        actions = QHBoxLayout()
        self.example_button = QPushButton("Use the example patient (Bob)")
        self.example_button.clicked.connect(lambda: self.load_patient(self.example_path))
        self.choose_button = QPushButton("Choose a file…")
        self.choose_button.clicked.connect(self.load_patient_dialog)
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
        self.preference_box = self._preference_box()
        side_layout.addWidget(self.preference_box)
        self.findings = QTextBrowser()
        self.findings.setOpenLinks(False)
        self.findings.setStyleSheet("QTextBrowser { background:#f7f9fc; color:#1b2733; font-size:10.5pt; }")
        side_layout.addWidget(self.findings, 2)
        splitter.addWidget(side)
        splitter.setStretchFactor(0, 1)
        splitter.setSizes([1000, 400])
        layout.addWidget(splitter)
        self.graph.nodeClicked.connect(self._node_clicked)
        self.graph.edgeClicked.connect(self._edge_clicked)
        return page

    def _preference_box(self) -> QGroupBox:
        box = QGroupBox("Your preference for this fact")
        layout = QVBoxLayout(box)
        self.pref_fact = QLabel("Click a blue arrow in the graph.")
        self.pref_fact.setWordWrap(True)
        self.pref_fact.setStyleSheet("font-weight:bold;")
        layout.addWidget(self.pref_fact)
        question = QLabel("How much do you mind this being released?")
        question.setWordWrap(True)
        layout.addWidget(question)
        from tklscore.core.pia.preferences import PREFERENCE_MEANINGS

        self.pref_buttons: list[QRadioButton] = []
        self.pref_group = QButtonGroup(self)
        for level, meaning in PREFERENCE_MEANINGS.items():
            radio = QRadioButton(f"{level}  {meaning}")
            radio.setObjectName(f"preference_{level}")
            self.pref_group.addButton(radio, level)
            layout.addWidget(radio)
            self.pref_buttons.append(radio)
        self.pref_group.idClicked.connect(self.set_preference)
        self.pref_hint = QLabel()
        self.pref_hint.setWordWrap(True)
        layout.addWidget(self.pref_hint)
        row = QHBoxLayout()
        self.suggest_button = QPushButton("Use all suggestions")
        self.suggest_button.setToolTip("Set every fact that has a green suggestion to the suggested level")
        self.suggest_button.clicked.connect(self.apply_suggestions)
        self.save_button = QPushButton("Save preferences")
        self.save_button.setStyleSheet("QPushButton:enabled { background:#1d3557; color:white; padding:4px 12px; }")
        self.save_button.clicked.connect(self.save)
        row.addWidget(self.suggest_button)
        row.addWidget(self.save_button)
        layout.addLayout(row)
        self.save_status = QLabel("")
        self.save_status.setWordWrap(True)
        self.save_status.setStyleSheet("color:#44515f;")
        layout.addWidget(self.save_status)
        return box

    # ---- 6. about

    def _about_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        text = QTextBrowser()
        text.setOpenLinks(False)
        text.anchorClicked.connect(QDesktopServices.openUrl)
        text.setStyleSheet("QTextBrowser { background:white; color:#1b2733; font-size:11.5pt; padding:12px; }")
        text.setHtml(f"""
<h2>{TITLE}</h2>
<p>Part of tkl-Score Workbench {__version__}. It mirrors the <i>Patient Data Visualizer</i> of the
Pre-Release Inference Analyzer (PIA) by D. Daniels (2018).</p>
<p><b>What it is for.</b> Before a hospital releases information about you, this application shows
what could be <b>worked out</b> from that information by someone with medical knowledge, which of
those conclusions are too private, and how the release could be changed to prevent them. You can say
how much you mind each of your facts being released; the analyzer takes your wishes into account
when it chooses what to change.</p>
<p><b>Colours in the graph.</b>
<span style="background:#d6e6ff">&nbsp;blue boxes and arrows&nbsp;</span> are from your record;
grey ones are general medical knowledge; dashed purple arrows were worked out;
<span style="background:{ROLE_COLOUR['violation']}; color:white">&nbsp;red&nbsp;</span> is too private to be released;
<span style="background:{ROLE_COLOUR['participant']}">&nbsp;yellow&nbsp;</span> marks your facts that make it possible.
In <i>Patient privacy preferences</i>,
<span style="background:{ROLE_COLOUR['suggested']}; color:white">&nbsp;green&nbsp;</span> is a suggested setting and
<span style="background:{ROLE_COLOUR['current']}">&nbsp;yellow&nbsp;</span> your current setting.</p>
<p><b>Your privacy.</b> Everything runs on this computer. Nothing is sent over the network; web pages
open in your browser only when you click a link.</p>
<p><b>Your preferences</b> are saved in a small file next to your data file
(<code>&lt;name&gt;.preferences.csv</code>), the same file the analyzer reads
(<code>tklscore pia analyze --preferences</code>). Preferences are wishes: the analyzer tries to honour
them, but safety comes first.</p>
<p style="color:#6b7785">The example patient, Bob, and all sample content are made up for illustration.</p>""")
        layout.addWidget(text)
        return page

    # ------------------------------------------------------------------ functions

    def open_function(self, key: str) -> None:
        if key not in FUNCTION_KEYS:
            raise ValueError(f"unknown function {key!r}; one of {', '.join(FUNCTION_KEYS)}")
        if key == "exit":
            self.request_exit()
            return
        self.current_function = key
        self.buttons[key].setChecked(True)
        _, _, _, heading, help_text = FUNCTIONS[FUNCTION_KEYS.index(key)]
        self._set_heading(heading, help_text)
        if key == "information":
            self._show_page("information")
        elif key == "places":
            self._show_page("places")
        elif key == "about":
            self._show_page("about")
        elif key == "load":
            self.show_load()
        elif key == "discover":
            self.show_discover()
        elif key == "preferences":
            self.show_preferences()
        self.functionChanged.emit(key)

    def _graph_mode(self, mode: str) -> None:
        self._show_page("graph")
        self.preference_box.setVisible(mode == "preferences")
        self.example_button.setVisible(mode == "load")
        self.choose_button.setVisible(mode == "load")
        self.findings.setVisible(mode in ("discover", "preferences") and self.analysis is not None)
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

    def _load_ontology(self) -> None:
        if not self.ontology:
            from tklscore.core.pia import load_triples

            self.ontology = load_triples(self.ontology_path)

    def _draw_triples(self, graph: OntologyGraph, triples, kind: str) -> None:
        onto_terms = {t for tr in self.ontology for t in (tr.s, tr.o)}
        for t in triples:
            for term in (t.s, t.o):
                node_kind = "concept" if term in onto_terms else ("inferred" if kind == "inferred" else "patient")
                graph.add_node(term, term_name(term), node_kind)
            graph.add_edge(t, t.s, t.o, edge_words(t.p), kind, tooltip=sentence(t))

    def _rebuild_graph(self) -> None:
        self._load_ontology()
        graph = self.graph
        graph.clear()
        self._draw_triples(graph, self.ontology, "ontology")
        if self.data:
            self._draw_triples(graph, self.data, "patient")
        if self.analysis is not None and self.inferred:
            self._draw_triples(graph, self.inferred, "inferred")
        graph.layout()
        self.panel.set_focus_keys(None)
        graph.fit()

    def show_load(self, ask: bool = True) -> None:
        self._graph_mode("load")
        self.analysis, self.inferred = None, []
        self.data, self.data_path = [], None
        self._rebuild_graph()
        self.data_label.setText("Medical knowledge only. Choose the file with your information.")
        self.explanation.setHtml(
            "<p>This is general <b>medical knowledge</b> (an <i>ontology</i>): boxes are ideas, arrows "
            "say how they are related. It is the same for everybody.</p><p>Now choose the file with "
            "your information, or use the example patient. Your facts will appear in blue, connected "
            "to this knowledge.</p>")
        if ask:
            self.load_patient_dialog()

    def load_patient_dialog(self) -> bool:
        path, _ = QFileDialog.getOpenFileName(self, "Load patient information", str(self.example_path.parent),
                                              "Patient data (*.ttl *.nt *.n3 *.rdf *.owl *.xml *.jsonld);;All files (*)")
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
        except InputError as error:
            self.show_error(f"Could not load your information.\n\n{error}")
            return False
        except OSError as error:
            self.show_error(f"Could not load your information.\n\n{path}: {error.strerror or error}")
            return False
        self.data, self.data_path = data, Path(path)
        self.preferences_path, self.preferences = prefs_path, prefs
        self.preferences_dirty = False
        self.analysis, self.inferred, self.suggested = None, [], {}
        self.selected_fact = None
        if self.current_function not in ("load", "discover", "preferences"):
            self.current_function = "load"
        self._graph_mode(self.current_function)
        self._rebuild_graph()
        subjects = sorted({term_name(t.s) for t in data if t.s not in {x for tr in self.ontology for x in tr}})
        self.data_label.setText(f"Loaded {Path(path).name}: {len(data)} facts"
                                + (f" about {', '.join(subjects[:3])}" if subjects else "")
                                + (f"; {len(prefs)} saved preferences" if prefs else "") + ".")
        self.explanation.setHtml(
            f"<p>Your record adds <b>{len(data)} facts</b> (blue arrows) to the medical knowledge.</p>"
            "<p>Click any box or arrow to see what it means. Next, <b>Discover information</b> shows "
            "what someone could work out from these facts.</p>"
            + (f"<p>{len(prefs)} privacy preferences you saved earlier were loaded.</p>" if prefs else ""))
        if self.current_function == "preferences":
            self.show_preferences()
        elif self.current_function == "discover":
            self.show_discover()
        return True

    def _need_data(self) -> bool:
        if self.data:
            return True
        box = QMessageBox(QMessageBox.Icon.Information, TITLE,
                          "Please load your information first: choose Load patient information, "
                          "or use the example patient.", parent=self)
        box.setObjectName("loadFirstDialog")
        box.open()
        self.current_function = "load"
        self.buttons["load"].setChecked(True)
        self._set_heading(*FUNCTIONS[2][3:])
        self.show_load(ask=False)
        return False

    def analyze(self):
        """Run the analyzer on the loaded data with the current preferences; returns the Analysis."""
        from tklscore.core.pia import Reasoner
        from tklscore.core.pia.analysis import analyze_files
        from tklscore.core.pia.preferences import suggested_preferences

        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            run = analyze_files(self.ontology_path, self.data_path, self.rules_path, self.labels_path,
                                self.threshold, method="efficient",
                                preferences=dict(self.preferences) or None)
            closure = run.assessment.closure
            known = Reasoner(run.rules).materialize(run.ontology).triples()
            data = set(self.data)
            self.inferred = sorted((t for t in closure.triples() if t not in known and t not in data), key=str)
            self.suggested = suggested_preferences(run.assessment)
        except InputError as error:
            self.show_error(f"The analysis could not run.\n\n{error}")
            return None
        finally:
            QApplication.restoreOverrideCursor()
        self.analysis = run
        return run

    def show_discover(self) -> None:
        if not self._need_data():
            return
        self._graph_mode("discover")
        if self.analyze() is None:
            return
        self._rebuild_graph()
        self._colour_discoveries()
        self.findings.setVisible(True)
        self.findings.setHtml(self._findings_html())
        self.explanation.setHtml(
            "<p>Purple dashed arrows are facts that were <b>not</b> in your record but can be worked out "
            "from it with medical knowledge.</p><p><b style='color:#d32f2f'>Red</b> ones are too private to be "
            "released; <b style='background:#f2b705'>&nbsp;yellow&nbsp;</b> ones are the facts from your record "
            "that make them possible.</p><p>Click an arrow to see how it was worked out.</p>")
        if len(self.graph.nodes) > 60:
            self.panel.focus()

    def _colour_discoveries(self) -> None:
        assessment = self.analysis.assessment
        self.graph.clear_roles()
        for fact in assessment.participants.facts:
            self.graph.set_edge_role(fact, "participant")
        for v in assessment.violations:
            self.graph.set_edge_role(v.triple, "violation")
            if v.triple.o in self.graph.nodes:
                self.graph.nodes[v.triple.o].set_role("violation")     # what is revealed
        self.graph.tidy_labels()
        keys = set()
        for conclusion, just in assessment.participants.rules:
            for t in (conclusion, *just.body):
                keys |= {t.s, t.o}
        for v in assessment.violations:
            keys |= {v.triple.s, v.triple.o}
        self.panel.set_focus_keys(keys & set(self.graph.nodes))

    def _findings_html(self) -> str:
        run = self.analysis
        a, result = run.assessment, run.result
        parts = [(f"<h3>What the analyzer found</h3><p>{len(self.inferred)} facts about you can be worked out "
                  "from your record.</p>")]
        if not a.violations:
            parts.append("<p><b>None of them is too private.</b> Your information can be released as it is.</p>")
            return "".join(parts)
        parts.append(f"<p><b style='color:#d32f2f'>{len(a.violations)} of them "
                     f"{'is' if len(a.violations) == 1 else 'are'} too private</b> to be released "
                     f"(the hospital may release up to <i>{html.escape(str(run.threshold))}</i> privacy):</p><ul>")
        for v in a.violations:
            parts.append(f"<li>{html.escape(sentence(v.triple))} (<i>{html.escape(str(v.label))}</i>)</li>")
        parts.append("</ul><h3>What would be changed before release</h3>")
        if result.solution is None or not result.valid:
            parts.append("<p>No change to the released facts can stop this; the hospital would have to "
                         "hold the release back.</p>")
        else:
            parts.append("<ul>")
            for alt in result.solution.alterations:
                old = html.escape(sentence(alt.source))
                if alt.new_object is None:
                    parts.append(f"<li>leave out “{old}”</li>")
                else:
                    new = html.escape(sentence(Triple(alt.source.s, alt.source.p, alt.new_object)))
                    parts.append(f"<li>release “{new}” instead of “{old}” (less specific)</li>")
            parts.append("</ul>")
            if self.preferences:
                parts.append(f"<p>Your {len(self.preferences)} saved preferences were taken into account "
                             f"(impact {result.impact:g}; lower is chosen first).</p>")
        return "".join(parts)

    def show_preferences(self) -> None:
        if not self._need_data():
            return
        self._graph_mode("preferences")
        if self.analysis is None and self.analyze() is None:
            return
        self._rebuild_graph()
        self._colour_preferences()
        self.findings.setVisible(True)
        self.findings.setHtml(
            "<h3>Suggestions</h3><p>Green arrows are the facts the analyzer suggests you protect: "
            "they help someone work out something too private about you. "
            "<b>3</b> means leaving out that one fact is enough; <b>2</b> means it is one of several.</p>"
            "<p>Your settings are wishes: the hospital takes them into account when it decides what to "
            "change, but safety comes first.</p>")
        self.explanation.setHtml(
            "<p>Click a <b>blue arrow</b> (a fact from your record) to choose how much you mind it being "
            "released. Then press <b>Save preferences</b>.</p>"
            "<p>Grey arrows are general medical knowledge and purple ones were worked out; you cannot set "
            "a preference on them.</p>")
        self._show_preference_control(self.selected_fact if self.selected_fact in set(self.data) else None)

    def _colour_preferences(self) -> None:
        self.graph.clear_roles()
        for fact in self.data:
            current, suggested = self.preferences.get(fact), self.suggested.get(fact)
            if current is not None:
                badge = f"yours: {current}" + (f" · suggested: {suggested}" if suggested is not None else "")
                self.graph.set_edge_role(fact, "current", badge)
            elif suggested is not None:
                self.graph.set_edge_role(fact, "suggested", f"suggested: {suggested}")
        self.graph.tidy_labels()

    def _show_preference_control(self, fact: Triple | None) -> None:
        self.selected_fact = fact
        for radio in self.pref_buttons:
            radio.setEnabled(fact is not None)
            radio.setStyleSheet("")
        self.save_button.setEnabled(self.preferences_dirty)
        self.suggest_button.setEnabled(bool(self.suggested))
        if fact is None:
            self.pref_fact.setText("Click a blue arrow in the graph.")
            self.pref_hint.setText("")
            self.pref_group.setExclusive(False)
            for radio in self.pref_buttons:
                radio.setChecked(False)
            self.pref_group.setExclusive(True)
            return
        self.pref_fact.setText(f"“{sentence(fact)}”")
        current, suggested = self.preferences.get(fact), self.suggested.get(fact)
        if suggested is not None:
            self.pref_buttons[suggested].setStyleSheet(
                f"background:{ROLE_COLOUR['suggested']}; color:white; border-radius:3px; padding:2px;")
        if current is not None:
            self.pref_buttons[current].setStyleSheet(
                f"background:{ROLE_COLOUR['current']}; color:black; border-radius:3px; padding:2px;")
        self.pref_group.setExclusive(False)
        for level, radio in enumerate(self.pref_buttons):
            radio.setChecked(level == (current if current is not None else 0))
        self.pref_group.setExclusive(True)
        hints = []
        if suggested is not None:
            hints.append(f"<span style='background:{ROLE_COLOUR['suggested']}; color:white'>&nbsp;Suggested: "
                         f"{suggested}&nbsp;</span>")
        if current is not None:
            hints.append(f"<span style='background:{ROLE_COLOUR['current']}'>&nbsp;Your setting: {current}&nbsp;</span>")
        else:
            hints.append("No setting yet (0, fine to release, is assumed).")
        self.pref_hint.setText(" ".join(hints))

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
            self.show_error(f"Your preferences could not be saved.\n\n{error}")
            return False
        self.preferences_dirty = False
        self.save_button.setEnabled(False)
        self.save_status.setText(f"Saved to {self.preferences_path}. Discover information again to see "
                                 "what the analyzer would now change.")
        self.analysis = None      # the next discovery uses the saved preferences
        self.analyze()
        self._colour_preferences()
        return True

    # ------------------------------------------------------------------ explanations

    def _node_clicked(self, key) -> None:
        self.explanation.setHtml(self._node_html(key, self.graph))

    def _edge_clicked(self, key) -> None:
        self.explanation.setHtml(self._edge_html(key))
        if self.current_function == "preferences":
            self._show_preference_control(key if key in set(self.data) else None)

    def _node_html(self, key, graph: OntologyGraph, sample: bool = False) -> str:
        node = graph.nodes[key]
        name = html.escape(node.label)
        if node.kind == "patient":
            what = f"<p><b>{name}</b> appears in your record (blue).</p>"
        elif node.kind == "inferred":
            what = f"<p><b>{name}</b> appears only in facts that were worked out.</p>"
        else:
            what = f"<p><b>{name}</b> is an idea from general medical knowledge, the same for everybody.</p>"
        facts = [e for e in node.edges if e.isVisible() or sample]
        lines = [f"<li>{html.escape(e.toolTip())}</li>" for e in facts[:12]]
        more = f"<p>…and {len(facts) - 12} more.</p>" if len(facts) > 12 else ""
        drill = ("<p><i>Its connections are now shown.</i></p>"
                 if graph.visible_keys is not None else "")
        return what + (f"<p>What is known about it:</p><ul>{''.join(lines)}</ul>{more}" if lines else "") + drill

    def _edge_html(self, key) -> str:
        fact = Triple(*key)
        said = html.escape(sentence(fact))
        if fact in set(self.ontology):
            return (f"<p>“{said}”</p><p>This is <b>general medical knowledge</b>: true for everybody, not "
                    "about you. Anyone can look it up, which is why it can be combined with your facts.</p>")
        parts = [f"<p style='font-size:12pt'>“<b>{said}</b>”</p>"]
        run = self.analysis
        closure = run.assessment.closure if run is not None else None
        if fact in set(self.data):
            parts.append("<p>This fact is <b>in your record</b> and would be released.</p>")
        else:
            parts.append("<p>This fact is <b>not in your record</b>. It was <b>worked out</b> from other facts "
                         "and medical knowledge.</p>")
        if closure is not None and fact in closure and closure.is_inferred(fact):
            justifications = closure.justifications(fact)
            for i, just in enumerate(justifications[:4]):
                lead = ("How it is worked out" if len(justifications) == 1
                        else f"One way ({i + 1} of {len(justifications)})")
                body = "".join(f"<li>{html.escape(sentence(t))}"
                               + (" <i>(from your record)</i>" if t in set(self.data) else
                                  " <i>(medical knowledge)</i>" if t in set(self.ontology) else " <i>(worked out)</i>")
                               + "</li>" for t in just.body)
                parts.append(f"<p><b>{lead}</b>, with the rule <i>{html.escape(_words(just.rule.name))}</i>:</p>"
                             f"<ul>{body}</ul>")
        if run is not None:
            a = run.assessment
            violation = next((v for v in a.violations if v.triple == fact), None)
            if violation is not None:
                parts.append(f"<p style='color:#b71c1c'><b>Why this is a problem:</b> this is labelled "
                             f"<b>{html.escape(str(violation.label))}</b> privacy, more private than "
                             f"<b>{html.escape(str(run.threshold))}</b>, the most the hospital may release. "
                             "Yet anyone who gets the yellow facts can work it out.</p>")
            uses = [v for v, facts in a.participants.by_violation.items() if fact in facts]
            if uses:
                items = "".join(f"<li>{html.escape(sentence(v))}</li>" for v in uses)
                parts.append(f"<p style='background:#fff4ce'><b>This fact helps someone work out</b> something "
                             f"too private:</p><ul>{items}</ul>")
            if run.result.solution is not None:
                for alt in run.result.solution.alterations:
                    if alt.source == fact:
                        change = ("would be left out" if alt.new_object is None else
                                  f"would be released as “{html.escape(sentence(alt.source.with_object(alt.new_object)))}”")
                        parts.append(f"<p>Before release, this fact {change}.</p>")
        if fact in set(self.data):
            current, suggested = self.preferences.get(fact), self.suggested.get(fact)
            from tklscore.core.pia.preferences import PREFERENCE_MEANINGS

            if current is not None:
                parts.append(f"<p>Your preference: <b>{current} — {PREFERENCE_MEANINGS[current]}</b>.</p>")
            if suggested is not None:
                parts.append(f"<p>Suggested: <b>{suggested} — {PREFERENCE_MEANINGS[suggested]}</b>.</p>")
        return "".join(parts)

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


__all__ = ["CATEGORIES", "FUNCTION_KEYS", "PatientView", "preferences_path_for", "sentence"]
