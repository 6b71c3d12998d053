"""The quiz of the Learn view: one question a task, green/red feedback with the right answer
and why, the score, try again, save the results as an HTML page."""

from __future__ import annotations


from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QButtonGroup, QGroupBox, QHBoxLayout, QLabel, QPushButton, QRadioButton,
                               QScrollArea, QVBoxLayout, QWidget)

from tklscore.core.learn import quiz

RIGHT, WRONG = "#1b6e1b", "#a11"


class QuestionBox(QGroupBox):
    changed = Signal()

    def __init__(self, question: quiz.Question, parent=None):
        super().__init__(f"Task {question.task}", parent)
        self.question = question
        layout = QVBoxLayout(self)
        text = QLabel(question.text)
        text.setWordWrap(True)
        layout.addWidget(text)
        self.group = QButtonGroup(self)
        self.buttons = []
        for index, option in enumerate(question.options):
            button = QRadioButton(option)
            self.group.addButton(button, index)
            self.buttons.append(button)
            layout.addWidget(button)
        self.feedback = QLabel()
        self.feedback.setWordWrap(True)
        layout.addWidget(self.feedback)
        self.group.idToggled.connect(lambda *_: self.changed.emit())

    @property
    def answer(self) -> int | None:
        chosen = self.group.checkedId()
        return None if chosen < 0 else chosen

    def choose(self, index: int) -> None:
        self.buttons[index].setChecked(True)

    def show_mark(self, mark: quiz.Mark) -> None:
        for index, button in enumerate(self.buttons):
            # marked answers stay readable in their colours: frozen, not greyed out
            button.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            if index == self.question.correct:
                button.setStyleSheet(f"color:{RIGHT}; font-weight:bold")
            elif index == mark.chosen:
                button.setStyleSheet(f"color:{WRONG}")
        verdict = "Right." if mark.right else f"Wrong. The right answer: {self.question.options[self.question.correct]}."
        self.feedback.setStyleSheet(f"color:{RIGHT if mark.right else WRONG}")
        self.feedback.setText(f"{verdict} {self.question.explanation}")


class QuizPanel(QWidget):
    """Draws a question per task from the templates; ``submit`` marks them."""

    save_requested = Signal()

    def __init__(self, templates_factory, parent=None):
        super().__init__(parent)
        self.templates_factory = templates_factory
        self.result: quiz.QuizResult | None = None
        self.score = QLabel()
        self.score.setStyleSheet("font-size:14pt; font-weight:bold")
        self.submit_button = QPushButton("Submit")
        self.again_button = QPushButton("Try again")
        self.save_button = QPushButton("Save results…")
        top = QHBoxLayout()
        top.addWidget(self.score, 1)
        top.addWidget(self.submit_button)
        top.addWidget(self.again_button)
        top.addWidget(self.save_button)
        self.questions_widget = QWidget()
        self.questions_layout = QVBoxLayout(self.questions_widget)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.questions_widget)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(scroll)
        self.boxes: list[QuestionBox] = []
        self.submit_button.clicked.connect(self.submit)
        self.again_button.clicked.connect(lambda: self.new_quiz())
        self.save_button.clicked.connect(self.save_requested)

    def new_quiz(self, seed: int | None = None) -> None:
        for box in self.boxes:
            box.deleteLater()
        self.boxes = [QuestionBox(q) for q in quiz.draw(self.templates_factory(), seed)]
        for box in self.boxes:
            self.questions_layout.addWidget(box)
            box.changed.connect(self._answered)
        self.questions_layout.addStretch(1)
        self.result = None
        self.score.setText("Answer every question, then submit.")
        self._answered()
        self.save_button.setEnabled(False)

    def _answered(self) -> None:
        self.submit_button.setEnabled(self.result is None and all(b.answer is not None for b in self.boxes))

    def submit(self) -> None:
        self.result = quiz.mark([b.question for b in self.boxes], [b.answer for b in self.boxes])
        for box, mark in zip(self.boxes, self.result.marks):
            box.show_mark(mark)
        self.score.setText(f"Your score: {self.result.score} / {self.result.total}")
        self.submit_button.setEnabled(False)
        self.save_button.setEnabled(True)
