"""Retake the screenshots in docs/screenshots/: the welcome page, every registered view on the
thesis example, and the patient view's pages (patient mode, the example patient).

    python scripts/screenshots.py [OUT_DIR]

Any Python 3.11+ will do: without the application's packages it sets up the checkout's .venv
(scripts/setup.sh) and runs itself there. The window is drawn offscreen.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run_in_venv() -> None:
    """Re-run this script with the checkout's .venv when this Python lacks the application."""
    try:
        import PySide6  # noqa: F401
        import tklscore  # noqa: F401
        return
    except ImportError:
        pass
    python = ROOT / ".venv" / "bin" / "python"
    if os.environ.get("TKLSCORE_SCREENSHOTS_REEXEC"):
        sys.exit(f"{python} cannot import the application; run: bash scripts/setup.sh")
    if not python.exists():
        subprocess.run(["bash", str(ROOT / "scripts" / "setup.sh")], check=True)
    os.environ["TKLSCORE_SCREENSHOTS_REEXEC"] = "1"
    os.execv(str(python), [str(python), str(Path(__file__).resolve()), *sys.argv[1:]])


if __name__ == "__main__":
    _run_in_venv()

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication, QMessageBox  # noqa: E402

SIZE = (1600, 1000)


def settle(app: QApplication, window, quiet_for: float = 0.8, at_most: float = 60.0) -> None:
    """Let the window finish what it started: a view may start its work on a timer (the Design
    view evaluates shortly after it is shown), so wait until the task runner has been idle, with
    events processed, for ``quiet_for`` seconds."""
    start = idle_since = time.monotonic()
    while time.monotonic() - start < at_most:
        app.processEvents()
        if window.workbench.runner.current:
            window.workbench.runner.wait()
            idle_since = time.monotonic()
        elif time.monotonic() - idle_since >= quiet_for:
            break
        time.sleep(0.02)
    for _ in range(10):
        app.processEvents()


def save(app: QApplication, window, path: Path) -> None:
    settle(app, window)
    window.grab().save(str(path))
    print(path)


def session(out: Path):
    """The application, a scratch folder (recovery copies) and settings of its own."""
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    scratch = Path(tempfile.mkdtemp(prefix="tklscore-shots-"))
    os.environ["XDG_DATA_HOME"] = str(scratch)
    return app, scratch, QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)


def main(out: Path) -> None:
    from tklscore.gui.main_window import MainWindow
    from tklscore.gui.navigation import WELCOME

    app, scratch, settings = session(out)

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
