from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
DATA = SHARED / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    assert DATA.is_dir(), f"shared data not found at {DATA}"
    return DATA
