"""How the process takes memory from the system: in small (4 KiB) pages. One rule for the
command line and the application, set by :func:`set_memory_policy` once at start-up (the
command line's ``main``, which also starts the application; the application's window again
with ``application=True``); the library never sets it by itself.

Memory a process touches for the first time costs the kernel a page fault. Where the kernel
grants transparent huge pages (THP "always", or "madvise" — the common setting — on request),
the first touch of a fresh array zeroes a whole 2 MiB page that the kernel must first find free
and contiguous, on a shared or virtual machine mostly memory nobody used lately; small pages
come from memory freed a moment ago. Two parts:

- **The whole process** (Linux ``prctl(PR_SET_THP_DISABLE)``, which no later ``madvise`` can
  override): numpy asks for huge pages for every large array, and the scoring core allocates
  many short-lived arrays of a few MB, so the first scoring of a 1M-row source spent about 0.45 s
  of its 1.07 s in the kernel (benchmarks/bench_scoring.py, THP "madvise"); in 4 KiB pages the
  same work faults more often but costs about 0.17 s, and the full scoring takes 0.80 s. Later
  scorings reuse memory either way and take the same time.
- **The application's allocators** (``application=True``): Arrow's buffers from jemalloc (else,
  in a build of Arrow without it, from the C library's allocator) instead of mimalloc, and
  numpy's arrays without the advice to use huge pages. Most of the first open of a large project
  is fresh memory (the CSV read into Arrow text, then the codes and the distinguishing factors in
  numpy): the first open of the 1M-row benchmark project in a fresh window
  (``benchmarks/bench_gui.py --open-only``, a shared two-core machine at load 7–8) took
  0.93–1.18 s of system time with both asking for huge pages; 0.37–0.74 s with Arrow on jemalloc
  alone; 0.27–0.43 s with numpy's advice off too — the user time the same (~1.0 s).

Elsewhere than Linux, or when a call is refused, nothing changes.
"""

from __future__ import annotations

import sys
from typing import NamedTuple

PR_SET_THP_DISABLE = 41


class MemoryPolicy(NamedTuple):
    """What :func:`set_memory_policy` changed."""

    huge_pages_off: bool      # the process's transparent huge pages turned off
    small_allocators: bool    # Arrow on jemalloc (or the system's allocator), numpy without huge-page advice


def set_memory_policy(application: bool = False) -> MemoryPolicy:
    """The process's memory in small pages from now on (see the module's text): transparent
    huge pages off for the whole process; with ``application``, Arrow's and numpy's
    allocators too. Linux only. Memory allocated before stays where it is."""
    if not sys.platform.startswith("linux"):
        return MemoryPolicy(False, False)
    return MemoryPolicy(_huge_pages_off(), _small_allocators() if application else False)


def _huge_pages_off() -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _small_allocators() -> bool:
    import pyarrow as pa

    try:
        from numpy._core.multiarray import _set_madvise_hugepage   # numpy 2
    except ImportError:
        from numpy.core.multiarray import _set_madvise_hugepage    # numpy 1.x
    _set_madvise_hugepage(False)   # what NUMPY_MADVISE_HUGEPAGE=0 sets at numpy's import
    try:
        pool = pa.jemalloc_memory_pool()
    except NotImplementedError:   # a build of Arrow without jemalloc
        pool = pa.system_memory_pool()
    pa.set_memory_pool(pool)
    return True
