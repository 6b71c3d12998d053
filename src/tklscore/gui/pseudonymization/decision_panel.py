"""Step 4 of the Pseudonymization view: the five choices of seed 004's Fig. 3 — accept with
violations, accept with the violations removed, try another pseudonymisation (the Design
view), try removing fields (Fig. 6), impose limits — and the decision taken."""

from __future__ import annotations

from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QPushButton

DESIGN_TIP = ("Opens the Design view (the release designer) to pseudonymise differently, e.g. coarser "
              "generalisation or l-diversity, then analyse its release here")
NO_DESIGN_TIP = ("The release designer is the application's Design view; it is not reachable from this view "
                 "outside the application window")


class DecisionPanel(QGroupBox):
    def __init__(self, parent=None):
        super().__init__("4 · Decide", parent)
        buttons = QHBoxLayout(self)
        self.accept_button = QPushButton("Accept with violations")
        self.accept_removed_button = QPushButton("Accept with violations removed…")
        self.design_button = QPushButton("Try another pseudonymisation")
        self.fields_button = QPushButton("Try removing fields…")
        self.limits_button = QPushButton("Impose limits…")
        for button in (self.accept_button, self.accept_removed_button, self.design_button, self.fields_button,
                       self.limits_button):
            buttons.addWidget(button)
        self.decision_label = QLabel("")
        self.decision_label.setWordWrap(True)
        buttons.addWidget(self.decision_label, 1)

    def set_ready(self, ready: bool) -> None:
        """The choices that need an analysis; limits can be imposed before one."""
        for button in (self.accept_button, self.accept_removed_button, self.fields_button):
            button.setEnabled(ready)
        self.limits_button.setEnabled(True)

    def set_design_available(self, available: bool) -> None:
        self.design_button.setEnabled(available)
        self.design_button.setToolTip(DESIGN_TIP if available else NO_DESIGN_TIP)
