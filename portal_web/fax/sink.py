"""The fax sink: what the called machine received, kept for grading.

When a transmission is delivered, the sink assembles the received fax — the cover sheet
(when the job has one) and then every attached document, page after page, with the
transmit header line a fax machine prints at the top of each page — and keeps it twice:
as ``received_faxes.content`` (written with channel ``fax`` in the sending session's
episode) and as ``fax_sink/<confirmation id>.pdf`` in the run directory, which the extract
copies and :meth:`verifier.Extract.fax_documents` reads. AcroForm fields of a faxed form are
kept, so a reader sees the values typed into it.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from portal_web.fax.coverpage import CoverSheet, render_cover
from portal_web.fax.documents import FaxFile, as_pdf
from sandbox.stores.fax import FaxAccount, FaxDocument, FaxJob, ReceivedFax, fax_digits

SINK_FOLDER = "fax_sink"


@dataclass(frozen=True)
class TransmitHeader:
    """The line printed at the top of every received page (the sender's TTI)."""

    sent_at: datetime
    sender_number: str
    sender_name: str
    to_digits: str

    def text(self, page: int, pages: int) -> str:
        return (f"{self.sent_at:%m/%d/%Y %H:%M}   FROM: {self.sender_number} "
                f"{self.sender_name}   TO: {self.to_digits}   P. {page}/{pages}")


def cover_sheet(job: FaxJob, account: FaxAccount, pages: int) -> CoverSheet:
    return CoverSheet(to=job.cover_to or job.recipient_name or job.to_number,
                      to_fax=job.to_number, sender=job.cover_from or account.display_name,
                      organization=account.organization, from_fax=job.from_number,
                      from_phone=account.sender_phone, sent_at=job.sent_at or datetime.min,
                      pages=pages, subject=job.cover_subject, message=job.cover_message,
                      urgent=bool(job.urgent))


def document_pdf(doc: FaxDocument) -> bytes:
    """An attachment as PDF pages (PDFs are used as uploaded)."""
    return as_pdf(FaxFile(doc.filename, doc.content_type, bytes(doc.content), doc.page_count))


def received_pdf(job: FaxJob, documents: list[FaxDocument], account: FaxAccount) -> bytes:
    """The received fax: cover sheet (if any), then each document in order, stamped."""
    from pypdf import PdfReader, PdfWriter

    pages = job.page_count
    writer = PdfWriter()
    if job.include_cover:
        writer.append(PdfReader(io.BytesIO(render_cover(cover_sheet(job, account, pages)))))
    for doc in sorted(documents, key=lambda d: d.position):
        writer.append(PdfReader(io.BytesIO(document_pdf(doc))))
    header = TransmitHeader(job.sent_at or datetime.min, job.from_number,
                            account.display_name, job.to_digits)
    total = len(writer.pages)
    for number, page in enumerate(writer.pages, 1):
        page.merge_page(_header_overlay(header.text(number, total), page))
    writer.add_metadata({"/Title": f"Fax {job.confirmation_id}",
                         "/Producer": "Beta Care fax sink"})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _header_overlay(text: str, page) -> object:  # noqa: ANN001 - pypdf PageObject
    from pypdf import PdfReader
    from reportlab import rl_config
    from reportlab.pdfgen import canvas

    rl_config.invariant = 1
    box = page.mediabox
    width, height = float(box.width), float(box.height)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(width, height), invariant=1)
    c.setFillColorRGB(1, 1, 1)
    c.rect(0, height - 13, width, 13, stroke=0, fill=1)
    c.setFillColorRGB(0, 0, 0)
    c.setFont("Courier", 7.5)
    c.drawString(18, height - 9.5, text)
    c.showPage()
    c.save()
    return PdfReader(io.BytesIO(buf.getvalue())).pages[0]


def sink_path(run_dir: Path, job: FaxJob) -> Path:
    return Path(run_dir) / SINK_FOLDER / f"{job.confirmation_id}.pdf"


def write_sink_file(run_dir: Path, job: FaxJob, data: bytes) -> Path:
    """``fax_sink/<confirmation id>.pdf``, written whole (temporary name, then renamed)."""
    path = sink_path(run_dir, job)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.receiving")
    tmp.write_bytes(data)
    tmp.replace(path)
    return path


def received_row(job: FaxJob, data: bytes, at: datetime) -> ReceivedFax:
    from pypdf import PdfReader

    return ReceivedFax(job_id=job.id, to_digits=job.to_digits,
                       from_digits=fax_digits(job.from_number),
                       filename=f"{job.confirmation_id}.pdf",
                       page_count=len(PdfReader(io.BytesIO(data)).pages), content=data,
                       received_at=at)
