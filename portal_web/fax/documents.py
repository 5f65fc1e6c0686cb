"""What the fax service accepts as an attachment, and each file as fax pages.

A web fax service renders every attachment to fax pages before dialling. Here a file is
accepted when it is a readable PDF (not password-protected), a TIFF, PNG or JPEG image, or
plain text; it is stored exactly as uploaded (so a filled AcroForm keeps its fields) and
turned into PDF pages only when the fax is transmitted (:func:`as_pdf`).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import PurePosixPath

MAX_FILE_BYTES = 12 * 1024 * 1024
MAX_PAGES = 50  # per fax, cover sheet included
ACCEPT = ".pdf,.tif,.tiff,.png,.jpg,.jpeg,.txt"
ACCEPTED_LABEL = "PDF, TIFF, PNG, JPEG or plain-text (.txt)"
_IMAGE_MAGIC = {b"\x89PNG\r\n\x1a\n": "image/png", b"\xff\xd8\xff": "image/jpeg",
                b"II*\x00": "image/tiff", b"MM\x00*": "image/tiff"}
TEXT_LINES_PER_PAGE = 54


class FaxFileError(ValueError):
    """A file the fax service cannot send; the message says why and what to do."""


@dataclass(frozen=True)
class FaxFile:
    """An accepted attachment: its bytes as uploaded and its number of fax pages."""

    filename: str
    content_type: str
    data: bytes
    pages: int


def clean_filename(name: str) -> str:
    """The base name of an uploaded file, without folders or control characters."""
    base = PurePosixPath(str(name).replace("\\", "/")).name
    base = "".join(ch for ch in base if ch.isprintable()).strip()
    return base[:200] or "attachment"


def read_fax_file(filename: str, data: bytes) -> FaxFile:
    """Check an uploaded file and count its pages; raise :class:`FaxFileError` if it
    cannot be faxed."""
    name = clean_filename(filename)
    if not data:
        raise FaxFileError(f"{name} is empty; choose the file again.")
    if len(data) > MAX_FILE_BYTES:
        raise FaxFileError(f"{name} is larger than 12 MB; split it or attach a smaller file.")
    if data.startswith(b"%PDF"):
        return FaxFile(name, "application/pdf", data, _pdf_pages(name, data))
    for magic, mime in _IMAGE_MAGIC.items():
        if data.startswith(magic):
            return FaxFile(name, mime, data, _image_pages(name, data))
    if name.lower().endswith(".txt"):
        text = _text(name, data)
        return FaxFile(name, "text/plain", data, max(1, -(-len(_text_lines(text))
                                                          // TEXT_LINES_PER_PAGE)))
    raise FaxFileError(f"{name} cannot be faxed: attach {ACCEPTED_LABEL} files.")


def _pdf_pages(name: str, data: bytes) -> int:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise FaxFileError(f"{name} is password-protected; remove the password and "
                               "attach it again.")
        pages = len(reader.pages)
    except FaxFileError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, OSError,
            RecursionError, IndexError, AssertionError) as exc:
        raise FaxFileError(f"{name} is not a readable PDF; open it, save it again as PDF "
                           "and attach the new copy.") from exc
    if pages < 1:
        raise FaxFileError(f"{name} has no pages.")
    return pages


def _image_pages(name: str, data: bytes) -> int:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            return max(1, int(getattr(image, "n_frames", 1)))
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as exc:
        raise FaxFileError(f"{name} is not a readable image; save it again and attach the "
                           "new copy.") from exc


def _text(name: str, data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FaxFileError(f"{name} is not plain text (UTF-8); attach it as PDF.") from exc
    if "\x00" in text:
        raise FaxFileError(f"{name} is not plain text; attach it as PDF.")
    return text


def _text_lines(text: str) -> list[str]:
    import textwrap

    lines: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        lines.extend(textwrap.wrap(line, 95, replace_whitespace=False) or [""])
    return lines


def as_pdf(file: FaxFile) -> bytes:
    """The file as PDF pages: a PDF unchanged, an image on letter pages, text typed out."""
    if file.content_type == "application/pdf":
        return file.data
    if file.content_type == "text/plain":
        return _text_pdf(_text(file.filename, file.data))
    return _image_pdf(file.data)


def _canvas(buf: io.BytesIO):  # noqa: ANN202 - a reportlab Canvas
    from reportlab import rl_config
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    rl_config.invariant = 1
    return canvas.Canvas(buf, pagesize=letter, invariant=1), letter


def _image_pdf(data: bytes) -> bytes:
    from PIL import Image, ImageSequence
    from reportlab.lib.utils import ImageReader

    buf = io.BytesIO()
    c, (width, height) = _canvas(buf)
    margin = 24
    with Image.open(io.BytesIO(data)) as image:
        for frame in ImageSequence.Iterator(image):
            page = frame.convert("L")  # a fax is black and white; grey keeps it legible
            scale = min((width - 2 * margin) / page.width, (height - 2 * margin) / page.height)
            w, h = page.width * scale, page.height * scale
            c.drawImage(ImageReader(page), (width - w) / 2, height - margin - h, w, h)
            c.showPage()
    c.save()
    return buf.getvalue()


def _text_pdf(text: str) -> bytes:
    buf = io.BytesIO()
    c, (_width, height) = _canvas(buf)
    lines = _text_lines(text)
    for start in range(0, max(1, len(lines)), TEXT_LINES_PER_PAGE):
        c.setFont("Courier", 10)
        y = height - 54
        for line in lines[start:start + TEXT_LINES_PER_PAGE]:
            c.drawString(48, y, line)
            y -= 12.5
        c.showPage()
    c.save()
    return buf.getvalue()
