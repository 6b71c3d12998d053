"""A number box that writes its value as a person would: ``0.01``, not ``0.010000``."""
from __future__ import annotations

from PySide6.QtWidgets import QDoubleSpinBox


class NumberSpinBox(QDoubleSpinBox):
    """A :class:`QDoubleSpinBox` keeping its decimals as the precision a user may type, but
    showing no trailing zeros."""

    def textFromValue(self, value: float) -> str:  # noqa: N802 (Qt's name)
        text = f"{value:.{self.decimals()}f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return "0" if text in ("-0", "") else text
