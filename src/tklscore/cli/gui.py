"""``tklscore gui ...``: start the desktop application (Qt is imported only when it runs)."""

from __future__ import annotations

import argparse

from tklscore.cli.arguments import output_path
from tklscore.gui.navigation import view_keys  # the registry of views (Qt-free)


def register(commands: argparse._SubParsersAction) -> None:
    gui = commands.add_parser("gui", help="start the desktop application")
    gui.add_argument("--example", choices=["thesis"], help="open the thesis example (Table 3.1, Scenario 1, its model)")
    gui.add_argument("--project", metavar="FILE", help="open a project file")
    gui.add_argument("--screenshot", metavar="OUT.png", type=output_path, help="render the view once everything has loaded, save, exit")
    gui.add_argument("--view", choices=view_keys(), default=None,
                     help="the view to show first (default: the first view; the welcome page on the first run)")
    gui.add_argument("--patient", action="store_true",
                     help="only the patient view (PIA's Patient Data Visualizer), without the expert views")
    gui.set_defaults(handler=run)


def run(args) -> int:
    from tklscore.gui.qt_import import import_qt

    import_qt()
    from tklscore.gui.app import main as gui_main

    return gui_main(args)
