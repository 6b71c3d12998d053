"""The vocabulary browser of the Model view: the vocabulary chosen (DPV 2.3's personal-data
categories or the thesis' taxonomy, both shipped and read from their digests at once, or
DPV/RDF files the user opens, read in a process of their own — remembered in QSettings),
searchable, its classes dragged onto a column's attribute to align it."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QFileDialog, QHBoxLayout, QLabel, QLineEdit,
                               QPushButton, QTreeView, QVBoxLayout, QWidget)

from tklscore.core.model.vocabulary import DEFAULT_VOCABULARY, SHIPPED, Vocabulary
from tklscore.gui.model.tree import IRI_ROLE, ClassFilter, VocabularyModel
from tklscore.gui.tasks import SIDE

SETTINGS_KEY = "model/vocabularies"
SHIPPED_KEY = "model/vocabulary"
VOCABULARY_FILTER = "RDF vocabularies (*.ttl *.rdf *.owl *.xml *.nt *.n3 *.trig *.jsonld *.json);;All files (*)"
FILES = "files"


class VocabularyPanel(QWidget):
    vocabularyChanged = Signal()

    def __init__(self, settings, show_error, runner, parent: QWidget | None = None):
        super().__init__(parent)
        self.settings = settings
        self.show_error = show_error
        self.runner = runner          # the task runner that reads vocabulary files (in a process of their own)
        self.reading: tuple[str, ...] | None = None   # the files being read in the background
        self.vocabulary: Vocabulary | None = None
        self.vocabulary_paths: list[str] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.chooser = QComboBox()
        self.chooser.setObjectName("vocabularyChooser")
        for key, shipped in SHIPPED.items():
            self.chooser.addItem(shipped.title, key)
        self.chooser.setToolTip("The vocabulary whose classes the columns are aligned with; DPV 2.3 and the "
                                "thesis' taxonomy come with tklscore")
        self.chooser.activated.connect(lambda i: self.use_shipped(self.chooser.itemData(i))
                                       if self.chooser.itemData(i) != FILES else None)
        self.open_button = QPushButton("Open…")
        self.open_button.setToolTip("Open one or more DPV (or other RDFS/SKOS) files: .ttl, .rdf, .jsonld")
        self.open_button.clicked.connect(lambda: self.open_vocabulary())
        row.addWidget(self.chooser, 1)
        row.addWidget(self.open_button)
        layout.addLayout(row)
        self.vocabulary_label = QLabel()
        self.vocabulary_label.setWordWrap(True)
        layout.addWidget(self.vocabulary_label)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search classes (label or IRI)…")
        self.search.setClearButtonEnabled(True)
        layout.addWidget(self.search)
        self.class_model = VocabularyModel(self)
        self.class_filter = ClassFilter(self)
        self.class_filter.setSourceModel(self.class_model)
        self.search.textChanged.connect(self._search)
        self.class_tree = QTreeView()
        self.class_tree.setModel(self.class_filter)
        self.class_tree.setDragEnabled(True)
        self.class_tree.setAcceptDrops(True)
        self.class_tree.setDropIndicatorShown(True)
        self.class_tree.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.class_tree.setDefaultDropAction(Qt.DropAction.CopyAction)
        self.class_tree.setColumnHidden(1, True)
        self.class_tree.setToolTip("Drag a class onto a column's attribute (A.…) to align the column with it")
        layout.addWidget(self.class_tree, 1)
        hint = QLabel("Drag a class onto an attribute to align the column (or the attribute onto a class).")
        hint.setWordWrap(True)
        hint.setStyleSheet("color: palette(mid);")
        layout.addWidget(hint)

    def load_remembered(self, models: str | None = None) -> None:
        """The vocabulary files the user opened last; else ``models`` — the shipped vocabulary
        the model was built with, which the view shows in place of the one remembered (so that
        it is read once, not the remembered one first) —; else the shipped one remembered."""
        paths = [str(p) for p in (self.settings.value(SETTINGS_KEY, [], list) or [])]
        key = models if models in SHIPPED else str(self.settings.value(SHIPPED_KEY, DEFAULT_VOCABULARY))
        key = key if key in SHIPPED else DEFAULT_VOCABULARY
        if paths:
            def unreadable(message: str) -> None:
                self.show_error(f"The remembered vocabulary could not be opened, using the shipped one: {message}")
                self._set(Vocabulary.shipped(key), [])

            self._read_files(paths, remember=False, failed=unreadable)
            return
        self._set(Vocabulary.shipped(key), [])   # from its digest: a few milliseconds

    def open_vocabulary(self, paths: list[str] | None = None) -> bool:
        """Open vocabulary files (a dialog when ``paths`` is None) and remember them once read;
        False when no file was chosen."""
        if paths is None:
            paths, _ = QFileDialog.getOpenFileNames(self, "Open vocabulary", "", VOCABULARY_FILTER)
            if not paths:
                return False
        self._read_files([str(p) for p in paths], remember=True, failed=self.show_error)
        return True

    def _read_files(self, paths: list[str], remember: bool, failed) -> None:
        """Read vocabulary files in a process of their own (rdflib's parsing would hold the
        interpreter lock from the UI thread), on the side lane."""
        def read(vocabulary: Vocabulary) -> None:
            if self.reading == token:   # else another vocabulary was chosen meanwhile
                self._set(vocabulary, paths)
                if remember:
                    self.settings.setValue(SETTINGS_KEY, paths)

        def unread(message: str) -> None:
            if self.reading == token:
                self.reading = None
                self._show_current()
                failed(message)

        def cancelled(_value) -> None:
            if self.reading == token:
                self.reading = None
                self._show_current()
                self.vocabulary_label.setText(f"{names} not read (cancelled)"
                                              + ("" if self.vocabulary is None else f"; still {self._where()}"))

        names = ", ".join(p.rsplit("/", 1)[-1] for p in paths)
        self.reading = token = tuple(paths)
        self.vocabulary_label.setText(f"Reading {names}…")
        self.runner.start("Reading the vocabulary", lambda control: Vocabulary.load_apart(
            paths, cancelled=lambda: control.cancelled), read, unread, owner=self, lane=SIDE, on_cancelled=cancelled,
            cancel_text="Cancel reading the vocabulary", stops=f"reading the vocabulary {names}")

    def use_shipped(self, key: str, remember: bool = True) -> None:
        """A vocabulary tklscore ships (``dpv-2.3``, ``thesis``)."""
        if remember:
            self.settings.remove(SETTINGS_KEY)
            self.settings.setValue(SHIPPED_KEY, key)
        if self.vocabulary is None or self.vocabulary.key != key or self.vocabulary_paths or self.reading:
            self._set(Vocabulary.shipped(key), [])

    def _set(self, vocabulary: Vocabulary, paths: list[str]) -> None:
        self.reading = None
        self.vocabulary = vocabulary
        self.vocabulary_paths = list(paths)
        self.class_model.set_vocabulary(vocabulary)
        self._open_at_root(vocabulary)
        self._show_current()
        self.vocabularyChanged.emit()

    def _where(self) -> str:
        paths, vocabulary = self.vocabulary_paths, self.vocabulary
        return ", ".join(p.rsplit("/", 1)[-1] for p in paths) if paths else f"built-in: {vocabulary.title}"

    def _show_current(self) -> None:
        """The chooser and the label on the vocabulary shown (none yet: the chooser on the default)."""
        vocabulary, paths = self.vocabulary, self.vocabulary_paths
        index = self.chooser.findData(FILES)
        if paths:
            if index < 0:
                self.chooser.addItem("", FILES)
                index = self.chooser.count() - 1
            self.chooser.setItemText(index, "Opened: " + ", ".join(p.rsplit("/", 1)[-1] for p in paths))
            self.chooser.setCurrentIndex(index)
        else:
            if index >= 0:
                self.chooser.removeItem(index)
            self.chooser.setCurrentIndex(self.chooser.findData(vocabulary.key if vocabulary else DEFAULT_VOCABULARY))
        self.vocabulary_label.setText("" if vocabulary is None else f"{self._where()} — {len(vocabulary):,} classes")
        self.vocabulary_label.setToolTip("" if vocabulary is None else "\n".join(paths or vocabulary.sources))

    def _open_at_root(self, vocabulary: Vocabulary) -> None:
        """The classes below the vocabulary's root open (DPV's personal-data categories under
        dpv:PersonalData), the rest closed; else the first two levels."""
        root = vocabulary.default_root
        matches = self.class_filter.match(self.class_filter.index(0, 0), IRI_ROLE, root, 1,
                                          Qt.MatchFlag.MatchExactly | Qt.MatchFlag.MatchRecursive) if root else []
        if not matches:
            self.class_tree.expandToDepth(1)
            return
        self.class_tree.collapseAll()
        index = matches[0]
        self.class_tree.expand(index)
        parent = index.parent()
        while parent.isValid():
            self.class_tree.expand(parent)
            parent = parent.parent()
        self.class_tree.scrollTo(index, QTreeView.ScrollHint.PositionAtTop)

    def _search(self, text: str) -> None:
        self.class_filter.set_text(text)
        if text.strip():
            self.class_tree.expandAll()

    def select_class(self, iri: str) -> bool:
        """Select a class in the browser (its first occurrence)."""
        matches = self.class_filter.match(self.class_filter.index(0, 0), IRI_ROLE, iri, 1,
                                          Qt.MatchFlag.MatchExactly | Qt.MatchFlag.MatchRecursive)
        if not matches:
            return False
        self.class_tree.setCurrentIndex(matches[0])
        self.class_tree.scrollTo(matches[0])
        return True

    def selected_class(self) -> str | None:
        index = self.class_tree.currentIndex()
        return index.data(IRI_ROLE) if index.isValid() else None
