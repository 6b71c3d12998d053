"""Where the checkout's folders are, for test modules at any depth of tests/."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
DATA = TESTS / "data"
SRC = ROOT / "src" / "tklscore"
RESOURCES = ROOT / "resources"
