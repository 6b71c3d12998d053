"""Quotes and backslashes in filter literals: each value with the literals that must select it,
and a table holding them — shared by core/release/test_filters.py and engines/test_engine_filter.py."""

from __future__ import annotations

import pandas as pd

from tklscore.core import load_table


# values as they are in the file, and a filter literal selecting each (the language's quoting)
QUOTED = {"'": ["\"'\"", "'\\''"], '"': ["'\"'", '"\\""'], "\\": ["'\\\\'"], "\\\\": ["'\\\\\\\\'"],
          "a\\b": ["'a\\b'", "'a\\\\b'"], "x\\\\": ["'x\\\\\\\\'"], "')) OR 1=1 --": ["\"')) OR 1=1 --\""],
          "x\\": ["'x\\\\'"], "it's": ["'it\\'s'", '"it\'s"']}


def quote_table(folder):
    frame = pd.DataFrame({"id": [str(i) for i in range(len(QUOTED) + 1)], "Job": list(QUOTED) + ["plain"]})
    path = folder / "quotes.csv"
    frame.to_csv(path, index=False)
    table = load_table(path)
    assert table.text("Job").tolist() == list(QUOTED) + ["plain"]
    return path, table
