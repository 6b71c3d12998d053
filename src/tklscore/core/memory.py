"""Which allocator gives Arrow its memory in the application: jemalloc.

Memory a process touches for the first time costs the kernel a page fault; most of the first
open of a large project is such memory (the CSV read into Arrow text, then the codes and the
distinguishing factors in numpy). Arrow's default allocator, mimalloc, takes transparent huge
pages and hands memory back in pieces; with it, opening the 1M-row benchmark source in a
fresh process (load, codes, factors, scores: ``benchmarks/bench_gui.py``'s open without the
window) took 0.76–0.86 s of system time, and with jemalloc 0.34–0.35 s, the user time the
same (0.80–0.85 s against 0.83–0.91 s) — on Linux, where the kernel grants huge pages on
advice (``madvise``, the common setting), measured on a shared two-core machine. numpy's own
huge-page advice is kept: turning it off too saved no system time and cost ~0.1 s of user
time (more misses of the processor's address cache in the sorts).

:func:`use_jemalloc_for_arrow` is a setting for a whole process (the application calls it
at start-up); the library never sets it by itself.
"""

from __future__ import annotations

import sys


def use_jemalloc_for_arrow() -> bool:
    """Arrow's buffers from jemalloc from now on (else, in a build of Arrow without it, from
    the C library's allocator). Linux only; True when it changed the pool. Buffers allocated
    before stay where they are and are freed where they came from."""
    if not sys.platform.startswith("linux"):
        return False
    import pyarrow as pa

    try:
        pool = pa.jemalloc_memory_pool()
    except NotImplementedError:   # a build of Arrow without jemalloc
        pool = pa.system_memory_pool()
    pa.set_memory_pool(pool)
    return True
