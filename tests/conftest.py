from pathlib import Path

import pytest

from paths import DATA, TESTS

# The longest modules first, longest of all at the head (as --durations measured them). With
# ``--dist loadfile --no-loadscope-reorder`` (scripts/test.sh) xdist hands modules to its workers
# in collection order, so the Spark module (one session, a third of the suite's time) starts at
# once on one worker while the other takes the rest; by default xdist orders modules by their
# number of tests and started it late, leaving it as the run's tail. (Split in two, one session
# per worker, it took longer: two JVMs warming up on two shared cores.)
LONGEST_FIRST = ("engines/test_engine_spark.py", "test_offline.py",
                 "test_properties.py", "engines/test_engine_filter.py", "engines/test_engine_measures.py",
                 "engines/test_engine_design.py")


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}

    def place(item) -> int:
        try:
            return rank.get(item.path.relative_to(TESTS).as_posix(), len(rank))
        except ValueError:  # a test outside tests/ (a run of pytester's)
            return len(rank)

    items.sort(key=place)  # stable: the others keep their order


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
