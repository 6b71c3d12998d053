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
"""

from __future__ import annotations

import sys

PR_SET_THP_DISABLE = 41


def tune_process() -> bool:
    """Turn transparent huge pages off for this process (Linux); whether it was done."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False
