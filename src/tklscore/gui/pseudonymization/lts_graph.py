"""The LTS drawn as in the paper's Fig. 4: states left to right joined by their flows,
and from each at-risk state its risk transitions fanned out as dotted red arrows, each
annotated with its QI subset and N_v; the maximum one bold; a transition a blocking rule
refuses is drawn crossed out with the reason. Clicking a risk transition selects it."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import (QGraphicsEllipseItem, QGraphicsPathItem, QGraphicsScene, QGraphicsSimpleTextItem,
                               QGraphicsView)

STATE_RADIUS = 22
STEP = 175
FAN = 120                    # horizontal reach of a risk transition's arrow
RISK_RED = QColor("#c62828")
BLOCKED = QColor("#6d4c41")
SELECTED = QColor("#1565c0")


def _arrow_head(tip: QPointF, angle: float, size: float = 9) -> QPolygonF:
    left = QPointF(tip.x() - size * math.cos(angle - 0.4), tip.y() - size * math.sin(angle - 0.4))
    right = QPointF(tip.x() - size * math.cos(angle + 0.4), tip.y() - size * math.sin(angle + 0.4))
    return QPolygonF([tip, left, right])


class RiskEdgeItem(QGraphicsPathItem):
    def __init__(self, qi_set: tuple[str, ...], path: QPainterPath, pen: QPen):
        super().__init__(path)
        self.qi_set = qi_set
        self.setPen(pen)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setAcceptHoverEvents(True)

    def shape(self) -> QPainterPath:
        from PySide6.QtGui import QPainterPathStroker

        stroker = QPainterPathStroker()
        stroker.setWidth(12)
        return stroker.createStroke(self.path())


class LtsGraph(QGraphicsView):
    """``show_graph(graph, qi_order, selected)``; emits ``riskSelected(qi_set)``."""

    riskSelected = Signal(tuple)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setBackgroundBrush(QBrush(QColor("white")))
        self.risk_items: dict[tuple, RiskEdgeItem] = {}
        self.labels: dict[tuple, QGraphicsSimpleTextItem] = {}

    def mousePressEvent(self, event) -> None:
        item = self.itemAt(event.position().toPoint())
        while item is not None and not isinstance(item, RiskEdgeItem):
            item = item.parentItem()
        if isinstance(item, RiskEdgeItem):
            self.riskSelected.emit(item.qi_set)
        super().mousePressEvent(event)

    def _text(self, text: str, x: float, y: float, *, bold: bool = False, color: QColor | None = None,
              size: int = 9, anchor: str = "center") -> QGraphicsSimpleTextItem:
        item = self.scene().addSimpleText(text)
        font = QFont()
        font.setPointSize(size)
        font.setBold(bold)
        item.setFont(font)
        if color is not None:
            item.setBrush(QBrush(color))
        rect = item.boundingRect()
        dx = {"center": -rect.width() / 2, "left": 0, "right": -rect.width()}[anchor]
        item.setPos(x + dx, y - rect.height() / 2)
        return item

    def show_graph(self, graph, qi_order: list[str] | None = None, selected: tuple | None = None) -> None:
        scene = self.scene()
        scene.clear()
        self.risk_items.clear()
        self.labels.clear()
        if graph is None:
            self._text("Load a data-flow model to see the LTS", 0, 0, color=QColor("#777"))
            return
        states = [n for n, kind in graph.nodes(data="kind") if kind == "state"]
        position = {node: QPointF(i * STEP, 0) for i, node in enumerate(states)}
        thin = QPen(QColor("#424242"), 1.4)
        for u, v, data in graph.edges(data=True):
            if data["kind"] != "flow":
                continue
            a, b = position[u], position[v]
            start, end = QPointF(a.x() + STATE_RADIUS, 0), QPointF(b.x() - STATE_RADIUS, 0)
            path = QPainterPath(start)
            path.lineTo(end)
            scene.addPath(path, thin)
            scene.addPolygon(_arrow_head(end, 0), thin, QBrush(QColor("#424242")))
            middle = (a.x() + b.x()) / 2
            self._text(f"{data['action']}", middle, -30, bold=True)
            self._text(_short(data["fields"]), middle, -16, size=8)
            self._text(data["actor"], middle, 16, size=8, color=QColor("#555"))
            if data.get("purpose"):
                self._text(_short([data["purpose"]]), middle, 30, size=8, color=QColor("#777"))
        for node in states:
            p = position[node]
            at_risk = graph.nodes[node].get("at_risk")
            ellipse = QGraphicsEllipseItem(QRectF(p.x() - STATE_RADIUS, -STATE_RADIUS, 2 * STATE_RADIUS,
                                                  2 * STATE_RADIUS))
            ellipse.setBrush(QBrush(QColor("#ffe0b2" if at_risk else "#eceff1")))
            ellipse.setPen(QPen(QColor("#e65100" if at_risk else "#607d8b"), 2))
            scene.addItem(ellipse)
            self._text(node, p.x(), 0, bold=True)
            if at_risk:
                self._text("at risk", p.x(), -STATE_RADIUS - 12, color=QColor("#e65100"), size=8)
        risks = [(u, d) for u, _, d in graph.edges(data=True) if d["kind"] == "risk"]
        by_node: dict[str, list[dict]] = {}
        for u, d in risks:
            by_node.setdefault(u, []).append(d)
        for node, edges in by_node.items():
            origin = position[node]
            count = len(edges)
            spacing = 22
            top = 72
            for index, data in enumerate(edges):
                y = top + index * spacing
                end = QPointF(origin.x() + FAN, y)
                start = QPointF(origin.x() + STATE_RADIUS * 0.5, STATE_RADIUS * 0.85)
                path = QPainterPath(start)
                path.cubicTo(QPointF(start.x() + 10, y), QPointF(end.x() - 50, y), end)
                qi_set = tuple(q for q in (qi_order or data["qi_order"]) if q in data["qi_set"]) or data["qi_order"]
                blocked = data.get("blocked")
                chosen = selected is not None and tuple(selected) == qi_set
                color = SELECTED if chosen else (BLOCKED if blocked else RISK_RED)
                pen = QPen(color, 3.0 if data["maximum"] or chosen else 1.6, Qt.PenStyle.DotLine)
                item = RiskEdgeItem(qi_set, path, pen)
                scene.addItem(item)
                self.risk_items[qi_set] = item
                scene.addPolygon(_arrow_head(end, 0), QPen(color), QBrush(color))
                violations = data.get("violations")
                nv = "N_v ?" if violations is None else f"N_v = {violations}"
                removed = data.get("removed")
                text = f"{', '.join(data['qi_order'])}:  {nv}"
                if removed is not None:
                    text += f",  R_v = {removed}"
                if data["maximum"]:
                    text += "   (maximum)"
                label = self._text(text, end.x() + 10, y, anchor="left", bold=data["maximum"] or chosen, color=color)
                self.labels[qi_set] = label
                if blocked:
                    self._text(f"✕ refused: {data.get('reason', '')}", end.x() + 10, y + 13, anchor="left",
                               size=8, color=BLOCKED)
            self._text(f"{edges[0]['actor']} predicts {edges[0]['sensitive']} from:", origin.x() + 40, top - 30,
                       anchor="left", size=8, color=QColor("#555"))
        self.setSceneRect(scene.itemsBoundingRect().adjusted(-20, -20, 20, 20))
        self.fit()

    def fit(self) -> None:
        """Show the whole LTS, scaled down when needed (never up)."""
        rect = self.sceneRect()
        if rect.isEmpty():
            return
        self.resetTransform()
        view = self.viewport().rect()
        scale = min(1.0, view.width() / rect.width(), view.height() / rect.height())
        self.scale(scale, scale)
        self.centerOn(rect.center())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit()


def _short(fields, limit: int = 22) -> str:
    text = ", ".join(fields)
    return text if len(text) <= limit else text[:limit - 1] + "…"
