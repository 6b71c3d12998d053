"""Reading RDF files (Turtle, RDF/XML, N-Triples, N3, TriG, N-Quads, JSON-LD) from disk only.

The format comes from the file name, else from the content; a parser error becomes an
:class:`InputError` naming the file and, where the parser says, the line. Nothing is ever
fetched over the network: a JSON-LD document that refers to a remote context is refused.
Every RDF file is read through :func:`read_rdf_bytes`: bounded in size, and an RDF/XML
file with a DTD (entity declarations: "billion laughs", external entities) is refused
before any parser sees it.
"""

from __future__ import annotations

import os
import re
import warnings
from decimal import Decimal
from pathlib import Path

import rdflib

from tklscore.core.errors import InputError, existing_file

MAX_RDF_BYTES = 256 * 1024 * 1024
_XML_FORMATS = {"xml", "pretty-xml", "trix"}
_DTD = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)

FORMATS = {
    ".ttl": "turtle", ".turtle": "turtle",
    ".rdf": "xml", ".owl": "xml", ".xml": "xml", ".rdfs": "xml",
    ".jsonld": "json-ld", ".json": "json-ld", ".json-ld": "json-ld",
    ".nt": "nt", ".ntriples": "nt",
    ".n3": "n3",
    ".trig": "trig",
    ".nq": "nquads", ".nquads": "nquads",
}


def decimal_literal(value: float) -> rdflib.Literal:
    """An ``xsd:decimal`` whose text reads back as exactly ``value`` (the shortest repr of
    the float; rdflib would shorten an ``xsd:double`` to 7 digits)."""
    return rdflib.Literal(format(Decimal(repr(float(value))), "f"), datatype=rdflib.XSD.decimal)


def local_name(iri: str) -> str:
    """The readable end of an IRI: after its last ``#``, else its last ``/``, else its last
    ``:`` (``urn:x:Age`` → ``Age``), trailing separators ignored (``…/Health/`` → ``Health``);
    the IRI itself when nothing is left."""
    text = str(iri)
    stripped = text.rstrip("#/:")
    for separator in ("#", "/", ":"):
        if separator in stripped:
            tail = stripped.rsplit(separator, 1)[1]
            if tail:
                return tail
    return stripped or text


def _format_of(path: Path, data: bytes) -> tuple[str, bool]:
    """The rdflib format name and whether it was guessed from the content."""
    suffix = path.suffix.lower()
    if suffix in FORMATS:
        return FORMATS[suffix], False
    guessed = rdflib.util.guess_format(str(path))
    if guessed:
        return guessed, False
    start = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:200]
    if start.startswith(b"<") and not start.startswith(b"<http"):
        return "xml", True
    if start.startswith((b"{", b"[")):
        return "json-ld", True
    return "turtle", True


def _describe_bad_syntax(error: Exception) -> tuple[int | None, str] | None:
    """Line (1-based) and a short text for rdflib's Turtle/N3 ``BadSyntax``."""
    why = getattr(error, "_why", None)
    lines = getattr(error, "lines", None)
    if why is None or not isinstance(lines, int):
        return None
    text = getattr(error, "_str", b"")
    position = getattr(error, "_i", None)
    near = ""
    if isinstance(text, bytes) and isinstance(position, int):
        start = text.rfind(b"\n", 0, position) + 1
        end = text.find(b"\n", position)
        end = len(text) if end < 0 else end
        near = text[max(start, position - 40):min(end, position + 40)].decode("utf-8", "replace")
    detail = f"bad syntax ({why})" + (f" near '{near.strip()}'" if near.strip() else "")
    return lines + 1, detail


def _error_line(error: Exception) -> int | None:
    """The line a parser error points at, if the parser says."""
    for attribute in ("lineno", "lines", "line"):
        value = getattr(error, attribute, None)
        if isinstance(value, int) and value > 0:
            return value
    getter = getattr(error, "getLineNumber", None)  # xml.sax.SAXParseException
    value = getter() if callable(getter) else None
    if isinstance(value, int) and value > 0:
        return value
    match = re.search(r"\bline:?\s*(\d+)", str(error), re.IGNORECASE)
    return int(match.group(1)) if match else None


def _remote_contexts(node, found: list[str]) -> None:
    """Collect the remote ``@context``/``@import`` references of a JSON-LD document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("@context", "@import"):
                for item in value if isinstance(value, list) else [value]:
                    if isinstance(item, str):
                        found.append(item)
                    else:
                        _remote_contexts(item, found)
            else:
                _remote_contexts(value, found)
    elif isinstance(node, list):
        for item in node:
            _remote_contexts(item, found)


def read_rdf_bytes(path: str | os.PathLike, fmt: str | None = None, what: str = "RDF file") -> bytes:
    """The bytes of a local RDF file in format ``fmt`` (an rdflib name; ``None``: not known
    yet), refused when larger than :data:`MAX_RDF_BYTES` or, for RDF/XML, when it declares
    a DTD or entities."""
    path = existing_file(path, what)
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_RDF_BYTES + 1)
    except OSError as error:
        raise InputError(f"cannot be read: {error.strerror or error}", file=str(path)) from None
    if len(data) > MAX_RDF_BYTES:
        limit = f"{MAX_RDF_BYTES / 2**20:g} MiB" if MAX_RDF_BYTES >= 2**20 else f"{MAX_RDF_BYTES:,} bytes"
        raise InputError(f"is larger than {limit}, the most an RDF file may be",
                         file=str(path), hint="split it, or keep only the part of the vocabulary you use")
    if fmt is not None:
        refuse_dtd(path, data, fmt)
    return data


def refuse_dtd(path: str | os.PathLike, data: bytes, fmt: str) -> None:
    """An InputError when RDF/XML ``data`` declares a DTD or entities: rdflib's XML parser
    would expand nested entities ("billion laughs") or fetch external ones."""
    if fmt not in _XML_FORMATS:
        return
    probe = data.replace(b"\x00", b"")  # UTF-16/32 text reads as ASCII without its zero bytes
    match = _DTD.search(probe)
    if match:
        line = probe.count(b"\n", 0, match.start()) + 1
        raise InputError(f"line {line} declares a DTD or entities (<!{match.group(1).decode().upper()}); "
                         f"RDF/XML with a document type declaration is refused before parsing",
                         file=str(path), hint="remove the <!DOCTYPE ...> block and write the IRIs out in full")


def parse_rdf_file(path: str | os.PathLike, graph: rdflib.Graph | None = None,
                   what: str = "RDF file") -> rdflib.Graph:
    """Parse one local file into ``graph`` (a new one by default); bad syntax → InputError
    naming the file and line. A JSON-LD document with a remote context is refused."""
    path = existing_file(path, what)
    graph = rdflib.Graph() if graph is None else graph
    data = read_rdf_bytes(path, None, what)
    fmt, guessed = _format_of(path, data)
    refuse_dtd(path, data, fmt)
    if fmt == "json-ld":
        from tklscore.core.files.json_file import parse_json

        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise InputError(f"not UTF-8 text: {error}", file=str(path)) from None
        document = parse_json(text, str(path), "JSON-LD document")
        remote: list[str] = []
        _remote_contexts(document, remote)
        if remote:
            raise InputError(
                f"the JSON-LD document refers to a remote @context ({remote[0]}), which "
                f"this offline tool does not fetch", file=str(path),
                hint="inline the context in the file, or use the Turtle or RDF/XML version")
    try:
        with warnings.catch_warnings():  # rdflib's own deprecations (JSON-LD parser)
            warnings.simplefilter("ignore", DeprecationWarning)
            graph.parse(data=data, format=fmt, publicID=path.resolve().as_uri())
    except Exception as error:  # noqa: BLE001 - every parser has its own exception types
        described = _describe_bad_syntax(error)
        if described:
            line, detail = described
        else:
            line = _error_line(error)
            detail = " ".join(str(error).split())
        where = f" at line {line}" if line else ""
        if len(detail) > 300:
            detail = detail[:300] + "..."
        hint = ("format guessed from the content; name the file .ttl, .rdf or .jsonld"
                if guessed else None)
        raise InputError(f"cannot be read as {fmt}{where}: {detail or error.__class__.__name__}",
                         file=str(path), hint=hint) from None
    return graph


def save_turtle(graph: rdflib.Graph, path: str | os.PathLike, inputs=()) -> Path:
    """Write ``graph`` as Turtle, atomically (refused when ``path`` is one of ``inputs``); the path written."""
    from tklscore.core.files.atomic import atomic_write

    path = Path(path)
    text = graph.serialize(format="turtle")
    with atomic_write(path, inputs=inputs) as handle:
        handle.write(text)
    return path
