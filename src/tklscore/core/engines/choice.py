"""Which engine scores a source: the one rule the application follows. A source whose
estimated size in memory exceeds a share of the memory available now (default 50 %) is
scored out of core by DuckDB; a smaller one is loaded (the in-memory engine, every view).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MEMORY_SHARE = 0.5
ENGINE_MEMORY = (512 * 1024 ** 2, 1536 * 1024 ** 2)   # the engine's memory limit: half the available, within these
# bytes in memory per byte on disk once loaded as text columns (measured on bench_cli's
# tables: Parquet is compressed and typed, CSV is already text)
EXPANSION = {"parquet": 8.0, "csv": 3.0}


@dataclass(frozen=True)
class EngineChoice:
    engine: str          # "memory" or "duckdb"
    estimated: int       # bytes the loaded source would take
    available: int       # bytes of memory available when asked
    share: float

    @property
    def out_of_core(self) -> bool:
        return self.engine != "memory"

    def message(self, name: str) -> str:
        """What the application says about the choice."""
        if not self.out_of_core:
            return f"{name} is scored in memory"
        return (f"{name} would take {self.reason()}: it is scored out of core by DuckDB (its first rows are "
                f"shown; the releases are scored by the engine)")

    def memory_limit(self) -> str:
        """DuckDB's memory limit when the application reads the source out of core: half
        the memory available when it was chosen, at least 512 MiB and at most 1.5 GiB (it
        spills to disk beyond it): the window stays within 3 GB at any size (DuckDB's own
        memory, the process' and Qt's come on top: 2 GiB reached 3.05 GB on 20M rows)."""
        low, high = ENGINE_MEMORY
        return f"{min(high, max(low, self.available // 2)) // 1024 ** 2}MiB"

    def reason(self) -> str:
        """Why the source is not loaded: its size in memory against the share of memory."""
        share = f"{self.share:.0%}" if self.share >= 0.01 else f"{100 * self.share:.2g}%"
        return (f"about {_size(self.estimated)} in memory, more than {share} of the "
                f"{_size(self.available)} available")


def _size(count: int) -> str:
    for unit, scale in (("GB", 1024 ** 3), ("MB", 1024 ** 2), ("kB", 1024)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} bytes"


def available_memory() -> int:
    """Bytes of memory available now (Linux: MemAvailable; elsewhere the physical pages free)."""
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 0


def estimated_memory(path: str | Path) -> int:
    """Bytes the source would take loaded (its size on disk × the expansion of its format)."""
    file = Path(path)
    kind = "parquet" if file.suffix.lower() in (".parquet", ".pq") else "csv"
    return int(file.stat().st_size * EXPANSION[kind])


def choose_engine(path: str | Path, share: float = DEFAULT_MEMORY_SHARE, available: int | None = None) -> EngineChoice:
    """DuckDB for a Parquet/CSV source larger than ``share`` of the available memory, else
    memory (Excel workbooks, and sources that cannot be sized, are always loaded)."""
    share = min(max(float(share), 0.0), 1.0)
    available = available_memory() if available is None else int(available)
    file = Path(path)
    if file.suffix.lower() in (".xlsx", ".xlsm", ".xls") or not file.is_file():
        return EngineChoice("memory", 0, available, share)
    estimated = estimated_memory(file)
    engine = "duckdb" if available > 0 and estimated > share * available else "memory"
    return EngineChoice(engine, estimated, available, share)


def check_share(share: float) -> float:
    """The memory share a user chose, as a fraction (refused outside 0 %–100 %)."""
    from tklscore.core.errors import InputError

    share = float(share)
    if not 0.0 <= share <= 1.0:
        raise InputError(f"a share of memory is between 0 % and 100 % (not {share:.0%})")
    return share


def moves_source(path: str | Path, share: float, current: EngineChoice | None) -> bool:
    """Whether a new memory ``share`` moves the file source ``path`` between memory and out
    of core (``current``: the out-of-core choice it is read under, None when loaded)."""
    file = Path(path)
    if not file.is_file():
        return False
    return choose_engine(file, share).out_of_core != (current is not None and current.out_of_core)
