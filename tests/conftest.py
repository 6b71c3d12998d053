from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    assert DATA.is_dir(), f"test data not found at {DATA}"
    return DATA
