"""The report as one HTML page: the sections of :mod:`tklscore.core.report.sections` under
one title, in the style of :mod:`tklscore.core.report.html`, with every chart the input has
data for."""

from __future__ import annotations

from tklscore.core.report.charts import report_charts
from tklscore.core.report.html import STYLE, esc
from tklscore.core.report.model import ReportInput, report_title
from tklscore.core.report.sections import build_sections


def build_report_html(data: ReportInput, inline_images: bool = True) -> str:
    """The report as HTML; charts inline as SVG, or (``inline_images=False``, for the PDF)
    referenced by name for the PDF adapter to add as images. Draws every chart the input has
    data for and ``data.charts`` does not hold yet."""
    data.charts = {**report_charts(data), **data.charts}
    parts = [("<html><head><meta charset='utf-8'>"
              f"<title>{esc(report_title(data))}</title><style>{STYLE}</style></head><body>"),
             f"<h1>{esc(report_title(data))}</h1>"]
    data.inline_images = inline_images
    for section in build_sections(data):
        parts.append(f"<h{section.level}>{esc(section.title)}</h{section.level}>{section.body}")
    parts.append("</body></html>")
    return "\n".join(parts)
