"""Vocabulary the portal shows for requests: case types, places of service, unit types,
outcomes of the requirement lookup, and field checks shared by the wizard and the edit page.

The stored values are the tokens of ``sandbox/stores/acme.py``; these are their labels.
"""

from __future__ import annotations

import re

from stdnum import luhn

from portal_web.common.forms import (
    FieldReader,
    icd10cm_description,
    icd10cm_is_billable,
    icd10cm_normalise,
)
from sandbox.stores.acme import STATUS_LABELS as STORE_STATUS_LABELS

# The store's labels, worded as the portal shows them.
STATUS_LABELS = {**STORE_STATUS_LABELS, "pended": "Pended \u2013 information requested"}

CASE_TYPE_LABELS = {
    "outpatient": "Outpatient service / procedure",
    "inpatient_notification": "Inpatient admission notification",
    "pharmacy": "Pharmacy (drug)",
    "extension": "Extension of an approved authorization",
    "network_exception": "Network gap exception (out-of-network provider)",
    "dme": "Durable medical equipment",
}
# the request types the wizard starts (an extension starts from its approved case)
NEW_REQUEST_TYPES = ("outpatient", "inpatient_notification", "pharmacy", "network_exception")

PLACES_OF_SERVICE = {
    "11": "11 - Office",
    "12": "12 - Home",
    "19": "19 - Off-campus outpatient hospital",
    "21": "21 - Inpatient hospital",
    "22": "22 - On-campus outpatient hospital",
    "23": "23 - Emergency room - hospital",
    "24": "24 - Ambulatory surgical center",
    "31": "31 - Skilled nursing facility",
    "49": "49 - Independent clinic",
    "81": "81 - Independent laboratory",
}
UNIT_TYPES = {"units": "Units", "visits": "Visits", "days": "Days"}
URGENCIES = {"standard": "Standard", "expedited": "Expedited (urgent)"}
ADMISSION_TYPES = {"emergency": "Emergency", "urgent": "Urgent", "elective": "Elective"}
ADMISSION_SOURCES = {
    "emergency_department": "Emergency department",
    "physician_referral": "Physician referral",
    "transfer_hospital": "Transfer from another hospital",
    "transfer_snf": "Transfer from a skilled nursing facility",
}
CLINICAL_URGENCIES = {"routine": "Routine", "urgent": "Urgent (within 30 days)",
                      "emergent": "Emergent (within 72 hours)"}
OUTCOME_MEASURES = {
    "LEFS": "LEFS - Lower Extremity Functional Scale",
    "ODI": "ODI - Oswestry Disability Index",
    "NDI": "NDI - Neck Disability Index",
    "QuickDASH": "QuickDASH - upper extremity",
    "other": "Other (name it in the progress summary)",
}
DETERMINATION_LABELS = {
    "required": "Prior authorization required",
    "not_required": "No prior authorization required",
    "notification_only": "Notification only",
    "delegated": "Delegated to a vendor",
    "not_covered": "Not a covered benefit",
    "no_rule": "No rule on file",
}
MAX_DIAGNOSES = 12

CODE_PATTERN = re.compile(r"(\d{4}[0-9A-Z]|[A-V]\d{4})")  # CPT (incl. Cat II/III) or HCPCS II
TIN_PATTERN = re.compile(r"\d{2}-?\d{7}")
TAXONOMY_PATTERN = re.compile(r"\d{3}[0-9A-Z]{6}X")
NDC_PATTERN = re.compile(r"\d{4,5}-\d{3,4}-\d{1,2}|\d{11}")


def npi_valid(npi: str) -> bool:
    """10 digits starting with 1 or 2 whose check digit is right (Luhn over 80840 + NPI)."""
    return bool(re.fullmatch(r"[12]\d{9}", npi)) and luhn.is_valid("80840" + npi)


def read_npi(r: FieldReader, name: str, label: str, *, required: bool = False) -> str | None:
    value = r.raw.get(name, "").strip().replace(" ", "").replace("-", "")
    if not value:
        if required:
            r.fail(name, f"{label} is required (10 digits).")
        return None
    if not re.fullmatch(r"\d{10}", value):
        r.fail(name, f"{label} must be 10 digits (you entered '{value[:20]}').")
        return None
    if not npi_valid(value):
        r.fail(name, f"{label} {value} is not a valid NPI: its check digit does not match. "
                     "Check the number in the provider directory.")
        return None
    return value


def read_tin(r: FieldReader, name: str, label: str, *, required: bool = False) -> str | None:
    value = r.raw.get(name, "").strip().replace(" ", "")
    if not value:
        if required:
            r.fail(name, f"{label} is required (9 digits, e.g. 36-4829175).")
        return None
    if not TIN_PATTERN.fullmatch(value):
        r.fail(name, f"{label} must be 9 digits written NN-NNNNNNN (you entered '{value[:20]}').")
        return None
    digits = value.replace("-", "")
    return f"{digits[:2]}-{digits[2:]}"


def read_taxonomy(r: FieldReader, name: str, label: str, *,
                  required: bool = False) -> str | None:
    value = r.raw.get(name, "").strip().upper()
    if not value:
        if required:
            r.fail(name, f"{label} is required (10 characters, e.g. 207X00000X).")
        return None
    if not TAXONOMY_PATTERN.fullmatch(value):
        r.fail(name, f"{label} must be a 10-character provider taxonomy code ending in X, "
                     f"e.g. 2085R0202X (you entered '{value[:20]}').")
        return None
    return value


def read_code(r: FieldReader, name: str, label: str, *, required: bool = False) -> str | None:
    value = r.raw.get(name, "").strip().upper()
    if not value:
        if required:
            r.fail(name, f"{label} is required (a CPT or HCPCS code such as 72148 or J0135).")
        return None
    value = value.split(" ")[0].split("-")[0]  # "72148 - MRI ..." from the typeahead
    if not CODE_PATTERN.fullmatch(value):
        r.fail(name, f"{label}: '{value[:20]}' is not a CPT or HCPCS code (5 characters, e.g. "
                     "72148 or J0135).")
        return None
    return value


def code_type_of(code: str) -> str:
    return "HCPCS" if code[:1].isalpha() else "CPT"


def read_diagnoses(r: FieldReader, name: str, label: str = "Diagnosis codes", *,
                   required: bool = True) -> str | None:
    """Ordered ICD-10-CM codes from ``name`` (one per line or comma-separated), each valid
    and billable, no repeats; stored joined by ``,`` (the first is the primary)."""
    text = r.raw.get(name, "")
    parts = [p for p in re.split(r"[\s,;]+", text.upper()) if p]
    if not parts:
        if required:
            r.fail(name, f"{label}: enter at least the primary ICD-10-CM code (e.g. M51.16).")
        return None
    if len(parts) > MAX_DIAGNOSES:
        r.fail(name, f"{label}: at most {MAX_DIAGNOSES} codes.")
        return None
    codes: list[str] = []
    for part in parts:
        code = icd10cm_normalise(part)
        if not re.fullmatch(r"[A-Z][0-9][0-9A-Z](\.[0-9A-Z]{1,4})?", code) \
                or icd10cm_description(code) is None:
            r.fail(name, f"{label}: '{part[:12]}' is not a valid ICD-10-CM code. Check it in "
                         "the code search (e.g. M51.16).")
            return None
        if not icd10cm_is_billable(code):
            r.fail(name, f"{label}: {code} is a category, not a billable code; enter a more "
                         f"specific code under {code}.")
            return None
        if code in codes:
            r.fail(name, f"{label}: {code} is listed twice.")
            return None
        codes.append(code)
    return ",".join(codes)


def diagnosis_rows(codes: str | None) -> list[tuple[str, str]]:
    """(code, description) of a stored code list, in order."""
    rows = []
    for code in (codes or "").split(","):
        code = code.strip()
        if code:
            rows.append((code, icd10cm_description(code) or ""))
    return rows
