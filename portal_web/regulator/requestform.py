"""The uniform external review request form: its questions, choices and validation.

Modelled on the NAIC uniform external review request form: who is asking (the covered
person, an authorized representative, or a provider for the covered person), the covered
person and the patient, the health plan, the decision in dispute, the treating providers,
expedited review, and the release and signature. The same field names are used by the web
form, the downloadable fillable PDF (:mod:`portal_web.regulator.pdfform`) and the
``external_reviews`` columns; the twelve of ``sandbox.stores.regulator.FORM_FIELDS`` are
the ones a reviewer compares with the insurer's file.

:func:`read_request` validates posted values. A draft save checks only the format of what
was typed; submitting also requires every required answer, so a request is complete when
it reaches the Department.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from portal_web.common.forms import FieldReader
from sandbox.stores.regulator import (
    APPLICANT_TYPES,
    DENIAL_TYPES,
    DOCUMENT_TYPES,
    PLAN_TYPES,
    ExternalReview,
)

APPLICANT_LABELS = {
    "covered_person": "I am the covered person (the enrollee)",
    "representative": "I am the covered person's authorized representative",
    "provider": "I am a health care provider acting for the covered person",
}
PLAN_LABELS = {
    "group_insured": "Employer group plan (insured)",
    "individual": "Individual or family plan",
    "self_funded": "Self-funded employer plan",
    "student": "Student health plan",
    "other": "Other / not sure",
}
DENIAL_LABELS = {
    "medical_necessity": "Medical necessity, appropriateness, level of care or effectiveness",
    "experimental": "Experimental or investigational treatment",
    "rescission": "Rescission of coverage",
    "other": "Other adverse determination",
}
DOCUMENT_LABELS = {
    "form": "Completed request form (PDF)",
    "denial_letter": "Final adverse determination (denial letter)",
    "medical_records": "Medical records or provider statement",
    "authorization": "Appointment of authorized representative",
    "other": "Other supporting document",
}
assert set(APPLICANT_LABELS) == set(APPLICANT_TYPES) and set(PLAN_LABELS) == set(PLAN_TYPES)
assert set(DENIAL_LABELS) == set(DENIAL_TYPES) and set(DOCUMENT_LABELS) == set(DOCUMENT_TYPES)

TEXT_FIELDS = {  # name: (label, max length)
    "applicant_name": ("Applicant name", 120),
    "applicant_relationship": ("Relationship to the covered person", 40),
    "enrollee_name": ("Covered person's name", 120),
    "enrollee_address": ("Covered person's address", 200),
    "patient_name": ("Patient's name", 120),
    "plan_name": ("Plan name", 120),
    "treating_provider_name": ("Treating provider", 120),
    "service_requested": ("Service or treatment denied", 200),
    "expedited_physician": ("Certifying physician", 120),
    "signature_name": ("Signature (type your full name)", 120),
}
BOOLEAN_FIELDS = ("patient_is_enrollee", "expedited", "expedited_certified",
                  "release_authorized", "attest_true")
MONTHS_TO_FILE = 4
_MEMBER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 -]{2,19}$")
_REFERENCE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9/ -]{2,23}$")
_SERVICE_CODE = re.compile(r"^([0-9]{5}|[A-Z][0-9]{4}|[0-9]{4}[A-Z])$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")
_US_DATE = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4})$")


def add_months(day: date, months: int) -> date:
    """``day`` plus ``months`` calendar months (the last day of a shorter month)."""
    month = day.month - 1 + months
    year, month = day.year + month // 12, month % 12 + 1
    for last in (31, 30, 29, 28):
        try:
            return date(year, month, min(day.day, last))
        except ValueError:
            continue
    raise ValueError(day)  # pragma: no cover


def filing_deadline(final_denial: date, months: int = MONTHS_TO_FILE) -> date:
    """The last day to request external review: ``months`` after the final denial."""
    return add_months(final_denial, months)


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower())
            if w not in {"dr", "md", "do", "mr", "mrs", "ms", "jr", "sr"}}


def _date(f: FieldReader, name: str, label: str, *, required: bool, earliest: date,
          latest: date) -> date | None:
    """A date typed YYYY-MM-DD or MM/DD/YYYY."""
    raw = f.raw.get(name, "").strip()
    match = _US_DATE.match(raw)
    if match:
        f.raw[name] = f"{match[3]}-{int(match[1]):02d}-{int(match[2]):02d}"
    value = f.date(name, label, required=required, earliest=earliest, latest=latest)
    if match and name in f.errors:
        f.raw[name] = raw
    return value


def _choice(f: FieldReader, name: str, label: str, options, need: bool,  # noqa: ANN001
            missing: str) -> str | None:
    """One of ``options``; ``missing`` is the message when a required choice is empty."""
    if need and not f.raw.get(name, "").strip():
        f.fail(name, missing)
        return None
    return f.choice(name, label, options)


def _phone(f: FieldReader, name: str, label: str, *, required: bool) -> str | None:
    raw = f.text(name, label, required=required, max_len=30)
    if raw is None:
        return None
    digits = re.sub(r"\D", "", raw)
    if len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    if len(digits) != 10 or re.search(r"[^0-9 ()+.\-]", raw):
        f.fail(name, f"{label} must be a 10-digit US phone number, e.g. 217-555-0100.")
        return None
    return f"{digits[:3]}-{digits[3:6]}-{digits[6:]}"


def read_request(f: FieldReader, insurers: list[str], today: date, *,
                 complete: bool) -> dict[str, Any]:
    """The request's values from a posted form; messages in ``f.errors``.

    ``complete`` (submitting) also requires every required answer."""
    need = complete
    v: dict[str, Any] = {}
    v["applicant_type"] = _choice(f, "applicant_type", "Who is asking for the review",
                                  APPLICANT_TYPES, need, "Choose who is asking for the "
                                  "review.")
    for name, (label, max_len) in TEXT_FIELDS.items():
        v[name] = f.text(name, label, max_len=max_len)
    if need:
        for name in ("applicant_name", "enrollee_name", "plan_name",
                     "treating_provider_name", "service_requested", "signature_name"):
            if not v[name] and name not in f.errors:
                f.fail(name, f"{TEXT_FIELDS[name][0]} is required.")
        if v["applicant_type"] in ("representative", "provider") and \
                not v["applicant_relationship"] and "applicant_relationship" not in f.errors:
            f.fail("applicant_relationship", "Say how you are related to the covered person "
                                             "(e.g. treating physician's office, spouse).")
    v["applicant_phone"] = _phone(f, "applicant_phone", "Applicant phone", required=need)
    email = f.text("applicant_email", "Applicant e-mail", max_len=120)
    if email and not _EMAIL.match(email):
        f.fail("applicant_email", "Enter an e-mail address such as name@example.org, or "
                                  "leave it empty.")
        email = None
    v["applicant_email"] = email
    v["enrollee_dob"] = _date(f, "enrollee_dob", "Covered person's date of birth",
                              required=need, earliest=date(1900, 1, 1), latest=today)
    member = f.text("member_id", "Member ID", required=need, max_len=20)
    if member and not _MEMBER.match(member):
        f.fail("member_id", "Member ID: use the letters and digits on the insurance card "
                            "(3 to 20 characters).")
        member = None
    v["member_id"] = member.upper() if member else None
    v["patient_is_enrollee"] = f.checkbox("patient_is_enrollee")
    v["patient_dob"] = _date(f, "patient_dob", "Patient's date of birth", required=False,
                             earliest=date(1900, 1, 1), latest=today)
    if need and not v["patient_is_enrollee"]:
        if not v["patient_name"] and "patient_name" not in f.errors:
            f.fail("patient_name", "The patient is not the covered person: enter the "
                                   "patient's name.")
        if not v["patient_dob"] and "patient_dob" not in f.errors:
            f.fail("patient_dob", "Enter the patient's date of birth (YYYY-MM-DD).")
    v["insurer_name"] = _choice(f, "insurer_name", "Insurer", insurers, need,
                                "Choose the insurer named on the denial letter.")
    v["plan_type"] = _choice(f, "plan_type", "Type of plan", PLAN_TYPES, need,
                             "Choose the type of plan.")
    reference = f.text("insurer_reference", "Claim or reference number", required=need,
                       max_len=24)
    if reference and not _REFERENCE.match(reference):
        f.fail("insurer_reference", "Claim or reference number: copy it from the insurer's "
                                    "letter (letters, digits and dashes).")
        reference = None
    v["insurer_reference"] = reference.upper() if reference else None
    v["final_denial_date"] = _date(f, "final_denial_date", "Date of the final denial",
                                   required=need, earliest=date(2000, 1, 1), latest=today)
    v["denial_type"] = _choice(f, "denial_type", "Reason the insurer gave", DENIAL_TYPES,
                               need, "Choose the reason the insurer gave for the denial.")
    code = (f.text("service_code", "CPT/HCPCS code", max_len=10) or "").upper() or None
    if code and not _SERVICE_CODE.match(code):
        f.fail("service_code", "CPT/HCPCS code: five characters such as 77525 or E0260, or "
                               "leave it empty.")
        code = None
    v["service_code"] = code
    v["diagnosis_code"] = f.icd10("diagnosis_code", "Diagnosis (ICD-10-CM)")
    v["treating_provider_npi"] = f.npi("treating_provider_npi", "Provider NPI")
    v["treating_provider_phone"] = _phone(f, "treating_provider_phone", "Provider phone",
                                          required=False)
    v["other_providers"] = f.text("other_providers", "Other treating providers",
                                  max_len=1000) or ""
    v["reason_for_request"] = f.text("reason_for_request", "Why the decision should be "
                                     "overturned", required=need, max_len=8000) or ""
    v["expedited"] = f.checkbox("expedited")
    v["expedited_certified"] = f.checkbox("expedited_certified")
    if need and v["expedited"]:
        if not v["expedited_certified"]:
            f.fail("expedited_certified", "An expedited review needs the physician's "
                                          "certification: tick the box, or untick "
                                          "'expedited'.")
        if not v["expedited_physician"] and "expedited_physician" not in f.errors:
            f.fail("expedited_physician", "Name the physician who certifies that the "
                                          "standard timeframe would seriously jeopardize "
                                          "the patient's life, health or function.")
    v["release_authorized"] = f.checkbox("release_authorized")
    v["attest_true"] = f.checkbox("attest_true")
    if need:
        if not v["release_authorized"]:
            f.fail("release_authorized", "The review cannot start without the release of "
                                         "medical records: tick the authorization.")
        if not v["attest_true"]:
            f.fail("attest_true", "Confirm that the information is true and complete.")
        if v["signature_name"] and v["applicant_name"] and \
                _words(v["signature_name"]) != _words(v["applicant_name"]):
            f.fail("signature_name", "Type the applicant's full name as the signature (it "
                                     f"must match '{v['applicant_name']}').")
    return v


def apply(review: ExternalReview, values: dict[str, Any]) -> None:
    """Copy validated values onto the row."""
    for name, value in values.items():
        if hasattr(review, name):
            setattr(review, name, value)


def values_of(review: ExternalReview | None) -> dict[str, str]:
    """The row as form values (what the page shows)."""
    if review is None:
        return {"patient_is_enrollee": "1"}
    values: dict[str, str] = {}
    for column in ExternalReview.__table__.columns:
        value = getattr(review, column.name)
        if isinstance(value, bool):
            values[column.name] = "1" if value else ""
        elif isinstance(value, date):
            values[column.name] = value.isoformat()
        else:
            values[column.name] = "" if value is None else str(value)
    return values


def preliminary_review_due(submitted: date) -> date:
    """Five business days for the insurer's preliminary review of eligibility."""
    day, left = submitted, 5
    while left:
        day += timedelta(days=1)
        if day.weekday() < 5:
            left -= 1
    return day
