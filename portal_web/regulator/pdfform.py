"""The uniform request form as a fillable PDF, and reading one that was filled in.

The Department offers its form for download as well as online; the PDF's AcroForm fields
carry the web form's names (``sandbox.stores.regulator.FORM_FIELDS`` among them), so an
uploaded, filled copy is read into the same request (:func:`read_pdf_form`). Choices are
radio groups whose export values are the form's tokens; check boxes export ``Yes``.
The PDF is drawn with reportlab in invariant mode: every download is the same bytes.
"""

from __future__ import annotations

import functools
import io
import textwrap

from portal_web.regulator.requestform import (
    APPLICANT_LABELS,
    BOOLEAN_FIELDS,
    DENIAL_LABELS,
    PLAN_LABELS,
)

FORM_FILENAME = "external-review-request-form.pdf"
FORM_NUMBER = "DOI-ER-1 (rev. 2025-07)"
INTRO = (
    "Use this form to ask for an independent external review of a health insurer's final "
    "adverse determination (a denial upheld after the insurer's internal appeal). File within "
    "4 months of the date of the final adverse determination. Attach a copy of the final "
    "denial letter and any records that support your request. Upload the completed form at "
    "review.insurance.state.test, or complete the request online there. Dates as YYYY-MM-DD.")
RELEASE = (
    "I authorize my health insurer and my health care providers to release all medical records "
    "and other information relevant to this request to the Department of Insurance and to the "
    "independent review organization assigned to it.")
TEXT_ROWS: list[tuple[str, list[tuple[str, str, int]]]] = [
    # (part title, [(field name, label, field height)])
    ("Part 1. Applicant", [
        ("applicant_name", "Applicant name", 16),
        ("applicant_relationship", "Relationship to the covered person", 16),
        ("applicant_phone", "Applicant phone", 16),
        ("applicant_email", "Applicant e-mail", 16)]),
    ("Part 2. Covered person and patient", [
        ("enrollee_name", "Covered person's name (Last, First)", 16),
        ("enrollee_dob", "Covered person's date of birth", 16),
        ("member_id", "Member ID (from the insurance card)", 16),
        ("enrollee_address", "Covered person's address", 16),
        ("patient_name", "Patient's name (if not the covered person)", 16),
        ("patient_dob", "Patient's date of birth", 16)]),
    ("Part 3. Health plan", [
        ("insurer_name", "Insurer (company name)", 16),
        ("plan_name", "Plan name", 16)]),
]
DISPUTE_ROWS = [
    ("insurer_reference", "Claim or reference number of the final denial", 16),
    ("final_denial_date", "Date of the final adverse determination", 16),
    ("service_requested", "Service or treatment denied", 16),
    ("service_code", "CPT/HCPCS code (if known)", 16),
    ("diagnosis_code", "Diagnosis code, ICD-10-CM (if known)", 16),
    ("reason_for_request", "Why the decision should be overturned", 84),
]
PROVIDER_ROWS = [
    ("treating_provider_name", "Treating provider", 16),
    ("treating_provider_npi", "Provider NPI", 16),
    ("treating_provider_phone", "Provider phone", 16),
    ("other_providers", "Other treating providers", 16),
]


class _Sheet:
    """A cursor over letter pages with the form's header and footer."""

    LEFT, LABEL_W, RIGHT = 48, 220, 564

    def __init__(self):
        from reportlab import rl_config
        from reportlab.lib.pagesizes import letter
        from reportlab.pdfgen import canvas

        rl_config.invariant = 1
        self.buf = io.BytesIO()
        self.c = canvas.Canvas(self.buf, pagesize=letter, invariant=1)
        self.c.setTitle("Uniform External Review Request Form")
        self.c.setAuthor("State Department of Insurance")
        self.width, self.height = letter
        self.page = 0
        self.y = 0.0
        self.new_page()

    def new_page(self) -> None:
        if self.page:
            self._footer()
            self.c.showPage()
        self.page += 1
        c = self.c
        c.setFillColorRGB(0.09, 0.2, 0.36)
        c.rect(0, self.height - 34, self.width, 34, stroke=0, fill=1)
        c.setFillColorRGB(1, 1, 1)
        c.setFont("Helvetica-Bold", 11)
        c.drawString(self.LEFT, self.height - 22, "STATE DEPARTMENT OF INSURANCE")
        c.setFont("Helvetica", 9)
        c.drawRightString(self.RIGHT, self.height - 22,
                          "Office of Consumer Health Insurance - External Review Unit")
        c.setFillColorRGB(0, 0, 0)
        self.y = self.height - 58

    def _footer(self) -> None:
        self.c.setFont("Helvetica", 7.5)
        self.c.drawString(self.LEFT, 26, f"Form {FORM_NUMBER}")
        self.c.drawRightString(self.RIGHT, 26, f"Page {self.page} of 2")

    def need(self, height: float) -> None:
        if self.y - height < 56:
            self.new_page()

    def heading(self, text: str) -> None:
        self.need(40)
        self.y -= 8
        self.c.setFillColorRGB(0.9, 0.93, 0.97)
        self.c.rect(self.LEFT - 4, self.y - 5, self.RIGHT - self.LEFT + 8, 18, stroke=0, fill=1)
        self.c.setFillColorRGB(0.09, 0.2, 0.36)
        self.c.setFont("Helvetica-Bold", 10.5)
        self.c.drawString(self.LEFT, self.y, text)
        self.c.setFillColorRGB(0, 0, 0)
        self.y -= 24

    def paragraph(self, text: str, size: float = 9, width: int = 112) -> None:
        self.c.setFont("Helvetica", size)
        for line in textwrap.wrap(text, width):
            self.need(14)
            self.c.drawString(self.LEFT, self.y, line)
            self.y -= size + 3
        self.y -= 4

    def text_field(self, name: str, label: str, height: int = 16) -> None:
        self.need(height + 8)
        top = self.y + 13
        box_y = top - height
        self.c.setFont("Helvetica", 9)
        self.c.drawString(self.LEFT, top - 10, label)
        self.c.acroForm.textfield(
            name=name, tooltip=label, x=self.LEFT + self.LABEL_W, y=box_y,
            width=self.RIGHT - self.LEFT - self.LABEL_W, height=height, fontSize=9,
            borderWidth=1, forceBorder=True,
            fieldFlags="multiline" if height > 20 else "")
        self.y = box_y - 19

    def radios(self, name: str, label: str, options: dict[str, str]) -> None:
        self.need(16 * len(options) + 14)
        self.c.setFont("Helvetica-Bold", 9)
        self.c.drawString(self.LEFT, self.y, label)
        self.y -= 14
        for value, text in options.items():
            self.c.acroForm.radio(name=name, tooltip=f"{label}: {text}", value=value,
                                  selected=False, x=self.LEFT + 6, y=self.y - 3, size=11,
                                  buttonStyle="circle", borderWidth=1, forceBorder=True)
            self.c.setFont("Helvetica", 9)
            self.c.drawString(self.LEFT + 24, self.y, text)
            self.y -= 14
        self.y -= 4

    def checkbox(self, name: str, text: str) -> None:
        lines = textwrap.wrap(text, 100)
        self.need(12 * len(lines) + 10)
        self.c.acroForm.checkbox(name=name, tooltip=text[:80], x=self.LEFT + 6,
                                 y=self.y - 3, size=11, buttonStyle="check", borderWidth=1,
                                 forceBorder=True)
        self.c.setFont("Helvetica", 9)
        for line in lines:
            self.c.drawString(self.LEFT + 24, self.y, line)
            self.y -= 12
        self.y -= 6

    def finish(self) -> bytes:
        self._footer()
        self.c.showPage()
        self.c.save()
        return self.buf.getvalue()


@functools.lru_cache(maxsize=1)
def blank_form() -> bytes:
    """The fillable request form (PDF bytes, identical on every call)."""
    s = _Sheet()
    s.c.setFont("Helvetica-Bold", 15)
    s.c.drawString(s.LEFT, s.y, "Uniform External Review Request Form")
    s.y -= 20
    s.paragraph(INTRO)
    s.radios("applicant_type", "Who is asking for the review?", APPLICANT_LABELS)
    for title, rows in TEXT_ROWS:
        s.heading(title)
        if title.startswith("Part 2"):
            for name, label, height in rows[:4]:
                s.text_field(name, label, height)
            s.checkbox("patient_is_enrollee", "The patient is the covered person.")
            for name, label, height in rows[4:]:
                s.text_field(name, label, height)
            continue
        for name, label, height in rows:
            s.text_field(name, label, height)
        if title.startswith("Part 3"):
            s.radios("plan_type", "Type of plan", PLAN_LABELS)
    s.new_page()
    s.heading("Part 4. The decision in dispute")
    for name, label, height in DISPUTE_ROWS[:2]:
        s.text_field(name, label, height)
    s.radios("denial_type", "Reason the insurer gave for the denial", DENIAL_LABELS)
    for name, label, height in DISPUTE_ROWS[2:]:
        s.text_field(name, label, height)
    s.heading("Part 5. Treating providers")
    for name, label, height in PROVIDER_ROWS:
        s.text_field(name, label, height)
    s.heading("Part 6. Expedited review")
    s.checkbox("expedited", "I ask for an expedited review (decision within 72 hours).")
    s.checkbox("expedited_certified", "The physician named below certifies that the standard "
               "timeframe would seriously jeopardize the patient's life, health or ability "
               "to regain maximum function.")
    s.text_field("expedited_physician", "Certifying physician")
    s.heading("Part 7. Release of records and signature")
    s.checkbox("release_authorized", RELEASE)
    s.checkbox("attest_true", "The information in this request is true and complete to the "
               "best of my knowledge.")
    s.text_field("signature_name", "Signature (type the applicant's full name)")
    s.text_field("signature_date", "Date signed")
    return s.finish()


def read_pdf_form(data: bytes) -> dict[str, str] | None:
    """The filled values of an uploaded request form as form values (check boxes ``1``),
    or ``None`` when the file is not this form (no fields of it)."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        fields = PdfReader(io.BytesIO(data)).get_fields() or {}
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, OSError,
            RecursionError, IndexError, AssertionError):
        return None
    if "enrollee_name" not in fields and "member_id" not in fields:
        return None
    values: dict[str, str] = {}
    for name, spec in fields.items():
        raw = spec.get("/V") if hasattr(spec, "get") else None
        text = "" if raw is None else str(raw).strip()
        if name in BOOLEAN_FIELDS:
            values[name] = "1" if text and text not in ("/Off", "Off") else ""
        else:
            values[name] = text.lstrip("/") if text.startswith("/") else text
    return values
