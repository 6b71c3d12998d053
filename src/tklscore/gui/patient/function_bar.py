"""The patient view's left tool bar: the seven functions of PIA's Patient Data Visualizer."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import QButtonGroup, QFrame, QSizePolicy, QStyle, QToolButton, QVBoxLayout

FUNCTIONS = (   # key, button text, icon, heading, one-line help
    ("information", "Privacy and\nknowledge\ninformation", QStyle.StandardPixmap.SP_MessageBoxInformation,
     "Privacy and knowledge information",
     "Short explanations of your privacy rights, consent, your hospital and medical knowledge."),
    ("places", "Places your\ndata is sent", QStyle.StandardPixmap.SP_DriveNetIcon,
     "Where do organizations send my data?",
     "Typical places a hospital sends health information to, how, and who sends it."),
    ("load", "Load patient\ninformation", QStyle.StandardPixmap.SP_DialogOpenButton,
     "Load patient information",
     "This is medical knowledge. Add your information to it: use the example patient or open your file."),
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


def heading(key: str) -> tuple[str, str]:
    """The heading and the one-line help of function ``key``."""
    return FUNCTIONS[FUNCTION_KEYS.index(key)][3:]


class FunctionBar(QFrame):
    """A button per function (exit at the bottom); ``chosen(key)`` when one is clicked."""

    chosen = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("patientToolbar")
        self.setFixedWidth(168)
        self.setStyleSheet("#patientToolbar { background:#1d3557; }"
                           "QToolButton { color:white; background:transparent; border:none; border-radius:6px;"
                           " padding:8px 4px; font-size:10pt; }"
                           "QToolButton:hover { background:#2c4c78; }"
                           "QToolButton:checked { background:#f1faee; color:#1d3557; font-weight:bold; }")
        column = QVBoxLayout(self)
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
            button.clicked.connect(lambda _=False, k=key: self.chosen.emit(k))
            if key != "exit":
                group.addButton(button)
            else:
                column.addStretch(1)
            column.addWidget(button)
            self.buttons[key] = button
