"""In Basket (Hyperspace) / Message Center (PowerChart): folders, messages, Done.

Opening a message only reads it; Done is the one action that writes.
"""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop_ehr.models.records import RecordTableModel
from desktop_ehr.services import chart_lists
from desktop_ehr.services.charting import mark_message_done
from desktop_ehr.widgets.common import button, named, table_view

MESSAGE_COLUMNS = [("status", "Status"), ("received", "Received"), ("from", "From"),
                   ("patient", "Patient"), ("subject", "Subject")]


class InboxPage(QWidget):
    open_patient = Signal(int)

    def __init__(self, ctx, vocab, name: str = "inbox", parent=None) -> None:
        super().__init__(parent)
        self.setObjectName(f"page.{name}")
        self.ctx = ctx
        self.folders = named(QListWidget(), f"{name}.folders", f"{vocab.inbox} folders")
        self.folders.setFixedWidth(190)
        self.folders.currentRowChanged.connect(lambda _r: self._filter())
        self.model = RecordTableModel(MESSAGE_COLUMNS)
        self.table = table_view(f"{name}.messages", f"{vocab.inbox} messages", self.model)
        for col, width in enumerate((55, 115, 170, 130)):
            self.table.setColumnWidth(col, width)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._show())
        self.body = named(QPlainTextEdit(), f"{name}.body", "Message text")
        self.body.setReadOnly(True)
        self.done = button("✔ Done", f"{name}.done", "Mark message done", slot=self._done)
        self.chart = button("Open Chart", f"{name}.openChart", "Open patient chart",
                            slot=self._open_chart)
        title = QLabel(vocab.inbox)
        title.setProperty("role", "sectionTitle")
        bar = QFrame()
        bar.setProperty("role", "pageToolbar")
        bl = QHBoxLayout(bar)
        bl.setContentsMargins(6, 3, 6, 3)
        bl.addWidget(title)
        bl.addStretch(1)
        bl.addWidget(self.chart)
        bl.addWidget(self.done)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.table)
        right.addWidget(self.body)
        right.setSizes([300, 200])
        main = QHBoxLayout()
        main.setContentsMargins(0, 0, 0, 0)
        main.addWidget(self.folders)
        main.addWidget(right, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(bar)
        layout.addLayout(main, 1)
        self._all = []

    def load(self) -> None:
        if self.ctx.user is None:
            return
        self._all = chart_lists.messages(self.ctx, self.ctx.user.id)
        counts = Counter(r.cells["folder"] for r in self._all)
        unread = Counter(r.cells["folder"] for r in self._all if r.flag == "new")
        current = self.folders.currentItem().text().split(" (")[0] \
            if self.folders.currentItem() else "All Messages"
        self.folders.blockSignals(True)
        self.folders.clear()
        self.folders.addItem(f"All Messages ({len(self._all)})")
        for folder in sorted(counts):
            self.folders.addItem(f"{folder} ({unread[folder]}/{counts[folder]})")
        rows = [self.folders.item(i).text().split(" (")[0] for i in range(self.folders.count())]
        self.folders.setCurrentRow(rows.index(current) if current in rows else 0)
        self.folders.blockSignals(False)
        self._filter()

    def _filter(self) -> None:
        item = self.folders.currentItem()
        folder = item.text().split(" (")[0] if item else "All Messages"
        rows = self._all if folder == "All Messages" else \
            [r for r in self._all if r.cells["folder"] == folder]
        self.model.set_rows(rows)
        self.body.setPlainText("")

    def _current(self):
        rows = self.table.selectionModel().selectedRows()
        return self.model.row_at(rows[0].row()) if rows else None

    def _show(self) -> None:
        msg = self._current()
        if msg is None:
            self.body.setPlainText("")
            return
        c = msg.cells
        self.body.setPlainText(f"From: {c['from']}\nReceived: {c['received']}\n"
                               f"Patient: {c['patient'] or '—'}\nSubject: {c['subject']}\n\n"
                               f"{c['body']}")

    def _done(self) -> None:
        msg = self._current()
        if msg is not None and msg.flag != "done":
            mark_message_done(self.ctx, msg.id)
            self.load()

    def _open_chart(self) -> None:
        msg = self._current()
        if msg is None:
            return
        m = self.ctx.models
        with self.ctx.reader() as s:
            row = s.get(m.Message, msg.id)
            patient_id = row.patient_id if row else None
        if patient_id:
            self.open_patient.emit(patient_id)
