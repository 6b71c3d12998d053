"""The Release view and the workbench for a source scored out of core (the memory share
set tiny): the source described without loading it, pytest-qt offscreen."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pandas as pd
import pytest

from tklscore.core import load_table
from tklscore.gui.workbench import Workbench


@pytest.fixture
def out_of_core(qtbot):
    workbench = Workbench()
    workbench.memory_share = 1e-9  # every source is "larger than" a billionth of memory
    yield workbench
    workbench.runner.cancel_all()
    workbench.runner.wait()


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_the_source_is_described_on_the_task_runner(qtbot, out_of_core, tmp_path, data_dir, suffix):
    source = data_dir / "thesis_table_3_1.csv"
    if suffix == "parquet":
        load_table(source).frame.to_parquet(tmp_path / "t.parquet")
        source = tmp_path / "t.parquet"
    with qtbot.waitSignal(out_of_core.sourceChanged, timeout=10000,
                          check_params_cb=lambda: out_of_core.source_summary is not None):
        out_of_core.open_source(str(source))
    summary = out_of_core.source_summary
    assert out_of_core.out_of_core and out_of_core.table is None
    table = load_table(source)
    assert summary.rows == len(table) == 7 and summary.columns == table.columns
    pd.testing.assert_frame_equal(summary.preview, table.frame.astype(object), check_dtype=False)
    out_of_core.memory_share = 1.0
    out_of_core.open_source(str(source))
    assert not out_of_core.out_of_core and out_of_core.source_summary is None
    qtbot.waitUntil(lambda: out_of_core.table is not None, timeout=10000)
