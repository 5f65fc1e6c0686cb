"""The fax cover sheet, drawn with reportlab from the job's cover fields.

Laid out like the cover sheets clinics send: a large FAX heading, a grid of To / From /
fax and phone numbers / date / pages / Re:, the urgency boxes, the message, and the
confidentiality notice health information requires. Output is deterministic (reportlab's
invariant mode), so the same job always renders the same bytes.
"""

from __future__ import annotations

import io
import textwrap
from dataclasses import dataclass
from datetime import datetime

CONFIDENTIALITY = (
    "CONFIDENTIALITY NOTICE: This facsimile contains protected health information that is "
    "privileged and confidential under federal and state law. It is intended only for the "
    "recipient named above. If you received it in error, notify the sender by telephone "
    "immediately and destroy all copies; any review, disclosure or distribution is "
    "prohibited.")


@dataclass(frozen=True)
class CoverSheet:
    """What the cover sheet says."""

    to: str
    to_fax: str
    sender: str
    organization: str
    from_fax: str
    from_phone: str
    sent_at: datetime
    pages: int  # total, cover included
    subject: str
    message: str
    urgent: bool


def render_cover(sheet: CoverSheet) -> bytes:
    """One letter-size page (PDF bytes)."""
    from reportlab import rl_config
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    rl_config.invariant = 1
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=letter, invariant=1)
    c.setTitle(f"Fax cover sheet - {sheet.subject or sheet.to}")
    width, height = letter
    left, right = 54, width - 54

    c.setFont("Helvetica-Bold", 40)
    c.drawString(left, height - 96, "FAX")
    c.setFont("Helvetica-Bold", 12)
    c.drawRightString(right, height - 72, sheet.organization[:70])
    c.setFont("Helvetica", 10)
    c.drawRightString(right, height - 88, f"Phone {sheet.from_phone}   Fax {sheet.from_fax}")
    c.setLineWidth(2)
    c.line(left, height - 110, right, height - 110)

    rows = [("To:", sheet.to, "From:", sheet.sender),
            ("Fax:", sheet.to_fax, "Fax:", sheet.from_fax),
            ("Date:", sheet.sent_at.strftime("%m/%d/%Y %I:%M %p"), "Phone:", sheet.from_phone),
            ("Pages:", f"{sheet.pages} (including cover)", "", "")]
    y = height - 140
    c.setLineWidth(0.6)
    for label_a, value_a, label_b, value_b in rows:
        c.setFont("Helvetica-Bold", 11)
        c.drawString(left, y, label_a)
        c.drawString(left + 262, y, label_b)
        c.setFont("Helvetica", 11)
        c.drawString(left + 52, y, value_a[:40])
        c.drawString(left + 314, y, value_b[:40])
        c.line(left + 50, y - 4, left + 250, y - 4)
        if label_b:
            c.line(left + 312, y - 4, right, y - 4)
        y -= 26
    c.setFont("Helvetica-Bold", 11)
    c.drawString(left, y, "Re:")
    c.setFont("Helvetica", 11)
    c.drawString(left + 52, y, sheet.subject[:84])
    c.line(left + 50, y - 4, right, y - 4)
    y -= 34

    boxes = [("Urgent", sheet.urgent), ("For review", False), ("Please comment", False),
             ("Please reply", False)]
    x = left
    c.setFont("Helvetica", 10.5)
    for label, ticked in boxes:
        c.rect(x, y - 2, 10, 10)
        if ticked:
            c.setFont("Helvetica-Bold", 11)
            c.drawString(x + 1.5, y, "X")
            c.setFont("Helvetica", 10.5)
        c.drawString(x + 15, y, label)
        x += 120
    y -= 30
    c.setLineWidth(1)
    c.line(left, y, right, y)
    y -= 22

    c.setFont("Helvetica-Bold", 11)
    c.drawString(left, y, "Message:")
    y -= 18
    c.setFont("Helvetica", 10.5)
    for paragraph in (sheet.message or "").split("\n"):
        for line in textwrap.wrap(paragraph, 92) or [""]:
            if y < 150:
                break
            c.drawString(left, y, line)
            y -= 14

    c.setFont("Helvetica-Oblique", 8)
    ny = 118
    for line in textwrap.wrap(CONFIDENTIALITY, 125):
        c.drawString(left, ny, line)
        ny -= 10
    c.showPage()
    c.save()
    return buf.getvalue()
