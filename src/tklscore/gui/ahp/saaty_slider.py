"""A judgement control that speaks the Saaty scale in words: a slider with 17 positions
(A extremely more important 9 ... equal 1 ... B extremely more important 1/9) and a
"not judged" state, with the verbal reading shown, e.g. "Health is moderately more
important than Prescription (3)".

``previewed(value)`` is emitted on every move (for live feedback), ``committed(value)``
once per user change: when a drag ends, or 150 ms after the last keyboard/wheel step,
or at once for "clear". ``value`` is the rating of A over B (a float), or None for
"not judged"."""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from tklscore.core.model.ahp import snap_to_scale

IDLE_MS = 150

#: How much more important A is than B, by Saaty rating 1..9, as a verb phrase.
WORDS = {
    1: "equally important",
    2: "equally to moderately more important",
    3: "moderately more important",
    4: "moderately to strongly more important",
    5: "strongly more important",
    6: "strongly to very strongly more important",
    7: "very strongly more important",
    8: "very strongly to extremely more important",
    9: "extremely more important",
}


def position_of(value: float) -> int:
    """Slider position -8..8 of a rating (snapped to the scale): 9 → 8, 1 → 0, 1/9 → -8."""
    snapped = snap_to_scale(value)
    return round(snapped) - 1 if snapped >= 1 else -(round(1 / snapped) - 1)


def value_of(position: int) -> float:
    """The rating of slider position -8..8: 8 → 9, 0 → 1, -8 → 1/9."""
    return float(position + 1) if position >= 0 else 1.0 / (1 - position)


def format_rating(value: float) -> str:
    """``3``, ``1/3``, or ``2.52`` for a value off the scale."""
    if value >= 1:
        return f"{value:g}" if abs(value - round(value)) < 1e-9 else f"{value:.3g}"
    inverse = 1 / value
    return f"1/{round(inverse)}" if abs(inverse - round(inverse)) < 1e-9 else f"{value:.3g}"


def describe(a: str, b: str, value: float | None) -> str:
    """The verbal reading of a rating of A over B."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return f"{a} vs {b}: not judged"
    shown = format_rating(value)
    snapped = snap_to_scale(value)
    if abs(math.log(snapped)) < 1e-9:
        return f"{a} and {b} are equally important ({shown})"
    if snapped > 1:
        return f"{a} is {WORDS[round(snapped)]} than {b} ({shown})"
    return f"{b} is {WORDS[round(1 / snapped)]} than {a} ({shown})"


class SaatySlider(QWidget):
    previewed = Signal(object)   # float | None, on every move
    committed = Signal(object)   # float | None, once per user change

    def __init__(self, a: str, b: str, value: float | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.a, self.b = a, b
        self._value: float | None = None
        self._committed: float | None = None
        self._completed: float | None = None
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(-8, 8)
        self.slider.setPageStep(1)
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.setTickInterval(1)
        # A on the left: moving towards a name makes that criterion more important
        self.slider.setInvertedAppearance(True)
        self.slider.setInvertedControls(True)
        self.slider.setToolTip(f"left: {a} extremely more important (9) · middle: equal (1) · "
                               f"right: {b} extremely more important (1/9)")
        self.slider.setMinimumWidth(160)
        self.left = QLabel(a)
        self.right = QLabel(b)
        self.left.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.left.setMinimumWidth(110)
        self.right.setMinimumWidth(110)
        self.clear_button = QPushButton("Clear")
        self.clear_button.setToolTip("Leave this pair not judged (it is completed from the others)")
        self.reading = QLabel()
        self.reading.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        line = QHBoxLayout()
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.left)
        line.addWidget(self.slider, 1)
        line.addWidget(self.right)
        line.addWidget(self.clear_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.setSpacing(0)
        layout.addLayout(line)
        layout.addWidget(self.reading)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(IDLE_MS)
        self.timer.timeout.connect(self._idle)
        self.slider.valueChanged.connect(self._moved)
        self.slider.sliderReleased.connect(self._released)
        self.clear_button.clicked.connect(self.clear)
        self.set_value(value)

    # ------------------------------------------------------------------ state

    def value(self) -> float | None:
        return self._value

    def set_value(self, value: float | None, completed: float | None = None) -> None:
        """Show a value (not a user change: no signals); ``completed`` is the value the
        AHP completion gives a pair that is not judged."""
        self.timer.stop()
        if value is not None and math.isnan(value):
            value = None
        self._value = self._committed = value
        self._completed = completed
        self.slider.blockSignals(True)
        self.slider.setValue(position_of(value if value is not None else (completed or 1.0)))
        self.slider.blockSignals(False)
        self._show()

    def set_read_only(self, read_only: bool) -> None:
        self.slider.setEnabled(not read_only)
        self.clear_button.setEnabled(not read_only)

    def pending(self) -> bool:
        return self.timer.isActive()

    def _show(self) -> None:
        if self._value is None:
            text = describe(self.a, self.b, None)
            if self._completed is not None:
                text += f" — completed as {format_rating(self._completed)}"
            self.reading.setText(f"<i>{text}</i>")
            self.reading.setStyleSheet("color: gray")
        else:
            self.reading.setText(describe(self.a, self.b, self._value))
            self.reading.setStyleSheet("")
        self.clear_button.setEnabled(self.slider.isEnabled() and self._value is not None)

    # ------------------------------------------------------------------ user changes

    def _moved(self, position: int) -> None:
        self._value = value_of(position)
        self._show()
        self.previewed.emit(self._value)
        if not self.slider.isSliderDown():
            self.timer.start()   # keyboard, wheel, click on the groove: commit when idle

    def _released(self) -> None:
        if self._value is None:   # touched but not moved: the user accepts the shown value
            self._value = value_of(self.slider.value())
            self._show()
        self.commit()

    def _idle(self) -> None:
        if not self.slider.isSliderDown():
            self.commit()

    def commit(self) -> None:
        """Apply the current value now (once per change)."""
        self.timer.stop()
        if self._value == self._committed:
            return
        self._committed = self._value
        self.committed.emit(self._value)

    def clear(self) -> None:
        self.timer.stop()
        self._value = None
        self._show()
        self.previewed.emit(None)
        self.commit()
