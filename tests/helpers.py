"""Helpers shared by the test modules."""

from tklscore.cli import main


def run_cli(capsys, argv) -> tuple[int, str, str]:
    """``main(argv)``'s exit status, stdout and stderr; main must return, never exit."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err

