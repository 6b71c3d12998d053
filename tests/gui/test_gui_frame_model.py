"""The table model over a frame (gui/frame_model.py): what each cell shows, read a block of
rows at a time, in the frame's order or sorted; and the window's progress bar, painted with
the window rather than at once on every step."""

import numpy as np
import pandas as pd
from PySide6.QtCore import QEvent, QObject, Qt

from tklscore.gui.frame_model import BLOCK_ROWS, KEPT_BLOCKS, FrameModel

DISPLAY, TOOLTIP, USER = Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.UserRole


def cell(model, row, column, role=DISPLAY):
    return model.data(model.index(row, column), role)


def test_cells_show_values_as_written_numbers_rounded_and_spaces_visible(qtbot):
    frame = pd.DataFrame({"id": pd.array(["a", " b", "", "d "], dtype="str"),
                          "x": [0.123456789, 12345.678, np.nan, 2.0], "n": [1, 2, 3, 40000]})
    model = FrameModel(frame)
    assert [cell(model, r, 0) for r in range(4)] == ["a", "␣b", "(empty)", "d␣"]
    assert [cell(model, r, 1) for r in range(4)] == ["0.12346", "12,345.7", "n/a", "2"]
    assert [cell(model, r, 2) for r in range(4)] == ["1", "2", "3", "40000"]
    assert cell(model, 1, 0, TOOLTIP) != "␣b" and "space" in cell(model, 1, 0, TOOLTIP)
    assert cell(model, 3, 2, USER) == 40000 and cell(model, 0, 1, USER) == 0.123456789
    assert cell(model, 0, 2, Qt.ItemDataRole.TextAlignmentRole) is not None   # numbers right-aligned
    assert cell(model, 0, 0, Qt.ItemDataRole.TextAlignmentRole) is None
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(3)] == ["id", "x", "n"]
    assert model.headerData(3, Qt.Orientation.Horizontal) is None
    assert model.headerData(9, Qt.Orientation.Vertical) == "10"


def test_a_large_frame_is_read_in_blocks_and_sorting_shows_the_sorted_rows(qtbot):
    n = BLOCK_ROWS * (KEPT_BLOCKS + 5) + 7
    values = np.random.default_rng(3).permutation(n)
    frame = pd.DataFrame({"id": pd.array([f"r{v}" for v in values], dtype="str"), "v": values.astype(float)})
    highlight = values % 2 == 0
    model = FrameModel(frame)
    model.set_frame(frame, highlight)
    rows = list(range(0, n, 37)) + [n - 1, 0, 1]   # far apart and back again: blocks dropped and read anew
    assert [cell(model, r, 0) for r in rows] == [f"r{values[r]}" for r in rows]
    assert len(model._blocks) <= KEPT_BLOCKS
    model.sort(1, Qt.SortOrder.DescendingOrder)
    order = np.argsort(values, kind="stable")[::-1]
    assert [cell(model, r, 0) for r in (0, 1, n - 1)] == [f"r{n - 1}", f"r{n - 2}", "r0"]
    assert all(model.frame_row(r) == order[r] for r in (0, 5, n - 1))
    assert model.view_row(int(order[5])) == 5
    shaded = [cell(model, r, 0, Qt.ItemDataRole.BackgroundRole) is not None for r in range(50)]
    assert shaded == [bool(highlight[order[r]]) for r in range(50)]   # the highlight follows its record
    model.sort(-1)   # no sort column: the frame's own order
    assert [cell(model, r, 0) for r in (0, n - 1)] == [f"r{values[0]}", f"r{values[n - 1]}"]
    assert model.frame_row(17) == 17 and model.view_row(17) == 17


class PaintCounter(QObject):
    def __init__(self, widget):
        super().__init__(widget)
        self.paints = 0
        widget.installEventFilter(self)

    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint:
            self.paints += 1
        return False


def test_a_task_s_progress_is_painted_with_the_window_not_at_once(qtbot, window):
    window.show()
    qtbot.waitExposed(window)
    window.task_status.busy(True, "Loading the source table")
    bar = window.progress
    counter = PaintCounter(bar)
    qtbot.waitUntil(lambda: counter.paints > 0, timeout=2000)   # laid out and painted once
    counter.paints = 0
    for percent in (10, 40, 70):
        window.workbench.runner.progress.emit(percent, "Loading the source table")
        assert counter.paints == 0 and bar.value() == percent   # no repaint on the UI thread right now
    qtbot.waitUntil(lambda: counter.paints > 0, timeout=2000)   # painted with the window's next update
    assert bar.value() == 70 and window.busy_label.text() == "Loading the source table"
    window.task_status.busy(False, "")
