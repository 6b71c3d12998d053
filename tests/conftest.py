from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    assert DATA.is_dir(), f"test data not found at {DATA}"
    return DATA


@pytest.fixture(autouse=True, scope="session")
def _aggregate_cache(tmp_path_factory):
    """The engines' aggregate cache (core/engines/finest.py) in the session's temporary
    folder, never the user's ~/.cache."""
    import os

    folder = tmp_path_factory.mktemp("aggregate-cache")
    before = os.environ.get("TKLSCORE_CACHE_DIR")
    os.environ["TKLSCORE_CACHE_DIR"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("TKLSCORE_CACHE_DIR", None)
    else:
        os.environ["TKLSCORE_CACHE_DIR"] = before
