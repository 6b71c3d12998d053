"""How a published CSV/TSV file will be read: the detected delimiter and encoding,
overridable, with a preview of its first rows."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QTableView, QVBoxLayout

from tklscore.gui.frame_model import FrameModel
from tklscore.gui.release.formats import DELIMITERS, ENCODINGS


def html_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class PublishedFileDialog(QDialog):
    """How a published CSV/TSV file will be read: the detected delimiter and encoding,
    overridable, with a preview of its first rows."""

    PREVIEW_ROWS = 20

    def __init__(self, path: str, delimiter: str, encoding: str, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Read the published table")
        self.path = path
        self.detected = (delimiter, encoding)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"<b>{html_text(Path(path).name)}</b> — detected: delimiter "
                                f"{DELIMITERS.get(delimiter, repr(delimiter))}, encoding {encoding}. "
                                "Change them if the preview looks wrong."))
        form = QHBoxLayout()
        form.addWidget(QLabel("Delimiter:"))
        self.delimiter_combo = QComboBox()
        for value, label in DELIMITERS.items():
            self.delimiter_combo.addItem(label, value)
        self.delimiter_combo.setCurrentIndex(max(0, self.delimiter_combo.findData(delimiter)))
        form.addWidget(self.delimiter_combo)
        form.addWidget(QLabel("Encoding:"))
        self.encoding_combo = QComboBox()
        self.encoding_combo.setEditable(True)
        self.encoding_combo.addItems(ENCODINGS if encoding in ENCODINGS else ENCODINGS + [encoding])
        self.encoding_combo.setCurrentText(encoding)
        form.addWidget(self.encoding_combo)
        form.addStretch(1)
        layout.addLayout(form)
        self.preview_model = FrameModel()
        self.preview = QTableView()
        self.preview.setModel(self.preview_model)
        layout.addWidget(self.preview)
        self.problem = QLabel("")
        self.problem.setStyleSheet("color: #b00020;")
        self.problem.setWordWrap(True)
        layout.addWidget(self.problem)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.delimiter_combo.currentIndexChanged.connect(self.refresh)
        self.encoding_combo.currentTextChanged.connect(self.refresh)
        self.resize(760, 420)
        self.refresh()

    def options(self) -> dict:
        """The settings chosen (only those that differ from the detected ones)."""
        chosen = {"delimiter": self.delimiter_combo.currentData(), "encoding": self.encoding_combo.currentText()}
        detected = dict(zip(("delimiter", "encoding"), self.detected))
        return {k: v for k, v in chosen.items() if v and v != detected[k]}

    def refresh(self) -> None:
        try:
            frame = pd.read_csv(self.path, sep=self.delimiter_combo.currentData(),
                                encoding=self.encoding_combo.currentText(), dtype=str, keep_default_na=False,
                                nrows=self.PREVIEW_ROWS)
        except (UnicodeDecodeError, LookupError, pd.errors.ParserError, ValueError, OSError) as error:
            self.preview_model.set_frame(pd.DataFrame())
            self.problem.setText(f"Cannot be read this way: {error}")
            self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(False)
            return
        self.preview_model.set_frame(frame)
        self.preview.resizeColumnsToContents()
        self.problem.setText("")
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(True)
