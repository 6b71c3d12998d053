"""An explorable graph of concepts and facts drawn with Qt's graphics view (networkx lays it out).

Nodes are terms (boxes), edges are facts (arrows with the relation written on them). Every
node and edge is clickable (``nodeClicked(key)``, ``edgeClicked(key)``); the view zooms
(wheel, ``zoom``), pans (drag), fits, finds (``search``), and can show only a subset of
the nodes (``focus``) with drill-down (``reveal_neighbours``). Edges carry a *role* that
colours them: violation (red), participant (yellow), suggested (green), current (yellow).
Labels are hidden when zoomed far out so a few hundred nodes stay readable.
"""

from __future__ import annotations

import math

import networkx as nx
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPen,
    QPolygonF,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsScene,
    QGraphicsView,
    QStyleOptionGraphicsItem,
)

NODE_STYLE = {   # kind: (fill, border)
    "concept": ("#eef1f5", "#8a97a8"),
    "patient": ("#d6e6ff", "#1d4e89"),
    "inferred": ("#efe3f7", "#7b4fa0"),
}
EDGE_STYLE = {   # kind: (colour, width, dashed)
    "ontology": ("#9aa5b4", 1.2, False),
    "patient": ("#1d4e89", 2.0, False),
    "inferred": ("#7b4fa0", 1.6, True),
}
ROLE_COLOUR = {
    "violation": "#d32f2f",
    "participant": "#f2b705",
    "suggested": "#2e9d4a",
    "current": "#f2b705",
}
ROLE_WIDTH = {"violation": 4.0, "participant": 4.0, "suggested": 3.5, "current": 4.0}
NODE_ROLE_COLOUR = {"violation": "#d32f2f", "participant": "#f2b705", "match": "#ff7a00"}
LABEL_LOD = 0.45     # below this scale, text is not drawn


class NodeItem(QGraphicsItem):
    PAD_X, PAD_Y = 10.0, 6.0

    def __init__(self, key: str, label: str, kind: str, tooltip: str = ""):
        super().__init__()
        self.key, self.label, self.kind = key, label, kind
        self.role: str | None = None
        self.selected = False
        self.edges: list[EdgeItem] = []
        self.font = QFont()
        self.font.setPointSizeF(10)
        if kind == "patient":
            self.font.setBold(True)
        metrics = QFontMetricsF(self.font)
        w = metrics.horizontalAdvance(label) + 2 * self.PAD_X
        h = metrics.height() + 2 * self.PAD_Y
        self.rect = QRectF(-w / 2, -h / 2, w, h)
        self.setZValue(2)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setToolTip(tooltip or label)

    def boundingRect(self) -> QRectF:
        return self.rect.adjusted(-4, -4, 4, 4)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRoundedRect(self.rect, 8, 8)
        return path

    def set_role(self, role: str | None) -> None:
        self.role = role
        self.update()

    def set_selected(self, on: bool) -> None:
        self.selected = on
        self.update()

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        fill, border = NODE_STYLE.get(self.kind, NODE_STYLE["concept"])
        width = 1.5
        if self.role in NODE_ROLE_COLOUR:
            border, width = NODE_ROLE_COLOUR[self.role], 3.5
        if self.selected:
            painter.setPen(QPen(QColor("#222222"), 6))
            painter.drawRoundedRect(self.rect, 8, 8)
            width = max(width, 2.5)
        painter.setPen(QPen(QColor(border), width))
        painter.setBrush(QBrush(QColor(fill)))
        painter.drawRoundedRect(self.rect, 8, 8)
        if option.levelOfDetailFromTransform(painter.worldTransform()) >= LABEL_LOD:
            painter.setFont(self.font)
            painter.setPen(QColor("#15202b"))
            painter.drawText(self.rect, Qt.AlignmentFlag.AlignCenter, self.label)


class EdgeItem(QGraphicsItem):
    def __init__(self, key, source: NodeItem, target: NodeItem, label: str, kind: str, tooltip: str = ""):
        super().__init__()
        self.key, self.source, self.target, self.label, self.kind = key, source, target, label, kind
        self.role: str | None = None
        self.badge = ""
        self.selected = False
        self.bend = self.base_bend = 0.0  # base_bend: apart from parallel arrows; bend: also clear of labels
        self.label_t = 0.5
        self.font = QFont()
        self.font.setPointSizeF(8.5)
        self.setZValue(1 if kind != "ontology" else 0)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setToolTip(tooltip or label)
        source.edges.append(self)
        target.edges.append(self)
        self._path = QPainterPath()
        self._label_rect = QRectF()
        self._arrow = QPolygonF()
        self.update_geometry()

    def set_role(self, role: str | None, badge: str = "") -> None:
        self.role, self.badge = role, badge
        self.setZValue(3 if role else (1 if self.kind != "ontology" else 0))
        self.update_geometry()

    def set_selected(self, on: bool) -> None:
        self.selected = on
        self.update()

    def text(self) -> str:
        return f"{self.label}  [{self.badge}]" if self.badge else self.label

    def update_geometry(self) -> None:
        self.prepareGeometryChange()
        a, b = self.source.pos(), self.target.pos()
        if self.source is self.target:
            path = QPainterPath(a)
            path.cubicTo(a + QPointF(-40, -70), a + QPointF(40, -70), a)
            self._path, self._arrow, mid = path, QPolygonF(), a + QPointF(0, -52)
        else:
            bend = self.bend
            if abs(a.y() - b.y()) < 30 and not bend:
                # same level: arc above the row so the arrow is not hidden between the boxes
                bend = (70 + 0.12 * abs(a.x() - b.x())) * (1 if b.x() > a.x() else -1)
            d0 = b - a
            l0 = math.hypot(d0.x(), d0.y()) or 1.0
            n0 = QPointF(d0.y() / l0, -d0.x() / l0)
            control = (a + b) / 2 + n0 * bend
            start, end = self._clip(self.source, control, a), self._clip(self.target, control, b)
            path = QPainterPath(start)
            path.quadTo(control, end)
            self._path = path
            mid = path.pointAtPercent(self.label_t)
            tangent = end - control
            tl = math.hypot(tangent.x(), tangent.y()) or 1.0
            ux, uy = tangent.x() / tl, tangent.y() / tl
            size = 10.0
            self._arrow = QPolygonF([end, end - QPointF(ux * size - uy * size * 0.45, uy * size + ux * size * 0.45),
                                     end - QPointF(ux * size + uy * size * 0.45, uy * size - ux * size * 0.45)])
        metrics = QFontMetricsF(self.font)
        w, h = metrics.horizontalAdvance(self.text()) + 8, metrics.height() + 2
        self._label_rect = QRectF(mid.x() - w / 2, mid.y() - h / 2, w, h) if self.show_label() else QRectF()
        self.update()

    def show_label(self) -> bool:
        """Grey 'is a' arrows of the ontology are many and obvious (they point up): no label."""
        return bool(self.role or self.badge or not (self.kind == "ontology" and self.label == "is a"))

    @staticmethod
    def _clip(node: NodeItem, outside: QPointF, centre: QPointF) -> QPointF:
        """Where the line from ``centre`` to ``outside`` leaves the node's box."""
        d = outside - centre
        r = node.rect
        if d.x() == 0 and d.y() == 0:
            return centre
        sx = (r.width() / 2 + 2) / abs(d.x()) if d.x() else math.inf
        sy = (r.height() / 2 + 2) / abs(d.y()) if d.y() else math.inf
        s = min(sx, sy, 1.0)
        return centre + d * s

    def label_point(self) -> QPointF:
        return self._label_rect.center()

    def boundingRect(self) -> QRectF:
        return self._path.controlPointRect().united(self._label_rect).united(self._arrow.boundingRect()).adjusted(-6, -6, 6, 6)

    def shape(self) -> QPainterPath:
        stroker = QPainterPathStroker()
        stroker.setWidth(12)
        shape = stroker.createStroke(self._path)
        shape.addRect(self._label_rect)
        return shape

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        colour, width, dashed = EDGE_STYLE.get(self.kind, EDGE_STYLE["ontology"])
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if self.selected:
            painter.setPen(QPen(QColor(0, 0, 0, 90), 10, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
            painter.drawPath(self._path)
        if self.role in ROLE_COLOUR:
            painter.setPen(QPen(QColor(ROLE_COLOUR[self.role]), ROLE_WIDTH[self.role] + 2,
                                Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
            painter.drawPath(self._path)
            width = max(width, 1.6)
            if self.role == "violation":
                colour = "#8e0000"
        pen = QPen(QColor(colour), width, Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(self._path)
        if not self._arrow.isEmpty():
            painter.setPen(QPen(QColor(colour), 1))
            painter.setBrush(QColor(colour))
            painter.drawPolygon(self._arrow)
        if self.show_label() and option.levelOfDetailFromTransform(painter.worldTransform()) >= LABEL_LOD:
            back = QColor(ROLE_COLOUR[self.role]) if self.role else QColor("#ffffff")
            back.setAlpha(235 if self.role else 215)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(back)
            painter.drawRoundedRect(self._label_rect, 4, 4)
            painter.setFont(self.font)
            painter.setPen(QColor("#ffffff" if self.role in ("violation", "suggested") else "#26313d"))
            painter.drawText(self._label_rect, Qt.AlignmentFlag.AlignCenter, self.text())


class OntologyGraph(QGraphicsView):
    nodeClicked = Signal(object)
    edgeClicked = Signal(object)

    SCALE = 95.0      # pixels per layout unit (per node spacing)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate)
        self.setBackgroundBrush(QColor("#fbfcfe"))
        self.nodes: dict[object, NodeItem] = {}
        self.edges: dict[object, EdgeItem] = {}
        self.graph = nx.MultiDiGraph()
        self._press = None
        self._selected = None
        self.visible_keys: set | None = None

    # ------------------------------------------------------------------ content

    def clear(self) -> None:
        self.scene().clear()
        self.nodes.clear()
        self.edges.clear()
        self.graph.clear()
        self._selected = None
        self.visible_keys = None

    def add_node(self, key, label: str, kind: str = "concept", tooltip: str = "") -> NodeItem:
        if key in self.nodes:
            return self.nodes[key]
        item = NodeItem(key, label, kind, tooltip)
        self.scene().addItem(item)
        self.nodes[key] = item
        self.graph.add_node(key)
        if self.visible_keys is not None:
            item.setVisible(False)
        return item

    def add_edge(self, key, source, target, label: str, kind: str = "ontology", tooltip: str = "") -> EdgeItem:
        if key in self.edges:
            return self.edges[key]
        item = EdgeItem(key, self.nodes[source], self.nodes[target], label, kind, tooltip)
        self.scene().addItem(item)
        self.edges[key] = item
        self.graph.add_edge(source, target, key=key)
        parallel = [e for e in self.edges.values()
                    if {e.source.key, e.target.key} == {source, target} and e is not item]
        if parallel:
            item.bend = item.base_bend = 34.0 * ((len(parallel) + 1) // 2) * (1 if len(parallel) % 2 else -1)
            item.update_geometry()
        if self.visible_keys is not None:
            item.setVisible(source in self.visible_keys and target in self.visible_keys)
        return item

    LEVEL_GAP = 120.0     # pixels between levels
    NODE_GAP = 46.0       # pixels between boxes on a level
    ROW_MAX = 12          # boxes per row before a level wraps

    def layout(self, keep: bool = True) -> None:
        """Layered layout: ISA parents above their children (networkx topological order), each
        level ordered by the barycentre of its neighbours to reduce crossings, wide levels
        wrapped. Worked-out (inferred) edges do not move anything. With ``keep`` and every
        node placed already, nothing moves (adding edges keeps the picture stable)."""
        if keep and all(n.data(0) for n in self.nodes.values()):
            return
        depth = self._depths()
        structure = nx.Graph()
        structure.add_nodes_from(self.nodes)
        structure.add_edges_from((e.source.key, e.target.key) for e in self.edges.values()
                                 if e.kind != "inferred" and e.source is not e.target)
        levels: dict[int, list] = {}
        for key in sorted(self.nodes, key=str):
            levels.setdefault(depth.get(key, 0), []).append(key)
        rows: list[list] = []
        for level in sorted(levels):
            keys = levels[level]
            for start in range(0, len(keys), self.ROW_MAX):
                rows.append(keys[start:start + self.ROW_MAX])
        index = {key: (r, i) for r, row in enumerate(rows) for i, key in enumerate(row)}
        for sweep in range(6):
            order = range(len(rows)) if sweep % 2 == 0 else range(len(rows) - 1, -1, -1)
            for r in order:
                row = rows[r]

                def centre(key, row=row):
                    near = [index[n][1] / max(len(rows[index[n][0]]) - 1, 1) for n in structure.neighbors(key)]
                    own = index[key][1] / max(len(row) - 1, 1)
                    return sum(near) / len(near) if near else own

                row.sort(key=centre)
                for i, key in enumerate(row):
                    index[key] = (r, i)
        for r, row in enumerate(rows):
            widths = [self.nodes[k].rect.width() for k in row]
            total = sum(widths) + self.NODE_GAP * (len(row) - 1)
            x = -total / 2
            for key, w in zip(row, widths):
                node = self.nodes[key]
                node.setPos(x + w / 2, r * self.LEVEL_GAP + (18 if r % 2 and len(row) > 6 else 0))
                node.setData(0, True)
                x += w + self.NODE_GAP
        for edge in self.edges.values():
            edge.update_geometry()
        self.tidy_labels()
        self.scene().setSceneRect(self.scene().itemsBoundingRect().adjusted(-300, -300, 300, 300))

    LABEL_POSITIONS = (0.5, 0.4, 0.6, 0.32, 0.68, 0.25, 0.75, 0.2, 0.8)
    EXTRA_BENDS = (0.0, 36.0, -36.0, 72.0, -72.0, 108.0, -108.0)
    LABEL_GAP = (7.0, 4.0)     # px kept free around a label (x, y): two labels never touch
    # what a label position costs: covering a label or a box is never accepted while a free place
    # exists; lying on another arrow only makes it ambiguous
    COVERS, CROSSES = 100, 1

    def tidy_labels(self) -> None:
        """Place edge labels so that they cover neither each other nor boxes, with a gap
        between two labels, and preferably not on another arrow: slide each label along its
        arrow, and where that is not enough, bow the arrow (the most important arrows are
        placed first)."""
        gap_x, gap_y = self.LABEL_GAP
        boxes = [n.sceneBoundingRect().adjusted(4, 4, -4, -4) for n in self.nodes.values() if n.isVisible()]
        visible = [e for e in self.edges.values() if e.isVisible()]
        stroker = QPainterPathStroker()
        stroker.setWidth(3)
        lines = {e.key: stroker.createStroke(e._path) for e in visible}
        labels: list[QRectF] = []
        edges = sorted((e for e in visible if e.show_label()),
                       key=lambda e: (e.role is None, e.kind == "ontology", str(e.key)))
        for edge in edges:
            bends = [edge.base_bend] if edge.source is edge.target else \
                [edge.base_bend + extra for extra in self.EXTRA_BENDS]
            best, best_cost = (edge.base_bend, 0.5), None
            for bend in bends:
                edge.bend = bend
                for t in self.LABEL_POSITIONS:
                    edge.label_t = t
                    edge.update_geometry()
                    rect = edge._label_rect.adjusted(-gap_x, -gap_y, gap_x, gap_y)
                    cost = self.COVERS * (sum(1 for r in labels if r.intersects(rect))
                                          + sum(1 for r in boxes if r.intersects(edge._label_rect)))
                    cost += self.CROSSES * sum(1 for key, line in lines.items()
                                               if key != edge.key and line.intersects(edge._label_rect))
                    if best_cost is None or cost < best_cost:
                        best, best_cost = (bend, t), cost
                    if cost == 0:
                        break
                if best_cost == 0:
                    break
            edge.bend, edge.label_t = best
            edge.update_geometry()
            lines[edge.key] = stroker.createStroke(edge._path)
            labels.append(edge._label_rect)

    def _depths(self) -> dict:
        """Depth of each node from the top of the ISA-like hierarchy (edge label 'is a')."""
        isa = nx.DiGraph()
        isa.add_nodes_from(self.nodes)
        for e in self.edges.values():
            if e.label == "is a" and e.source is not e.target:
                isa.add_edge(e.target.key, e.source.key)   # parent → child
        depth: dict = {}
        try:
            order = list(nx.topological_sort(isa))
        except nx.NetworkXUnfeasible:
            return {}
        for key in order:
            parents = list(isa.predecessors(key))
            depth[key] = 0 if not parents else 1 + max(depth[p] for p in parents)
        return depth

    # ------------------------------------------------------------------ roles, selection

    def set_edge_role(self, key, role: str | None, badge: str = "") -> None:
        if key in self.edges:
            self.edges[key].set_role(role, badge)

    def clear_roles(self) -> None:
        for e in self.edges.values():
            if e.role or e.badge:
                e.set_role(None)
        for n in self.nodes.values():
            if n.role:
                n.set_role(None)

    def edges_with_role(self, role: str) -> set:
        return {k for k, e in self.edges.items() if e.role == role}

    def select(self, key) -> None:
        if self._selected is not None:
            self._selected.set_selected(False)
        item = self.edges.get(key) if key in self.edges else self.nodes.get(key)
        self._selected = item
        if item is not None:
            item.set_selected(True)

    def activate(self, item) -> None:
        """What a click on ``item`` does: select it and emit its signal."""
        if isinstance(item, NodeItem):
            self.select(item.key)
            self.nodeClicked.emit(item.key)
        elif isinstance(item, EdgeItem):
            self.select(item.key)
            self.edgeClicked.emit(item.key)

    def click_point(self, key):
        """The viewport point a user clicks for a node or edge (tests, accessibility)."""
        item = self.edges.get(key) if key in self.edges else self.nodes[key]
        point = (item.label_point() if not item._label_rect.isNull() else item._path.pointAtPercent(0.5)) \
            if isinstance(item, EdgeItem) else item.pos()
        self.ensureVisible(QRectF(point - QPointF(5, 5), point + QPointF(5, 5)), 40, 40)
        return self.mapFromScene(point)

    # ------------------------------------------------------------------ navigation

    def zoom(self, factor: float) -> None:
        current = self.transform().m11()
        factor = max(0.05 / current, min(factor, 6.0 / current))
        self.scale(factor, factor)

    def fit(self) -> None:
        items = [i for i in (*self.nodes.values(), *self.edges.values()) if i.isVisible()]
        if not items:
            return
        rect = QRectF()
        for i in items:
            rect = rect.united(i.sceneBoundingRect())
        self.fitInView(rect.adjusted(-30, -30, 30, 30), Qt.AspectRatioMode.KeepAspectRatio)
        if self.transform().m11() > 1.6:
            self.resetTransform()
            self.scale(1.6, 1.6)
            self.centerOn(rect.center())

    def search(self, text: str) -> list:
        """Outline the nodes whose label contains ``text``; centre on the first. Returns their keys."""
        text = text.strip().casefold()
        found = []
        for key, node in self.nodes.items():
            hit = bool(text) and text in node.label.casefold()
            if node.role == "match" and not hit:
                node.set_role(None)
            if hit:
                node.set_role("match")
                found.append(key)
        if found:
            if self.visible_keys is not None:
                self.show_keys(self.visible_keys | set(found))
            self.centerOn(self.nodes[found[0]])
        return found

    def show_keys(self, keys: set | None) -> None:
        """Show only these nodes and the edges between them (None: everything)."""
        self.visible_keys = None if keys is None else set(keys)
        for key, node in self.nodes.items():
            node.setVisible(keys is None or key in keys)
        for edge in self.edges.values():
            edge.setVisible(edge.source.isVisible() and edge.target.isVisible())
        self.tidy_labels()

    def reveal_neighbours(self, key) -> set:
        """Drill-down: add a node's neighbours to what is shown. Returns the newly shown keys."""
        if self.visible_keys is None or key not in self.graph:
            return set()
        near = set(self.graph.successors(key)) | set(self.graph.predecessors(key))
        new = near - self.visible_keys
        self.show_keys(self.visible_keys | near)
        return new

    # ------------------------------------------------------------------ mouse

    def wheelEvent(self, event) -> None:
        self.zoom(1.15 if event.angleDelta().y() > 0 else 1 / 1.15)

    def mousePressEvent(self, event) -> None:
        self._press = event.position()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        super().mouseReleaseEvent(event)
        if self._press is None or event.button() != Qt.MouseButton.LeftButton:
            return
        moved = event.position() - self._press
        self._press = None
        if abs(moved.x()) + abs(moved.y()) > 5:
            return
        items = [i for i in self.items(event.position().toPoint()) if i.isVisible()]
        item = next((i for i in items if isinstance(i, NodeItem)), None) or \
            next((i for i in items if isinstance(i, EdgeItem)), None)
        if item is not None:
            self.activate(item)
