"""The Model view (gui.md §2.1, §2.3, §2.4; issue 20): the domain expert's tkl-Data Model for
the table in front of them — built from the source (File ▸ New model from source…), opened
or saved as Turtle — composed of panels over one Workbench:

- ``vocabulary_panel``: DPV 2.3 or the thesis' taxonomy (shipped) or opened files, searchable,
  its classes dragged onto a column;
- ``tree_panel``: the model tree with labels, priorities and weights, searchable, filtered to
  what is not yet judged, several values labelled at once, labels and bins edited in place;
- ``alignment``: each sensitive column's class (suggested or confirmed) and the taxonomy's
  mono-hierarchy choices; ``bins``: a continuous column's bins;
- ``status``: problems, what the last change of the table did, a foreign model's mismatches.

Every change is one undoable edit through ``Workbench.edit_model`` (:mod:`.edits`).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QDialog, QFileDialog, QLabel, QSplitter, QTabWidget, QVBoxLayout, QWidget

from tklscore.core.errors import InputError
from tklscore.core.model.data_model.building import default_bins, new_model, source_name
from tklscore.core.model.vocabulary import DEFAULT_VOCABULARY, SHIPPED, Vocabulary
from tklscore.gui.model.alignment_panel import AlignmentPanel
from tklscore.gui.model.bins_panel import BinsPanel
from tklscore.gui.model.edits import NO_LABEL, ModelEdits
from tklscore.gui.model.new_model_dialog import NewModelChoices, NewModelDialog
from tklscore.gui.model.status_panel import StatusPanel
from tklscore.gui.model.tree import LABEL_COL
from tklscore.gui.model.tree_panel import TreePanel
from tklscore.gui.model.vocabulary_panel import SETTINGS_KEY, VocabularyPanel
from tklscore.gui.when_shown import WhenShown

MODEL_FILTER = "tkl-Data Models (*.ttl);;RDF files (*.ttl *.rdf *.owl *.xml *.nt *.n3 *.jsonld);;All files (*)"
__all__ = ["NO_LABEL", "SETTINGS_KEY", "ModelView"]


class ModelView(QWidget):
    def __init__(self, workbench, parent: QWidget | None = None, settings: QSettings | None = None):
        super().__init__(parent)
        self.workbench = workbench
        self.settings = settings or getattr(parent, "settings", None) or QSettings("tklscore", "tkl-Score Workbench")
        self.message = QLabel()
        self.message.setObjectName("modelMessage")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #a40000;")
        self.message.hide()
        self.vocabulary_panel = VocabularyPanel(self.settings, self.show_error, workbench.runner)
        self.edits = ModelEdits(workbench, self.show_error, self.message.hide, lambda: self.vocabulary,
                                lambda: self.tree_panel.selected_iri())
        self.tree_panel = TreePanel(workbench, self.edits)
        self.alignment = AlignmentPanel(workbench, self.edits)
        self.bins = BinsPanel(workbench, self.edits)
        self.status = StatusPanel(workbench)
        self.origin_label = QLabel()
        self.origin_label.setObjectName("modelOrigin")
        self.origin_label.setWordWrap(True)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.alignment, "Alignment and taxonomy")
        self.tabs.addTab(self.bins, "Bins")
        self._lay_out()
        self._name_parts()
        self.vocabulary_panel.class_model.handler = self.edits.apply_plan
        self.vocabulary_panel.class_model.columns_of = self._column_of_attribute
        self.tree_panel.tree_model.handler = self.apply_plan
        self.tree_panel.align_button.clicked.connect(self.align_with_selected_class)
        self.tree_panel.tree.selectionModel().currentChanged.connect(lambda *_: self._follow_selection())
        self.vocabulary_panel.vocabularyChanged.connect(self._vocabulary_changed)
        self.vocabulary_panel.load_remembered(getattr(workbench.model, "vocabulary", None))
        # off screen, the tree and the taxonomy are re-read when the view is shown, not after every AHP edit
        workbench.modelChanged.connect(WhenShown(self, self.refresh).request)
        workbench.follower.checked.connect(WhenShown(self, self._show_status).request)
        self.refresh()

    def _lay_out(self) -> None:
        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.origin_label)
        column.addWidget(self.message)
        lower = QSplitter(Qt.Orientation.Vertical)
        lower.addWidget(self.tree_panel)
        below = QWidget()
        below_layout = QVBoxLayout(below)
        below_layout.setContentsMargins(0, 0, 0, 0)
        below_layout.addWidget(self.status)
        below_layout.addWidget(self.tabs, 1)
        lower.addWidget(below)
        lower.setStretchFactor(0, 3)
        lower.setStretchFactor(1, 2)
        column.addWidget(lower, 1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.vocabulary_panel)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([320, 960])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.splitter)

    def _name_parts(self) -> None:
        """The panels' parts that the application and its tests work with, by their old names."""
        for name in ("vocabulary_label", "search", "class_model", "class_filter", "class_tree", "open_button",
                     "select_class", "selected_class", "open_vocabulary", "use_shipped"):
            setattr(self, name, getattr(self.vocabulary_panel, name))
        for name in ("tree", "tree_model", "label_combo", "set_label_button", "new_element_button", "confirm_button",
                     "remove_button", "align_button", "tree_legend", "select", "selected_iri", "selected_iris",
                     "selected_node", "new_element", "remove_element", "label_selected", "select_shown_values",
                     "show_combo", "count_label"):
            setattr(self, name, getattr(self.tree_panel, name))
        self.model_search = self.tree_panel.search
        for name in ("taxonomy_box", "conflict_list", "pruning_label"):
            setattr(self, name, getattr(self.alignment, name))
        for name in ("problems_box", "problem_list"):
            setattr(self, name, getattr(self.status, name))

    # ------------------------------------------------------------------ state

    @property
    def vocabulary(self) -> Vocabulary | None:
        return self.vocabulary_panel.vocabulary

    @property
    def vocabulary_paths(self) -> list[str]:
        return self.vocabulary_panel.vocabulary_paths

    @property
    def conflicts(self):
        return self.alignment.conflicts

    @property
    def last_realignment(self):
        return self.edits.last_realignment

    def use_builtin_vocabulary(self) -> None:
        self.vocabulary_panel.use_shipped("thesis")

    def refresh(self) -> None:
        model = self.workbench.model
        if (model is not None and model.vocabulary in SHIPPED and not self.vocabulary_paths
                and not self.vocabulary_panel.reading   # files the user opened come first
                and (self.vocabulary is None or self.vocabulary.key != model.vocabulary)):
            self.vocabulary_panel.use_shipped(model.vocabulary, remember=False)   # the model's own vocabulary
        self.tree_panel.refresh()
        self.bins.refresh()
        self._show_alignment()
        self._show_status()
        self._show_origin()

    def _show_alignment(self) -> None:
        self.alignment.refresh(self.vocabulary)
        in_model, aligned = self.alignment.marks()
        removed = set()
        if self.alignment.taxonomy_box.isVisibleTo(self.alignment) and self.workbench.model is not None:
            try:
                removed = set(self.alignment.taxonomy(self.vocabulary).removed_nodes)
            except InputError:
                removed = set()
        self.vocabulary_panel.class_model.mark(in_model, aligned, removed)

    def _show_status(self) -> None:
        model, items = self.workbench.model, self.tree_panel.tree_model
        if model is None:
            problems = []
        else:
            problems = items.derivation.problems if items.model is model and items.derivation else model.problems()
        self.status.refresh(problems)

    def _show_origin(self) -> None:
        model, workbench = self.workbench.model, self.workbench
        if model is None:
            self.origin_label.setText("<b>No tkl-Data Model yet.</b> File ▸ New model from source… builds one for "
                                      "the source's sensitive columns; File ▸ Open model… opens one.")
            return
        table = f" of <b>{model.source}</b>" if model.source else ""
        self.origin_label.setText(f"tkl-Data Model{table} — {workbench.model_origin or 'unsaved'}")

    def _vocabulary_changed(self) -> None:
        self.workbench.follower.vocabulary = self.vocabulary
        if self.workbench.model is not None:
            self._show_alignment()

    def _follow_selection(self) -> None:
        node = self.tree_panel.selected_node()
        if node is not None and node.column is not None and self.workbench.model.attribute(node.column).continuous:
            self.bins.choose(node.column)

    def _column_of_attribute(self, iri: str) -> str | None:
        model = self.workbench.model
        node = model.nodes.get(iri) if model is not None else None
        return node.column if node is not None and node.kind.value == "attribute" else None

    # ------------------------------------------------------------------ edits (see edits.py)

    def show_error(self, message: str) -> None:
        self.message.setStyleSheet("color: #a40000;")
        self.message.setText(message)
        self.message.setVisible(bool(message))
        if message:
            self.workbench.failed.emit(message)

    def show_note(self, sentence: str) -> None:
        """A sentence that is no error (what a cancelled task left on show), where errors are said."""
        self.message.setStyleSheet("color: #555;")
        self.message.setText(sentence)
        self.message.setVisible(True)

    def set_label(self, qualitative: str | None, iri: str | None = None) -> bool:
        return self.edits.set_label(qualitative, iri)

    def move(self, iri: str, target: str) -> bool:
        return self.apply_plan([("move", iri, target)])

    def align(self, column: str, class_iri: str, keep_parent: dict[str, str] | None = None) -> bool:
        return self.apply_plan([("align", column, class_iri)], keep_parent)

    def apply_plan(self, plan, keep_parent: dict[str, str] | None = None) -> bool:
        ok = self.edits.apply_plan(plan, keep_parent)
        if ok and plan and plan[0][0] == "move":
            self.select(plan[0][1])
        return ok

    def keep_parent(self, node: str, parent: str) -> bool:
        return self.edits.keep_parent(node, parent)

    def align_with_selected_class(self) -> bool:
        node, cls = self.selected_node(), self.selected_class()
        if node is None or node.kind.value != "attribute":
            self.show_error("Select a column's attribute (A.…) in the model tree")
            return False
        if cls is None:
            self.show_error("Select a class in the vocabulary browser")
            return False
        return self.align(node.column, cls)

    def label_text(self, iri: str) -> str:
        """The Label column as shown (for tests and accessibility)."""
        return self.tree_model.index_of(iri, LABEL_COL).data() or ""

    # ------------------------------------------------------------------ files (File menu)

    def _source(self):
        workbench = self.workbench
        if workbench.table is None:
            self.show_error("Open the source table first (Release view): a new model is built from its sensitive "
                            "columns and their values" + (" — a source scored out of core cannot be read whole"
                                                          if workbench.out_of_core else ""))
            return None
        if not workbench.project.roles.sa:
            self.show_error("Choose the sensitive columns of the source first (Release view, Roles): the model has "
                            "one attribute per sensitive column")
            return None
        return workbench.table

    def new_model_dialog(self) -> bool:
        """File ▸ New model from source…: the choices, then the model built in the background."""
        table = self._source()
        if table is None:
            return False
        dialog = NewModelDialog(table, self.workbench.project.roles, self.vocabulary, self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return False
        return self.new_model_from_source(dialog.choices())

    def new_model_from_source(self, choices: NewModelChoices | None = None) -> bool:
        """Build a model for the source's sensitive columns (a task; one undoable edit when done)."""
        table = self._source()
        if table is None:
            return False
        roles = self.workbench.project.roles
        choices = choices or NewModelChoices(self.vocabulary or Vocabulary.shipped(DEFAULT_VOCABULARY))
        name = source_name(table)

        def build(control):
            control.progress(10, "Building the tkl-Data Model")
            bins = {column: default_bins(table, column, method, parameter)
                    for column, (method, parameter) in choices.bins.items()}
            return new_model(table, roles, choices.vocabulary, bins=bins, default_label=choices.default_label)

        def done(built) -> None:
            self.workbench.replace_model(f"New model from {name}", built.model,
                                         f"built from {name} in this session (not saved yet)")
            if choices.vocabulary.key is not None and not self.vocabulary_paths:
                self.vocabulary_panel.use_shipped(choices.vocabulary.key, remember=False)
            unaligned = ", ".join(built.unaligned)
            if unaligned:
                self.show_error(f"No class is suggested for {unaligned}: drag a class onto its attribute")

        def cancelled(_built) -> None:
            current = self.workbench.model
            self.show_note(f"Building a new model from {name} was cancelled: " + (
                "the model shown is the one you had." if current is not None else "no model is shown."))

        self.message.hide()
        self.workbench.runner.start("Building the tkl-Data Model", build, done, self.show_error, owner=self,
                                    on_cancelled=cancelled, cancel_text="Cancel building the model",
                                    stops=f"building a tkl-Data Model from {name}")
        return True

    def open_model_dialog(self) -> bool:
        path, _ = QFileDialog.getOpenFileName(self, "Open tkl-Data Model", "", MODEL_FILTER)
        if not path:
            return False
        self.workbench.open_model(path)
        return True

    def save_model_dialog(self) -> bool:
        if self.workbench.model is None:
            self.show_error("There is no tkl-Data Model to save")
            return False
        suggested = f"{Path(self.workbench.model.source or 'model').stem}-model.ttl"
        path, _ = QFileDialog.getSaveFileName(self, "Save tkl-Data Model as", suggested, MODEL_FILTER)
        if not path:
            return False
        if not path.endswith(".ttl"):
            path += ".ttl"
        try:
            self.workbench.save_model(path)
        except (InputError, OSError) as error:
            self.show_error(str(error))
            return False
        return True
