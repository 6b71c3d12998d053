from pathlib import Path

import pytest

from paths import DATA


@pytest.fixture(scope="session")
def data_dir() -> Path:
    assert DATA.is_dir(), f"test data not found at {DATA}"
    return DATA
