"""Work run in a process of its own (core/apart.py): its value, its InputError as it was, a
bug said with its traceback, cancelling that stops the process; the answer is JSON."""

from __future__ import annotations

import time

import pytest
from paths import RESOURCES

from tklscore.core import apart
from tklscore.core.apart import read_files, run_apart
from tklscore.core.errors import Cancelled, InputError
from tklscore.core.files.rdf import local_name
from tklscore.core.model.vocabulary import Vocabulary


def test_the_value_comes_back_and_a_bug_is_said_with_its_traceback():
    assert run_apart(local_name, "urn:x:Age") == "Age"
    with pytest.raises(RuntimeError, match=r"(?s)naming failed in its process:.*TypeError"):
        run_apart(local_name, "urn:x:Age", "one too many", what="naming")


def test_files_read_apart_or_here_come_back_through_the_same_plain_data(tmp_path, monkeypatch):
    from tklscore.core.model.vocabulary import _plain_of

    turtle = ("@prefix x: <urn:x#> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
              "x:Flu a rdfs:Class ; rdfs:subClassOf x:Disease .\nx:Disease a rdfs:Class .\n")
    small, large = tmp_path / "small.ttl", tmp_path / "large.ttl"
    small.write_text(turtle, encoding="utf-8")
    large.write_text(turtle + "#" * 200 + "\n", encoding="utf-8")
    went = []
    real_run_apart = apart.run_apart
    monkeypatch.setattr(apart, "run_apart", lambda *args, **kwargs: went.append(args[1]) or real_run_apart(*args, **kwargs))
    monkeypatch.setattr(apart, "APART_BYTES", len(turtle) + 100)

    def read(path, where):
        return read_files(_plain_of, [path], ["subClassOf"], rebuild=lambda plain: plain, apart=where)

    here, by_size = read(small, None), read(large, None)
    assert went == [[str(large)]]                                # only the large one went apart
    assert read(small, True) == here and went == [[str(large)], [str(small)]]
    assert sorted(here["classes"]) == ["urn:x#Disease", "urn:x#Flu"] and here["parents"] == ["urn:x#Disease"]
    assert {**by_size, "sources": []} == {**here, "sources": []}
    with pytest.raises(InputError, match=": model file not found$") as raised:   # said here: no process started
        read_files(_plain_of, [tmp_path / "gone.ttl"], ["subClassOf"], rebuild=dict, kind="model file")
    assert raised.value.file == str(tmp_path / "gone.ttl") and len(went) == 2
    with pytest.raises(InputError, match="is a folder, not a model file"):
        read_files(_plain_of, [tmp_path], ["subClassOf"], rebuild=dict, kind="model file", apart=False)


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
