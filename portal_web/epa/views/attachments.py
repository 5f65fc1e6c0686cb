"""Attachments of a request: chosen with the browser's own file chooser (a real
``<input type="file">``), stored byte for byte with their sha256, downloadable unchanged."""

from __future__ import annotations

import mimetypes
from pathlib import PurePosixPath, PureWindowsPath
from urllib.parse import quote

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.common.forms import FORM_ERROR, clean_text
from portal_web.common.params import parse_int
from portal_web.common.requests import PostedForm, form_post, login_required, posted_form
from portal_web.epa.pa_request import PaRequestView
from portal_web.epa.site import LOGIN_PATH, site_of
from portal_web.epa.views.request import not_found, page_context, read_view, view_or_404
from sandbox.stores.epa import EpaAttachment, EpaRequest

guard = login_required(LOGIN_PATH)
MAX_ATTACHMENT = 10 * 1024 * 1024
MULTIPART_SLACK = 64 * 1024  # form fields and part headers around the file
ALLOWED = {".pdf": "application/pdf", ".png": "image/png", ".jpg": "image/jpeg",
           ".jpeg": "image/jpeg", ".tif": "image/tiff", ".tiff": "image/tiff",
           ".gif": "image/gif", ".txt": "text/plain",
           ".doc": "application/msword",
           ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}
MAX_NAME = 200


def safe_filename(raw: str) -> str:
    """The file's own name (no folders), without control characters, at most 200 long."""
    name = PureWindowsPath(PurePosixPath(raw).name).name
    name = clean_text(name).replace("\n", " ")
    if len(name) > MAX_NAME:
        stem, dot, suffix = name.rpartition(".")
        name = (stem[: MAX_NAME - len(suffix) - 1] + dot + suffix) if dot else name[:MAX_NAME]
    return name


def locked(view: PaRequestView) -> str | None:
    if view.row.archived:
        return "This request is archived. Unarchive it to add or remove attachments."
    if not view.sendable:
        return ("This request was already sent to the plan; attachments can no longer be "
                "added or removed.")
    return None


def _refuse(request: Request, view: PaRequestView, message: str, field: str = "file"):  # noqa: ANN202
    site = site_of(request)
    return site.render(request, "request.html",
                       page_context(view, errors={field: message}))


@guard
async def upload(request: Request) -> Response:
    site = site_of(request)
    key = request.path_params["key"]
    length = parse_int(request.headers.get("content-length", ""))
    if length is not None and length > MAX_ATTACHMENT + MULTIPART_SLACK:
        view = read_view(request)
        return _refuse(request, view, "That file is larger than 10 MB, so it was not "
                                      "attached. Attach a smaller file (scan at a lower "
                                      "resolution, or split it).")
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        with site.reader() as db:
            view = view_or_404(site, db, key)
            existing = {a.sha256: a.filename for a in view.attachments}
        if posted.reader.errors:
            return _refuse(request, view, posted.reader.errors[FORM_ERROR], FORM_ERROR)
        reason = locked(view)
        if reason:
            return _refuse(request, view, reason)
        upload_file = posted.data.get("file")
        if not isinstance(upload_file, UploadFile) or not upload_file.filename:
            return _refuse(request, view, "Choose a file to attach first (Choose File), then "
                                          "select Attach.")
        name = safe_filename(upload_file.filename)
        suffix = PurePosixPath(name.lower()).suffix
        if suffix not in ALLOWED:
            return _refuse(request, view, f"'{name[:60]}' cannot be attached: attach a PDF, an "
                                          "image (PNG, JPEG, TIFF, GIF), a Word document or a "
                                          "text file.")
        data = await upload_file.read()
        if not data:
            return _refuse(request, view, f"'{name[:60]}' is empty; choose the file again.")
        if len(data) > MAX_ATTACHMENT:
            return _refuse(request, view, "That file is larger than 10 MB, so it was not "
                                          "attached. Attach a smaller file.")
        attachment = EpaAttachment(request_id=view.row.id, filename=name,
                                   content_type=ALLOWED[suffix], content=data,
                                   uploaded_at=site.now())
        if attachment.sha256 in existing:
            return _refuse(request, view, f"This file is already attached to the request "
                                          f"(as '{existing[attachment.sha256]}').")
        with site.writer(request) as db:
            db.add(attachment)
            db.get(EpaRequest, view.row.id).updated_at = site.now()
        site.flash(request, f"Attached {name}.")
        return posted.redirect(f"/request/{key}#attachments")


def _attachment_or_404(db, view: PaRequestView, attachment_id: int) -> EpaAttachment:  # noqa: ANN001
    row = db.get(EpaAttachment, attachment_id)
    if row is None or row.request_id != view.row.id:
        raise not_found(view.key)
    return row


@guard
async def download(request: Request) -> Response:
    """The attachment's bytes exactly as uploaded."""
    site = site_of(request)
    key = request.path_params["key"]
    with site.reader() as db:
        view = view_or_404(site, db, key)
        row = _attachment_or_404(db, view, request.path_params["attachment"])
        content, name, kind = bytes(row.content), row.filename, row.content_type
    disposition = "attachment" if request.query_params.get("download") == "1" else "inline"
    return Response(content, media_type=kind or mimetypes.guess_type(name)[0]
                    or "application/octet-stream",
                    headers={"Content-Disposition":
                             f"{disposition}; filename*=UTF-8''{quote(name)}",
                             "Cache-Control": "no-store"})


@guard
@form_post
async def remove(request: Request, posted: PostedForm) -> Response:
    site = site_of(request)
    key = request.path_params["key"]
    with site.reader() as db:
        view = view_or_404(site, db, key)
        row = _attachment_or_404(db, view, request.path_params["attachment"])
        name = row.filename
    reason = posted.reader.errors.get(FORM_ERROR) or locked(view)
    if reason:
        return _refuse(request, view, reason, FORM_ERROR)
    with site.writer(request) as db:
        db.delete(db.get(EpaAttachment, row.id))
        db.get(EpaRequest, view.row.id).updated_at = site.now()
    site.flash(request, f"Removed {name}.")
    return posted.redirect(f"/request/{key}#attachments")


routes = [
    Route("/request/{key:epakey}/attachments", upload, methods=["POST"], name="upload"),
    Route("/request/{key:epakey}/attachments/{attachment:id}", download, methods=["GET"],
          name="attachment"),
    Route("/request/{key:epakey}/attachments/{attachment:id}/remove", remove,
          methods=["POST"], name="remove_attachment"),
]
