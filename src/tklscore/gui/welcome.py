"""The first-run welcome page: the three ways in (evaluate the built-in example, open a
table, learn) instead of an empty window (gui.md §5)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QVBoxLayout, QWidget

CHOICES = (
    ("example", "Evaluate the built-in example",
     "The thesis' patient table (Table 3.1) with two candidate releases and a tkl-Data Model: "
     "see the scores at once and how each view contributes to them."),
    ("open", "Open a table…",
     "Start from your own source table (CSV/TSV, Excel or Parquet): give its columns their roles, "
     "then define the releases you are asked to approve."),
    ("learn", "Learn how the scores work",
     "Short tasks and a quiz that explain k, l, t, tkl-Score, M-Score and L-Severity on small tables."),
)


class WelcomePage(QWidget):
    chosen = Signal(str)  # "example", "open" or "learn"

    def __init__(self, can_learn: bool, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("welcome")
        outer = QVBoxLayout(self)
        outer.setAlignment(Qt.AlignmentFlag.AlignCenter)
        column = QFrame()
        column.setFixedWidth(620)
        layout = QVBoxLayout(column)
        title = QLabel("<h1>tkl-Score Workbench</h1>")
        intro = QLabel("How misuseable would a table of personal data be once released? "
                       "Everything runs on this computer; nothing goes over the network.")
        intro.setWordWrap(True)
        layout.addWidget(title)
        layout.addWidget(intro)
        layout.addSpacing(16)
        self.buttons: dict[str, QPushButton] = {}
        for key, text, explanation in CHOICES:
            if key == "learn" and not can_learn:
                continue
            button = QPushButton(text)
            button.setObjectName(f"welcome_{key}")
            button.setMinimumHeight(44)
            font = button.font()
            font.setPointSizeF(font.pointSizeF() * 1.2)
            button.setFont(font)
            button.clicked.connect(lambda _=False, k=key: self.chosen.emit(k))
            note = QLabel(explanation)
            note.setWordWrap(True)
            note.setContentsMargins(4, 0, 4, 12)
            layout.addWidget(button)
            layout.addWidget(note)
            self.buttons[key] = button
        hint = QLabel("This page is always at Help ▸ Welcome page.")
        hint.setEnabled(False)
        layout.addWidget(hint)
        outer.addWidget(column)
