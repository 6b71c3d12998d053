"""Function 5's control: the selected fact of the patient's record, how much the patient
minds its release (0-3, Table 6.1), the suggested level (green) and the current one (yellow),
"Use all suggestions" and "Save preferences"."""

from __future__ import annotations

from PySide6.QtWidgets import QButtonGroup, QGroupBox, QHBoxLayout, QLabel, QPushButton, QRadioButton, QVBoxLayout

from tklscore.core.pia.preferences import PREFERENCE_MEANINGS
from tklscore.gui.patient.ontology_graph import ROLE_COLOUR
from tklscore.gui.patient.words import sentence


class PreferenceBox(QGroupBox):
    def __init__(self, parent=None):
        super().__init__("Your preference for this fact", parent)
        layout = QVBoxLayout(self)
        self.pref_fact = QLabel("Click a blue arrow in the graph.")
        self.pref_fact.setWordWrap(True)
        self.pref_fact.setStyleSheet("font-weight:bold;")
        layout.addWidget(self.pref_fact)
        question = QLabel("How much do you mind this being released?")
        question.setWordWrap(True)
        layout.addWidget(question)
        self.pref_buttons: list[QRadioButton] = []
        self.pref_group = QButtonGroup(self)
        for level, meaning in PREFERENCE_MEANINGS.items():
            radio = QRadioButton(f"{level}  {meaning}")
            radio.setObjectName(f"preference_{level}")
            self.pref_group.addButton(radio, level)
            layout.addWidget(radio)
            self.pref_buttons.append(radio)
        self.pref_hint = QLabel()
        self.pref_hint.setWordWrap(True)
        layout.addWidget(self.pref_hint)
        row = QHBoxLayout()
        self.suggest_button = QPushButton("Use all suggestions")
        self.suggest_button.setToolTip("Set every fact that has a green suggestion to the suggested level")
        self.save_button = QPushButton("Save preferences")
        self.save_button.setStyleSheet("QPushButton:enabled { background:#1d3557; color:white; padding:4px 12px; }")
        row.addWidget(self.suggest_button)
        row.addWidget(self.save_button)
        layout.addLayout(row)
        self.save_status = QLabel("")
        self.save_status.setWordWrap(True)
        self.save_status.setStyleSheet("color:#44515f;")
        layout.addWidget(self.save_status)

    def show_fact(self, fact, current: int | None, suggested: int | None, unsaved: bool,
                  any_suggestion: bool) -> None:
        """Show ``fact`` (None: nothing selected) with its current and suggested levels."""
        for radio in self.pref_buttons:
            radio.setEnabled(fact is not None)
            radio.setStyleSheet("")
        self.save_button.setEnabled(unsaved)
        self.suggest_button.setEnabled(any_suggestion)
        self.pref_group.setExclusive(False)
        for level, radio in enumerate(self.pref_buttons):
            radio.setChecked(fact is not None and level == (current if current is not None else 0))
        self.pref_group.setExclusive(True)
        if fact is None:
            self.pref_fact.setText("Click a blue arrow in the graph.")
            self.pref_hint.setText("")
            return
        self.pref_fact.setText(f"“{sentence(fact)}”")
        if suggested is not None:
            self.pref_buttons[suggested].setStyleSheet(
                f"background:{ROLE_COLOUR['suggested']}; color:white; border-radius:3px; padding:2px;")
        if current is not None:
            self.pref_buttons[current].setStyleSheet(
                f"background:{ROLE_COLOUR['current']}; color:black; border-radius:3px; padding:2px;")
        hints = []
        if suggested is not None:
            hints.append(f"<span style='background:{ROLE_COLOUR['suggested']}; color:white'>&nbsp;Suggested: "
                         f"{suggested}&nbsp;</span>")
        if current is not None:
            hints.append(f"<span style='background:{ROLE_COLOUR['current']}'>&nbsp;Your setting: {current}&nbsp;</span>")
        else:
            hints.append("No setting yet (0, fine to release, is assumed).")
        self.pref_hint.setText(" ".join(hints))
