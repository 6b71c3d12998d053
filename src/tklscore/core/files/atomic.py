"""Atomic saves: write to a temporary file beside the target, then rename over it.

Every output of the tool is written here — text, CSV, Parquet and PDF files by any writer
(Python, DuckDB, Qt) and the folders of part files Spark writes — so that one set of rules
holds for all of them:

- The file gets the mode a plain ``open(path, "w")`` would give it (a new file: 0666 less
  the umask; an existing file keeps its mode and, for root, its owner), whatever the
  writer does to the temporary file. A symbolic link is written through to its target.
- An output that is also one of the command's inputs, an existing read-only file, a
  folder where a file is expected, and a special file (a character or block device such
  as ``/dev/null``, a named pipe, a socket) are refused before any work: a special file
  is never replaced by a regular file, nor written to.
- A folder output (:func:`atomic_folder`) replaces only a folder this tool wrote (it holds
  :data:`FOLDER_MARKER`) or an empty one; the old output stays in place until the new one
  is complete, then the two are swapped in one step (Linux ``renameat2``), so a kill at any
  moment leaves the old or the new output, never neither.
- A full disk is said as ``disk full writing PATH`` and leaves the earlier output as it was.
- Errors name the path the user gave, never the temporary file, whose name
  (``.NAME.PID-XXXXXX.tklscore-tmp``) marks it as this tool's: one left by a killed write
  is removed by the next write to the same output.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import re
import secrets
import shutil
import stat
from pathlib import Path
from typing import Iterable, Iterator
from urllib.parse import unquote, urlparse

from tklscore.core.errors import InputError

TEMPORARY_SUFFIX = ".tklscore-tmp"
OLD_SUFFIX = ".tklscore-old"           # an output moved aside while the new one takes its place
FOLDER_MARKER = "_TKLSCORE_OUTPUT"      # in every folder output: "a previous output of ours" (readers skip "_" files)
_DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


def _temporary_name(target: Path, suffix: str = TEMPORARY_SUFFIX) -> Path:
    return target.with_name(f".{target.name}.{os.getpid()}-{secrets.token_hex(3)}{suffix}")


def is_disk_full(error: BaseException) -> bool:
    """Whether ``error`` (an OSError, or an engine's error whose text says so) is a full disk."""
    if isinstance(error, OSError) and error.errno in _DISK_FULL:
        return True
    return "no space left on device" in str(error).lower() or "disk quota exceeded" in str(error).lower()


def write_error(error: BaseException, given: str) -> InputError:
    """The error for a failed write of the output ``given``: ``disk full writing PATH`` for
    a full disk (the earlier output is kept), else what went wrong."""
    if is_disk_full(error):
        failure = InputError(f"disk full writing {given} (no space left on the device); the earlier file, "
                             f"if there was one, is kept unchanged", hint="free some space, or write to another disk")
        failure.file = given
        return failure
    reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error).strip().splitlines()[0]
    return InputError(f"cannot be written: {reason or error.__class__.__name__}", file=given)


def _special_kind(mode: int) -> str | None:
    """What a file of ``mode`` is when it is neither a regular file nor a folder."""
    for test, kind in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return None


def _refuse_special(path: str | os.PathLike, given: str) -> None:
    """An error when ``path`` (followed through links) is a device, a pipe or a socket."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    kind = _special_kind(mode)
    if kind is not None:
        raise InputError(f"is {kind}, not a regular file; refusing to write to it or replace it", file=given,
                         hint="name a regular file; without an output file the result is printed "
                              "to standard output")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. EPERM: somebody else's live process
        return True
    return True


def _remove(path: str | os.PathLike) -> None:
    """Remove a file or a whole folder (not following a link)."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def sweep_stale_temporaries(target: str | os.PathLike) -> list[Path]:
    """Remove temporary files and folders a killed write to ``target`` left behind (their
    process has ended); an old output moved aside by a write killed before the new one
    took its place is put back first. Returns what was removed."""
    target = Path(target)
    pattern = re.compile(rf"^\.{re.escape(target.name)}\.(\d+)-[0-9a-f]+"
                         rf"({re.escape(TEMPORARY_SUFFIX)}|{re.escape(OLD_SUFFIX)})$")
    removed = []
    with contextlib.suppress(OSError):
        stale = [(entry.path, match.group(2)) for entry in os.scandir(target.parent)
                 if (match := pattern.match(entry.name)) and int(match.group(1)) != os.getpid()
                 and not _alive(int(match.group(1)))]
        for path, suffix in sorted(stale, key=lambda item: item[1] != OLD_SUFFIX):
            with contextlib.suppress(OSError):
                if suffix == OLD_SUFFIX and not os.path.lexists(target):
                    os.rename(path, target)  # the new output never arrived: the old one is the output
                    continue
                _remove(path)
                removed.append(Path(path))
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
    _refuse_special(path, given)
    target = Path(os.path.realpath(path))
    if target.is_dir():
        marked = (target / FOLDER_MARKER).is_file()
        raise InputError("is a folder, not a file", file=given,
                         hint="a folder of part files written by --engine spark; name a file, or give "
                              "--engine spark" if marked else None)
    _check_folder_of(target, given, "file")
    _refuse_inputs(target, given, inputs)
    _refuse_read_only(target, given)
    return target


def _check_folder_of(target: Path, given: str, what: str) -> None:
    folder = target.parent
    if not folder.is_dir():
        raise InputError(f"the folder {folder} does not exist", file=given,
                         hint=f"create it first, or choose another output {what}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"cannot write into the folder {folder} (permission denied)", file=given)


def _refuse_inputs(target: Path, given: str, inputs: Iterable[str | os.PathLike | None]) -> None:
    """An error when the output ``target`` is one of ``inputs``, or (a folder) holds one."""
    for source in inputs:
        if source is None or str(source) == "" or "://" in str(source) and not str(source).startswith("file:"):
            continue
        source = _local_path(str(source))
        with contextlib.suppress(OSError):
            if not os.path.exists(source) or not target.exists():
                continue
            real = Path(os.path.realpath(source))
            if os.path.samefile(source, target) or (target.is_dir() and target in real.parents):
                raise InputError(f"is also an input ({source}); refusing to overwrite it",
                                 file=given, hint="write the output to another file")


def _refuse_read_only(target: Path, given: str) -> None:
    if target.exists() and not target.is_dir():
        mode = target.stat().st_mode
        if not os.access(target, os.W_OK) or not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
            raise InputError("is read-only; refusing to replace it", file=given,
                             hint="make it writable, or choose another output file")


def _local_path(given: str) -> str:
    """A ``file:`` URI as a local path; any other text as it is."""
    if given.startswith("file:"):
        return unquote(urlparse(given).path)
    return given


def is_remote(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a URI of a store other than the local file system (hdfs://, s3a://)."""
    scheme = urlparse(str(path)).scheme
    return "://" in str(path) and scheme not in ("", "file") and len(scheme) > 1


def check_output_folder(path: str | os.PathLike, inputs: Iterable[str | os.PathLike | None] = ()) -> Path | None:
    """The local folder to write for the folder output ``path`` (a dataset of part files,
    as Spark writes Parquet; a ``file:`` URI is local), or None for a URI of a remote store
    (``hdfs://``, ``s3a://``), which only its engine can write. An existing folder is
    replaced only when this tool wrote it (it holds :data:`FOLDER_MARKER`) or it is empty;
    an existing file is replaced as a file output would be."""
    given = str(path)
    if not given:
        raise InputError("the output folder name is empty")
    if is_remote(given):
        return None
    local = _local_path(given)
    _refuse_special(local, given)
    target = Path(os.path.realpath(local))
    _check_folder_of(target, given, "folder")
    _refuse_inputs(target, given, inputs)
    if target.is_dir():
        with contextlib.suppress(OSError):
            entries = os.listdir(target)
            if entries and FOLDER_MARKER not in entries:
                raise InputError(f"is a folder that tkl-Score Workbench did not write ({len(entries)} file(s) "
                                 f"in it); refusing to replace it", file=given,
                                 hint="name a new folder, or an earlier output of this tool")
    else:
        _refuse_read_only(target, given)
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


def _fsync(path: Path) -> None:
    """Flush ``path`` to the disk (a full disk shows here at the latest, before the rename)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, inputs: Iterable[str | os.PathLike | None] = ()) -> Iterator[Path]:
    """A temporary path beside ``path`` (already created, with the final mode) to write
    to; on success it is renamed over ``path``, on failure removed. The writer may replace
    the temporary file (DuckDB does): its mode and owner are set again before the rename."""
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
            created = os.fstat(fd)
        finally:
            os.close(fd)
    except OSError as error:
        raise write_error(error, given) from None
    try:
        yield temporary
        written = os.stat(temporary)
        if stat.S_IMODE(written.st_mode) != stat.S_IMODE(created.st_mode):
            os.chmod(temporary, stat.S_IMODE(created.st_mode))
        if (written.st_uid, written.st_gid) != (created.st_uid, created.st_gid):
            with contextlib.suppress(OSError):
                os.chown(temporary, created.st_uid, created.st_gid)
        _fsync(temporary)
        os.replace(temporary, target)
    except OSError as error:
        raise write_error(error, given) from None
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
            raise write_error(error, str(path)) from None


# --------------------------------------------------------------------------- folders

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(first: Path, second: Path) -> bool:
    """Swap two paths in one step (Linux ``renameat2(RENAME_EXCHANGE)``); False where the
    system or the file system cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(second))


def _mark(folder: Path) -> None:
    from tklscore import __version__

    with open(folder / FOLDER_MARKER, "w", encoding="utf-8") as handle:
        json.dump({"written_by": "tkl-Score Workbench", "version": __version__}, handle)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())


@contextlib.contextmanager
def atomic_folder(path: str | os.PathLike, inputs: Iterable[str | os.PathLike | None] = ()) -> Iterator[Path]:
    """A path beside the local folder output ``path`` (not created: the writer makes the
    folder) to write a dataset of part files to; on success it is marked as this tool's and
    takes the place of ``path`` in one step (the old output, a folder of ours or a file,
    stays in place until then and is removed after), on failure removed. See
    :func:`check_output_folder` for what may be replaced."""
    given = str(path)
    target = check_output_folder(path, inputs)
    if target is None:
        raise InputError("is a URI of a remote store; only the engine writes there", file=given)
    sweep_stale_temporaries(target)
    existing = target.stat() if target.exists() else None
    temporary = _temporary_name(target)
    try:
        yield temporary
        if not temporary.is_dir():
            raise InputError("nothing was written", file=given)
        _mark(temporary)
        if existing is not None and stat.S_ISDIR(existing.st_mode):
            os.chmod(temporary, stat.S_IMODE(existing.st_mode))
        if existing is None or not target.exists():
            os.rename(temporary, target)
        elif not _exchange(temporary, target):
            aside = _temporary_name(target, OLD_SUFFIX)  # swept back into place if killed before the next rename
            os.rename(target, aside)
            os.rename(temporary, target)
            _remove(aside)
        # after an exchange the temporary name holds the old output: removed below
    except OSError as error:
        raise write_error(error, given) from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            _remove(temporary)
