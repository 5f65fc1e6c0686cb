"""The inspector socket: widget locations for the oracle driver, never actions.

A Unix socket (only when the client is launched with ``--inspector-socket PATH``) speaking
line-delimited JSON, one request per line, one response line each::

    {"op": "ping"}                      -> {"ok": true, "screen": "login"|"workspace", ...}
    {"op": "find", "name": "composer.dose"}
                                        -> {"ok": true, "widgets": [{objectName, accessibleName,
                                            class, x, y, w, h, visible, enabled, text, ...}]}
    {"op": "tree"}                      -> every visible widget that has an objectName
    {"op": "items", "name": "orderSet.tree"}
                                        -> rows of an item view (cells with text and rects),
                                           tabs of a tab bar, entries of a combo box or menu
    {"op": "reset"}                     -> back to the log-in screen (see EhrMainWindow.reset)

Coordinates are screen pixels of the client's display (the window fills it from 0,0). Names
match an ``objectName`` or an accessible name exactly; a name containing ``*`` is a glob.
Apart from ``reset`` (which the runner uses between episodes) nothing here clicks, types or
changes the chart: the oracle must act through the pixel stream like any agent.
"""

from __future__ import annotations

import json
import os
from fnmatch import fnmatchcase
from pathlib import Path

from PySide6.QtCore import QModelIndex, QObject, QRect, Qt
from PySide6.QtNetwork import QLocalServer, QLocalSocket
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QListView,
    QMenu,
    QPlainTextEdit,
    QTabBar,
    QTabWidget,
    QTextEdit,
    QTreeView,
    QWidget,
)

MAX_TEXT = 400
MAX_ROWS = 500


# -- describing widgets ------------------------------------------------------------------
def _screen_rect(widget: QWidget, rect: QRect | None = None) -> dict:
    rect = rect if rect is not None else widget.rect()
    origin = widget.mapToGlobal(rect.topLeft())
    return {"x": origin.x(), "y": origin.y(), "w": rect.width(), "h": rect.height()}


def widget_text(widget: QWidget) -> str:
    if isinstance(widget, QLineEdit):
        text = widget.text() if widget.echoMode() == QLineEdit.EchoMode.Normal else \
            "•" * len(widget.text())
    elif isinstance(widget, QComboBox):
        text = widget.currentText()
    elif isinstance(widget, (QAbstractButton, QLabel)):
        text = widget.text()
    elif isinstance(widget, QPlainTextEdit):
        text = widget.toPlainText()
    elif isinstance(widget, QTextEdit):
        text = widget.toPlainText()
    elif isinstance(widget, QTabBar):
        text = widget.tabText(widget.currentIndex()) if widget.count() else ""
    else:
        text = ""
    return text[:MAX_TEXT]


def is_shown(widget: QWidget) -> bool:
    return widget.isVisible() and not widget.visibleRegion().isEmpty()


def describe(widget: QWidget) -> dict:
    info = {"objectName": widget.objectName(), "accessibleName": widget.accessibleName(),
            "class": widget.metaObject().className(), **_screen_rect(widget),
            "visible": is_shown(widget), "enabled": widget.isEnabled(),
            "text": widget_text(widget), "focused": widget.hasFocus(),
            "window": widget.window().objectName()}
    if isinstance(widget, QAbstractButton) and widget.isCheckable():
        info["checked"] = widget.isChecked()
    if isinstance(widget, QLineEdit) or isinstance(widget, QComboBox):
        info["invalid"] = bool(widget.property("invalid"))
    return info


def all_widgets() -> list[QWidget]:
    return [w for w in QApplication.allWidgets() if not w.objectName().startswith("qt_")]


def find_widgets(name: str) -> list[QWidget]:
    glob = "*" in name
    found = []
    for widget in all_widgets():
        for candidate in (widget.objectName(), widget.accessibleName()):
            if candidate and (fnmatchcase(candidate, name) if glob else candidate == name):
                found.append(widget)
                break
    found.sort(key=lambda w: (not is_shown(w), w.objectName()))
    return found


# -- items -------------------------------------------------------------------------------
def _cell(view: QAbstractItemView, index: QModelIndex) -> dict:
    rect = view.visualRect(index)
    cell = {"column": index.column(), "text": str(index.data() or ""),
            **_screen_rect(view.viewport(), rect)}
    header = index.model().headerData(index.column(), Qt.Orientation.Horizontal)
    if header is not None:  # which column a cell is in, by the words its user reads
        cell["header"] = " ".join(str(header).split())
    state = index.data(Qt.ItemDataRole.CheckStateRole)
    if state is not None:
        cell["checked"] = Qt.CheckState(state) == Qt.CheckState.Checked
    return cell


def view_items(view: QAbstractItemView) -> list[dict]:
    model = view.model()
    if model is None:
        return []
    viewport = view.viewport().rect()
    selection = view.selectionModel()
    rows: list[dict] = []

    def walk(parent: QModelIndex, depth: int, path: list[int]) -> None:
        for r in range(model.rowCount(parent)):
            if len(rows) >= MAX_ROWS:
                return
            if isinstance(view, QListView):  # list models keep columnCount private
                columns = [view.modelColumn()]
            else:
                columns = [c for c in range(model.columnCount(parent))
                           if not (hasattr(view, "isColumnHidden") and view.isColumnHidden(c))]
            first = model.index(r, columns[0] if columns else 0, parent)
            cells = [_cell(view, model.index(r, c, parent)) for c in columns]
            rect = QRect()
            for c in columns:
                rect = rect.united(view.visualRect(model.index(r, c, parent)))
            row = {"row": r, "path": path + [r], "depth": depth,
                   "text": str(first.data() or ""), "cells": cells,
                   **_screen_rect(view.viewport(), rect),
                   "visible": rect.isValid() and viewport.intersects(rect),
                   "selected": bool(selection and selection.isRowSelected(r, parent))}
            if cells and "checked" in cells[0]:
                row["checked"] = cells[0]["checked"]
            rows.append(row)
            if isinstance(view, QTreeView) and model.hasChildren(first):
                row["expanded"] = view.isExpanded(first)
                walk(first, depth + 1, path + [r])

    walk(QModelIndex(), 0, [])
    return rows


def tab_items(bar: QTabBar) -> list[dict]:
    return [{"index": i, "text": bar.tabText(i), **_screen_rect(bar, bar.tabRect(i)),
             "selected": i == bar.currentIndex(), "visible": is_shown(bar),
             "enabled": bar.isTabEnabled(i)} for i in range(bar.count())]


def combo_items(box: QComboBox) -> list[dict]:
    view = box.view()
    popup_open = view.isVisible()
    out = []
    for i in range(box.count()):
        item = {"index": i, "text": box.itemText(i), "selected": i == box.currentIndex(),
                "visible": popup_open}
        if popup_open:
            item.update(_screen_rect(view.viewport(),
                                     view.visualRect(box.model().index(i, 0))))
        out.append(item)
    return out


def menu_items(menu: QMenu) -> list[dict]:
    return [{"index": i, "text": action.text(), "enabled": action.isEnabled(),
             "visible": menu.isVisible(), **_screen_rect(menu, menu.actionGeometry(action))}
            for i, action in enumerate(menu.actions()) if not action.isSeparator()]


def items_of(widget: QWidget) -> tuple[str, list[dict]]:
    if isinstance(widget, QTabWidget):
        return "tabs", tab_items(widget.tabBar())
    if isinstance(widget, QTabBar):
        return "tabs", tab_items(widget)
    if isinstance(widget, QComboBox):
        return "entries", combo_items(widget)
    if isinstance(widget, QMenu):
        return "actions", menu_items(widget)
    if isinstance(widget, QAbstractItemView):
        return "rows", view_items(widget)
    if isinstance(widget, QAbstractButton) and widget.menu() is not None:
        return "actions", menu_items(widget.menu())
    raise TypeError(f"{widget.objectName()} ({widget.metaObject().className()}) has no items")


# -- the server --------------------------------------------------------------------------
class Inspector(QObject):
    """Serves the protocol on ``path``; ``window`` answers ping/reset."""

    def __init__(self, path: Path | str, window, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path = str(path)
        self.window = window
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        QLocalServer.removeServer(self.path)
        if not self.server.listen(self.path):
            raise OSError(f"inspector cannot listen on {self.path}: "
                          f"{self.server.errorString()}")
        self.server.newConnection.connect(self._accept)
        self._buffers: dict[QLocalSocket, bytes] = {}

    def close(self) -> None:
        self.server.close()
        if os.path.exists(self.path):
            try:
                os.unlink(self.path)
            except OSError:
                pass

    def _accept(self) -> None:
        while self.server.hasPendingConnections():
            sock = self.server.nextPendingConnection()
            self._buffers[sock] = b""
            sock.readyRead.connect(lambda s=sock: self._read(s))
            sock.disconnected.connect(lambda s=sock: self._drop(s))

    def _drop(self, sock: QLocalSocket) -> None:
        self._buffers.pop(sock, None)
        sock.deleteLater()

    def _read(self, sock: QLocalSocket) -> None:
        if sock not in self._buffers:
            return
        self._buffers[sock] += bytes(sock.readAll().data())
        while b"\n" in self._buffers.get(sock, b""):
            line, rest = self._buffers[sock].split(b"\n", 1)
            self._buffers[sock] = rest
            if line.strip():
                self._handle(sock, line)

    def _send(self, sock: QLocalSocket, payload: dict) -> None:
        if sock.state() == QLocalSocket.LocalSocketState.ConnectedState:
            sock.write(json.dumps(payload, ensure_ascii=False).encode() + b"\n")
            sock.flush()

    def _handle(self, sock: QLocalSocket, line: bytes) -> None:
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("a request is a JSON object")
            op = request.get("op")
            if op == "reset":
                self.window.reset_when_idle(lambda: self._send(sock, {
                    "ok": True, "op": "reset", "screen": self.window.screen_name}))
                return
            self._send(sock, self.answer(request))
        except Exception as exc:  # a bad request must never take the client down
            self._send(sock, {"ok": False, "error": f"{type(exc).__name__}: {exc}"})

    def answer(self, request: dict) -> dict:
        """The response to one non-reset request (also used directly by tests)."""
        op = request.get("op")
        if op == "ping":
            return {"ok": True, "op": "ping", "pid": os.getpid(),
                    "persona": self.window.persona.name, "screen": self.window.screen_name,
                    "user": self.window.ctx.user.username if self.window.ctx.user else None,
                    "modal": (QApplication.activeModalWidget().objectName()
                              if QApplication.activeModalWidget() else None),
                    "active": (QApplication.activeWindow().objectName()
                               if QApplication.activeWindow() else None)}
        if op == "find":
            name = _name(request)
            return {"ok": True, "op": "find", "name": name,
                    "widgets": [describe(w) for w in find_widgets(name)]}
        if op == "tree":
            return {"ok": True, "op": "tree",
                    "widgets": [describe(w) for w in all_widgets()
                                if w.objectName() and is_shown(w)]}
        if op == "items":
            name = _name(request)
            widgets = find_widgets(name)
            if not widgets:
                return {"ok": False, "op": "items", "error": f"no widget named {name!r}"}
            kind, items = items_of(widgets[0])
            return {"ok": True, "op": "items", "name": name, "kind": kind,
                    "widget": describe(widgets[0]), "items": items}
        raise ValueError(f"unknown op {op!r}; ops: ping, find, tree, items, reset")


def _name(request: dict) -> str:
    name = request.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError("this op needs a non-empty 'name'")
    return name
