"""The release report, without Qt (spec gui.md §1.7): a committee reads it without the tool.

    data = ReportInput(release, report, reports, roles, ...)   # model.py
    build_report_html(data)          # the sections of every view (sections/), charts inline as SVG
    prepare_report("r.html", data)() # or r.csv (the per-record scores); r.pdf: gui/report_pdf.py

The report is a list of sections, each made by a *section builder* from one
:class:`ReportInput` (``sections.SECTION_BUILDERS``: the Scores, Design, Risk,
Pseudonymization and tkl-Data Model views' sections; a new measure appends its own with
:func:`add_section_builder`). It says when it was written and from which files (with their
SHA-256), where the weights come from, each score raw and normalised with its meaning and
a verdict in plain words, the candidate releases side by side, the charts (``charts.py``,
SVG written by ``svg.py``), the per-record scores, the risk lens and the model.
"""

from tklscore.core.report.charts import report_charts
from tklscore.core.report.files import REPORT_FORMATS, check_format, prepare_report, write_atomic
from tklscore.core.report.document import build_report_html
from tklscore.core.report.model import (CHART_DISCLOSURE, CHART_GROWTH, CHART_PER_RECORD, CHART_RELEASES,
                                        CHART_RISK_DISTRIBUTION, MAX_REPORT_ROWS, InputFile, ReportInput, Section,
                                        complete_risk, hash_files, report_title)
from tklscore.core.report.sections import SECTION_BUILDERS, add_section_builder, build_sections

__all__ = ["CHART_DISCLOSURE", "CHART_GROWTH", "CHART_PER_RECORD", "CHART_RELEASES", "CHART_RISK_DISTRIBUTION",
           "MAX_REPORT_ROWS", "REPORT_FORMATS", "SECTION_BUILDERS", "InputFile", "ReportInput", "Section",
           "add_section_builder", "build_report_html", "build_sections", "check_format", "complete_risk",
           "hash_files", "prepare_report", "report_charts", "report_title", "write_atomic"]
