"""The release report (gui.md §1.7, issue 9 §2): it stands alone — the date, the inputs with
their SHA-256, where the weights come from with the AHP verdict, each score with its
meaning and verdict — and its PDF keeps every heading on the page of what it introduces."""

import hashlib
import re

import pypdf
import pytest
from PySide6.QtCore import QSizeF

from tklscore.core.examples import write_thesis_example
from tklscore.core.scoring.meaning import verdict
from tklscore.core.tables.roles import Roles
from tklscore.core.report import (
    CHART_GROWTH,
    CHART_PER_RECORD,
    CHART_RELEASES,
    ReportInput,
    Section,
    add_section_builder,
    build_report_html,
    report_charts,
)
from tklscore.core.report import sections as sections_module
from tklscore.gui.report import export_report, report_input
from tklscore.gui.report_pdf import keep_headings_with_content, paginated_document


@pytest.fixture
def file_workbench(qtbot, tmp_path, thesis_workbench):
    workbench = thesis_workbench
    files = {p.name: p for p in write_thesis_example(tmp_path / "example")}
    workbench.use_weights_file(str(files["weights_table_4_2.csv"]))
    qtbot.waitUntil(lambda: workbench.current_report() is not None and not workbench.runner.current
                    and abs(workbench.current_report().scores.tkl - 4.98258) < 5e-6, timeout=15000)
    return workbench, files["weights_table_4_2.csv"]


def _image_count(page) -> int:
    objects = page.get("/Resources", {}).get("/XObject", {})
    return sum(1 for ref in objects.values() if ref.get_object().get("/Subtype") == "/Image")


def _plain(html: str) -> str:
    """The HTML without the markers that keep numbers on one line."""
    return html.replace(" class='nowrap' nowrap", "")


def _pdf_pages(path) -> list[str]:
    return [" ".join(page.extract_text().split()) for page in pypdf.PdfReader(str(path)).pages]


def test_html_names_its_weights_file_with_sha256_and_judges_each_score(file_workbench, tmp_path):
    workbench, weights_file = file_workbench
    data = report_input(workbench)
    text = export_report(tmp_path / "r.html", data).read_text(encoding="utf-8")
    digest = hashlib.sha256(weights_file.read_bytes()).hexdigest()
    assert f"Weights from the weights file {weights_file}" in text
    assert digest in text and "built-in example (thesis)" in text
    assert re.search(r"Written \d{4}-\d\d-\d\d \d\d:\d\d", text)
    # Scenario 1 with Table 4.2 (scoring.md oracles) and its verdicts: tkl 0.5686 of the source → high
    for expected in ("4.98258", "0.5686", "1.54949", "1.6704", "0.4082", "0.7143", "1.06272", "0.5055",
                     "Scenario 2", "8.76302", "<b>Verdict: high</b> (0.5686", "<b>Verdict: moderate</b> (0.4082"):
        assert expected in text, expected
    assert "x = x" not in text and "M-Score (x = 1)" in text
    assert "&amp;nbsp;" not in text and "&amp;" not in text
    # the charts inline as SVG (releases, per record, growth, risk bands, D(r)): the file stands alone
    assert text.count("<svg xmlns='http://www.w3.org/2000/svg'") == 5 and "<img" not in text


def test_html_with_the_model_shows_readable_nodes_and_the_one_ahp_verdict(thesis_workbench):
    data = report_input(thesis_workbench)
    text = _plain(build_report_html(data))
    assert "Weights derived from the tkl-Data Model" in text and "4.92534" in text
    # the one AHP verdict (core/model/ahp.py) in the consistency table: MedicalHealth CR 0.0088
    assert "<td align='right'>0.0088</td><td align='left'>acceptable (CR 0.0088 ≤ 0.10)</td>" in text
    assert "NO (CR" not in text
    # node names: the value as the name, the code as a tag; inherited labels in brackets
    assert "V-0.Flu" not in text
    assert re.search(r"Flu</td><td align='left'>V-0</td><td align='left'>value</td><td align='left'>low</td>",
                     text)
    assert re.search(r"H1N1</td><td align='left'>V-0</td><td align='left'>value</td>"
                     r"<td align='left'>\(restricted\)</td>", text)
    # AHP priorities and label scores in columns of their own
    assert re.search(r"Health</td><td align='left'></td><td align='left'>taxonomy</td><td align='left'></td>"
                     r"<td align='right'>0.5396</td><td align='right'></td>", text)
    assert re.search(r"HIV</td><td align='left'>V-0</td><td align='left'>value</td><td align='left'>very "
                     r"restricted</td><td align='right'></td><td align='right'>1</td>"
                     r"<td align='right'>0.43169</td>", text)
    assert "tkl-Data Model as used (Turtle)" in text


def test_pdf_keeps_headings_with_their_charts_and_numbers_its_pages(thesis_workbench, tmp_path):
    data = report_input(thesis_workbench)
    data.charts = report_charts(data)
    assert set(data.charts) == {CHART_RELEASES, CHART_PER_RECORD, CHART_GROWTH}
    path = export_report(tmp_path / "r.pdf", data)
    pages = _pdf_pages(path)
    assert len(pages) >= 3
    for number, page in enumerate(pages, 1):
        assert f"page {number} of {len(pages)}" in page
    whole = " ".join(pages)
    for heading, start_of_body in (("Per-record scores Each published record's", "Per-record scores"),
                                   ("How the scores grow as records are added", "published records (in published order)")):
        assert heading in whole
        on = [i for i, page in enumerate(pages) if heading in page]
        assert on and start_of_body in pages[on[0]]
    # the chart images sit on the pages of their headings
    reader = pypdf.PdfReader(str(path))
    image_pages = [i for i, page in enumerate(reader.pages) if _image_count(page)]
    chart_headings = ("Candidate releases side by side", "Per-record scores Each", "How the scores grow",
                      "Distribution of per-record risk", "Disclosure risk D(r) Orooji")
    heading_pages = {i for i, page in enumerate(pages) for h in chart_headings if h in page}
    assert set(image_pages) == heading_pages
    # the scores' charts drawn above, the risk lens' two when the report measured the release
    assert sum(_image_count(reader.pages[i]) for i in image_pages) == 5


def test_a_heading_at_the_foot_of_a_page_moves_to_the_next(qtbot):
    from PySide6.QtGui import QImage

    filler = "".join(f"<p>line {i}</p>" for i in range(30))  # about 800 of the page's 900 px
    text = f"<html><body>{filler}<h2>The chart</h2><p><img src='chart.png' width='600'></p></body></html>"
    image = QImage(600, 400, QImage.Format.Format_RGB32)
    image.fill(0xFFFFFF)
    data = ReportInput(None, None, {}, Roles())
    document = paginated_document(text, data, QSizeF(680, 900))
    layout = document.documentLayout()
    block = document.begin()
    while block.isValid() and block.text() != "The chart":
        block = block.next()
    heading, picture = layout.blockBoundingRect(block), layout.blockBoundingRect(block.next())
    assert int(heading.top() // 900) == int((picture.bottom() - 1) // 900) == 1
    assert keep_headings_with_content(document) == 0  # already done: nothing more to move


def test_more_measures_add_their_own_sections(thesis_workbench, monkeypatch):
    monkeypatch.setattr(sections_module, "SECTION_BUILDERS", list(sections_module.SECTION_BUILDERS))

    def risk(data):
        yield Section("Re-identification risk", f"<p>{data.report.published_rows} records at risk</p>")

    add_section_builder(risk, before=sections_module.records_section)
    text = build_report_html(report_input(thesis_workbench))
    assert "<h2>Re-identification risk</h2><p>4 records at risk</p>" in text
    assert text.index("Re-identification risk") < text.index("Per-record scores (riskiest")


@pytest.mark.parametrize("value, level", [(0.0, "low"), (0.25, "low"), (0.2500001, "moderate"),
                                          (0.5686, "high"), (0.75, "high"), (1.0, "very high"),
                                          (None, "undefined")])
def test_score_verdict_bands(value, level):
    assert verdict(value).level == level


def _cli_arguments(folder):
    files = {p.name: p for p in write_thesis_example(folder)}
    return files, [str(files["table_3_1.csv"]), "--published", str(files["table_3_6.csv"]), "--id-column", "id",
                   "--qi", "Job,City,Gender", "--sa", "Disease,Medication,Age,Initial Diagnosis",
                   "--continuous", "Age"]


def test_cli_report_pdf_from_the_model(qtbot, tmp_path, capsys):
    from tklscore.cli.main import main

    files, arguments = _cli_arguments(tmp_path / "ex")
    out = tmp_path / "report.pdf"
    assert main(["report", *arguments, "--model", str(files["model.ttl"]), "--output", str(out)]) == 0
    pages = _pdf_pages(out)
    assert len(pages) >= 3 and f"page 1 of {len(pages)}" in pages[0]
    whole = " ".join(pages)
    assert "tkl-Score release report: table_3_6.csv" in whole
    assert "Weights derived from the tkl-Data Model" in whole and "4.92534" in whole
    assert hashlib.sha256(files["table_3_1.csv"].read_bytes()).hexdigest()[:40] in whole.replace(" ", "")
    assert f"report written to {out}" in capsys.readouterr().err


def test_cli_report_html_and_csv_from_a_weights_file(qtbot, tmp_path):
    from tklscore.cli.main import main

    files, arguments = _cli_arguments(tmp_path / "ex")
    weights = ["--weights", str(files["weights_table_4_2.csv"])]
    assert main(["report", *arguments, *weights, "--output", str(tmp_path / "r.html")]) == 0
    text = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "4.98258" in text and "0.5686" in text and "Weights from the weights file" in text
    assert hashlib.sha256(files["table_3_6.csv"].read_bytes()).hexdigest() in text
    assert main(["report", *arguments, *weights, "--output", str(tmp_path / "r.csv")]) == 0
    lines = (tmp_path / "r.csv").read_text().splitlines()
    assert lines[0] == ("id,k,l,t,weight_sum,tkl,m_score,l_severity,prosecutor_risk,journalist_risk,"
                        "disclosure_risk") and len(lines) == 5
    # record 3: class of 2 in the release and in the source; D(r) with the default parameters
    assert lines[1].startswith("3,2,1,") and lines[1].endswith(",0.5,0.5,0.9396")


def test_cli_report_has_the_risk_lens(qtbot, tmp_path):
    from tklscore.cli.main import main

    files, arguments = _cli_arguments(tmp_path / "ex")
    out = tmp_path / "report.pdf"
    assert main(["report", *arguments, "--weights", str(files["weights_table_4_2.csv"]), "--output", str(out)]) == 0
    whole = " ".join(_pdf_pages(out)).replace("\ufb01", "fi")  # the PDF's ﬁ ligature
    for heading in ("Risk of re-identification of table_3_6.csv", "Attacker models side by side",
                    "Distribution of per-record risk", "Quasi-identifier importance", "Disclosure risk D(r)",
                    "Parameters of D(r)", "Riskiest records"):
        assert heading in whole, heading
    assert "8 of 128 known sets are kept" in whole and "4 of 4 records" in whole and "0.9396" in whole


def test_cli_report_refuses_an_unknown_format(tmp_path, capsys):
    from tklscore.cli.main import main

    files, arguments = _cli_arguments(tmp_path / "ex")
    status = main(["report", *arguments, "--weights", str(files["weights_table_4_2.csv"]),
                   "--output", str(tmp_path / "r.docx")])
    assert status == 2
    assert "a report can be written as .html, .pdf or .csv, not '.docx'" in capsys.readouterr().err
    assert not (tmp_path / "r.docx").exists()


def test_cli_report_draws_offscreen_without_a_display(monkeypatch):
    from tklscore.cli import report as cli_report

    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(cli_report.sys, "platform", "linux")
    cli_report._offscreen_without_display()
    assert cli_report.os.environ["QT_QPA_PLATFORM"] == "offscreen"
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    cli_report._offscreen_without_display()
    assert cli_report.os.environ["QT_QPA_PLATFORM"] == "xcb"


def test_cli_report_never_overwrites_an_input(tmp_path, capsys):
    from tklscore.cli.main import main

    files, arguments = _cli_arguments(tmp_path / "ex")
    before = files["table_3_6.csv"].read_bytes()
    status = main(["report", *arguments, "--weights", str(files["weights_table_4_2.csv"]),
                   "--output", str(files["table_3_6.csv"])])
    assert status == 2 and files["table_3_6.csv"].read_bytes() == before
    assert "table_3_6.csv" in capsys.readouterr().err


def test_the_weights_choice_travels_with_the_project(tmp_path):
    from tklscore.core.project import Project

    models = [str(tmp_path / "m.ttl"), str(tmp_path / "l.ttl")]
    project = Project(weights_path=str(tmp_path / "w.csv"), weights_use="score models", score_model_paths=models)
    project.save(tmp_path / "p.tklproj")
    again = Project.load(tmp_path / "p.tklproj")
    assert again.weights_use == "score models" and again.score_model_paths == models
    assert Project.from_dict({"format": "tklscore-project", "source": {}}).weights_use is None


def test_cli_report_html_and_csv_run_without_qt(tmp_path):
    """The report is Qt-free: only a PDF loads PySide6 (issue 21 §2). Both reports in one new
    process (a Python start each cost about a CPU-second), Qt's modules looked for after each."""
    import subprocess
    import sys

    files, arguments = _cli_arguments(tmp_path / "ex")
    outs = {suffix: tmp_path / f"r{suffix}" for suffix in (".html", ".csv")}
    argvs = [["report", *arguments, "--weights", str(files["weights_table_4_2.csv"]), "--output", str(out)]
             for out in outs.values()]
    code = ("import sys\n"
            "from tklscore.cli.main import main\n"
            f"for argv in {argvs!r}:\n"
            "    status = main(argv)\n"
            "    loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph'))\n"
            "    print(status, loaded)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["0 []", "0 []"], done.stdout
    text = outs[".html"].read_text(encoding="utf-8")
    assert text.count("<svg xmlns='http://www.w3.org/2000/svg'") == 5   # its charts, standing alone
    assert "0.9396" in text and "Riskiest records" in text
    assert outs[".csv"].read_text().splitlines()[0].endswith("disclosure_risk")


def test_release_names_keep_their_room_and_headings_break_only_between_words(thesis_workbench):
    """The candidate releases' table on an A4 page: a long release name keeps a column of
    its own (not one word a line beside the numbers), no heading breaks at a hyphen or inside
    its parenthesis, and the table stays within the page (issue 22 §4)."""
    from PySide6.QtGui import QTextTable

    from tklscore.core.release.selection import ReleaseDefinition
    from tklscore.core.report.html import heading, table

    assert heading("M-Score (x = 1)") == "M\u2011Score (x\u00a0=\u00a01)"
    assert heading("L-Severity") == "L\u2011Severity" and heading("a < b") == "a &lt; b"
    assert "<th width='140'>release</th>" in table(["release", "n"], [["a", "1"]], widths={0: 140})
    long = "Records 0, 1 and 2: the first three patients of the hospital's cardiology ward"
    thesis_workbench.add_release(ReleaseDefinition(long, "ids", ids=("0", "1", "2")), make_current=False)
    thesis_workbench.rescore()
    data = report_input(thesis_workbench)
    data.reports = {**data.reports, long: data.reports["Scenario 1"]}
    page = QSizeF(680, 1000)
    document = paginated_document(build_report_html(data, inline_images=False), data, page)
    layout = document.documentLayout()
    tables = [f for f in document.rootFrame().childFrames() if isinstance(f, QTextTable)
              and f.cellAt(0, 0).firstCursorPosition().block().text() == "release"]
    assert len(tables) == 1
    releases = tables[0]
    assert layout.frameBoundingRect(releases).width() <= page.width() - 2 * document.documentMargin()
    name_cell = [r for r in range(releases.rows())
                 if releases.cellAt(r, 0).firstCursorPosition().block().text() == long][0]
    assert layout.blockBoundingRect(releases.cellAt(name_cell, 0).firstCursorPosition().block()).width() >= 120
    one_line = layout.blockBoundingRect(releases.cellAt(0, 1).firstCursorPosition().block()).height()
    for column in range(releases.columns()):
        cell = layout.blockBoundingRect(releases.cellAt(0, column).firstCursorPosition().block())
        text = releases.cellAt(0, column).firstCursorPosition().block().text()
        assert cell.height() <= one_line * (2 if "(" in text else 1) + 1, text
