"""How a process takes memory from the system: in small pages.

Memory a process touches for the first time costs the kernel a page fault. numpy advises
transparent huge pages (2 MiB) for its arrays of 4 MiB or more, and Arrow's default
allocator (mimalloc) takes them too; on a kernel that grants them on advice (Linux's
``madvise`` setting, the common default) each such fault zeroes 2 MiB that the kernel must
first find free and contiguous — on a shared machine or a virtual machine mostly memory
nobody used lately, which the host or a compaction must first provide. Small (4 KiB)
pages come from memory freed a moment ago. Opening the 1M-row benchmark project in the
window (``benchmarks/bench_gui.py``, a fresh process, ~600 MB touched) took 0.67–0.92 s of
system time with huge pages and 0.33–0.36 s with small ones, for ~0.05–0.1 s more user
time (fewer pages in the processor's address cache).

:func:`use_small_pages` is a setting for a whole process (the application calls it at
start-up); the library never sets it by itself.
"""

from __future__ import annotations

import sys


def use_small_pages() -> bool:
    """numpy's arrays without the advice to use huge pages, and Arrow's buffers from
    jemalloc (which leaves the kernel's page size alone), else from the C library's
    allocator. Linux only (elsewhere nothing is advised); True when it changed anything.
    Buffers allocated before stay where they are and are freed where they came from."""
    if not sys.platform.startswith("linux"):
        return False
    import pyarrow as pa

    try:
        from numpy._core.multiarray import _set_madvise_hugepage   # numpy 2
    except ImportError:
        from numpy.core.multiarray import _set_madvise_hugepage    # numpy 1.x
    _set_madvise_hugepage(False)   # what NUMPY_MADVISE_HUGEPAGE=0 sets at import
    try:
        pool = pa.jemalloc_memory_pool()
    except NotImplementedError:   # a build of Arrow without jemalloc
        pool = pa.system_memory_pool()
    pa.set_memory_pool(pool)
    return True
