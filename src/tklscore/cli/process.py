"""The process the command line and the application run in.

Transparent huge pages: numpy asks the kernel for 2 MB pages for every large array
(``madvise``), and where the kernel grants them (THP "always" or "madvise") the first touch
of a fresh array zeroes whole huge pages. The scoring core allocates many short-lived arrays
of a few MB, so the first scoring of a 1M-row source spent about 0.45 s of its 1.07 s in the
kernel (benchmarks/bench_scoring.py, THP "madvise"); with 4 kB pages the same work faults
more often but costs about 0.17 s, and the full scoring takes 0.80 s. Later scorings reuse
memory either way and take the same time. So the process asks the kernel not to use huge
pages for it (Linux ``prctl(PR_SET_THP_DISABLE)``, which numpy's request cannot override);
elsewhere, or when the call is refused, nothing changes.

Freed memory: glibc returns every freed array above its mmap threshold (128 kB, raised only
as such arrays are freed) to the kernel at once, so the next array of that size is faulted in
and zeroed again. The process keeps arrays up to MMAP_BELOW in its heap and up to
KEEP_FREED of freed heap (``mallopt``): the first scoring of a 1M-row source reuses its
temporaries' pages instead (system time 0.13–0.17 → 0.08 s, full scoring CPU about −10 %,
peak RSS unchanged: benchmarks/bench_scoring.py, load 11). Elsewhere nothing changes.
"""

from __future__ import annotations

import sys

PR_SET_THP_DISABLE = 41
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3   # glibc's mallopt parameters
MMAP_BELOW = 32 << 20     # glibc's largest mmap threshold on 64 bits
KEEP_FREED = 256 << 20


def tune_process() -> bool:
    """Turn transparent huge pages off for this process and keep freed memory for reuse
    (Linux, glibc); whether huge pages were turned off."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return False
    try:
        libc.mallopt(M_MMAP_THRESHOLD, MMAP_BELOW)
        libc.mallopt(M_TRIM_THRESHOLD, KEEP_FREED)
    except AttributeError:   # a C library without mallopt
        pass
    try:
        return libc.prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0
    except AttributeError:
        return False
