"""Files shipped in ``resources/`` (the DSO vocabulary, the thesis taxonomy, the PIA and
patient documents, ...).

The top-level ``resources/`` folder is installed as the package ``tklscore.resources``
(pyproject maps it, every subfolder included), so a wheel, a zipapp and a frozen build
find it through :mod:`importlib.resources`; a source checkout uses the folder itself.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from functools import lru_cache
from importlib import resources
from pathlib import Path

from tklscore.core.errors import InputError

_CHECKOUT = Path(__file__).resolve().parents[4] / "resources"


@lru_cache(maxsize=1)
def resources_dir() -> Path:
    """The folder holding the resources, on disk (a zipped installation's are extracted once)."""
    try:
        import tklscore.resources as package
    except ImportError:
        package = None
    for folder in getattr(package, "__path__", []):
        if Path(folder).is_dir():
            return Path(folder)
    # inside a zip (a zipapp): tklscore.resources is a namespace package there, which
    # importlib.resources cannot open; its parent, a regular package, can
    root = resources.files("tklscore") / "resources"
    if not isinstance(root, Path) and root.is_dir():  # copy the tree out once for this process
        target = Path(tempfile.mkdtemp(prefix="tklscore-resources-"))
        atexit.register(shutil.rmtree, target, ignore_errors=True)
        _copy_tree(root, target)
        return target
    if _CHECKOUT.is_dir():
        return _CHECKOUT
    raise InputError("the resources folder is missing from this installation of tklscore")


def _copy_tree(source, target: Path) -> None:
    for item in source.iterdir():
        if item.is_dir():
            (target / item.name).mkdir()
            _copy_tree(item, target / item.name)
        else:
            (target / item.name).write_bytes(item.read_bytes())


def resource_path(name: str) -> Path:
    """``resources/<name>`` as a file on disk."""
    path = resources_dir() / name
    if not path.is_file():
        raise InputError(f"resource '{name}' is missing from this installation of tklscore")
    return path
