"""Patient documents: category tree, viewer, PDF download (logged), and upload."""

from __future__ import annotations

import datetime as dt
import hashlib

from sqlalchemy import select
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.common.downloads import ascii_filename, document_response
from portal_web.common.requests import login_required, posted_form
from portal_web.ehr.chart import not_found
from portal_web.ehr.pdfpages import can_render, page_count, render_page
from portal_web.ehr.site import Tab, here, site_of, user_of
from sandbox.stores.ehr import Category, CategoryToDocument, Document, Log

guard = login_required("/login")
MAX_UPLOAD = 12 * 1024 * 1024
ALLOWED = {b"%PDF": "application/pdf", b"\x89PNG": "image/png", b"\xff\xd8\xff": "image/jpeg"}


def _pid(request: Request) -> int:
    return int(request.path_params["pid"])


def _tree(db, pid: int) -> tuple[list[Category], dict[int, list[Document]]]:  # noqa: ANN001
    cats = list(db.scalars(select(Category).where(Category.parent != 0)
                           .order_by(Category.name)))
    docs: dict[int, list[Document]] = {c.id: [] for c in cats}
    docs[0] = []
    filed = {link.document_id: link.category_id for link in db.scalars(
        select(CategoryToDocument))}
    for doc in db.scalars(select(Document).where(Document.foreign_id == pid,
                                                 Document.deleted == 0)
                          .order_by(Document.docdate.desc(), Document.id.desc())):
        docs.setdefault(filed.get(doc.id, 0), []).append(doc)
    return cats, docs


def _document(db, pid: int, doc_id: int) -> Document:  # noqa: ANN001
    doc = db.get(Document, doc_id)
    if doc is None or doc.foreign_id != pid or doc.deleted:
        raise not_found(f"Document {doc_id} of this patient")
    return doc


def _log(site, request: Request, event: str, pid: int, doc: Document) -> None:  # noqa: ANN001
    user = user_of(request)
    with site.writer(request) as db:
        db.add(Log(date=site.now(), event=event, category="Documents", user=user.username,
                   groupname="Default", comments=f"{doc.name} (document {doc.id})",
                   patient_id=pid, success=1, document_id=doc.id))


@guard
async def documents_page(request: Request) -> Response:
    site = site_of(request)
    pid = _pid(request)
    raw = request.path_params.get("did")
    with site.reader() as db:
        header = site.select_patient(request, db, pid)
        cats, docs = _tree(db, pid)
        doc = _document(db, pid, int(raw)) if raw is not None else None
        category = None
        if doc is not None:
            link = db.scalar(select(CategoryToDocument).where(
                CategoryToDocument.document_id == doc.id))
            category = db.get(Category, link.category_id) if link else None
    pages = 0
    if doc is not None:
        _log(site, request, "document-view", pid, doc)
        if doc.mimetype == "application/pdf" and doc.document_data and can_render():
            pages = page_count(bytes(doc.document_data))
    p = header.patient
    return site.render(request, "documents.html", {
        "patient": header, "cats": cats, "docs": docs, "doc": doc, "category": category,
        "pages": pages,
        "cat_choices": [(str(c.id), c.name) for c in cats],
        "values": {"docdate": site.today().isoformat()}},
        tab=Tab("doc", f"Documents: {p.lname}", here(request)))


def _file_response(doc: Document, disposition: str) -> Response:
    if doc.document_data is None:
        raise not_found(f"The file of document {doc.id}")
    # OpenEMR names the download by its safe name only (also as filename*)
    name = ascii_filename(doc.name, f"document-{doc.id}")
    return document_response(bytes(doc.document_data), doc.mimetype or
                             "application/octet-stream", name, fallback=name,
                             disposition=disposition)


@guard
async def document_file(request: Request) -> Response:
    site = site_of(request)
    pid = _pid(request)
    with site.reader() as db:
        doc = _document(db, pid, int(request.path_params["did"]))
    return _file_response(doc, "inline")


@guard
async def document_page(request: Request) -> Response:
    """One page of a PDF document as a PNG (what the viewer shows)."""
    site = site_of(request)
    pid = _pid(request)
    number = int(request.path_params["page"])
    with site.reader() as db:
        doc = _document(db, pid, int(request.path_params["did"]))
    data = bytes(doc.document_data or b"")
    if doc.mimetype != "application/pdf" or not 1 <= number <= page_count(data):
        raise not_found(f"Page {number} of document {doc.id}")
    digest = doc.hash or hashlib.sha256(data).hexdigest()
    # the browser keeps the picture but asks each time: a document id names another file
    # after the episode's reset (the browser's HTTP cache outlives resets)
    headers = {"Cache-Control": "private, no-cache", "ETag": f'"{digest}-{number}"'}
    if request.headers.get("if-none-match") == headers["ETag"]:
        return Response(status_code=304, headers=headers)
    image = render_page(digest, data, number)
    if image is None:
        raise not_found(f"A picture of page {number} (download the PDF instead)")
    return Response(image, media_type="image/png", headers=headers)


@guard
async def document_download(request: Request) -> Response:
    site = site_of(request)
    pid = _pid(request)
    with site.reader() as db:
        doc = _document(db, pid, int(request.path_params["did"]))
    response = _file_response(doc, "attachment")
    _log(site, request, "document-download", pid, doc)
    return response


def _sniff(data: bytes) -> str | None:
    for magic, mime in ALLOWED.items():
        if data.startswith(magic):
            return mime
    return None


@guard
async def document_upload(request: Request) -> Response:
    site = site_of(request)
    pid = _pid(request)
    user = user_of(request)
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        with site.reader() as db:
            header = site.select_patient(request, db, pid)
            cats, docs = _tree(db, pid)
        category = f.choice("category_id", "Category", [str(c.id) for c in cats],
                            required=True)
        docdate = f.date("docdate", "Document date", required=True,
                         earliest=dt.date(1900, 1, 1), latest=site.today())
        upload = posted.data.get("file")
        data = b""
        if not isinstance(upload, UploadFile) or not upload.filename:
            f.fail("file", "Choose a file to upload (PDF, PNG or JPEG).")
        else:
            data = await upload.read(MAX_UPLOAD + 1)
            if len(data) > MAX_UPLOAD:
                f.fail("file", "The file is larger than 12 MB; upload a smaller file.")
            elif not data:
                f.fail("file", "The file is empty.")
            elif _sniff(data) is None:
                f.fail("file", "Only PDF, PNG and JPEG files can be uploaded.")
        name = f.text("name", "File name", max_len=120) or (
            upload.filename[:120] if isinstance(upload, UploadFile) and upload.filename
            else "")
        description = f.text("description", "Description", max_len=1000)
        if not f.ok:
            return site.render(request, "documents.html", {
                "patient": header, "cats": cats, "docs": docs, "doc": None, "category": None,
                "cat_choices": [(str(c.id), c.name) for c in cats],
                "values": f.raw, "errors": f.errors, "upload_open": True})
        now = site.now()
        with site.writer(request) as db:
            doc = Document(type="file_url", size=len(data), date=now, mimetype=_sniff(data),
                           owner=user.user_id, revision=now, foreign_id=pid, docdate=docdate,
                           hash=hashlib.sha256(data).hexdigest(), name=name,
                           document_data=data, description=description, deleted=0)
            db.add(doc)
            db.flush()
            db.add(CategoryToDocument(category_id=int(category), document_id=doc.id))
            doc_id = doc.id
        site.flash(request, f"Document '{name}' uploaded.")
        return posted.redirect(f"/patient/{pid}/documents/{doc_id}")


routes = [
    Route("/patient/{pid:id}/documents", documents_page, methods=["GET"]),
    Route("/patient/{pid:id}/documents/upload", document_upload, methods=["POST"]),
    Route("/patient/{pid:id}/documents/{did:id}", documents_page, methods=["GET"]),
    Route("/patient/{pid:id}/documents/{did:id}/file", document_file, methods=["GET"]),
    Route("/patient/{pid:id}/documents/{did:id}/download", document_download,
          methods=["GET"]),
    Route("/patient/{pid:id}/documents/{did:id}/page/{page:id}.png", document_page,
          methods=["GET"]),
]
