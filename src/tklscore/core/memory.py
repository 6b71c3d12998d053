"""How the application takes memory from the system: in small pages.

Memory a process touches for the first time costs the kernel a page fault; most of the first
open of a large project is such memory (the CSV read into Arrow text, then the codes and the
distinguishing factors in numpy). Arrow's default allocator (mimalloc) and numpy (for arrays
of 4 MiB or more) ask for transparent huge pages; on Linux, where the kernel grants them on
advice (``madvise``, the common setting), each such fault zeroes 2 MiB that the kernel must
first find free and contiguous — on a shared or virtual machine mostly memory nobody used
lately. Small (4 KiB) pages come from memory freed a moment ago. The first open of the 1M-row
benchmark project in a fresh window (``benchmarks/bench_gui.py --open-only``, a shared
two-core machine at load 7–8) took 0.93–1.18 s of system time with both; 0.37–0.74 s with
Arrow on jemalloc alone; 0.27–0.43 s with numpy's advice off too — the user time the same
(~1.0 s).

:func:`use_small_pages` is a setting for a whole process (the application calls it at
start-up); the library never sets it by itself.
"""

from __future__ import annotations

import sys


def use_small_pages() -> bool:
    """Arrow's buffers from jemalloc (else, in a build of Arrow without it, from the C
    library's allocator) and numpy's arrays without the advice to use huge pages, from now
    on. Linux only; True when it changed them. Memory allocated before stays where it is."""
    if not sys.platform.startswith("linux"):
        return False
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
