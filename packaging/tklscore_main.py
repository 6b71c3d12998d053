"""Entry point of the frozen desktop application (PyInstaller): the ``tklscore`` command;
with no arguments it opens the window. Started with ``APART_FLAG`` it is the process that
``tklscore.core.apart.run_apart`` started for work of its own (reading a vocabulary)."""

import sys

from tklscore.core.apart import APART_FLAG, serve

if __name__ == "__main__":
    if sys.argv[1:] == [APART_FLAG]:
        serve()
        sys.exit(0)
    from tklscore.cli import main

    sys.exit(main(sys.argv[1:] or ["gui"]))
