"""``tklscore gui``: start the application, optionally on the thesis example or a project,
optionally render one view to a PNG and exit (for tests and documentation)."""

from __future__ import annotations

import sys

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from tklscore.core.errors import InputError


def run(example: str | None = None, project: str | None = None, screenshot: str | None = None,
        view: str | None = None, size: tuple[int, int] = (1600, 1000), patient: bool = False) -> int:
    from tklscore.gui.main_window import MainWindow

    app = QApplication.instance()
    if app is None:
        QApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication(sys.argv[:1])
    app.setApplicationName("tkl-Score Workbench")
    app.setOrganizationName("tklscore")
    window = MainWindow(patient_mode=patient)
    if not (example or project or screenshot or patient):
        QTimer.singleShot(0, lambda: window.offer_recovery(at_start=True))
    if example:
        window.workbench.load_example(example)
    elif project:
        window.workbench.open_project(project)
    window.start(view, opened=bool(example or project))
    window.resize(*size)
    window.show()
    if screenshot:
        def shoot() -> None:
            if window.workbench.runner.current:
                QTimer.singleShot(100, shoot)
                return
            app.processEvents()
            window.grab().save(screenshot)
            window.workbench.undo_stack.setClean()
            window.workbench._mark(False)
            window.close()
            app.quit()

        QTimer.singleShot(300, shoot)
    return app.exec()


def main(args) -> int:
    try:
        return run(args.example, args.project, args.screenshot, args.view, patient=args.patient)
    except InputError as error:
        print(f"tklscore: error: {error}", file=sys.stderr)
        return 2
