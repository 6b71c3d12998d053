"""The report as PDF: the Qt adapter of the Qt-free report (``core/report``).

The core builds the HTML with each chart referenced as ``KEY.png``; here the charts' SVG
become images (:func:`chart_images`), Qt's own text layout sets the HTML on A4 pages with
every heading kept on the page of what it introduces (:func:`paginated_document`) and a
QPdfWriter prints them with a footer naming the release and the page. The PDF is laid out
in memory, every step of Qt's checked, and written by Python (a full disk is an error,
never a truncated report renamed over the previous one). :func:`write_pdf` is the one
function that writes a PDF report file.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRectF, QSizeF, QUrl, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QTextBlockFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextOption,
)
from PySide6.QtSvg import QSvgRenderer

from tklscore import __version__
from tklscore.core.errors import InputError
from tklscore.core.report import ReportInput, build_report_html, complete_risk, hash_files, report_title, write_atomic
from tklscore.core.report.files import inputs_of

KEEP_WHOLE = 0.6            # a section up to this share of a page is kept on one page (a chart with its heading)
KEEP_WITH_HEADING = 0.2      # a longer one keeps its heading with this share of a page of its start
PAGE_FOOTER = 28             # px kept free at the bottom of each PDF page for the footer
CHART_SCALE = 1.5            # a chart's SVG is drawn at this multiple of its size (printed at 2/3 of it)


def write_pdf(path: str | Path, data: ReportInput) -> Path:
    """Write the report as PDF to ``path`` (through a temporary file renamed over it, never
    over an input): hash the inputs, measure the risk if asked, draw the charts and print
    the pages. Safe off the UI thread."""
    path = Path(path)
    hash_files(data)
    complete_risk(data)
    text = build_report_html(data, inline_images=False)   # draws the charts as SVG into data.charts
    return write_atomic(path, lambda temporary: print_pdf(temporary, text, data, name=str(path)), inputs_of(data))


def chart_image(svg: str, scale: float = CHART_SCALE) -> QImage:
    """An SVG chart drawn on a white image ``scale`` times its size."""
    renderer = QSvgRenderer(QByteArray(svg.encode("utf-8")))
    size = renderer.defaultSize()
    image = QImage(max(int(size.width() * scale), 1), max(int(size.height() * scale), 1),
                   QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        renderer.render(painter, QRectF(0, 0, image.width(), image.height()))
    finally:
        painter.end()
    return image


def chart_images(data: ReportInput) -> dict[str, QImage]:
    """The report's charts (SVG) as images, by chart key."""
    return {key: chart_image(svg) for key, svg in data.charts.items()}


def _page_writer(device: QIODevice) -> QPdfWriter:
    writer = QPdfWriter(device)
    writer.setResolution(96)  # one document pixel = one device pixel; text stays vector, images keep their pixels
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Portrait,
                                     QMarginsF(15, 15, 15, 12), QPageLayout.Unit.Millimeter))
    return writer


def paginated_document(text: str, data: ReportInput, page: QSizeF) -> QTextDocument:
    """The report laid out on pages of ``page`` (px at 96 dpi), headings kept with what follows."""
    document = QTextDocument()
    font = QFont()
    font.setPointSize(10)
    document.setDefaultFont(font)
    option = document.defaultTextOption()
    option.setWrapMode(QTextOption.WrapMode.WordWrap)   # a table column is never narrower than its longest word
    document.setDefaultTextOption(option)
    for key, image in chart_images(data).items():
        document.addResource(QTextDocument.ResourceType.ImageResource, QUrl(f"{key}.png"), image)
    document.setHtml(text)
    document.setPageSize(page)
    keep_headings_with_content(document)
    return document


def keep_headings_with_content(document: QTextDocument, share: float = KEEP_WITH_HEADING) -> int:
    """Start a section on the next page when it would be split across pages: a section of
    up to :data:`KEEP_WHOLE` of a page is kept whole (a heading with its chart), a longer one
    keeps its heading with ``share`` of a page of what follows (a table's first rows).
    Returns the number of page breaks added."""
    layout = document.documentLayout()
    height = document.pageSize().height()
    added = 0
    for _ in range(200):  # one break per pass: each moves everything below it
        moved = False
        layout.documentSize()  # lays out the whole document (the layout is otherwise lazy)
        block = document.begin()
        while block.isValid() and not moved:
            policy = block.blockFormat().pageBreakPolicy()
            if block.blockFormat().headingLevel() > 0 and policy != QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore:
                top = layout.blockBoundingRect(block).top()
                bottom = _section_bottom(document, block)
                if bottom - top > KEEP_WHOLE * height:  # long: keep the heading with its start, and its chart
                    chart = _first_image_bottom(document, block)
                    start = top + share * height
                    if chart is not None and chart - top <= KEEP_WHOLE * height:
                        start = max(start, chart)
                    bottom = min(bottom, start)
                if int(top // height) != int((bottom - 1) // height):
                    cursor = QTextCursor(block)
                    fmt = QTextBlockFormat(block.blockFormat())
                    fmt.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore)
                    cursor.setBlockFormat(fmt)
                    added += 1
                    moved = True
            block = block.next()
        if not moved:
            break
    return added


def _first_image_bottom(document: QTextDocument, heading) -> float | None:
    """The bottom of the first block holding an image (a chart) in the section of ``heading``."""
    layout = document.documentLayout()
    following = heading.next()
    while following.isValid() and following.blockFormat().headingLevel() == 0:
        fragments = following.begin()
        while not fragments.atEnd():
            if fragments.fragment().charFormat().isImageFormat():
                return layout.blockBoundingRect(following).bottom()
            fragments += 1
        following = following.next()
    return None


def _section_bottom(document: QTextDocument, heading) -> float:
    """The bottom of the blocks from ``heading`` to the next heading that follows content."""
    layout = document.documentLayout()
    bottom = layout.blockBoundingRect(heading).bottom()
    following, content = heading.next(), False
    while following.isValid():
        is_heading = following.blockFormat().headingLevel() > 0
        if content and is_heading:
            break
        bottom = max(bottom, layout.blockBoundingRect(following).bottom())
        content = content or not is_heading
        following = following.next()
    return bottom


def print_pdf(path: Path, text: str, data: ReportInput, name: str | None = None) -> int:
    """The report's HTML (charts by name) as PDF written to ``path`` (``name``: the file as
    the user named it, for messages); returns the number of pages. Every byte is checked as
    written: a write that fails (a full disk) raises, never leaving a shorter file that
    looks whole."""
    pdf, pages = render_pdf(text, data, name or str(path))
    with open(path, "wb") as handle:
        written = handle.write(pdf)
        handle.flush()
        os.fsync(handle.fileno())
    size = os.path.getsize(path)
    if written != len(pdf) or size != len(pdf):
        raise InputError(f"only {size:,} of the report's {len(pdf):,} bytes could be written", file=name or str(path))
    return pages


def render_pdf(text: str, data: ReportInput, name: str = "the report") -> tuple[bytes, int]:
    """The report as the bytes of a PDF file, and its number of pages; an error when Qt
    fails at any step (the PDF would be incomplete)."""
    buffer = QBuffer()
    if not buffer.open(QIODevice.OpenModeFlag.WriteOnly):
        raise InputError("the PDF cannot be laid out (no memory for it)", file=name)
    writer = _page_writer(buffer)
    writer.setTitle(report_title(data))
    writer.setCreator(f"tkl-Score Workbench {__version__}")
    width, height = float(writer.width()), float(writer.height())
    page = QSizeF(width, height - PAGE_FOOTER)
    document = paginated_document(text, data, page)
    pages = document.pageCount()
    painter = QPainter()
    if not painter.begin(writer):
        raise InputError("the PDF writer could not start", file=name)
    complete = True
    try:
        footer_font = QFont()
        footer_font.setPointSize(8)
        for number in range(pages):
            if number and not writer.newPage():
                complete = False
                break
            painter.save()
            painter.setClipRect(QRectF(0, 0, width, page.height()))
            painter.translate(0, -number * page.height())
            context = QAbstractTextDocumentLayout.PaintContext()
            context.clip = QRectF(0, number * page.height(), width, page.height())
            document.documentLayout().draw(painter, context)
            painter.restore()
            painter.setFont(footer_font)
            painter.setPen(Qt.GlobalColor.darkGray)
            page_text = f"page {number + 1} of {pages}"
            metrics = QFontMetricsF(footer_font)
            room = width - metrics.horizontalAdvance(f"  {page_text}") - 24
            written = f" · {data.written:%Y-%m-%d %H:%M}"
            title = metrics.elidedText(report_title(data), Qt.TextElideMode.ElideMiddle,
                                       room - metrics.horizontalAdvance(written))
            painter.drawText(QRectF(0, height - PAGE_FOOTER + 8, room, PAGE_FOOTER - 8),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, title + written)
            painter.drawText(QRectF(0, height - PAGE_FOOTER + 8, width, PAGE_FOOTER - 8),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, page_text)
    finally:
        ended = painter.end()
    buffer.close()
    pdf = bytes(buffer.data())
    if not (complete and ended) or not pdf.startswith(b"%PDF-") or b"%%EOF" not in pdf[-64:]:
        raise InputError(f"the PDF came out incomplete ({len(pdf):,} bytes, {pages} page(s) laid out)", file=name)
    return pdf, pages
