"""The engines' benchmarks write their generated inputs once under --dir (benchmarks/_common.py's
typed_inputs): a later run reuses them (and so the aggregate cached from them), unless the rows,
the seed or the files changed, or --rewrite asks."""

import sys

from paths import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from _common import typed_inputs  # noqa: E402


def test_inputs_are_reused_only_as_stamped_and_rewritten_when_asked(tmp_path):
    paths, reused = typed_inputs(tmp_path, 1_000, seed=3)
    assert not reused and sorted(p.name for p in tmp_path.iterdir()) == [
        "release_1000.parquet", "source_1000.parquet", "source_1000.stamp.json", "weights.csv"]
    written = paths["source"].stat().st_mtime_ns
    assert typed_inputs(tmp_path, 1_000, seed=3) == (paths, True)
    assert paths["source"].stat().st_mtime_ns == written            # never rewritten
    assert typed_inputs(tmp_path, 1_000, seed=4)[1] is False        # another seed: written anew
    assert typed_inputs(tmp_path, 1_000, seed=4, rewrite=True)[1] is False
    paths["release"].write_bytes(b"cut short")                      # a damaged file: written anew
    assert typed_inputs(tmp_path, 1_000, seed=4)[1] is False and typed_inputs(tmp_path, 1_000, seed=4)[1] is True
