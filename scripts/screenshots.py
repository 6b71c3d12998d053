"""Retake the screenshots in docs/screenshots/: the welcome page, every registered view on the
thesis example, and the patient view's pages (patient mode, the example patient).

    QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/screenshots.py [OUT_DIR]
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication, QMessageBox  # noqa: E402

SIZE = (1600, 1000)


def settle(app: QApplication, window) -> None:
    window.workbench.runner.wait()
    for _ in range(30):
        app.processEvents()


def save(app: QApplication, window, path: Path) -> None:
    settle(app, window)
    window.grab().save(str(path))
    print(path)


def main(out: Path) -> None:
    from tklscore.gui.main_window import MainWindow
    from tklscore.gui.navigation import WELCOME

    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    scratch = Path(tempfile.mkdtemp(prefix="tklscore-shots-"))
    os.environ["XDG_DATA_HOME"] = str(scratch)
    settings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)

    window = MainWindow(settings=settings)
    window.resize(*SIZE)
    window.show()
    window.show_view(WELCOME)
    save(app, window, out / "welcome.png")
    window.workbench.load_example("thesis")
    for key in window.sidebar_keys():
        if key == "patient":
            continue
        window.show_view(key)
        view = window.views[key]
        if key == "pseudonymization":  # not fed by the thesis example: its own (§6.2-shaped) one
            view.load_example()
        if key == "learn":  # the suppression task, applied: privacy, usefulness and misuse tabs
            view.workspace.task_list.setCurrentRow(9)
            view.workspace.fill_recipe()
            view.apply()
            for index, suffix in ((1, "-usefulness"), (2, "-scores"), (0, "")):
                view.workspace.statistics.tabs.setCurrentIndex(index)
                save(app, window, out / f"{key}{suffix}.png")
            continue
        save(app, window, out / f"{key}.png")
    window.workbench.undo_stack.setClean()
    window.workbench._mark(False)
    window.close()

    patient = MainWindow(settings=settings, patient_mode=True)
    patient.resize(*SIZE)
    patient.show()
    view = patient.views["patient"]
    steps = [("information", "patient-1-information", None), ("places", "patient-2-places", None),
             ("load", "patient-3-load", lambda: view.load_patient(view.example_path)),
             ("discover", "patient-4-discover", None), ("preferences", "patient-5-preferences", None),
             ("about", "patient-6-about", None)]
    for function, name, then in steps:
        view.open_function(function)
        if then is not None:
            then()
        settle(app, patient)
        if function == "preferences":
            fact = next(iter(view.suggested), None)
            if fact is not None:
                view.graph.activate(view.graph.edges[fact])
        save(app, patient, out / f"{name}.png")
    box = view.exit_dialog()
    box.show()
    settle(app, patient)
    composite = patient.grab()
    from PySide6.QtGui import QPainter

    painter = QPainter(composite)
    dialog = box.grab()
    painter.drawPixmap((composite.width() - dialog.width()) // 2, (composite.height() - dialog.height()) // 2, dialog)
    painter.end()
    composite.save(str(out / "patient-7-exit.png"))
    print(out / "patient-7-exit.png")
    box.done(QMessageBox.StandardButton.No)
    patient.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "docs" / "screenshots")
