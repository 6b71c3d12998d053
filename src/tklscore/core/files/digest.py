"""SHA-256 of input files, so that a report names exactly what it was made from."""

from __future__ import annotations

import hashlib
import os

CHUNK = 1 << 20


def sha256_of(path: str | os.PathLike) -> str:
    """The file's SHA-256 as 64 hex digits (read in 1 MiB chunks)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def sha256_of_text(text: str) -> str:
    """SHA-256 of ``text`` encoded as UTF-8 (e.g. a model as it was used, in Turtle)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
