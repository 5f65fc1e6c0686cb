"""A stored document sent back to the browser exactly as it was stored.

Every site answers a document link the same way: the stored bytes, shown inline (a PDF
opens in the browser's own viewer), named twice in ``Content-Disposition`` (an ASCII-safe
``filename`` for old clients and the real name as ``filename*``), and never cached, so Back
and a second download always show what is stored now.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from starlette.responses import Response

UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def ascii_filename(name: str, fallback: str) -> str:
    """``name`` with every run of other characters than letters, digits, ``._-`` as ``_``
    (``fallback`` when nothing is left)."""
    return UNSAFE.sub("_", name) or fallback


def document_response(content: bytes, media_type: str | None, filename: str, *,
                      fallback: str, disposition: str = "inline") -> Response:
    """The document's bytes under ``filename`` (``fallback`` names it when no safe
    character is left), ``disposition`` ``inline`` or ``attachment``."""
    return Response(content, media_type=media_type, headers={
        "Content-Disposition": f"{disposition}; filename=\"{ascii_filename(filename, fallback)}\"; "
                               f"filename*=UTF-8''{quote(filename)}",
        "Cache-Control": "no-store"})
