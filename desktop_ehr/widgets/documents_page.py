"""Documentation with the scanned-documents inbox: drag a scan onto the chart to file it.

The drag is done with plain mouse events (press on an inbox row, move, release over the
chart's document area) rather than the platform drag-and-drop protocol, so it behaves the
same under Xvfb driven by XTEST, in the offscreen test platform and on a real desktop. The
release opens the File Document dialog (document type, description); OK files the scan in
one transaction, Cancel leaves it in the inbox.
"""

from __future__ import annotations

import io

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop_ehr.models.records import RecordTableModel
from desktop_ehr.services import chart_lists
from desktop_ehr.services.charting import ChartingRefused, document_content, file_document
from desktop_ehr.widgets.chart_pages import DOCUMENT_COLUMNS
from desktop_ehr.widgets.common import (
    button,
    caption,
    combo,
    error_label,
    line_edit,
    named,
    show_error,
    table_view,
)
from desktop_ehr.widgets.patient_chart import PatientChart

INBOX_COLUMNS = [("description", "Scanned Document"), ("received", "Received"),
                 ("source", "Source"), ("size", "Size")]
DROP_PROPERTY = "documentDropTarget"


def document_text(filename: str, mime: str, content: bytes) -> str:
    """Readable text of a scan for the viewer (PDF text layer, or the bytes as text)."""
    if mime == "application/pdf" or filename.lower().endswith(".pdf"):
        try:
            from pypdf import PdfReader

            reader = PdfReader(io.BytesIO(content))
            return "\n\n".join((page.extract_text() or "") for page in reader.pages).strip() \
                or "(scanned image; no text layer)"
        except Exception as exc:  # a damaged scan still shows something useful
            return f"(cannot read {filename}: {exc})"
    return content.decode("utf-8", errors="replace")


class DraggableInbox(QTableView):
    """A table whose rows can be dragged (press, move, release) onto a drop target."""

    dropped = Signal(int, QWidget)  # document id, target widget

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._press: QPoint | None = None
        self._row: int | None = None
        self._ghost: QLabel | None = None

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt API
        super().mousePressEvent(event)
        if event.button() == Qt.MouseButton.LeftButton:
            index = self.indexAt(event.position().toPoint())
            self._press = event.position().toPoint() if index.isValid() else None
            self._row = index.row() if index.isValid() else None

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt API
        if self._press is None or not event.buttons() & Qt.MouseButton.LeftButton:
            super().mouseMoveEvent(event)
            return
        moved = (event.position().toPoint() - self._press).manhattanLength()
        if self._ghost is None and moved >= QApplication.startDragDistance():
            self._start_ghost()
        if self._ghost is not None:
            self._move_ghost(event.globalPosition().toPoint())

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt API
        ghost, row = self._ghost, self._row
        self._press = self._row = self._ghost = None
        if ghost is None:
            super().mouseReleaseEvent(event)
            return
        ghost.deleteLater()
        target = drop_target_at(event.globalPosition().toPoint())
        if target is not None and row is not None:
            self.dropped.emit(self.model().row_at(row).id, target)

    def _start_ghost(self) -> None:
        text = self.model().index(self._row, 0).data()
        ghost = named(QLabel(f"▤ {text}", self.window()), "documents.dragGhost",
                      "Dragged document")
        ghost.setProperty("role", "dragGhost")
        ghost.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        ghost.adjustSize()
        ghost.show()
        ghost.raise_()
        self._ghost = ghost

    def _move_ghost(self, global_pos: QPoint) -> None:
        top = self._ghost.parentWidget()
        self._ghost.move(top.mapFromGlobal(global_pos) + QPoint(14, 12))


def drop_target_at(global_pos: QPoint) -> QWidget | None:
    widget = QApplication.widgetAt(global_pos)
    while widget is not None:
        if widget.property(DROP_PROPERTY):
            return widget
        widget = widget.parentWidget()
    return None


class FileDocumentDialog(QDialog):
    """Where and as what a dropped scan is filed."""

    def __init__(self, chart: PatientChart, document_id: int, parent=None) -> None:
        super().__init__(parent)
        self.chart = chart
        self.document_id = document_id
        self.filed = False
        named(self, "fileDocument", "File Document")
        self.setWindowTitle("File Document to Chart")
        self.resize(640, 520)
        filename, mime, content = document_content(chart.ctx, document_id)
        s = chart.summary
        self.type = combo("fileDocument.type", "Document type",
                          [("", None)] + [(t, t) for t in chart.ref.document_types])
        self.description = line_edit("fileDocument.description", "Document description",
                                     "optional")
        preview = named(QPlainTextEdit(document_text(filename, mime, content)),
                        "fileDocument.preview", "Document preview")
        preview.setReadOnly(True)
        self.error = error_label("fileDocument.error")
        form = QFormLayout()
        form.addRow("Patient:", named(QLabel(f"{s.name}   MRN {s.mrn}   DOB "
                                             f"{s.dob:%m/%d/%Y}"), "fileDocument.patient",
                                      "Patient"))
        form.addRow("Encounter:", QLabel(f"FIN {s.fin or '—'}  {s.reason or ''}"))
        form.addRow("File name:", QLabel(filename))
        form.addRow("Document type:", self.type)
        form.addRow("Description:", self.description)
        ok = button("✔ OK", "fileDocument.accept", "File document", role="primary",
                    slot=self.accept)
        ok.setDefault(True)
        cancel = button("✖ Cancel", "fileDocument.cancel", "Cancel", slot=self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(preview, 1)
        layout.addWidget(self.error)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(ok)
        row.addWidget(cancel)
        layout.addLayout(row)

    def accept(self) -> None:
        try:
            file_document(self.chart.ctx, self.document_id, self.chart.patient_id,
                          self.chart.encounter_id, self.type.currentData() or "",
                          self.description.text())
        except ChartingRefused as refused:
            show_error(self.error, " ".join(refused.problems))
            return
        self.filed = True
        super().accept()

    @classmethod
    def file(cls, parent, chart: PatientChart, document_id: int) -> bool:
        dialog = cls(chart, document_id, parent)
        dialog.exec()
        filed = dialog.filed
        dialog.deleteLater()
        return filed


class DocumentsPage(QWidget):
    """Filed documents of the chart (a drop target) beside the scanned-documents inbox."""

    def __init__(self, chart: PatientChart, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("page.documents")
        self.chart = chart
        self.filed_model = RecordTableModel(DOCUMENT_COLUMNS)
        self.filed = table_view("documents.filed", "Filed documents", self.filed_model)
        for col, width in enumerate((150, 250, 115, 115)):
            self.filed.setColumnWidth(col, width)
        self.drop_zone = named(QLabel("▼  Drop a scanned document here to file it to "
                                      f"{chart.summary.name}'s chart"),
                               "documents.dropZone", "Drop documents here")
        self.drop_zone.setProperty("role", "dropZone")
        self.drop_zone.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.drop_zone.setMinimumHeight(56)
        chart_side = QFrame()
        chart_side.setObjectName("documents.chartArea")
        chart_side.setProperty(DROP_PROPERTY, True)
        chart_side.setProperty("role", "panel")
        cl = QVBoxLayout(chart_side)
        cl.setContentsMargins(6, 4, 6, 6)
        title = QLabel(f"{chart.vocab.documents} — {chart.summary.name}")
        title.setProperty("role", "sectionTitle")
        cl.addWidget(title)
        cl.addWidget(self.filed, 1)
        cl.addWidget(self.drop_zone)

        self.inbox_model = RecordTableModel(INBOX_COLUMNS)
        self.inbox = DraggableInbox()
        named(self.inbox, "documents.inbox", "Scanned documents inbox")
        self.inbox.setModel(self.inbox_model)
        self.inbox.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.inbox.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.inbox.setEditTriggers(QTableView.EditTrigger.NoEditTriggers)
        self.inbox.verticalHeader().setVisible(False)
        self.inbox.verticalHeader().setDefaultSectionSize(22)
        self.inbox.setWordWrap(False)
        self.inbox.setAlternatingRowColors(True)
        self.inbox.horizontalHeader().setStretchLastSection(True)
        self.inbox.setColumnWidth(0, 260)
        self.inbox.dropped.connect(self._dropped)
        self.viewer = named(QPlainTextEdit(), "documents.viewer", "Scanned document viewer")
        self.viewer.setReadOnly(True)
        self.inbox.clicked.connect(self._view)
        inbox_side = QFrame()
        inbox_side.setProperty("role", "panel")
        il = QVBoxLayout(inbox_side)
        il.setContentsMargins(6, 4, 6, 6)
        head = QLabel("Scanned Documents — Unfiled (4W)")
        head.setProperty("role", "sectionTitle")
        il.addWidget(head)
        il.addWidget(caption("Drag a document onto the chart on the left to file it."))
        il.addWidget(self.inbox, 2)
        il.addWidget(self.viewer, 3)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(chart_side)
        split.addWidget(inbox_side)
        split.setSizes([560, 440])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)
        chart.changed.connect(self.load)

    def load(self) -> None:
        self.filed_model.set_rows(chart_lists.documents(self.chart.ctx, self.chart.patient_id))
        self.inbox_model.set_rows(chart_lists.unfiled_documents(self.chart.ctx))
        self.viewer.setPlainText("")

    def _view(self, index) -> None:
        doc = self.inbox_model.row_at(index.row())
        filename, mime, content = document_content(self.chart.ctx, doc.id)
        self.viewer.setPlainText(document_text(filename, mime, content))

    def _dropped(self, document_id: int, _target: QWidget) -> None:
        if FileDocumentDialog.file(self, self.chart, document_id):
            self.chart.status.emit("Document filed to the chart.")
            self.chart.refresh()
