"""PatchBoard: the small Qt 6 app every pixel_stream test and benchmark figure uses.

It has what an input or latency measurement needs and nothing that moves on its own:
a text field (typed text is echoed to a status file, so a test can compare what arrived
with what was sent), a patch that flips colour on every mouse press (a repaint of a known
area, for input-to-photon and ``act_and_observe``), and some static text and a table so
screenshots have realistic content. The text cursor does not blink, so an idle screen is
truly idle and two runs of the same input end on the same pixels.

Run: ``python -m pixel_stream.testapp --status /tmp/board.json`` with ``DISPLAY`` set.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

PATCH_COLOURS = ("#1f6feb", "#f0b400")


def _build(status_path: Path | None, title: str, frameless: bool):  # noqa: C901
    from PySide6.QtCore import QRect, Qt, QTimer
    from PySide6.QtGui import QColor, QPainter
    from PySide6.QtWidgets import (
        QApplication,
        QHBoxLayout,
        QLabel,
        QLineEdit,
        QPlainTextEdit,
        QTableWidget,
        QTableWidgetItem,
        QVBoxLayout,
        QWidget,
    )

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setCursorFlashTime(0)  # no blinking caret: idle means no damage

    class Patch(QWidget):
        """A square that flips between two colours on every mouse press."""

        def __init__(self) -> None:
            super().__init__()
            self.setObjectName("patch")
            self.setAccessibleName("Latency patch")
            self.setFixedSize(160, 160)
            self.presses = 0

        def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt API
            self.presses += 1
            self.update()
            board.write_status()

        def paintEvent(self, event) -> None:  # noqa: N802 - Qt API
            painter = QPainter(self)
            painter.fillRect(self.rect(), QColor(PATCH_COLOURS[self.presses % 2]))
            painter.end()

    class Board(QWidget):
        def __init__(self) -> None:
            super().__init__()
            self.setObjectName("patchBoard")
            self.setWindowTitle(title)
            if frameless:
                self.setWindowFlag(Qt.WindowType.FramelessWindowHint, True)
            self.entry = QLineEdit()
            self.entry.setObjectName("entry")
            self.entry.setAccessibleName("Free text")
            self.entry.setPlaceholderText("Type here")
            self.patch = Patch()
            self.notes = QPlainTextEdit()
            self.notes.setObjectName("notes")
            self.notes.setAccessibleName("Notes")
            self.notes.setPlainText(
                "Pixel session test board.\nClick the patch; type into the field above.\n"
            )
            self.notes.setFixedHeight(90)
            table = QTableWidget(6, 3)
            table.setObjectName("orders")
            table.setHorizontalHeaderLabels(["Order", "Status", "Ordered"])
            rows = [
                ("CBC with differential", "Pending", "2026-10-19 09:00"),
                ("Basic metabolic panel", "Resulted", "2026-10-18 14:12"),
                ("Chest X-ray, 2 views", "Scheduled", "2026-10-20 08:30"),
                ("Lipid panel", "Pending", "2026-10-19 09:05"),
                ("HbA1c", "Resulted", "2026-10-12 11:40"),
                ("Urinalysis", "Cancelled", "2026-10-17 16:20"),
            ]
            for r, row in enumerate(rows):
                for c, text in enumerate(row):
                    table.setItem(r, c, QTableWidgetItem(text))
            table.resizeColumnsToContents()
            top = QHBoxLayout()
            top.addWidget(QLabel("Entry:"))
            top.addWidget(self.entry, 1)
            middle = QHBoxLayout()
            middle.addWidget(self.patch)
            middle.addWidget(table, 1)
            layout = QVBoxLayout(self)
            layout.addLayout(top)
            layout.addLayout(middle)
            layout.addWidget(self.notes)
            self.resize(720, 420)
            self.entry.textChanged.connect(lambda _text: self.write_status())
            self.notes.textChanged.connect(self.write_status)

        def _rect(self, widget: QWidget) -> list[int]:
            origin = widget.mapToGlobal(widget.rect().topLeft())
            r = QRect(origin, widget.size())
            return [r.x(), r.y(), r.width(), r.height()]

        def write_status(self) -> None:
            if status_path is None or not hasattr(self, "notes"):
                return
            data = {
                "pid": os.getpid(),
                "ready": self.isVisible(),
                "active": self.isActiveWindow(),
                "entry_focus": self.entry.hasFocus(),
                "text": self.entry.text(),
                "notes": self.notes.toPlainText(),
                "presses": self.patch.presses,
                "patch": self._rect(self.patch),
                "entry": self._rect(self.entry),
                "window": self._rect(self),
            }
            tmp = status_path.with_name(status_path.name + ".tmp")
            tmp.write_text(json.dumps(data, ensure_ascii=False))
            os.replace(tmp, status_path)

        def showEvent(self, event) -> None:  # noqa: N802 - Qt API
            super().showEvent(event)
            QTimer.singleShot(0, self.write_status)

        def moveEvent(self, event) -> None:  # noqa: N802 - Qt API
            super().moveEvent(event)
            self.write_status()

        def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
            super().resizeEvent(event)
            self.write_status()

        def changeEvent(self, event) -> None:  # noqa: N802 - Qt API
            super().changeEvent(event)
            self.write_status()

    board = Board()
    app.focusChanged.connect(lambda _old, _new: board.write_status())
    return app, board


class PatchBoardProcess:
    """PatchBoard running on a display as a child process, read through its status file."""

    def __init__(self, display, status_path: Path, frameless: bool = False,
                 title: str = "PatchBoard") -> None:
        self.display = display
        self.status_path = Path(status_path)
        self.frameless = frameless
        self.title = title
        self.process = None

    def start(self, timeout: float = 30.0) -> PatchBoardProcess:
        from pixel_stream.procs import ManagedProcess, wait_until

        self.status_path.unlink(missing_ok=True)
        argv = [sys.executable, "-m", "pixel_stream.testapp", "--status", str(self.status_path),
                "--title", self.title]
        if self.frameless:
            argv.append("--frameless")
        self.process = ManagedProcess(
            argv, name="PatchBoard", env=self.display.env(),
            log_path=self.status_path.with_suffix(".log"),
        ).start()
        wait_until(lambda: self.status().get("entry_focus"), timeout,
                   "PatchBoard to show its window", 0.02, alive=self.process)
        return self

    def status(self) -> dict:
        try:
            return json.loads(self.status_path.read_text())
        except (OSError, ValueError):
            return {}

    def wait_for(self, predicate, what: str, timeout: float = 10.0) -> dict:
        """Wait until ``predicate(status)`` holds; returns that status."""
        from pixel_stream.procs import wait_until

        return wait_until(lambda: (lambda s: s if s and predicate(s) else None)(self.status()),
                          timeout, what, 0.02, alive=self.process)

    def center(self, name: str) -> list[int]:
        """Screen coordinates of the middle of ``patch``, ``entry`` or ``window``."""
        x, y, w, h = self.status()[name]
        return [x + w // 2, y + h // 2]

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.process = None

    def __enter__(self) -> PatchBoardProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pixel_stream.testapp", description=__doc__)
    parser.add_argument("--status", type=Path, help="JSON file the app keeps up to date")
    parser.add_argument("--title", default="PatchBoard")
    parser.add_argument("--frameless", action="store_true", help="no window decorations")
    args = parser.parse_args(argv)
    app, board = _build(args.status, args.title, args.frameless)
    board.show()
    board.entry.setFocus()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
