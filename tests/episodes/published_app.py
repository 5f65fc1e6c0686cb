"""A small published app for the episode tests: a Qt window with a search field, a button
and a result label, and the inspector socket the oracle driver reads geometry from.

Run as the published app of a desktop system (``EpisodeConfig.published_apps``) so the
episode machinery is tested without the desktop EHR's start-up time; it speaks the same
inspector protocol (``ping``, ``find``, ``tree``, ``reset``; docs/desktop-ehr.md), one JSON
line per request, over a ``QLocalServer`` on the Qt thread.
"""

from __future__ import annotations

import argparse
import json
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--persona", default="hyperspace")
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--inspector-socket", required=True)
    parser.add_argument("--crash-on", default="", help="exit(3) when this text is searched")
    args = parser.parse_args(argv)

    from PySide6.QtCore import QPoint
    from PySide6.QtNetwork import QLocalServer
    from PySide6.QtWidgets import (
        QApplication,
        QLabel,
        QLineEdit,
        QMainWindow,
        QPushButton,
        QVBoxLayout,
        QWidget,
    )

    app = QApplication(["published-app"])
    window = QMainWindow()
    window.setWindowTitle(f"Demo EHR ({args.persona})")
    body = QWidget()
    layout = QVBoxLayout(body)
    search = QLineEdit()
    search.setObjectName("patientSearch")
    search.setAccessibleName("Patient search")
    button = QPushButton("Search")
    button.setObjectName("searchButton")
    button.setAccessibleName("Search")
    result = QLabel("No search yet")
    result.setObjectName("searchResult")
    result.setAccessibleName("Search result")
    for widget in (search, button, result):
        layout.addWidget(widget)
    layout.addStretch(1)
    window.setCentralWidget(body)

    def run_search() -> None:
        if args.crash_on and search.text() == args.crash_on:
            sys.exit(3)
        result.setText(f"Found: {search.text()}")

    button.clicked.connect(run_search)
    search.returnPressed.connect(run_search)
    widgets = {w.objectName(): w for w in (search, button, result)}
    widgets.update({w.accessibleName(): w for w in (search, button, result)})

    def describe(widget) -> dict:
        top_left = widget.mapToGlobal(QPoint(0, 0))
        text = widget.text() if hasattr(widget, "text") else ""
        return {"x": top_left.x(), "y": top_left.y(), "w": widget.width(),
                "h": widget.height(), "visible": widget.isVisible(),
                "enabled": widget.isEnabled(), "objectName": widget.objectName(),
                "accessibleName": widget.accessibleName(), "text": text}

    def answer(request: dict) -> dict:
        op = request.get("op")
        if op == "ping":
            return {"ok": True, "op": "ping", "screen": "search"}
        if op == "tree":
            return {"ok": True, "widgets": [describe(w) for w in (search, button, result)]}
        if op == "find":
            widget = widgets.get(request.get("name"))
            return {"ok": True, "widgets": [describe(widget)] if widget else []}
        if op == "reset":
            search.clear()
            result.setText("No search yet")
            return {"ok": True}
        return {"ok": False, "error": f"unknown op {op!r}"}

    server = QLocalServer()
    QLocalServer.removeServer(args.inspector_socket)

    def on_connection() -> None:
        conn = server.nextPendingConnection()

        def on_ready() -> None:
            if not conn.canReadLine():
                return
            line = bytes(conn.readLine()).decode()
            try:
                reply = answer(json.loads(line))
            except ValueError as exc:
                reply = {"ok": False, "error": f"not JSON: {exc}"}
            conn.write((json.dumps(reply) + "\n").encode())
            conn.flush()
            conn.disconnectFromServer()

        conn.readyRead.connect(on_ready)

    server.newConnection.connect(on_connection)
    window.resize(900, 600)
    window.show()
    if not server.listen(args.inspector_socket):
        print(f"cannot listen on {args.inspector_socket}: {server.errorString()}",
              file=sys.stderr)
        return 2
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
