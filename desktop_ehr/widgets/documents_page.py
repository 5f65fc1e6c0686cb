"""Documentation with the scanned-documents inbox: drag a scan onto the chart to file it.

The drag is done with plain mouse events (press on an inbox row, move, release over the
chart's document area) rather than the platform drag-and-drop protocol, so it behaves the
same under Xvfb driven by XTEST, in the offscreen test platform and on a real desktop. The
release opens the File Document dialog (document type, description); OK files the scan in
one transaction, Cancel leaves it in the inbox.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from PySide6.QtCore import QPoint, Qt, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QImage,
    QMouseEvent,
    QPainter,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextImageFormat,
)
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QTableView,
    QTextEdit,
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


@dataclass(frozen=True)
class DocumentView:
    """What a viewer shows of a document: its text, or, for a scan (a PDF with no text
    layer), one image per page, with ``text`` summing them up ("Scanned image, 2 pages").
    A page with no image on it is None."""

    text: str
    pages: tuple[QImage | None, ...] = ()


def read_document(filename: str, mime: str, content: bytes) -> DocumentView:
    """The PDF's text layer, else its scanned pages; other files as text."""
    if not (mime == "application/pdf" or filename.lower().endswith(".pdf")):
        return DocumentView(content.decode("utf-8", errors="replace"))
    try:
        from pypdf import PdfReader

        reader = PdfReader(io.BytesIO(content))
        text = "\n\n".join((page.extract_text() or "") for page in reader.pages).strip()
        if text:
            return DocumentView(text)
        pages = tuple(_page_image(page) for page in reader.pages)
    except Exception as exc:  # a damaged scan still shows something useful
        return DocumentView(f"(cannot read {filename}: {exc})")
    if not any(page is not None for page in pages):
        return DocumentView("(no text layer and no page images)")
    count = len(pages)
    return DocumentView(f"Scanned image, {count} page{'' if count == 1 else 's'}", pages)


def _page_image(page) -> QImage | None:
    """The largest image embedded in a PDF page: a scanner stores each sheet as one."""
    best: QImage | None = None
    for embedded in page.images:
        image = QImage.fromData(embedded.data)
        if image.isNull():  # an encoding Qt does not read (JPEG 2000, CCITT…): via Pillow
            png = io.BytesIO()
            embedded.image.convert("RGB").save(png, format="PNG")
            image = QImage.fromData(png.getvalue())
        if not image.isNull() and (best is None or image.width() * image.height()
                                   > best.width() * best.height()):
            best = image
    return best


class DocumentViewer(QTextEdit):
    """Read-only viewer of a document: its text, or its scanned pages stacked on a grey
    backdrop, each scaled to the viewer's width under a "Page 1 of 2" caption.

    It is a QTextEdit so the inspector reads what the user sees (``toPlainText``): for a
    scan the summary line ("Scanned image, 2 pages") and the page captions, with one U+FFFC
    (Qt's stand-in for an embedded object) where each page image is.
    """

    BACKDROP = "#6e757c"
    PAGE_GAP = 12

    def __init__(self, object_name: str, accessible_name: str, parent=None) -> None:
        super().__init__(parent)
        named(self, object_name, accessible_name)
        self.setReadOnly(True)
        self._text_flags = self.textInteractionFlags()
        self._text_margin = self.document().documentMargin()
        self._view = DocumentView("")
        self._laid_out_width = 0

    @property
    def page_count(self) -> int:
        return len(self._view.pages)

    def show_document(self, view: DocumentView) -> None:
        self._view = view
        if view.pages:
            self.setStyleSheet(f"QTextEdit {{ background: {self.BACKDROP}; }}")
            self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
            self.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
            self._lay_out_pages()
            self.verticalScrollBar().setValue(0)
        else:
            self.setStyleSheet("")
            self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
            self.setTextInteractionFlags(self._text_flags)
            self.document().setDocumentMargin(self._text_margin)
            self.setCurrentCharFormat(QTextCharFormat())  # not the last scan's caption style
            self.setPlainText(view.text)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        if self._view.pages and self._page_width() != self._laid_out_width:
            scroll = self.verticalScrollBar()
            at = scroll.value() / scroll.maximum() if scroll.maximum() else 0.0
            self._lay_out_pages()
            scroll.setValue(round(at * scroll.maximum()))

    def _page_width(self) -> int:
        return max(80, self.viewport().width() - 2 * self.PAGE_GAP - 4)

    def _lay_out_pages(self) -> None:
        """Fill the document with the captions and the pages scaled to the width."""
        doc = self.document()
        doc.clear()
        doc.setDocumentMargin(self.PAGE_GAP)
        width = self._laid_out_width = self._page_width()
        ratio = self.devicePixelRatioF()
        caption_format = QTextCharFormat()
        caption_format.setForeground(QColor("#f2f4f6"))
        caption_format.setFontPointSize(max(7.0, self.font().pointSizeF() - 1))
        centred = QTextBlockFormat()
        centred.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        cursor = QTextCursor(doc)
        cursor.setBlockFormat(centred)
        cursor.insertText(self._view.text, caption_format)
        count = len(self._view.pages)
        for number, page in enumerate(self._view.pages, start=1):
            above = QTextBlockFormat(centred)
            above.setTopMargin(self.PAGE_GAP)
            cursor.insertBlock(above)
            note = "" if page is not None else " (no image on this page)"
            cursor.insertText(f"Page {number} of {count}{note}", caption_format)
            if page is None:
                continue
            image = _framed(page.scaledToWidth(round(width * ratio),
                                               Qt.TransformationMode.SmoothTransformation))
            image.setDevicePixelRatio(ratio)
            name = f"scan-page-{number}"
            doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name), image)
            picture = QTextImageFormat()
            picture.setName(name)
            picture.setWidth(image.width() / ratio)
            picture.setHeight(image.height() / ratio)
            cursor.insertBlock(centred)
            cursor.insertImage(picture)
        self.setTextCursor(QTextCursor(doc))  # at the top: showing it must not scroll down


def _framed(page: QImage) -> QImage:
    """A page on a thin dark edge with a soft shadow below right, as paper on a desk."""
    shadow = 3
    framed = QImage(page.width() + shadow, page.height() + shadow,
                    QImage.Format.Format_ARGB32_Premultiplied)
    framed.fill(Qt.GlobalColor.transparent)
    painter = QPainter(framed)
    painter.fillRect(shadow, shadow, page.width(), page.height(), QColor(0, 0, 0, 90))
    painter.drawImage(0, 0, page)
    painter.setPen(QColor("#3c4248"))
    painter.drawRect(0, 0, page.width() - 1, page.height() - 1)
    painter.end()
    return framed


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
        # hidden now: a deferred delete waits until the dialog a drop opens is closed
        ghost.hide()
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
        self.preview = DocumentViewer("fileDocument.preview", "Document preview")
        self.preview.show_document(read_document(filename, mime, content))
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
        layout.addWidget(self.preview, 1)
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
        self.viewer = DocumentViewer("documents.viewer", "Scanned document viewer")
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
        self.viewer.show_document(DocumentView(""))

    def _view(self, index) -> None:
        doc = self.inbox_model.row_at(index.row())
        filename, mime, content = document_content(self.chart.ctx, doc.id)
        self.viewer.show_document(read_document(filename, mime, content))

    def _dropped(self, document_id: int, _target: QWidget) -> None:
        if FileDocumentDialog.file(self, self.chart, document_id):
            self.chart.status.emit("Document filed to the chart.")
            self.chart.refresh()
