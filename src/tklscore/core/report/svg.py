"""The report's charts as SVG, written without Qt: grouped bars, lines and a histogram
with axes in the data's own units, a legend above the plot and category labels that stay
readable (wrapped on two lines, or abbreviated with a key below the chart).

Only SVG Tiny 1.2 is written (presentation attributes, no CSS), so the same picture shows in
a browser and through Qt's SVG renderer on a PDF page. Text is sized by an estimate of its
width (:data:`CHAR_WIDTH` of the font size per character).
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, field
from html import escape

import numpy as np

from tklscore.core.numbers import number

WIDTH, HEIGHT = 960, 540
FONT = 17                 # px: the chart is shown at about two thirds of its size on a page
CHAR_WIDTH = 0.6          # a character of DejaVu Sans / Arial is at most this share of the font size wide
FONT_FAMILY = "DejaVu Sans, Arial, Helvetica, sans-serif"
INK, GRID, AXIS = "#222222", "#dddddd", "#444444"
MAX_LINE_POINTS = 1600    # a longer series is drawn as the low and high of each of 800 buckets


def rgb(color: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*color)


def text_width(text: str, size: float = FONT) -> float:
    return len(text) * size * CHAR_WIDTH


def nice_ticks(low: float, high: float, count: int = 6, whole: bool = False) -> list[float]:
    """Round tick values covering [low, high] (steps of 1, 2 or 5 × 10^n; ``whole``: of
    counted things, at least 1 apart)."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        high = low + 1.0
    raw = (high - low) / max(count - 1, 1)
    if whole:
        raw = max(raw, 1.0)
    power = 10 ** math.floor(math.log10(raw))
    steps = (1, 2, 5, 10) if whole else (1, 2, 2.5, 5, 10)
    step = next(s * power for s in steps if s * power >= raw)
    first = math.floor(low / step + 1e-9) * step
    ticks, value = [], first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 12))
        value += step
    if ticks[-1] < high - step * 1e-9:
        ticks.append(round(value, 12))
    return ticks


def tick_text(value: float) -> str:
    return number(value, 4)


def wrap_label(text: str, width_px: float, lines: int = 2, size: float = FONT) -> list[str] | None:
    """``text`` on at most ``lines`` lines of ``width_px``, broken between words (or after
    / _ - . , when a word is longer than a line); None when it does not fit."""
    per_line = max(int(width_px / (size * CHAR_WIDTH)), 1)
    if len(text) <= per_line:
        return [text]
    spaced = text
    for mark in ("/", "_", "-", ".", ","):
        spaced = spaced.replace(mark, mark + "\u200b")
    wrapped = textwrap.wrap(spaced.replace("\u200b", " \u200b"), per_line, break_long_words=False,
                            break_on_hyphens=False)
    wrapped = [line.replace(" \u200b", "").replace("\u200b", "").strip() for line in wrapped]
    if len(wrapped) > lines or any(len(line) > per_line for line in wrapped):
        return None
    return wrapped


@dataclass
class Canvas:
    """An SVG picture being drawn: elements in order, then :meth:`svg`."""

    width: int = WIDTH
    height: int = HEIGHT
    title: str = ""
    parts: list[str] = field(default_factory=list)

    def text(self, x: float, y: float, text: str, size: float = FONT, anchor: str = "middle", color: str = INK,
             weight: str = "normal", rotate: float | None = None) -> None:
        transform = f" transform='rotate({rotate:g} {x:.1f} {y:.1f})'" if rotate is not None else ""
        self.parts.append(f"<text x='{x:.1f}' y='{y:.1f}' font-family='{FONT_FAMILY}' font-size='{size:g}' "
                          f"font-weight='{weight}' fill='{color}' text-anchor='{anchor}'{transform}>"
                          f"{escape(text)}</text>")

    def line(self, x1: float, y1: float, x2: float, y2: float, color: str = AXIS, width: float = 1,
             dash: str | None = None) -> None:
        pattern = f" stroke-dasharray='{dash}'" if dash else ""
        self.parts.append(f"<line x1='{x1:.1f}' y1='{y1:.1f}' x2='{x2:.1f}' y2='{y2:.1f}' stroke='{color}' "
                          f"stroke-width='{width:g}'{pattern}/>")

    def rect(self, x: float, y: float, w: float, h: float, fill: str, stroke: str | None = None) -> None:
        outline = f" stroke='{stroke}' stroke-width='0.6'" if stroke else ""
        self.parts.append(f"<rect x='{x:.2f}' y='{y:.2f}' width='{max(w, 0):.2f}' height='{max(h, 0):.2f}' "
                          f"fill='{fill}'{outline}/>")

    def polyline(self, points: list[tuple[float, float]], color: str, width: float = 2.2) -> None:
        if len(points) < 2:
            return
        coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        self.parts.append(f"<polyline points='{coords}' fill='none' stroke='{color}' stroke-width='{width:g}' "
                          f"stroke-linejoin='round'/>")

    def circle(self, x: float, y: float, r: float, color: str) -> None:
        self.parts.append(f"<circle cx='{x:.1f}' cy='{y:.1f}' r='{r:g}' fill='{color}'/>")

    def svg(self) -> str:
        title = f"<title>{escape(self.title)}</title>" if self.title else ""
        return (f"<svg xmlns='http://www.w3.org/2000/svg' version='1.2' baseProfile='tiny' "
                f"width='{self.width}' height='{self.height}' viewBox='0 0 {self.width} {self.height}'>"
                f"{title}<rect x='0' y='0' width='{self.width}' height='{self.height}' fill='white'/>"
                + "".join(self.parts) + "</svg>")


@dataclass
class Series:
    name: str
    color: tuple[int, int, int]
    values: np.ndarray             # one per category (bars) or per x (lines); NaN: no value


@dataclass
class Frame:
    """The plot area and its scales."""

    left: float
    top: float
    right: float
    bottom: float
    x_low: float
    x_high: float
    y_low: float
    y_high: float

    def x(self, value: float) -> float:
        return self.left + (value - self.x_low) / (self.x_high - self.x_low) * (self.right - self.left)

    def y(self, value: float) -> float:
        return self.bottom - (value - self.y_low) / (self.y_high - self.y_low) * (self.bottom - self.top)


def _header(canvas: Canvas, title: str, legend: list[tuple[str, str]]) -> float:
    """The title and a legend of (name, colour) rows under it; returns the plot's top."""
    y = FONT + 10
    canvas.text(canvas.width / 2, y, title, FONT + 2, weight="bold")
    if not legend:
        return y + 22
    y += 14
    x, row_top = 24.0, y
    size = FONT - 1
    for name, color in legend:
        item = 22 + text_width(name, size) + 26
        if x + item > canvas.width - 16 and x > 24:
            x, row_top = 24.0, row_top + size + 10
        canvas.rect(x, row_top + 2, 16, size - 2, color)
        canvas.text(x + 22, row_top + size - 1, name, size, anchor="start")
        x += item
    return row_top + size + 18


def _y_axis(canvas: Canvas, frame: Frame, ticks: list[float], label: str, formatter=tick_text) -> None:
    for value in ticks:
        y = frame.y(value)
        canvas.line(frame.left, y, frame.right, y, GRID)
        canvas.text(frame.left - 8, y + FONT * 0.35, formatter(value), FONT - 1, anchor="end")
    canvas.line(frame.left, frame.top, frame.left, frame.bottom, AXIS, 1.2)
    canvas.line(frame.left, frame.bottom, frame.right, frame.bottom, AXIS, 1.2)
    middle = (frame.top + frame.bottom) / 2
    canvas.text(18, middle, label, FONT - 1, rotate=-90)


def _left_margin(ticks: list[float], formatter=tick_text) -> float:
    return 44 + max(text_width(formatter(t), FONT - 1) for t in ticks)


def category_labels(names: list[str], slot_px: float, prefix: str = "R") -> tuple[list[list[str]], list[str]]:
    """Each name as the lines under its bars: wrapped on two lines when it fits, else every
    name is abbreviated (R1, R2, …) and the key (``R1 = name``) is returned to print below."""
    wrapped = [wrap_label(name, slot_px - 6, 2, FONT - 1) for name in names]
    if all(w is not None for w in wrapped):
        return wrapped, []
    short = [f"{prefix}{i}" for i in range(1, len(names) + 1)]
    return [[s] for s in short], [f"{s} = {name}" for s, name in zip(short, names)]


def _key(canvas: Canvas, key: list[str], top: float) -> None:
    per_line = int((canvas.width - 48) / ((FONT - 2) * CHAR_WIDTH))
    y = top
    for entry in key:
        for line in textwrap.wrap(entry, per_line, subsequent_indent="    ") or [entry]:
            canvas.text(24, y, line, FONT - 2, anchor="start")
            y += FONT + 2


def _key_height(canvas_width: int, key: list[str]) -> float:
    if not key:
        return 0.0
    per_line = int((canvas_width - 48) / ((FONT - 2) * CHAR_WIDTH))
    lines = sum(len(textwrap.wrap(entry, per_line, subsequent_indent="    ") or [entry]) for entry in key)
    return 12 + lines * (FONT + 2)


def grouped_bars(categories: list[str], series: list[Series], *, title: str, x_label: str, y_label: str,
                 y_max: float | None = None, value_format=tick_text, width: int = WIDTH,
                 height: int = HEIGHT) -> str:
    """Bars of each series side by side over each category; long category names wrapped or
    abbreviated with a key under the chart (which then grows taller)."""
    return _bars(categories, series, False, title, x_label, y_label, y_max, value_format, width, height)


def stacked_bars(categories: list[str], series: list[Series], *, title: str, x_label: str, y_label: str,
                 y_max: float | None = None, value_format=tick_text, width: int = WIDTH,
                 height: int = HEIGHT) -> str:
    """One bar per category, the series stacked (a series without a value there adds nothing):
    e.g. each bar coloured by its kind."""
    return _bars(categories, series, True, title, x_label, y_label, y_max, value_format, width, height)


def _bars(categories, series, stacked, title, x_label, y_label, y_max, value_format, width, height) -> str:
    heights = [np.nan_to_num(np.asarray(s.values, dtype=np.float64), nan=0.0) for s in series]
    if stacked and heights:
        totals = np.sum(heights, axis=0)
        top_value = float(totals.max()) if len(totals) else 0.0
    else:
        top_value = max([float(h.max()) for h in heights if len(h)] + [0.0])
    top_value = y_max if y_max is not None else (top_value if top_value > 0 else 1.0)
    ticks = nice_ticks(0.0, top_value)
    left = _left_margin(ticks, value_format)
    slot = (width - left - 24) / max(len(categories), 1)
    labels, key = category_labels(categories, slot)
    every = 1
    if key and all(len(c) <= 4 for c in categories):  # short names (numbers) that do not fit: every n-th
        labels, key = [[c] for c in categories], []
        every = max(1, math.ceil(text_width("0000", FONT - 1) / slot))
    lines = max((len(label) for label in labels), default=1)
    extra = _key_height(width, key)
    canvas = Canvas(width, int(height + extra), title)
    top = _header(canvas, title, [(s.name, rgb(s.color)) for s in series])
    bottom = height - 34 - lines * (FONT + 2) - 10
    frame = Frame(left, top, width - 24, bottom, -0.5, len(categories) - 0.5, 0.0, ticks[-1])
    _y_axis(canvas, frame, ticks, y_label, value_format)
    bar = 0.8 / (1 if stacked else max(len(series), 1))
    base = np.zeros(len(categories))
    for i, (s, values) in enumerate(zip(series, heights)):
        for c, value in enumerate(values):
            if stacked and value <= 0:
                continue
            offset = 0 if stacked else i
            x0, x1 = frame.x(c - 0.4 + bar * offset), frame.x(c - 0.4 + bar * (offset + 1))
            low = base[c] if stacked else 0.0
            y_top, y_bottom = frame.y(min(low + value, ticks[-1])), frame.y(min(low, ticks[-1]))
            canvas.rect(x0 + 0.5, y_top, x1 - x0 - 1, y_bottom - y_top, rgb(s.color), stroke="#333333")
        if stacked:
            base = base + values
    for c, label in enumerate(labels):
        if c % every:
            continue
        for j, line in enumerate(label):
            canvas.text(frame.x(c), frame.bottom + FONT + 6 + j * (FONT + 2), line, FONT - 1)
    canvas.text((frame.left + frame.right) / 2, height - 12, x_label, FONT - 1)
    if key:
        _key(canvas, key, height + 8)
    return canvas.svg()


def _envelope(xs: np.ndarray, ys: np.ndarray, limit: int = MAX_LINE_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """At most ``limit`` points that keep a long series' shape: each bucket's low and high."""
    n = len(xs)
    if n <= limit:
        return xs, ys
    buckets = limit // 2
    edges = np.linspace(0, n, buckets + 1).astype(np.int64)
    out_x, out_y = [], []
    for a, b in zip(edges[:-1], edges[1:]):
        if b <= a:
            continue
        part = ys[a:b]
        if np.isnan(part).all():
            continue
        low, high = int(np.nanargmin(part)), int(np.nanargmax(part))
        for index in sorted({low, high}):
            out_x.append(xs[a + index])
            out_y.append(part[index])
    return np.asarray(out_x), np.asarray(out_y)


def lines(xs: np.ndarray, series: list[Series], *, title: str, x_label: str, y_label: str,
          x_ticks: list[tuple[float, str]] | None = None, markers: bool | None = None,
          width: int = WIDTH, height: int = HEIGHT) -> str:
    """A line per series over ``xs`` (whole numbers on the x axis unless ``x_ticks`` name
    them); NaN values break a line."""
    xs = np.asarray(xs, dtype=np.float64)
    finite = [np.asarray(s.values, dtype=np.float64) for s in series]
    highest = max([float(np.nanmax(v)) for v in finite if len(v) and not np.isnan(v).all()] + [0.0])
    ticks = nice_ticks(0.0, highest if highest > 0 else 1.0)
    left = _left_margin(ticks)
    canvas = Canvas(width, height, title)
    top = _header(canvas, title, [(s.name, rgb(s.color)) for s in series])
    x_low, x_high = (float(xs.min()) - 0.5, float(xs.max()) + 0.5) if len(xs) else (0.0, 1.0)
    frame = Frame(left, top, width - 24, height - 34 - FONT - 16, x_low, x_high, 0.0, ticks[-1])
    _y_axis(canvas, frame, ticks, y_label)
    if x_ticks is None:
        whole = [t for t in nice_ticks(max(x_low, 0.0), x_high, 8) if float(t).is_integer() and x_low <= t <= x_high]
        x_ticks = [(t, f"{int(t):,}") for t in whole]
    else:  # as many named ticks as fit
        room = max(max((text_width(label, FONT - 2) for _, label in x_ticks), default=1) + 8, 1)
        every = max(1, math.ceil(len(x_ticks) * room / (frame.right - frame.left)))
        x_ticks = x_ticks[::every]
    for value, label in x_ticks:
        x = frame.x(value)
        canvas.line(x, frame.bottom, x, frame.bottom + 5, AXIS)
        canvas.text(x, frame.bottom + FONT + 6, label, FONT - 2)
    show_markers = markers if markers is not None else len(xs) <= 60
    for s, values in zip(series, finite):
        color = rgb(s.color)
        px, py = _envelope(xs, values)
        run: list[tuple[float, float]] = []
        for x, y in zip(px, py):
            if np.isnan(y):
                canvas.polyline(run, color)
                run = []
                continue
            run.append((frame.x(x), frame.y(y)))
            if show_markers:
                canvas.circle(frame.x(x), frame.y(y), 4, color)
        canvas.polyline(run, color)
    canvas.text((frame.left + frame.right) / 2, height - 12, x_label, FONT - 1)
    return canvas.svg()


def histogram(edges: np.ndarray, counts: np.ndarray, *, title: str, x_label: str, y_label: str,
              color: tuple[int, int, int], marker: tuple[float, str] | None = None,
              x_format=tick_text, x_ticks=None, width: int = WIDTH, height: int = HEIGHT) -> str:
    """Adjacent bars between ``edges``; ``marker`` (x, label) a red vertical line;
    ``x_ticks(low, high)`` the x axis' tick values (default: round numbers)."""
    counts = np.asarray(counts, dtype=np.float64)
    ticks = nice_ticks(0.0, float(counts.max()) if len(counts) and counts.max() > 0 else 1.0, whole=True)
    left = _left_margin(ticks)
    canvas = Canvas(width, height, title)
    top = _header(canvas, title, [])
    low = float(edges[0]) if len(edges) else 0.0
    high = float(edges[-1]) if len(edges) else 1.0
    if marker is not None:
        low, high = min(low, marker[0]), max(high, marker[0])
    pad = (high - low) * 0.03 or 0.5
    frame = Frame(left, top, width - 24, height - 34 - FONT - 16, low - pad, high + pad, 0.0, ticks[-1])
    _y_axis(canvas, frame, ticks, y_label)
    for a, b, c in zip(edges[:-1], edges[1:], counts):
        y = frame.y(c)
        canvas.rect(frame.x(a), y, frame.x(b) - frame.x(a), frame.bottom - y, rgb(color), stroke="#333333")
    for value in (x_ticks or (lambda a, b: nice_ticks(a, b, 8)))(frame.x_low, frame.x_high):
        if frame.x_low <= value <= frame.x_high:
            x = frame.x(value)
            canvas.line(x, frame.bottom, x, frame.bottom + 5, AXIS)
            canvas.text(x, frame.bottom + FONT + 6, x_format(value), FONT - 2)
    if marker is not None:
        x = frame.x(marker[0])
        canvas.line(x, frame.top, x, frame.bottom, "#d62728", 2.5)
        anchor = "start" if x < (frame.left + frame.right) / 2 else "end"
        canvas.text(x + (8 if anchor == "start" else -8), frame.top + FONT + 4, marker[1], FONT - 1,
                    anchor=anchor, color="#d62728")
    canvas.text((frame.left + frame.right) / 2, height - 12, x_label, FONT - 1)
    return canvas.svg()
