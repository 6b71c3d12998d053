"""Render packaging/tklscore.svg to PNG icons (256 and 48 pixels) with Qt's SVG renderer.

    .venv/bin/python packaging/make_icon.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

HERE = Path(__file__).resolve().parent


def render(size: int, target: Path) -> None:
    renderer = QSvgRenderer(str(HERE / "tklscore.svg"))
    if not renderer.isValid():
        raise SystemExit("packaging/tklscore.svg is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    if not image.save(str(target)):
        raise SystemExit(f"cannot write {target}")


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841
    render(256, HERE / "tklscore.png")
    render(48, HERE / "tklscore-48.png")
    print(HERE / "tklscore.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
