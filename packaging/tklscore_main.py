"""Entry point of the frozen desktop application (PyInstaller): the ``tklscore`` command;
with no arguments it opens the window."""

import sys

from tklscore.cli import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["gui"]))
