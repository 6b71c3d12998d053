"""Work run in a process of its own, for work that would hold the interpreter lock for long
in pure Python (rdflib parsing a vocabulary the user opened): a thread of the application
doing it would keep the window's thread waiting for the lock, whatever the switch interval.

:func:`run_apart` starts a fresh interpreter — this one's executable with this process's
module path, or, in a frozen build, the application itself with :data:`APART_FLAG` (its entry
point hands that to :func:`serve`) — and never re-runs the caller's main script (as
multiprocessing's ``spawn`` does). It sends the function's module-level name and arguments
as JSON and reads the answer as JSON text, never pickled: the caller only decodes plain data,
whatever the file read in the other process held. An :class:`InputError` there is raised
here as it was; cancelling stops the process.

:func:`read_files` is how a caller reads files a user chose this way: the files checked here,
their content read apart (or here, when small) as plain data, and rebuilt here from it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import traceback
from importlib import import_module
from pathlib import Path
from typing import Callable, Sequence

from tklscore.core.errors import Cancelled, InputError, existing_file

POLL_S = 0.05   # how often a caller waiting for the answer looks whether it was cancelled
APART_FLAG = "--tklscore-apart"   # a frozen build's entry point: serve() (packaging/tklscore_main.py)
_ERROR_FIELDS = ("message", "file", "row", "column", "hint")
APART_BYTES = 1 << 20
"""Files of this many bytes or more (together) are read apart by :func:`read_files` when the
caller leaves it to their size: rdflib's parsing holds the interpreter lock long enough to
stall the window. Smaller ones (a model file is a few kilobytes, ~35 ms of parsing) are read
in the calling thread, sparing the one to three seconds a new interpreter takes to start and
import rdflib."""


def read_files(read: Callable, paths: Sequence[str | Path], *args, rebuild: Callable, kind: str = "file",
               what: str = "reading the files", apart: bool | None = True, cancelled: Callable[[], bool] | None = None):
    """``rebuild(read(paths, *args))``: ``read`` (a module-level function of the files' paths
    as text and JSON-typed ``args``) gives the files' content as plain data, and ``rebuild``
    makes the caller's object of it. ``read`` runs in a process of its own (:func:`run_apart`;
    ``cancelled()`` stops it, ``what`` names the work) when ``apart``, or, when it is None,
    when the files hold :data:`APART_BYTES` or more; else here — through the same plain data,
    so that where the files were read changes nothing. A file that is missing (or not a
    regular file) is said here, as a ``kind``, before any process starts."""
    paths = [str(existing_file(path, kind)) for path in paths]
    if apart is None:
        apart = sum(os.path.getsize(path) for path in paths) >= APART_BYTES
    plain = run_apart(read, paths, *args, cancelled=cancelled, what=what) if apart else read(paths, *args)
    return rebuild(plain)


def run_apart(function: Callable, *args, cancelled: Callable[[], bool] | None = None, what: str = "the work"):
    """``function(*args)`` (a module-level function whose arguments and value are JSON's
    types) run in a new process; :class:`Cancelled` once ``cancelled()`` says so (the process
    is stopped); ``what`` names the work in the error of a process that ends otherwise than by answering."""
    request = json.dumps({"function": f"{function.__module__}:{function.__qualname__}", "args": list(args)})
    if getattr(sys, "frozen", False):
        command, environment = [sys.executable, APART_FLAG], None
    else:   # -P: the working folder is not searched for modules
        command = [sys.executable, "-P", "-c", "from tklscore.core.apart import serve; serve()"]
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=environment)
    text, errors, sent = None, b"", request.encode("utf-8")
    try:
        while text is None:
            try:
                text, errors = process.communicate(sent, timeout=POLL_S)
            except subprocess.TimeoutExpired:
                sent = None   # sent once; communicate() goes on where it was
                if cancelled is not None and cancelled():
                    raise Cancelled() from None
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    try:
        answer = json.loads(text.decode("utf-8"))
    except ValueError:
        said = errors.decode("utf-8", "replace").strip()[-2000:]
        raise RuntimeError(f"the process {what} ended without an answer (exit code {process.returncode})"
                           + (f":\n{said}" if said else "")) from None
    if "error" in answer:
        raise InputError(**{name: answer["error"].get(name) for name in _ERROR_FIELDS})
    if "bug" in answer:
        raise RuntimeError(f"{what} failed in its process:\n{answer['bug']}")
    return answer["value"]


def serve() -> None:
    """In the new process: read the request on standard input, answer on standard output
    (what the function prints goes to standard error)."""
    answer_to = sys.stdout
    sys.stdout = sys.stderr
    try:
        request = json.loads(sys.stdin.buffer.read().decode("utf-8"))
        module, _, name = request["function"].partition(":")
        if not module.startswith("tklscore."):   # only the package's own functions, whoever wrote the request
            raise ValueError(f"{module} is not a module of tklscore")
        answer = {"value": getattr(import_module(module), name)(*request["args"])}
    except InputError as error:
        answer = {"error": {name: getattr(error, name) for name in _ERROR_FIELDS}}
    except Exception:  # noqa: BLE001 - a bug: its traceback, said by the caller
        answer = {"bug": traceback.format_exc()}
    answer_to.write(json.dumps(answer))
    answer_to.flush()
