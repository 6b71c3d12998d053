"""Function 1, privacy and knowledge information: four topics as cards, "Learn more" with
three items each, the local documents they open, and an explorable sample ontology graph."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (QDialog, QFrame, QGridLayout, QHBoxLayout, QLabel, QPushButton, QTextBrowser,
                               QVBoxLayout, QWidget)

from tklscore.core.files.resources import resource_path
from tklscore.gui.patient.graph_panel import GraphPanel
from tklscore.gui.patient.words import banner

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


class InformationPage(QWidget):
    """The four topics as cards, and the three steps to check one's own information."""

    learnMore = Signal(object)  # a CATEGORIES entry

    def __init__(self, parent=None):
        super().__init__(parent)
        grid = QGridLayout(self)
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
            button.clicked.connect(lambda _=False, c=category: self.learnMore.emit(c))
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


class DocumentPage(QWidget):
    """One local document; web links open in the browser only when clicked (the application stays offline)."""

    back = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        back = QPushButton("← Back to the four topics")
        back.clicked.connect(self.back)
        self.document = QTextBrowser()
        self.document.setOpenLinks(False)
        self.document.setStyleSheet("QTextBrowser { background:white; color:#1b2733; padding:12px; font-size:11.5pt; }")
        self.document.anchorClicked.connect(self._link)
        layout.addWidget(back, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.document, 1)

    def open(self, target: str) -> None:
        self.document.setSource(QUrl.fromLocalFile(str(resource_path(f"patient/{target}"))))

    def _link(self, url: QUrl) -> None:
        if url.scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)
        elif url.isLocalFile() or url.isRelative():
            self.document.setSource(self.document.source().resolved(url))


class SamplePage(QWidget):
    """A small sample of medical knowledge to click through, starting at its most general ideas."""

    back = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QHBoxLayout(self)
        self.panel = GraphPanel()
        self.explain = QTextBrowser()
        self.explain.setMaximumWidth(380)
        self.explain.setStyleSheet("QTextBrowser { background:white; color:#1b2733; font-size:11pt; }")
        left = QVBoxLayout()
        back = QPushButton("← Back to the four topics")
        back.clicked.connect(self.back)
        left.addWidget(back, 0, Qt.AlignmentFlag.AlignLeft)
        left.addWidget(banner("Sample content: a small piece of medical knowledge made for this application, "
                              "not an authoritative source."))
        left.addWidget(self.panel, 1)
        layout.addLayout(left, 1)
        layout.addWidget(self.explain)
