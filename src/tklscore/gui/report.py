"""The application's report: :func:`report_input` reads the workbench's state into the
Qt-free report's input (``core/report``), and :func:`prepare_report` writes it — HTML and
the per-record CSV through the core, a PDF through the Qt adapter (``gui/report_pdf.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tklscore.core.report import InputFile, ReportInput, check_format
from tklscore.core.report import prepare_report as prepare_core_report
from tklscore.core.scoring.weights_source import MODEL, file_source, model_source


def report_input(workbench) -> ReportInput:
    """The application's state as a report's input."""
    project = workbench.project
    files = []
    if project.builtin:
        files.append(InputFile("source table", None, text=None, sha256=f"built-in example ({project.builtin})"))
    elif project.source_path:
        files.append(InputFile("source table", project.source_path))
    for definition in project.releases:
        if definition.kind == "file" and definition.path:
            files.append(InputFile(f"published table of release '{definition.name}'", definition.path))
    source = workbench.weights_source() if hasattr(workbench, "weights_source") else None
    if source is None and workbench.weights is not None:
        source = (model_source(workbench.model, "of the project") if workbench.model is not None
                  else file_source(project.weights_path or workbench.weights.name))
    if source is not None and source.kind == MODEL and workbench.model is not None:
        files.append(InputFile("tkl-Data Model as used (Turtle)", None,
                               text=workbench.model.to_graph().serialize(format="turtle")))
    elif source is not None and project.weights_path:
        files.append(InputFile("weights file", project.weights_path))
    table = workbench.table
    data = ReportInput(
        release=project.current_release, report=workbench.current_report(), reports=dict(workbench.reports),
        roles=project.roles, source_name=table.name if table is not None else None,
        source_rows=len(table) if table is not None else None, weights=workbench.weights,
        weights_problem=workbench.weights_problem, weights_source=source,
        model=workbench.model if source is None or source.kind == MODEL else None, files=files,
        pseudonymization=getattr(workbench, "pseudonymization", None),
        release_errors=dict(getattr(workbench, "release_errors", {})))
    name = project.current_release
    measured = getattr(workbench, "measures", {}).get(name)
    lens = getattr(workbench, "risk_lens", None)
    # the Risk view's lens, if it measured this very release (its measures are the workbench's)
    if (lens is not None and lens.release == name and measured is not None
            and lens.measures.models is measured.models):
        data.risk = lens
    elif name in project.designed_names():   # a designed release: its rows are transformed, no lens of them
        pass
    elif data.report is not None and getattr(workbench, "source", None) is not None and (
            measured is not None
            or (getattr(workbench, "measures_pending", bool)() and project.roles.qi and data.report.published_rows)):
        # measured: the lens reuses the workbench's measures; still being measured: it takes them itself
        held, definition, weights = workbench.source, project.release(name), workbench.weights

        def measure(progress):
            return held.risk_lens(definition, measures=measured, weights=weights, progress=progress)
        data.measure_risk = measure
    return data


def prepare_report(path: str | Path, data: ReportInput) -> Callable[[], Path]:
    """Return the function that writes the report (HTML, PDF or CSV by the extension). It
    touches no widget and may run in a background thread."""
    if check_format(path) == ".pdf":
        from tklscore.gui.report_pdf import write_pdf

        return lambda: write_pdf(path, data)
    return prepare_core_report(path, data)


def export_report(path: str | Path, data: ReportInput) -> Path:
    """Write the report as HTML, PDF or CSV, chosen by the file's extension."""
    return prepare_report(path, data)()
