"""What the pages that take documents share: the upload form's choices and a stored
document sent back to the browser exactly as it was uploaded."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from starlette.responses import Response

from portal_web.acme.uploads import ACCEPT, DOCUMENT_TYPE_LABELS, MAX_UPLOAD_LABEL
from sandbox.stores.acme import Attachment


def upload_context() -> dict[str, Any]:
    """Template values of the upload form (``_attachments.html``)."""
    return {"accept": ACCEPT, "document_types": list(DOCUMENT_TYPE_LABELS.items()),
            "document_type_labels": DOCUMENT_TYPE_LABELS, "max_upload": MAX_UPLOAD_LABEL}


def attachment_response(row: Attachment) -> Response:
    """The stored bytes, inline (PDFs open in the browser's viewer), never cached."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", row.filename) or f"document-{row.id}"
    return Response(bytes(row.content), media_type=row.content_type or
                    "application/octet-stream", headers={
                        "Content-Disposition": f"inline; filename=\"{name}\"; "
                                               f"filename*=UTF-8''{quote(row.filename)}",
                        "Cache-Control": "no-store"})
