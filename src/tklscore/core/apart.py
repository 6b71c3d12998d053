"""Work run in a process of its own, for work that would hold the interpreter lock for long
in pure Python (rdflib parsing a vocabulary the user opened): a thread of the application
doing it would keep the window's thread waiting for the lock, whatever the switch interval.

:func:`run_apart` starts a fresh interpreter — this one's executable with this process's
module path, or, in a frozen build, the application itself with :data:`APART_FLAG` (its entry
point hands that to :func:`serve`) — and never re-runs the caller's main script (as
multiprocessing's ``spawn`` does). It sends the function's module-level name and arguments
as JSON and reads the answer as JSON text, never pickled: the caller only decodes plain data,
whatever the file read in the other process held. An :class:`InputError` there is raised
here as it was; cancelling stops the process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import traceback
from importlib import import_module
from typing import Callable

from tklscore.core.errors import Cancelled, InputError

POLL_S = 0.05   # how often a caller waiting for the answer looks whether it was cancelled
APART_FLAG = "--tklscore-apart"   # a frozen build's entry point: serve() (packaging/tklscore_main.py)
_ERROR_FIELDS = ("message", "file", "row", "column", "hint")


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
