"""Documents uploaded through a real ``<input type="file">``: checked, then stored byte-exact.

Accepted: PDF, PNG and JPEG (recognised by their first bytes, not by the name), at most
``MAX_UPLOAD_BYTES``, each with a document type from ``DOCUMENT_TYPES``. The stored row's
``sha256`` and ``size_bytes`` come from the bytes themselves (``Attachment._digest``), so a
verifier can compare them with the source document.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePosixPath, PureWindowsPath

from sqlalchemy.orm import Session
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from sandbox.stores.acme import DOCUMENT_TYPES, Attachment

Endpoint = Callable[[Request], Awaitable[Response]]
MAX_UPLOAD_BYTES = 10 * 1024 * 1024
MAX_UPLOAD_LABEL = "10 MB"
ACCEPT = ".pdf,.png,.jpg,.jpeg,application/pdf,image/png,image/jpeg"
SIGNATURES = (
    (b"%PDF-", "application/pdf", "PDF"),
    (b"\x89PNG\r\n\x1a\n", "image/png", "PNG"),
    (b"\xff\xd8\xff", "image/jpeg", "JPEG"),
)
DOCUMENT_TYPE_LABELS = {
    "clinical_note": "Clinical note", "progress_note": "Progress note",
    "history_and_physical": "History and physical (H&P)", "imaging_report": "Imaging report",
    "lab_result": "Lab result", "therapy_note": "Therapy note", "plan_of_care": "Plan of care",
    "letter_of_medical_necessity": "Letter of medical necessity",
    "appeal_letter": "Appeal letter", "dosimetry_plan": "Dosimetry plan",
    "medical_literature": "Medical literature", "face_to_face_note": "Face-to-face note",
    "mobility_assessment": "Mobility assessment", "home_assessment": "Home assessment",
    "prescription": "Prescription / order", "network_search": "Network directory search",
    "claim_form": "Claim form", "other": "Other",
}
assert set(DOCUMENT_TYPE_LABELS) == set(DOCUMENT_TYPES)
UNREADABLE_UPLOAD = (f"The file could not be received: it is probably larger than the "
                     f"{MAX_UPLOAD_LABEL} limit. Attach a smaller file (save scans at a lower "
                     "resolution, or split the document).")


def upload_refused(exc: Exception) -> bool:
    """Whether reading the posted form failed for its size or shape (HTTP 400/413 from the
    form reader): the page then says so beside the file field instead of an error page."""
    return getattr(exc, "status_code", None) in (400, 413)


def unreadable_upload_shows(page: Callable[[Request, dict[str, str]], Response]
                            ) -> Callable[[Endpoint], Endpoint]:
    """Decorator of an upload view: a form that could not be read (:func:`upload_refused`)
    shows ``page(request, errors)`` with ``UNREADABLE_UPLOAD`` beside the file field."""

    def wrap(view: Endpoint) -> Endpoint:
        @functools.wraps(view)
        async def guarded(request: Request) -> Response:
            try:
                return await view(request)
            except HTTPException as exc:
                if not upload_refused(exc):
                    raise
                return page(request, {"file": UNREADABLE_UPLOAD})

        return guarded

    return wrap


@dataclass(frozen=True)
class UploadedDocument:
    """A checked upload, ready to store."""

    filename: str
    content_type: str
    content: bytes
    document_type: str
    description: str = ""


def clean_filename(name: str) -> str:
    """The file's own name (no folders), without control characters, at most 200 chars."""
    base = PureWindowsPath(PurePosixPath(name).name).name
    base = re.sub(r"[\x00-\x1f\x7f]", "", base).strip() or "document"
    if len(base) > 200:
        stem, dot, ext = base.rpartition(".")
        base = (stem[: 200 - len(ext) - 1] + dot + ext) if dot else base[:200]
    return base


def sniff_type(content: bytes) -> str | None:
    """The media type of PDF/PNG/JPEG content, or None for anything else."""
    for magic, media, _ in SIGNATURES:
        if content.startswith(magic):
            return media
    return None


async def read_upload(form: FormData, errors: dict[str, str], *, field: str = "file",
                      type_field: str = "document_type", description_field: str = "description",
                      required: bool = True) -> UploadedDocument | None:
    """The checked upload of ``field``; on a problem, a message in ``errors[field]``."""
    upload = form.get(field)
    if not isinstance(upload, UploadFile) or not upload.filename:
        if required:
            errors[field] = "Choose a file to attach (PDF, PNG or JPEG) with Browse."
        return None
    if upload.size is not None and upload.size > MAX_UPLOAD_BYTES:
        errors[field] = (f"{clean_filename(upload.filename)} is {upload.size / 1048576:.1f} MB; "
                         f"the limit is {MAX_UPLOAD_LABEL} per file. Attach a smaller file.")
        return None
    content = await upload.read()
    document_type = form.get(type_field)
    document_type = document_type if isinstance(document_type, str) else ""
    description = form.get(description_field)
    description = re.sub(r"[\x00-\x1f\x7f]", " ", description).strip()[:200] \
        if isinstance(description, str) else ""
    if not content:
        errors[field] = f"{clean_filename(upload.filename)} is empty; choose the document again."
        return None
    if len(content) > MAX_UPLOAD_BYTES:
        errors[field] = (f"{clean_filename(upload.filename)} is {len(content) / 1048576:.1f} MB; "
                         f"the limit is {MAX_UPLOAD_LABEL} per file. Attach a smaller file.")
        return None
    media = sniff_type(content)
    if media is None:
        errors[field] = (f"{clean_filename(upload.filename)} is not a PDF, PNG or JPEG file. "
                         "Save the document as PDF and attach it again.")
        return None
    if document_type not in DOCUMENT_TYPE_LABELS:
        errors[type_field] = "Choose the document type of the attachment."
        return None
    return UploadedDocument(filename=clean_filename(upload.filename), content_type=media,
                            content=content, document_type=document_type,
                            description=description)


def store_attachment(db: Session, document: UploadedDocument, *, uploaded_by: str,
                     uploaded_at: datetime, case_id: int | None = None,
                     appeal_id: int | None = None,
                     correction_id: int | None = None) -> Attachment:
    """Add the document to exactly one owner (case, appeal or claim correction)."""
    row = Attachment(case_id=case_id, appeal_id=appeal_id, correction_id=correction_id,
                     filename=document.filename, content_type=document.content_type,
                     document_type=document.document_type, description=document.description,
                     content=document.content, uploaded_at=uploaded_at,
                     uploaded_by=uploaded_by)
    db.add(row)
    return row
