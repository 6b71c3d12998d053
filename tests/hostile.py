"""Hostile inputs shared by the bad-input tests (issue 19 §4–§6) and the benchmarks:
files an unlucky or malicious user hands the tool."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path

THESIS_QI = "Job,City,Gender"
THESIS_SA = "Disease,Medication,Age,Initial Diagnosis"


@contextlib.contextmanager
def fifo(path: Path, unblock_after: float = 30.0):
    """A named pipe at ``path``. Code that opens it for reading would block for ever; after
    ``unblock_after`` seconds a writer opens and closes it, so such code reads an empty
    file and the test fails on its message instead of hanging."""
    os.mkfifo(path)
    done = threading.Event()

    def writer() -> None:
        deadline = time.monotonic() + unblock_after
        while not done.wait(0.2):
            if time.monotonic() < deadline:
                continue
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))  # ENXIO while nobody reads
            except OSError:
                pass

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        yield path
    finally:
        done.set()
        thread.join(5)


def mixed_encoding_csv(path: Path, source_text: str) -> Path:
    """The thesis table in UTF-8 with 'Calgary' spelt 'Montréal', and one more record
    appended in Windows-1252 (as a program writing cp1252 would add it)."""
    text = source_text.replace("Calgary", "Montréal")
    if not text.endswith("\n"):
        text += "\n"
    path.write_bytes(text.encode("utf-8") + "99,Clerk,Montréal,Male,Flu,ARV,30,Flu\n".encode("cp1252"))
    return path


def subclass_chain_vocabulary(path: Path, depth: int) -> Path:
    """A Turtle vocabulary whose classes C0 ⊂ C1 ⊂ ... ⊂ C{depth-1} form one chain."""
    lines = ["@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
             "@prefix ex: <http://example.org/chain#> ."]
    lines += [f"ex:C{i} rdfs:subClassOf ex:C{i + 1} ." for i in range(depth - 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def nested_json(depth: int, leaf: str = "1") -> str:
    """``[[[...1...]]]``, ``depth`` lists deep."""
    return "[" * depth + leaf + "]" * depth


def close_window(window, qtbot) -> None:
    """Close a test's main window without its question about unsaved changes: the tasks end
    first (a task finishing later would mark the project changed again), then the project is
    marked clean and the window closed. (qtbot.addWidget would close it before the test's
    own clean-up.)"""
    window.workbench.runner.cancel_all()
    window.workbench.runner.wait()
    qtbot.wait(10)
    window.workbench.undo_stack.setClean()
    window.workbench._mark(False)
    window.close()
    window.deleteLater()
