import sys

import pyarrow as pa
import pytest

from tklscore.core.memory import use_jemalloc_for_arrow


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="set on Linux only")
def test_arrow_s_buffers_come_from_jemalloc_or_the_c_library_once_set():
    pool = pa.default_memory_pool()
    try:
        assert use_jemalloc_for_arrow() is True
        chosen = pa.default_memory_pool()
        assert chosen.backend_name in ("jemalloc", "system") and chosen.backend_name != "mimalloc"
        before = chosen.bytes_allocated()
        values = pa.array(["a", "b"] * 1000).dictionary_encode()   # Arrow allocates from the chosen pool
        assert chosen.bytes_allocated() > before
        assert values.to_pylist()[:3] == ["a", "b", "a"]
    finally:
        pa.set_memory_pool(pool)


def test_elsewhere_the_pool_is_left_alone(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    pool = pa.default_memory_pool()
    assert use_jemalloc_for_arrow() is False
    assert pa.default_memory_pool().backend_name == pool.backend_name
