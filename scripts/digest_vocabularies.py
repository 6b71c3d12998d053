"""Write the digests of the shipped vocabularies (``resources/``): each vocabulary's classes,
labels, links and prefixes as parsing its Turtle gives them, with the SHA-256 of the files,
so that the application reads the vocabulary without parsing RDF
(``tklscore.core.model.vocabulary.digest_document``). Run it after changing a shipped Turtle
file; ``--check`` only says whether every digest is current (exit status 1 when one is not;
tests/core/model/test_vocabulary_digest.py checks the same).

    .venv/bin/python scripts/digest_vocabularies.py [--check]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _text(document: dict) -> str:
    """The digest as JSON, a long list's items one a line (a change of the vocabulary reads as a small diff)."""
    def value(item) -> str:
        if isinstance(item, list) and len(item) > 3:
            return "[\n" + ",\n".join("  " + json.dumps(entry, ensure_ascii=False) for entry in item) + "\n ]"
        return json.dumps(item, ensure_ascii=False)

    return "{\n" + ",\n".join(f" {json.dumps(key)}: {value(item)}" for key, item in document.items()) + "\n}\n"


def main(argv=None) -> int:
    from tklscore.core.files.atomic import atomic_write
    from tklscore.core.model.vocabulary import SHIPPED, digest_document

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a digest is not current")
    args = parser.parse_args(argv)
    stale = []
    for key, shipped in SHIPPED.items():
        if shipped.digest is None:
            continue
        path = ROOT / "resources" / shipped.digest
        document = digest_document(key)
        current = path.is_file() and json.loads(path.read_text(encoding="utf-8")) == document
        if args.check:
            print(f"{shipped.digest}: {'current' if current else 'NOT CURRENT'}")
            stale += [] if current else [key]
            continue
        with atomic_write(path) as handle:
            handle.write(_text(document))
        print(f"{shipped.digest}: {len(document['classes'])} classes, {len(document['parents'])} links"
              f"{'' if current else ' (written anew)'}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
