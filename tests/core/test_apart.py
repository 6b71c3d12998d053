"""Work run in a process of its own (core/apart.py): its value, its InputError as it was, a
bug said with its traceback, cancelling that stops the process; the answer is JSON."""

from __future__ import annotations

import time

import pytest
from paths import RESOURCES

from tklscore.core.apart import run_apart
from tklscore.core.errors import Cancelled, InputError
from tklscore.core.files.rdf import local_name
from tklscore.core.model.vocabulary import Vocabulary


def test_the_value_comes_back_and_a_bug_is_said_with_its_traceback():
    assert run_apart(local_name, "urn:x:Age") == "Age"
    with pytest.raises(RuntimeError, match=r"(?s)naming failed in its process:.*TypeError"):
        run_apart(local_name, "urn:x:Age", "one too many", what="naming")


def test_an_input_error_there_is_raised_here_as_it_was(tmp_path):
    bad = tmp_path / "bad.ttl"
    bad.write_text("@prefix x: <urn:x#> .\nx:a x:b x:c .\nx:d x:e\n", encoding="utf-8")
    with pytest.raises(InputError) as raised:
        Vocabulary.load_apart([bad])
    assert raised.value.file == str(bad) and raised.value.message.startswith("cannot be read as turtle at line")
    with pytest.raises(InputError, match="vocabulary file not found"):   # said before any process starts
        Vocabulary.load_apart([tmp_path / "missing.ttl"])


def test_cancelling_stops_the_process():
    dpv = [str(RESOURCES / "dpv" / name) for name in ("dpv-2.3-pd.ttl", "dpv-2.3-personal_data.ttl")]
    asked = []

    def cancelled() -> bool:
        asked.append(time.perf_counter())
        return len(asked) > 2   # the third look: the process is still starting or parsing

    with pytest.raises(Cancelled):
        Vocabulary.load_apart(dpv, cancelled=cancelled)
    assert len(asked) == 3 and time.perf_counter() - asked[-1] < 2


def test_only_the_packages_functions_are_run():
    with pytest.raises(RuntimeError, match="time is not a module of tklscore"):
        run_apart(time.monotonic)
