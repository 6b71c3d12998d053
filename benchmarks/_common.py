"""What the benchmark scripts share: the machine line (CPUs and load average), timing (wall
and CPU time), peak memory, verdict lines, commands measured in a process of their own, and
the generated sources — the seeded synthetic table of ``bench_scoring.py`` as text (as a CSV
loads), with typed columns, and written chunk by chunk as Parquet.

A script puts its own folder on ``sys.path`` and imports from here::

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _common import machine, peak_rss_mb, timed, verdict  # noqa: E402

The machine may be shared: every time is measured as wall time (``time.perf_counter``) and
as the CPU time of the process (``time.process_time``), and the load average is printed, so
that a reader can tell a slow figure from a busy machine.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "src") not in sys.path:   # the checkout's package, also without an installed one
    sys.path.insert(1, str(ROOT / "src"))

from tklscore.core.scoring.weights import Weights  # noqa: E402
from tklscore.core.tables.roles import Roles  # noqa: E402


# --------------------------------------------------------------------------------- the machine

def load_average() -> float:
    """The 1-minute load average (NaN where the system has none)."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def machine() -> str:
    """``2 CPUs, load average 3.1 — a shared machine slows every figure``."""
    return f"{os.cpu_count()} CPUs, load average {load_average():.1f} — a shared machine slows every figure"


def versions() -> str:
    """The versions a figure depends on: tklscore, Python, numpy, pandas and the machine's architecture."""
    import tklscore

    return (f"tklscore {getattr(tklscore, '__version__', '?')} | Python {platform.python_version()} | "
            f"numpy {np.__version__} | pandas {pd.__version__} | {platform.machine()}")


# --------------------------------------------------------------------------------- timing

@dataclass
class Timing:
    """Wall and CPU seconds of each run of one measurement, and the last run's result."""

    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    result: object = None

    @property
    def wall(self) -> float:
        """The median wall time."""
        return statistics.median(self.walls)

    @property
    def cpu(self) -> float:
        """The median CPU time."""
        return statistics.median(self.cpus)

    @property
    def best(self) -> float:
        return min(self.walls)

    @property
    def best_cpu(self) -> float:
        return min(self.cpus)

    def runs(self, digits: int = 3) -> str:
        """Every run as ``wall/cpu``."""
        return ", ".join(f"{w:.{digits}f}/{c:.{digits}f}" for w, c in zip(self.walls, self.cpus))

    def __str__(self) -> str:
        return f"{self.wall:.3f} s wall, {self.cpu:.3f} s CPU (runs: {self.runs()})"


def timed(function, repeats: int = 1, *, warmup: int = 0, collect: bool = False) -> Timing:
    """Run ``function`` ``warmup`` times untimed, then ``repeats`` times timed (``collect``:
    collect garbage before each timed run, so that no run pays for another's)."""
    for _ in range(warmup):
        function()
    timing = Timing()
    for _ in range(max(1, repeats)):
        if collect:
            gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        timing.result = function()
        timing.walls.append(time.perf_counter() - wall)
        timing.cpus.append(time.process_time() - cpu)
    return timing


class Stopwatch:
    """Wall and CPU time since it was started (or restarted), for steps that are not one call."""

    def __init__(self):
        self.restart()

    def restart(self) -> None:
        self.started, self.started_cpu = time.perf_counter(), time.process_time()

    @property
    def wall(self) -> float:
        return time.perf_counter() - self.started

    @property
    def cpu(self) -> float:
        return time.process_time() - self.started_cpu


# --------------------------------------------------------------------------------- memory

def peak_rss_mb() -> float:
    """This process's peak resident memory in MB: VmHWM, the high-water mark of its own
    memory (``ru_maxrss`` would carry a parent's peak across fork and exec); ``ru_maxrss``
    where there is no /proc (KiB on Linux, bytes on macOS)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


# --------------------------------------------------------------------------------- verdicts

def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def print_verdicts(rows: int, verdicts: list[str]) -> None:
    """The closing verdict lines, one per figure, with the load they were measured under."""
    print(f"peak RSS {peak_rss_mb():.0f} MB; {machine()}")
    print(f"verdicts ({rows:,} rows; load average {load_average():.1f}: on a busy machine a MISS may be the load's):")
    for line in verdicts:
        print(f"  {line}")


def target(value: float, limit: float, unit: str = "s", scale: float = 1.0) -> str:
    """``target ≤ 2.5 s   PASS``: ``value`` against ``limit`` (both shown × ``scale``)."""
    return f"target ≤ {limit * scale:g} {unit}   {verdict(value <= limit)}"


def timing_verdict(timing: Timing, limit: float) -> str:
    """PASS on wall time; on a loaded machine, whether the CPU time alone would pass."""
    if timing.wall <= limit:
        return "PASS"
    if timing.cpu <= limit:
        return f"PASS on CPU time, FAIL on wall time (load average {load_average():.1f} on {os.cpu_count()} CPUs)"
    return "FAIL"


class Targets:
    """Targets checked one after another, each with its verdict line; ``status`` is the exit
    status (1 when one failed)."""

    def __init__(self):
        self.failed: list[str] = []

    def check(self, label: str, value: float, limit: float, unit: str = "s", scale: float = 1.0,
              note: str = "") -> bool:
        """Print ``  label: 0.42 s ≤ 0.5 s  PASS note`` (values × ``scale``, in ``unit``)."""
        ok = value <= limit
        digits = ",.0f" if scale * limit >= 100 else ".3g"
        print(f"  {label}: {value * scale:{digits}} {unit} ≤ {limit * scale:{digits}} {unit}  {verdict(ok)}"
              + (f" {note}" if note else ""))
        if not ok:
            self.failed.append(label)
        return ok

    @property
    def status(self) -> int:
        return 1 if self.failed else 0


def overall(ok: bool) -> int:
    """Print the overall verdict; the exit status (0 when every target passed)."""
    print(f"overall: {verdict(ok)}")
    return 0 if ok else 1


# --------------------------------------------------------------------------------- commands

def tklscore_command(*arguments: str) -> list[str]:
    """The installed ``tklscore`` beside this Python, with ``arguments``."""
    return [str(Path(sys.executable).with_name("tklscore")), *map(str, arguments)]


@dataclass
class Run:
    """A command measured in a process of its own: wall and CPU seconds, peak RSS in MB, output."""

    wall: float
    cpu: float
    rss_mb: float
    out: str
    err: str


# A small helper process runs the command and reports its children's usage: the command's
# peak RSS is its own, not this (large) process's carried across fork and exec.
# On Linux the probe is its command's descendants' subreaper and waits for every one of them, so
# that a process the command leaves behind (Spark's JVM, which PySpark does not wait for) is counted
_PROBE = ("import os, resource, subprocess, sys, time, json, ctypes\n"
          "if sys.platform == 'linux': ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)\n"   # PR_SET_CHILD_SUBREAPER
          "t = time.perf_counter(); done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
          "wall = time.perf_counter() - t\n"
          "while sys.platform == 'linux':\n"
          "    try: os.waitpid(-1, 0)\n"
          "    except ChildProcessError: break\n"
          "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
          "print(json.dumps({'wall': wall, 'cpu': u.ru_utime + u.ru_stime, 'rss_kb': u.ru_maxrss, "
          "'code': done.returncode, 'out': done.stdout, 'err': done.stderr}))")


def run_measured(command: list[str]) -> Run:
    """Run ``command`` and measure it; a failure ends the benchmark with the command's error."""
    probe = subprocess.run([sys.executable, "-c", _PROBE, *map(str, command)], capture_output=True, text=True,
                           check=True)
    result = json.loads(probe.stdout)
    if result["code"] != 0:
        raise SystemExit(f"{' '.join(map(str, command[:3]))} … failed ({result['code']}):\n{result['err'][-2000:]}\n"
                         f"{result['out'][-3000:]}")   # a test run's failures are on stdout
    return Run(result["wall"], result["cpu"], result["rss_kb"] / 1024, result["out"], result["err"])


def best_of(command: list[str], repeats: int) -> tuple[Run, list[float]]:
    """The fastest of ``repeats`` measured runs of ``command``, and every run's wall time."""
    runs = [run_measured(command) for _ in range(max(1, repeats))]
    return min(runs, key=lambda r: r.wall), [r.wall for r in runs]


# --------------------------------------------------------------------------------- generated sources

TEXT = pd.StringDtype("pyarrow", na_value=np.nan)  # text as load_table reads a CSV: Arrow-backed
QI = ("age", "workclass", "occupation", "education")
CATEGORICAL_SA = {"disease": 14, "medication": 20, "diagnosis": 6}
CONTINUOUS_SA = "amount"
SA = tuple(CATEGORICAL_SA) + (CONTINUOUS_SA,)
N_INTERVALS = 5
CHUNK = 1_000_000


def _zipf(levels: int, s: float, rng: np.random.Generator) -> np.ndarray:
    """Zipf-like probabilities over ``levels`` values, in a random order of the values."""
    p = 1.0 / np.arange(1, levels + 1) ** s
    return rng.permutation(p / p.sum())


def _draw(rng: np.random.Generator, p: np.ndarray, n: int) -> np.ndarray:
    return rng.choice(len(p), size=n, p=p).astype(np.int64)


def source_codes(n: int, seed: int, n_amounts: int = 500) -> tuple[dict[str, np.ndarray], dict[str, list[str]],
                                                                   np.ndarray]:
    """The synthetic source as integer codes per column, each column's labels (``labels[c][code]``
    is the value as written) and the sorted pool of the continuous attribute's possible values:
    what :func:`make_source` writes as text and :func:`typed_table` as typed Arrow columns."""
    rng = np.random.default_rng(seed)
    # quasi-identifiers
    ages = np.arange(17, 90)  # 73 levels
    p_age = np.exp(-0.5 * ((ages - 38) / 13.0) ** 2) + 0.01  # bell-shaped, long tails
    p_age /= p_age.sum()
    age = _draw(rng, p_age, n)
    workclass = _draw(rng, _zipf(12, 1.3, rng), n)
    occupation = _draw(rng, _zipf(41, 0.9, rng), n)
    education = _draw(rng, _zipf(16, 1.1, rng), n)
    # sensitive attributes, correlated with the QIs so that l- and t-DF vary by class
    disease = (_draw(rng, _zipf(14, 1.2, rng), n) + age // 15 + (workclass == 0)) % 14
    medication = (disease * 3 + _draw(rng, _zipf(20, 1.5, rng), n)) % 20
    diagnosis = (_draw(rng, _zipf(6, 0.8, rng), n) + education % 2) % 6
    pool = np.round(5.0 + np.cumsum(rng.uniform(0.10, 1.00, n_amounts)), 2)  # strictly increasing
    centre = n_amounts * (0.25 + 0.5 * occupation / 40.0)
    amount = np.clip(np.rint(rng.normal(centre, n_amounts / 8.0)), 0, n_amounts - 1).astype(np.int64)
    uniform = rng.random(n) < 0.05  # so that every value of the pool occurs
    amount[uniform] = rng.integers(0, n_amounts, int(uniform.sum()))
    codes = {"age": age, "workclass": workclass, "occupation": occupation, "education": education,
             "disease": disease, "medication": medication, "diagnosis": diagnosis, "amount": amount}
    labels = {"age": [str(a) for a in ages],
              "workclass": [f"workclass-{i:02d}" for i in range(12)],
              "occupation": [f"occupation-{i:02d}" for i in range(41)],
              "education": [f"education-{i:02d}" for i in range(16)],
              "disease": [f"disease-{i:02d}" for i in range(14)],
              "medication": [f"medication-{i:02d}" for i in range(20)],
              "diagnosis": [f"diagnosis-{i}" for i in range(6)],
              "amount": [f"{v:.2f}" for v in pool]}
    return codes, labels, pool


def make_source(n: int, seed: int, n_amounts: int = 500) -> tuple[pd.DataFrame, np.ndarray]:
    """The synthetic source as a frame of Arrow-backed text (as a CSV loads), and the sorted
    pool of the continuous attribute's possible values.

    4 quasi-identifiers with skewed distributions, so equivalence classes vary in size:
    ``age`` (73 levels, 17..89), ``workclass`` (12), ``occupation`` (41), ``education`` (16);
    4 sensitive attributes: ``disease`` (14 levels), ``medication`` (20), ``diagnosis`` (6),
    all categorical and somewhat correlated with the QIs, and ``amount`` (continuous,
    ``n_amounts`` distinct numbers written with two decimals)."""
    codes, labels, pool = source_codes(n, seed, n_amounts)
    return pd.DataFrame({c: text(labels[c], codes[c]) for c in codes}), pool


def typed_table(n: int, seed: int, start: int = 0):
    """:func:`typed_source` as an Arrow table (the same values, ids from ``start``), built
    column-wise without a Python object per cell: fast enough for 100M rows chunk by chunk."""
    import pyarrow as pa

    codes, labels, pool = source_codes(n, seed)
    columns = {"id": pa.array(np.arange(start, start + n, dtype=np.int64))}
    for column, values in codes.items():
        if column == "age":
            columns[column] = pa.array(np.asarray(labels[column], dtype=np.int64)[values])
        elif column == "diagnosis":
            columns[column] = pa.array(values.astype(np.int64))
        elif column == CONTINUOUS_SA:   # the float the text reads as, as typed_source parses it
            columns[column] = pa.array(np.asarray([float(v) for v in labels[column]])[values])
        else:
            columns[column] = pa.array(labels[column], pa.string()).take(pa.array(values))
    return pa.Table.from_pydict(columns, schema=typed_schema()), pool


def text(labels, codes: np.ndarray) -> pd.Series:
    """Arrow-backed text of ``labels[codes]``, without a Python object per cell."""
    return pd.Series(np.asarray(list(labels), dtype=object)[codes], dtype=TEXT)


def make_weights(pool: np.ndarray, seed: int) -> Weights:
    """A weight for every categorical SA value and for 5 intervals of ``amount`` covering
    everything; each weight ≤ 1/4, so W(r) ≤ 1 with 4 SAs."""
    rng = np.random.default_rng(seed)
    entries = []
    for attribute, levels in CATEGORICAL_SA.items():
        prefix = "diagnosis-" if attribute == "diagnosis" else f"{attribute}-"
        width = 1 if attribute == "diagnosis" else 2
        for i in range(levels):
            entries.append((attribute, f"{prefix}{i:0{width}d}", round(float(rng.uniform(0.01, 0.25)), 5)))
    # cut points half-way between pool values (3 decimals; the values have 2): no ties
    positions = np.linspace(0, len(pool), N_INTERVALS + 1)[1:-1].astype(int)
    cuts = [f"{(pool[i - 1] + pool[i]) / 2:.3f}" for i in positions]
    bounds = ["-inf"] + cuts + ["inf"]
    for low, high in zip(bounds[:-1], bounds[1:]):
        opening = "(" if low == "-inf" else "["
        entries.append((CONTINUOUS_SA, f"{opening}{low},{high})", round(float(rng.uniform(0.01, 0.25)), 5)))
    return Weights(entries, name=f"<synthetic weights seed {seed}>")


def ramp_weights(frame: pd.DataFrame, sa) -> list[tuple[str, str, float]]:
    """Synthetic weights of a real table's sensitive values (Adult's): each SA's values in
    sorted order weigh 0.45·1/n, 0.45·2/n, … 0.45 (rounded to 5 decimals)."""
    entries = []
    for attribute in sa:
        values = sorted(set(frame[attribute]))
        entries += [(attribute, v, round(0.45 * (i + 1) / len(values), 5)) for i, v in enumerate(values)]
    return entries


def sample(n: int, rng: np.random.Generator, fraction: float = 0.10) -> np.ndarray:
    """A sorted random ``fraction`` of ``n`` positions (at least one): the published records."""
    return np.sort(rng.choice(n, size=max(1, int(n * fraction)), replace=False)).astype(np.int64)


def roles() -> Roles:
    return Roles(qi=QI, sa=SA, continuous=[CONTINUOUS_SA])


def typed_source(n: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    """:func:`make_source` with an integer ``id`` column and the columns a Parquet writer
    types (``age`` and ``diagnosis`` integers, ``amount`` a float, the rest text)."""
    frame, pool = make_source(n, seed)
    typed = pd.DataFrame({"id": np.arange(n, dtype=np.int64)})
    for column in frame.columns:
        values = frame[column]
        if column == "age":
            values = values.astype(np.int64)
        elif column == "diagnosis":
            values = values.str.removeprefix("diagnosis-").astype(np.int64)
        elif column == CONTINUOUS_SA:
            values = values.astype(np.float64)
        else:
            values = values.astype(TEXT)
        typed[column] = values.to_numpy() if values.dtype != object else values
    return typed, pool


def typed_schema():
    """The Arrow schema of :func:`typed_source`."""
    import pyarrow as pa

    return pa.schema([("id", pa.int64()), ("age", pa.int64()), ("workclass", pa.string()),
                      ("occupation", pa.string()), ("education", pa.string()), ("disease", pa.string()),
                      ("medication", pa.string()), ("diagnosis", pa.int64()), ("amount", pa.float64())])


def write_typed_weights(weights: Weights, path: Path) -> Path:
    """The weights as a CSV file for the typed source (``diagnosis`` values as its integers)."""
    rows = [(e.attribute, e.value.removeprefix("diagnosis-") if e.attribute == "diagnosis" else e.value, e.weight)
            for e in weights.entries]
    pd.DataFrame(rows, columns=["attribute", "value", "weight"]).to_csv(path, index=False)
    return path


class ParquetChunks:
    """A Parquet file written chunk by chunk (never the whole table in memory); the schema
    is the first chunk's unless given."""

    def __init__(self, path: Path, schema=None):
        self.path, self.schema, self.writer = Path(path), schema, None

    def write(self, table) -> None:
        """Append ``table`` (an Arrow table, or a pandas frame converted with the schema)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        if isinstance(table, pd.DataFrame):
            table = pa.Table.from_pandas(table, schema=self.schema, preserve_index=False)
        if self.writer is None:
            self.writer = pq.ParquetWriter(self.path, self.schema or table.schema)
        self.writer.write_table(table)

    def __enter__(self) -> "ParquetChunks":
        return self

    def __exit__(self, *_exc) -> None:
        if self.writer is not None:
            self.writer.close()


def typed_paths(folder: Path, n: int) -> dict[str, Path]:
    """Where :func:`write_typed_source` writes the inputs of ``n`` rows in ``folder``."""
    return {"source": folder / f"source_{n}.parquet", "release": folder / f"release_{n}.parquet",
            "weights": folder / "weights.csv"}


def write_typed_source(folder: Path, n: int, seed: int, chunk: int = CHUNK) -> dict[str, Path]:
    """The typed source of ``n`` rows and a 10 % release of it as Parquet (written chunk by
    chunk, each chunk seeded on its own), and the weights CSV: ``{"source", "release", "weights"}``."""
    import pyarrow as pa

    paths = typed_paths(folder, n)
    rng = np.random.default_rng(seed)
    pool = None
    with ParquetChunks(paths["source"], typed_schema()) as source, \
            ParquetChunks(paths["release"], typed_schema()) as release:
        for start in range(0, n, chunk):
            rows = min(chunk, n - start)
            table, chunk_pool = typed_table(rows, seed + start // chunk, start)
            pool = chunk_pool if pool is None else pool
            source.write(table)
            picked = np.sort(rng.choice(rows, size=max(1, rows // 10), replace=False))
            release.write(table.take(pa.array(picked)))
    write_typed_weights(make_weights(pool, seed), paths["weights"])
    return paths


SOURCE_FORMAT = 1   # what write_typed_source writes: raised whenever it writes other files


def typed_inputs(folder: Path, n: int, seed: int, rewrite: bool = False) -> tuple[dict[str, Path], bool]:
    """The inputs of :func:`write_typed_source` in ``folder`` and whether they were reused:
    inputs an earlier run wrote there completely (its stamp: rows, seed, format version and
    the files' sizes) are reused, never rewritten — nor is an aggregate cached from them
    rebuilt —; otherwise, or with ``rewrite``, they are written and then stamped."""
    paths = typed_paths(folder, n)
    stamp = folder / f"source_{n}.stamp.json"

    def written() -> dict:
        return {"rows": n, "seed": seed, "format": SOURCE_FORMAT,
                "bytes": {name: path.stat().st_size for name, path in sorted(paths.items())}}

    if not rewrite and stamp.exists() and all(p.exists() for p in paths.values()):
        try:
            if json.loads(stamp.read_text()) == written():
                return paths, True
        except ValueError:
            pass
    stamp.unlink(missing_ok=True)   # stamped again only once every file is written
    write_typed_source(folder, n, seed)
    stamp.write_text(json.dumps(written()))
    return paths, False


def add_source_arguments(parser, rows: int = 20_000_000) -> None:
    """``--rows``, ``--seed``, ``--memory-limit`` and ``--dir``: the generated Parquet source
    of the engines' benchmarks and the engine's limit."""
    parser.add_argument("--rows", type=int, default=rows)
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--memory-limit", default="2GB")
    parser.add_argument("--dir", help="folder for the inputs (default: a temporary folder; ~10 bytes a row)")


@contextmanager
def work_folder(chosen: str | None = None, prefix: str = "tklscore-bench-"):
    """The folder for a benchmark's inputs: ``chosen`` (``--dir``, kept), else a temporary
    one removed at the end."""
    with tempfile.TemporaryDirectory(prefix=prefix) as scratch:
        folder = Path(chosen or scratch)
        folder.mkdir(parents=True, exist_ok=True)
        yield folder


def megabytes(path: Path) -> int:
    """The size of ``path`` in whole MB."""
    return Path(path).stat().st_size >> 20
