"""Atomic saves: write to a temporary file beside the target, then rename over it.

The file gets the mode a plain ``open(path, "w")`` would give it (a new file: 0666 less
the umask; an existing file keeps its mode). A symbolic link is written through to its
target. An output that is also one of the command's inputs, or an existing read-only
file, is refused. Errors name the path the user gave, never the temporary file, whose
name (``.NAME.PID-XXXXXX.tklscore-tmp``) marks it as this tool's: one left by a killed
write is removed by the next write to the same file.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
from pathlib import Path
from typing import Iterable, Iterator

from tklscore.core.errors import InputError

TEMPORARY_SUFFIX = ".tklscore-tmp"


def _temporary_name(target: Path) -> Path:
    return target.with_name(f".{target.name}.{os.getpid()}-{secrets.token_hex(3)}{TEMPORARY_SUFFIX}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. EPERM: somebody else's live process
        return True
    return True


def sweep_stale_temporaries(target: str | os.PathLike) -> list[Path]:
    """Remove temporary files a killed write to ``target`` left behind (their process has
    ended); returns what was removed."""
    target = Path(target)
    pattern = re.compile(rf"^\.{re.escape(target.name)}\.(\d+)-[0-9a-f]+{re.escape(TEMPORARY_SUFFIX)}$")
    removed = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(target.parent):
            match = pattern.match(entry.name)
            if match and int(match.group(1)) != os.getpid() and not _alive(int(match.group(1))):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
    return removed


def check_output(path: str | os.PathLike, inputs: Iterable[str | os.PathLike | None] = ()) -> Path:
    """The file to write for the output ``path`` (a symbolic link's target), or an
    InputError naming ``path`` when it cannot or must not be written."""
    given = str(path)
    if not given:
        raise InputError("the output file name is empty")
    if "://" in given:
        raise InputError("is a URI; this output is written to a local file",
                         file=given, hint="name a local file (only --engine spark writes per-record Parquet "
                                          "results to a URI such as hdfs:// or s3a://)")
    target = Path(os.path.realpath(path))
    if target.is_dir():
        raise InputError("is a folder, not a file", file=given)
    folder = target.parent
    if not folder.is_dir():
        raise InputError(f"the folder {folder} does not exist", file=given,
                         hint="create it first, or choose another output file")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"cannot write into the folder {folder} (permission denied)", file=given)
    for source in inputs:
        if source is None or str(source) == "":
            continue
        with contextlib.suppress(OSError):
            if os.path.exists(source) and target.exists() and os.path.samefile(source, target):
                raise InputError(f"is also an input ({source}); refusing to overwrite it",
                                 file=given, hint="write the output to another file")
    if target.exists():
        mode = target.stat().st_mode
        if not os.access(target, os.W_OK) or not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
            raise InputError("is read-only; refusing to replace it", file=given,
                             hint="make it writable, or choose another output file")
    return target


def output_folder(directory: str | os.PathLike) -> Path:
    """``directory`` created if need be (with its parents), or an InputError naming it."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise InputError("is a file, not a folder", file=str(directory))
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"the folder cannot be created: {error.strerror or error}", file=str(directory)) from None
    return directory


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, inputs: Iterable[str | os.PathLike | None] = ()) -> Iterator[Path]:
    """A temporary path beside ``path`` (already created, with the final mode) to write
    to; on success it is renamed over ``path``, on failure removed."""
    given = str(path)
    target = check_output(path, inputs)
    sweep_stale_temporaries(target)
    existing = target.stat() if target.exists() else None
    temporary = _temporary_name(target)
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies
        try:
            if existing is not None:
                os.fchmod(fd, stat.S_IMODE(existing.st_mode))
                with contextlib.suppress(OSError):  # only root may give a file away
                    os.fchown(fd, existing.st_uid, existing.st_gid)
        finally:
            os.close(fd)
    except OSError as error:
        raise InputError(f"cannot be written: {error.strerror or error}", file=given) from None
    try:
        yield temporary
        os.replace(temporary, target)
    except OSError as error:
        raise InputError(f"cannot be written: {error.strerror or error}", file=given) from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8",
                 newline: str | None = "", inputs: Iterable[str | os.PathLike | None] = ()):
    """An open file handle whose content replaces ``path`` atomically when the block ends."""
    binary = "b" in mode
    with atomic_path(path, inputs) as temporary:
        try:
            with open(temporary, mode, encoding=None if binary else encoding,
                      newline=None if binary else newline) as handle:
                yield handle
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as error:
            raise InputError(f"cannot be written: {error.strerror or error}", file=str(path)) from None
