"""The scanned-document viewer (offscreen): scans show their page images, PDFs with a text
layer and other files their text, and ord-17's two look-alike advance directives can be
told apart by what is on screen."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import yaml
from PySide6.QtCore import QUrl
from PySide6.QtGui import QImage, QTextDocument

from desktop_ehr.inspector import describe, find_widgets, widget_text
from desktop_ehr.widgets.documents_page import (
    DocumentView,
    DocumentViewer,
    FileDocumentDialog,
    read_document,
)
from sandbox.catalog import load_catalog
from sandbox.inputs import render_blob

PDF = "application/pdf"
HELEN_SCAN, HELENA_SCAN = 1001, 1002


@pytest.fixture(scope="module")
def ord17_scans() -> dict[int, bytes]:
    """The two scanned advance directives of ord-17's inbox, from its own seed spec."""
    spec = load_catalog().get("ord-17")
    seed = yaml.safe_load((Path(spec.folder) / spec.seed["powerchart"]).read_text())
    return {doc["id"]: render_blob(doc["content"], Path(spec.folder), doc["content"]["path"])
            for doc in seed["documents"] if doc["id"] in (HELEN_SCAN, HELENA_SCAN)}


@pytest.fixture(scope="module")
def typed_pdf() -> bytes:
    return render_blob({"generate": "pdf", "options": {"title": "Outside labs"},
                        "pages": [{"title": "Final Report",
                                   "paragraphs": ["Hemoglobin A1c 7.6 %"]}]},
                       None, "labs.pdf")


def viewer(qtbot, width: int = 460, height: int = 330) -> DocumentViewer:
    widget = DocumentViewer("documents.viewer", "Scanned document viewer")
    qtbot.addWidget(widget)
    widget.resize(width, height)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def shown_images(widget: DocumentViewer) -> list[QImage]:
    """The images laid out in the viewer's document, top to bottom."""
    doc = widget.document()
    images = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            char_format = it.fragment().charFormat()
            if char_format.isImageFormat():
                name = char_format.toImageFormat().name()
                images.append(doc.resource(QTextDocument.ResourceType.ImageResource,
                                           QUrl(name)))
            it += 1
        block = block.next()
    return images


def pixel_hash(image: QImage) -> str:
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    return hashlib.sha256(bytes(image.constBits())).hexdigest()


def test_a_scan_shows_one_image_per_page_scaled_to_the_width(qtbot, ord17_scans):
    view = read_document("ad.pdf", PDF, ord17_scans[HELEN_SCAN])
    assert view.text == "Scanned image, 2 pages"
    assert [(p.width(), p.height()) for p in view.pages] == [(1275, 1650)] * 2
    widget = viewer(qtbot)
    widget.show_document(view)
    images = shown_images(widget)
    assert len(images) == widget.page_count == 2
    for image in images:
        assert not image.isNull()
        assert widget.viewport().width() - 40 <= image.width() <= widget.viewport().width()
        assert image.height() / image.width() == pytest.approx(1650 / 1275, rel=0.02)
    shown = widget_text(widget)  # what the oracle's inspector reads
    assert shown.startswith("Scanned image, 2 pages")
    assert "Page 1 of 2" in shown and "Page 2 of 2" in shown
    assert widget.verticalScrollBar().value() == 0


def test_widening_the_viewer_scales_the_pages_again(qtbot, ord17_scans):
    widget = viewer(qtbot, 300, 300)
    widget.show_document(read_document("ad.pdf", PDF, ord17_scans[HELEN_SCAN]))
    narrow = shown_images(widget)[0].width()
    widget.resize(620, 300)
    qtbot.waitUntil(lambda: shown_images(widget)[0].width() > narrow + 250)


def test_a_pdf_with_a_text_layer_shows_its_text(qtbot, ord17_scans, typed_pdf):
    view = read_document("labs.pdf", PDF, typed_pdf)
    assert view.pages == () and "Hemoglobin A1c 7.6 %" in view.text
    fresh = viewer(qtbot)
    fresh.show_document(view)
    assert fresh.toPlainText() == view.text and shown_images(fresh) == []
    widget = viewer(qtbot)
    widget.show_document(read_document("ad.pdf", PDF, ord17_scans[HELEN_SCAN]))
    widget.show_document(view)  # a scan, then a typed PDF: nothing of the scan is left
    assert shown_images(widget) == [] and widget.page_count == 0
    assert widget.toPlainText() == view.text
    assert pixel_hash(widget.grab().toImage()) == pixel_hash(fresh.grab().toImage())


def test_other_files_and_damaged_pdfs_show_text():
    assert read_document("note.txt", "text/plain", b"Call back re: MRI") == \
        DocumentView("Call back re: MRI")
    damaged = read_document("scan.pdf", PDF, b"%PDF-1.4 torn off")
    assert damaged.pages == () and damaged.text.startswith("(cannot read scan.pdf")


def test_the_two_look_alike_advance_directives_look_different(qtbot, ord17_scans):
    pages = {doc: read_document("scan.pdf", PDF, content).pages
             for doc, content in ord17_scans.items()}
    assert pixel_hash(pages[HELEN_SCAN][0]) != pixel_hash(pages[HELENA_SCAN][0])
    widget = viewer(qtbot)
    on_screen = {}
    for doc, content in ord17_scans.items():
        widget.show_document(read_document("scan.pdf", PDF, content))
        on_screen[doc] = pixel_hash(widget.grab().toImage())
    assert on_screen[HELEN_SCAN] != on_screen[HELENA_SCAN]


def test_documentation_page_and_file_dialog_show_the_scan(qtbot, tmp_path, seeded_task):
    from tests.desktop_ehr import taskdriver as td

    _spec, run_dir = seeded_task("ord-17", tmp_path / "run")
    window = td.open_window(qtbot, "powerchart", run_dir)
    pid = td.patient_id(window, "7004639")
    chart = window.shell.open_patient(pid)
    view = window.shell.charts[pid][1]
    view.select("Documentation")
    page = view.documents
    row = next(r for r, doc in enumerate(page.inbox_model.rows()) if doc.id == HELEN_SCAN)
    page.inbox.selectRow(row)
    page._view(page.inbox_model.index(row, 0))
    found = describe(find_widgets("Scanned document viewer")[0])  # as the inspector finds it
    assert found["objectName"] == "documents.viewer" and found["visible"]
    assert found["text"].startswith("Scanned image, 2 pages")
    assert len(shown_images(page.viewer)) == 2
    dialog = FileDocumentDialog(chart, HELEN_SCAN, window)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.preview.objectName() == "fileDocument.preview"
    qtbot.waitExposed(dialog)
    images = shown_images(dialog.preview)  # laid out again at the width it was shown at
    assert len(images) == 2 and images[0].width() > dialog.preview.viewport().width() - 40
    assert dialog.preview.verticalScrollBar().value() == 0
    dialog.reject()
    window.ctx.close()
