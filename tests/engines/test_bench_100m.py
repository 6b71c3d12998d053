"""benchmarks/bench_100m.py cannot rot: its source writer on small sizes (prefixes, chunks,
the columns D(r) reads) and the script itself end to end on 20,000 rows, as the note's run
drives it (every part through the CLI with --engine duckdb)."""

import importlib.util
import re
import subprocess
import sys

import numpy as np
import pyarrow.parquet as pq
from paths import ROOT

BENCHMARKS = ROOT / "benchmarks"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_100m", BENCHMARKS / "bench_100m.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_sources_are_prefixes_written_chunk_by_chunk(tmp_path):
    bench = _bench()
    inputs = bench.write_sources(tmp_path, [2_500, 7_000], seed=5, chunk=1_000)
    small = pq.read_table(inputs[2_500]["source"])
    large = pq.read_table(inputs[7_000]["source"])
    assert (small.num_rows, large.num_rows) == (2_500, 7_000)
    assert pq.ParquetFile(inputs[7_000]["source"]).metadata.num_row_groups == 7   # one row group a chunk
    assert large.slice(0, 2_500).equals(small)
    assert large.column("id").to_pylist() == list(range(7_000))
    assert small.column_names == ["id", "age", "workclass", "occupation", "education", "disease", "medication",
                                  "diagnosis", "amount", "sex", "region"]
    assert set(large.column("sex").to_pylist()) == {"F", "M"}
    assert len(set(large.column("region").to_pylist())) == bench.REGIONS
    # the release: 10 % of each chunk, the same records in both sizes where they overlap
    release_small = pq.read_table(inputs[2_500]["release"]).column("id").to_numpy()
    release_large = pq.read_table(inputs[7_000]["release"]).column("id").to_numpy()
    assert len(release_large) == 700 and np.all(np.diff(release_large) > 0)
    np.testing.assert_array_equal(release_small, release_large[release_large < 2_500])
    # D(r)'s 10 attributes are columns of the source, and every weighed value occurs in it
    params = (tmp_path / "dr_params.csv").read_text().splitlines()[1:]
    attributes = [line.split(",")[0] for line in params]
    assert len(attributes) == 10 and set(attributes) <= set(large.column_names)
    assert {"disease-00", "medication-04"} <= set(large.column("disease").to_pylist()
                                                  + large.column("medication").to_pylist())


def test_the_script_runs_every_part_end_to_end(tmp_path):
    folder = tmp_path / "bench"
    done = subprocess.run([sys.executable, str(BENCHMARKS / "bench_100m.py"), "--rows", "20000", "--dir",
                           str(folder)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "load average" in out
    for part in ("score", "measures", "disclosure"):
        row = re.search(rf"^\| 20,000 \| {part} \| ([\d.]+) \| ([\d.]+) \| (\d+) \| [\d.]+→[\d.]+ \(max [\d.]+\) \| — \|$",
                        out, re.M)
        assert row, out
        wall, cpu, rss = float(row[1]), float(row[2]), int(row[3])
        assert wall > 0 and cpu > 0 and 50 < rss < 4096
    assert "2,000 records written" in out                          # score: the 10 % release's records
    assert re.search(r"k = \d+, l = \d+, t = 0\.\d{4}, [\d,]+ classes", out)
    assert "20,000 records written" in out                         # D(r): every record
    assert not folder.exists()                                      # what it wrote is removed
