"""Files a check may read: Workspace outputs (CSV, text), received faxes (PDF), inputs.

PDFs are read with pypdf: fillable-form fields, page count and page text, plus the sha256 of
the file, which is how an attachment is compared with the input document it should be. A PDF
that cannot be parsed is returned with ``problem`` set, so a check can give 0 with that
evidence instead of crashing.
"""

from __future__ import annotations

import csv
import io
import logging
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from verifier.values import sha256_bytes

logging.getLogger("pypdf").setLevel(logging.ERROR)  # malformed PDFs are evidence, not noise


@dataclass
class PdfDocument:
    """One PDF: its hash, pages, text and AcroForm fields."""

    name: str
    data: bytes = field(repr=False)

    @cached_property
    def sha256(self) -> str:
        return sha256_bytes(self.data)

    @cached_property
    def _parsed(self) -> tuple[Any, str | None]:
        from pypdf import PdfReader
        from pypdf.errors import PyPdfError

        try:
            reader = PdfReader(io.BytesIO(self.data))
            _ = len(reader.pages)
            return reader, None
        except (PyPdfError, ValueError, KeyError, TypeError, OSError) as exc:
            return None, f"not a readable PDF ({type(exc).__name__}: {exc})"

    @property
    def problem(self) -> str | None:
        """Why the file could not be parsed, or ``None``."""
        return self._parsed[1]

    @cached_property
    def page_count(self) -> int:
        reader = self._parsed[0]
        return 0 if reader is None else len(reader.pages)

    @cached_property
    def pages_text(self) -> list[str]:
        reader = self._parsed[0]
        if reader is None:
            return []
        texts = []
        for page in reader.pages:
            try:
                texts.append(page.extract_text() or "")
            except Exception:  # noqa: BLE001 - a broken page is read as empty, not fatal
                texts.append("")
        return texts

    @property
    def text(self) -> str:
        return "\n".join(self.pages_text)

    @cached_property
    def fields(self) -> dict[str, Any]:
        """AcroForm field name → value (text as str, checkboxes as their export value)."""
        reader = self._parsed[0]
        if reader is None:
            return {}
        try:
            raw = reader.get_fields() or {}
        except Exception:  # noqa: BLE001 - a malformed form reads as having no fields
            return {}
        values: dict[str, Any] = {}
        for name, spec in raw.items():
            value = spec.get("/V") if hasattr(spec, "get") else None
            values[name] = None if value is None else str(value)
        return values

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "sha256": self.sha256, "pages": self.page_count,
                "problem": self.problem}


def read_pdf(path: Path) -> PdfDocument:
    return PdfDocument(path.name, Path(path).read_bytes())


def read_text(path: Path) -> str:
    """Text of a Workspace file, tolerant of a byte-order mark and stray bytes."""
    return Path(path).read_bytes().decode("utf-8-sig", errors="replace")


def read_csv(path: Path) -> list[dict[str, str]]:
    """Rows of a CSV with a header line, keys and values stripped."""
    text = read_text(path)
    reader = csv.DictReader(io.StringIO(text))
    rows = []
    for row in reader:
        rows.append({(k or "").strip(): (v or "").strip() if isinstance(v, str) else v
                     for k, v in row.items()})
    return rows


def file_hashes(folder: Path) -> dict[str, str]:
    """Relative path → sha256 of every file under ``folder``."""
    folder = Path(folder)
    if not folder.is_dir():
        return {}
    return {str(p.relative_to(folder)): sha256_bytes(p.read_bytes())
            for p in sorted(folder.rglob("*")) if p.is_file()}
