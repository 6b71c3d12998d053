"""The command that evaluates a designed release again outside the window, and its design
JSON, shown to read and copy (the Design view's "Copy as command…")."""

from __future__ import annotations

from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout)

from tklscore.core.release.command import DesignRecipe


class CommandDialog(QDialog):
    def __init__(self, recipe: DesignRecipe, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Reproduce this release outside the window")
        self.resize(820, 560)
        fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        layout = QVBoxLayout(self)
        intro = QLabel("This command evaluates the designed release again with the same numbers (add "
                       "<code>--format json</code> for JSON, <code>--output FILE.csv</code> for the published table). "
                       "It is on the clipboard. It reads these files, written for it: "
                       + ", ".join(f"<code>{path}</code>" for path in recipe.written))
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.command = QPlainTextEdit(recipe.command)
        self.command.setReadOnly(True)
        self.command.setFont(fixed)
        self.command.setMaximumHeight(110)
        layout.addWidget(self.command)
        layout.addWidget(QLabel(f"The design JSON ({recipe.design_file}):"))
        self.design = QPlainTextEdit(recipe.design_json)
        self.design.setReadOnly(True)
        self.design.setFont(fixed)
        layout.addWidget(self.design, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy_command = QPushButton("Copy command")
        copy_command.clicked.connect(lambda: QGuiApplication.clipboard().setText(recipe.command))
        copy_json = QPushButton("Copy design JSON")
        copy_json.clicked.connect(lambda: QGuiApplication.clipboard().setText(recipe.design_json))
        buttons.addButton(copy_command, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(copy_json, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
