"""The process's memory policy (core/memory.py): one entry point for the command line and
the application."""

import sys
from pathlib import Path

import pyarrow as pa
import pytest

from tklscore.core.memory import MemoryPolicy, set_memory_policy


def _numpy_advice(value: bool) -> bool:
    """Set numpy's huge-page advice; the value it had."""
    try:
        from numpy._core.multiarray import _set_madvise_hugepage
    except ImportError:
        from numpy.core.multiarray import _set_madvise_hugepage
    return _set_madvise_hugepage(value)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="set on Linux only")
def test_the_command_line_s_policy_turns_huge_pages_off_for_the_process_and_leaves_the_allocators():
    pool, advice = pa.default_memory_pool(), _numpy_advice(True)
    try:
        assert set_memory_policy() == MemoryPolicy(huge_pages_off=True, small_allocators=False)
        status = Path("/proc/self/status").read_text()
        if "THP_enabled" in status:  # Linux ≥ 5.0 reports it
            assert "THP_enabled:\t0" in status
        assert pa.default_memory_pool().backend_name == pool.backend_name
        assert _numpy_advice(True) is True           # left as it was
    finally:
        _numpy_advice(advice)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="set on Linux only")
def test_the_application_s_policy_also_takes_arrow_s_buffers_from_jemalloc_and_numpy_s_without_advice():
    pool, advice = pa.default_memory_pool(), _numpy_advice(True)
    try:
        assert set_memory_policy(application=True) == MemoryPolicy(huge_pages_off=True, small_allocators=True)
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
        assert set_memory_policy(application=True) == MemoryPolicy(False, False)
        assert pa.default_memory_pool().backend_name == pool.backend_name
        assert _numpy_advice(True) is True           # left as it was
    finally:
        pa.set_memory_pool(pool)
        _numpy_advice(advice)


def test_the_command_line_and_the_application_set_it_through_the_one_entry_point():
    """No other module of the package sets the process's memory (prctl, Arrow's pool, numpy's advice)."""
    import tklscore

    root = Path(tklscore.__file__).parent
    setters = ("prctl", "set_memory_pool", "_set_madvise_hugepage")
    found = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                   if any(s in p.read_text(encoding="utf-8") for s in setters))
    assert found == ["core/memory.py"]
    assert "set_memory_policy()" in (root / "cli" / "main.py").read_text(encoding="utf-8")
    assert "set_memory_policy(application=True)" in (root / "gui" / "app.py").read_text(encoding="utf-8")
