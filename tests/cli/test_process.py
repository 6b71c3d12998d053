"""The command line's process asks for 4 kB pages (tklscore.cli.process)."""

import sys
from pathlib import Path

import pytest

from tklscore.cli.process import tune_process


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_huge_pages_are_off_for_the_process_after_tuning():
    assert tune_process() is True
    status = Path("/proc/self/status").read_text()
    if "THP_enabled" in status:  # Linux ≥ 5.0 reports it
        assert "THP_enabled:\t0" in status
