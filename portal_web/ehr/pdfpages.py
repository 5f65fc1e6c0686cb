"""PDF pages as PNG images for the document viewer.

The viewer shows documents as page images rendered with poppler's ``pdftoppm`` rather than
relying on the browser's PDF plugin, so a document looks the same in any Chromium (headless
or not) and in the pixel stream. Rendered pages are cached by content hash.
"""

from __future__ import annotations

import functools
import io
import shutil
import subprocess
import tempfile
from pathlib import Path

RESOLUTION = 96
MAX_PAGES = 200


def page_count(data: bytes) -> int:
    """Number of pages of a PDF (0 if it cannot be read)."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        return min(len(PdfReader(io.BytesIO(data)).pages), MAX_PAGES)
    except (PyPdfError, ValueError, OSError, KeyError, TypeError):
        return 0


def can_render() -> bool:
    return shutil.which("pdftoppm") is not None


@functools.lru_cache(maxsize=64)
def render_page(digest: str, data: bytes, page: int) -> bytes | None:
    """PNG of one page (1-based), or None when the PDF cannot be rendered."""
    del digest  # part of the cache key only
    if not can_render():
        return None
    with tempfile.TemporaryDirectory(prefix="ehr-pdf-") as tmp:
        source, target = Path(tmp) / "doc.pdf", Path(tmp) / "page"
        source.write_bytes(data)
        try:
            done = subprocess.run(
                ["pdftoppm", "-png", "-r", str(RESOLUTION), "-f", str(page), "-l", str(page),
                 "-singlefile", str(source), str(target)], capture_output=True, timeout=20,
                check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        image = target.with_suffix(".png")
        if done.returncode != 0 or not image.exists():
            return None
        return image.read_bytes()
