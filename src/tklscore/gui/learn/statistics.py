"""The Learn view's statistics of the anonymised table, as the teaching prototype's right-hand
panel (privacy: k, (X,Y), l, t and the QID groups' sizes), plus the usefulness and the misuse
scores (tkl, M, L) it lacked. Every number is core/learn's."""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QTabWidget, QTextBrowser, QVBoxLayout, QWidget

from tklscore.core.learn import tasks
from tklscore.core.learn.scores import NORMALISED_MEANING, LearnScores
from tklscore.core.learn.usefulness import Usefulness
from tklscore.core.numbers import number, percent, score
from tklscore.core.scoring.meaning import bands_text
from tklscore.gui.plots import plot_widget


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


UTILITY_FORMAT = {"precision": number, "discernibility": lambda v: number(v, 6),
                  "average_class_size": number, "non_uniform_entropy": lambda v: number(v, 6),
                  "suppressed_share": percent}


def usefulness_html(useful: Usefulness) -> str:
    e = html.escape
    blocks = ["<p>How useful your table still is, next to the original table (its QID columns as they are, "
              "every row published). The release designer's measures.</p>"]
    for row in useful.rows:
        shown = UTILITY_FORMAT[row.key]
        change = ""
        if abs(row.current - row.original) > 1e-12:
            worse = (row.current < row.original) == row.higher_is_better
            change = (f" <span style='color:{'#a11' if worse else '#1b6e1b'}'>"
                      f"({'less' if worse else 'more'} useful)</span>")
        blocks.append(f"<p><b>{e(row.name)}</b>: original {shown(row.original)} → yours "
                      f"<b>{shown(row.current)}</b>{change}<br><span style='color:#555'>{e(row.meaning)}</span></p>")
    return "".join(blocks)


def scores_html(scored: LearnScores | None) -> str:
    e = html.escape
    if scored is None:
        return ("<p>Mark one column as <b>Sensitive</b> to see how much your table leaves to misuse "
                "(tkl-Score, M-Score, L-Severity).</p>")
    blocks = [f"<p>How much your table leaves to misuse, as a release of the original table. "
              f"<i>{e(scored.weights_source)}</i></p>"]
    for row in scored.rows:
        ratio = "—" if row.normalised is None else percent(row.normalised)
        blocks.append(f"<p><b>{e(row.name)}</b>: original {score(row.original)} → yours "
                      f"<b>{score(row.raw)}</b> = <b>{ratio}</b> of the original's ({e(row.verdict)})<br>"
                      f"<span style='color:#555'>{e(row.meaning)}</span></p>")
    bands = bands_text(percent=True)
    blocks.append(f"<p style='color:#555'>{e(NORMALISED_MEANING)} {e(bands[0].upper() + bands[1:])}.</p>")
    if scored.notes:
        blocks.append("<p style='color:#555'>" + "<br>".join(e(n) for n in scored.notes) + "</p>")
    return "".join(blocks)


class Statistics(QWidget):
    """The statistics of the anonymised table, as the prototype's right-hand panel, plus the
    models it lacked."""

    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.tabs = QTabWidget()
        privacy = QWidget()
        privacy_layout = QVBoxLayout(privacy)
        privacy_layout.setContentsMargins(0, 0, 0, 0)
        self.usefulness = QTextBrowser()
        self.scores = QTextBrowser()
        self.tabs.addTab(privacy, "Privacy")
        self.tabs.addTab(self.usefulness, "Usefulness")
        self.tabs.addTab(self.scores, "Misuse: tkl, M, L")
        layout.addWidget(self.tabs)
        self.text = QTextBrowser()
        self.chart = plot_widget(background="w")
        self.chart.setMinimumHeight(170)
        self.chart.setLabel("bottom", "QID group size (rows)")
        self.chart.setLabel("left", "groups")
        self.chart.setTitle("Distribution of QID groups", color="#333")
        self.chart.setMouseEnabled(False, False)
        privacy_layout.addWidget(self.text, 3)
        privacy_layout.addWidget(self.chart, 2)

    def clear(self, message: str) -> None:
        self.text.setHtml(message)
        self.usefulness.setHtml("<p>The usefulness of the anonymised table appears here.</p>")
        self.scores.setHtml("<p>The tkl-Score, M-Score and L-Severity of the anonymised table appear here.</p>")
        self.chart.clear()
        self.chart.hide()

    def show_applied(self, applied: tasks.Applied, legacy_failures: int, useful: Usefulness | None = None,
                     scored: LearnScores | None = None) -> None:
        m = applied.measures
        models = m.models
        e = html.escape
        lines = []
        suppressed = len(applied.transformed.suppressed)
        if applied.recipe.suppress_below > 1:
            total = len(applied.table)
            lines.append(f"<h3>Suppression</h3><p>Rows left out: <b>{suppressed}</b> of {total} "
                         f"({percent(suppressed / total)}), because their QID group had fewer than "
                         f"{applied.recipe.suppress_below} rows.")
            if applied.transformed.below_limit_left:
                lines.append(f"<br><span style='color:#a11'>The limit of {percent(applied.recipe.suppression_limit)} "
                             f"is too small: {applied.transformed.below_limit_left} row(s) in smaller groups are "
                             f"still published.</span>")
            lines.append("</p>")
        if applied.repeated_people:
            lines.append(f"<p style='color:#a11'>Some rows of a QID group share their ID values "
                         f"({e(', '.join(applied.recipe.identifiers))}). If they are one person with several "
                         f"rows, k counts rows, so read (X,Y)-anonymity below, which counts people; if they are "
                         f"different people, mark more columns as ID.</p>")
        lines += [f"<h3>k-anonymity</h3><p>Unique QID groups: <b>{m.classes.count}</b><br>"
                 f"Smallest QID group: <b>{m.classes.min}</b> rows &nbsp; Largest: <b>{m.classes.max}</b> rows<br>"
                 f"The table is <b>{m.k}-anonymous</b>: a person's row is one of at least {m.k}.</p>"]
        if models.xy_anonymity is not None:
            lines.append(f"<h3>(X,Y)-anonymity</h3><p>Each QID group holds at least <b>{models.xy_anonymity}</b> "
                         f"different people ({e(', '.join(applied.recipe.identifiers))}); the largest holds "
                         f"{applied.most_persons}.</p>")
        if models.l_distinct is not None:
            single = applied.single_valued_groups
            recursive = (f"Recursive: (c,{models.l_distinct})-diverse for every whole c ≥ {models.recursive_c} "
                         f"(in every group the commonest value occurs less than c times as often as all values "
                         f"from the {_ordinal(models.l_distinct)} commonest on together)"
                         if models.recursive_c else "Recursive (c,l)-diversity needs l ≥ 2.")
            lines.append(f"<h3>l-diversity ({e(applied.recipe.sensitive)})</h3><p>Least diverse group: "
                         f"<b>{models.l_distinct}</b> distinct value(s); most diverse: "
                         f"{applied.most_distinct}<br>"
                         f"Entropy l: <b>{number(models.l_entropy)}</b> (the least mixed group is as mixed as "
                         f"{number(models.l_entropy, 3)} equally common values)<br>{recursive}<br>"
                         + (f"<span style='color:#a11'>{single} group(s) hold a single value: anyone in them "
                            f"has it (their rows are shaded in the anonymised table).</span>"
                            if single else "No group holds a single value.") + "</p>")
            lines.append(f"<h3>t-closeness</h3><p>Largest distance of a group from the table (EMD): "
                         f"<b>{number(models.t)}</b>, so the table is {number(models.t)}-close (0 = every group's values "
                         f"are spread as in the whole table, 1 = as far from it as can be).<br>"
                         f"<i>Teaching prototype's check (legacy):</i> {legacy_failures} of {m.classes.count} "
                         f"groups have a value whose share differs from the table's by more than "
                         f"{tasks.LEGACY_T_THRESHOLD:g}.<br>"
                         f"In the whole table: " + ", ".join(f"{percent(share)} {e(value)}" for value, share
                                                             in applied.sensitive_shares().head(8).items())
                         + (" …" if len(applied.sensitive_shares()) > 8 else "") + "</p>")
        lines.append(f"<p>Rows published: {len(applied.published)} of {len(applied.table)}. "
                     f"Usefulness and misuse scores: see the other tabs.</p>")
        self.text.setHtml("".join(lines))
        if useful is not None:
            self.usefulness.setHtml(usefulness_html(useful))
        self.scores.setHtml(scores_html(scored))
        histogram = applied.size_histogram()
        self.chart.clear()
        self.chart.show()
        self.chart.addItem(pg.BarGraphItem(x=np.array(list(histogram), dtype=float),
                                           height=np.array(list(histogram.values()), dtype=float),
                                           width=0.8, brush=QColor("#4a7ebb")))
        self.chart.getAxis("bottom").setTickSpacing(major=max(1, int(np.ceil(max(histogram) / 10))), minor=1)
        self.chart.getAxis("left").setTickSpacing(major=max(1, int(np.ceil(max(histogram.values()) / 8))), minor=1)
