"""The report's HTML building blocks, shared by every section: escaped text, headings,
tables of plain-text cells, and a chart inline as SVG (the file stands alone) or — for the
PDF adapter — an image named ``KEY.png`` it draws from the SVG. The page itself is
:mod:`tklscore.core.report.document`'s."""

from __future__ import annotations

import html
import re

from tklscore.core.report.model import ReportInput

IMAGE_WIDTH = 640            # px on a 96 dpi page: the A4 text width is 680

STYLE = ("body{font-family:sans-serif;max-width:60em} table{border-collapse:collapse} "
         "th{background-color:#e8e8e8} td,th{hyphens:none;word-break:normal;overflow-wrap:normal} "
         "td.nowrap{white-space:nowrap} h1{font-size:16pt} h2{font-size:13pt} "
         "svg{max-width:100%;height:auto} p.chart{text-align:center}")


def esc(value) -> str:
    return html.escape(str(value))


def heading(text: str) -> str:
    """A column heading, escaped, that breaks only between its words, never at a hyphen
    (``L-Severity``, a non-breaking hyphen) nor inside a parenthesis (``M-Score (x = 1)``
    breaks before ``(x = 1)`` if at all)."""
    kept = re.sub(r"\([^()]*\)", lambda m: m.group(0).replace(" ", "\u00a0"), esc(text))
    return kept.replace("-", "\u2011")


def table(header: list[str], rows: list[list[str]], align_left: int = 1, text_columns: tuple[int, ...] = (),
          keep_whole: tuple[int, ...] = (), widths: dict[int, int] | None = None) -> str:
    """An HTML table of plain-text cells (escaped here, once); the first ``align_left``
    columns and ``text_columns`` are left-aligned, the others (numbers) right-aligned and
    never broken across lines, nor are the cells of ``keep_whole``. ``widths``: column →
    its width in px (a column of names that must not be squeezed to one word a line beside
    numbers kept whole; Qt's PDF layout ignores a percentage there, so pixels of the A4 text
    width, :data:`IMAGE_WIDTH` + 40)."""
    left = set(range(align_left)) | set(text_columns)
    whole = set(keep_whole) | {i for i in range(len(header)) if i not in left}
    widths = widths or {}
    head = "".join((f"<th width='{widths[i]}'>" if i in widths else "<th>") + f"{heading(h)}</th>"
                   for i, h in enumerate(header))
    body = "".join(
        "<tr>" + "".join(f"<td align='{'left' if i in left else 'right'}'"
                         + (" class='nowrap' nowrap" if i in whole else "") + f">{esc(c)}</td>"
                         for i, c in enumerate(row)) + "</tr>" for row in rows)
    return (f"<table border='1' cellspacing='0' cellpadding='3' width='100%'>"
            f"<thead><tr>{head}</tr></thead>{body}</table>")


def chart(data: ReportInput, key: str) -> str:
    """The chart ``key`` of ``data.charts`` (SVG) inline, or as the PDF's named image."""
    svg = data.charts.get(key)
    if svg is None:
        return ""
    if not data.inline_images:
        return f"<p align='center'><img src='{esc(key)}.png' width='{IMAGE_WIDTH}'></p>"
    return f"<p class='chart' align='center'>{svg}</p>"
