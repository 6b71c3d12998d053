import sys

import pyarrow as pa
import pytest

from tklscore.core.memory import use_small_pages


def _numpy_advice(value: bool) -> bool:
    """Set numpy's huge-page advice; the value it had."""
    try:
        from numpy._core.multiarray import _set_madvise_hugepage
    except ImportError:
        from numpy.core.multiarray import _set_madvise_hugepage
    return _set_madvise_hugepage(value)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="set on Linux only")
def test_small_pages_take_arrow_s_buffers_from_jemalloc_and_numpy_s_arrays_without_huge_page_advice():
    pool, advice = pa.default_memory_pool(), _numpy_advice(True)
    try:
        assert use_small_pages() is True
        assert _numpy_advice(False) is False          # the advice was off
        chosen = pa.default_memory_pool()
        assert chosen.backend_name in ("jemalloc", "system") and chosen.backend_name != "mimalloc"
        before = chosen.bytes_allocated()
        values = pa.array(["a", "b"] * 1000).dictionary_encode()   # Arrow allocates from the chosen pool
        assert chosen.bytes_allocated() > before
        assert values.to_pylist()[:3] == ["a", "b", "a"]
    finally:
        pa.set_memory_pool(pool)
        _numpy_advice(advice)


def test_elsewhere_nothing_is_changed(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    pool, advice = pa.default_memory_pool(), _numpy_advice(True)
    try:
        assert use_small_pages() is False
        assert pa.default_memory_pool().backend_name == pool.backend_name
        assert _numpy_advice(True) is True           # left as it was
    finally:
        pa.set_memory_pool(pool)
        _numpy_advice(advice)
