"""What the pages that take documents share: the upload form's choices and a stored
document sent back to the browser exactly as it was uploaded."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from portal_web.acme.uploads import ACCEPT, DOCUMENT_TYPE_LABELS, MAX_UPLOAD_LABEL
from portal_web.common.downloads import document_response
from sandbox.stores.acme import Attachment


def upload_context() -> dict[str, Any]:
    """Template values of the upload form (``_attachments.html``)."""
    return {"accept": ACCEPT, "document_types": list(DOCUMENT_TYPE_LABELS.items()),
            "document_type_labels": DOCUMENT_TYPE_LABELS, "max_upload": MAX_UPLOAD_LABEL}


def attachment_response(row: Attachment) -> Response:
    """The stored bytes, inline (PDFs open in the browser's viewer), never cached."""
    return document_response(bytes(row.content), row.content_type or "application/octet-stream",
                             row.filename, fallback=f"document-{row.id}")
