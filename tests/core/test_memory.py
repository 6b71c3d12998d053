import sys

import numpy as np
import pyarrow as pa
import pytest

from tklscore.core.memory import use_small_pages


def _numpy_advice(value: bool) -> bool:
    try:
        from numpy._core.multiarray import _set_madvise_hugepage
    except ImportError:
        from numpy.core.multiarray import _set_madvise_hugepage
    return _set_madvise_hugepage(value)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="huge pages are advised on Linux only")
def test_small_pages_turn_off_numpy_s_huge_page_advice_and_take_arrow_s_buffers_from_jemalloc_or_the_c_library():
    pool, advice = pa.default_memory_pool(), _numpy_advice(True)
    try:
        assert use_small_pages() is True
        assert _numpy_advice(False) is False          # the advice was off
        assert pa.default_memory_pool().backend_name in ("jemalloc", "system")
        assert pa.default_memory_pool().backend_name != "mimalloc"
        values = pa.array(["a", "b"] * 1000).dictionary_encode()   # Arrow allocates from the new pool
        assert values.to_pylist()[:3] == ["a", "b", "a"]
        assert int(np.ones(1 << 20, dtype=np.int64).sum()) == 1 << 20
    finally:
        pa.set_memory_pool(pool)
        _numpy_advice(advice)


def test_elsewhere_nothing_is_advised(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    pool, advice = pa.default_memory_pool(), _numpy_advice(True)
    try:
        assert use_small_pages() is False
        assert pa.default_memory_pool().backend_name == pool.backend_name
        assert _numpy_advice(True) is True           # left as it was
    finally:
        pa.set_memory_pool(pool)
        _numpy_advice(advice)
