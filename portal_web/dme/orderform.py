"""The DME order form: reading and checking its fields, and where each one is stored.

One form carries the standard written order (date, ordering practitioner, HCPCS, quantity,
detailed product description, diagnoses, length of need), the face-to-face encounter, the
power-mobility facts (specialty evaluation, home assessment, height, weight), Acme's
medical-necessity form AMN-PMD-1 and the supplier. "Save draft" checks only what was typed;
"Save and continue" and submitting also need every required field — but never the home
assessment, which stays optional (an order without one can be submitted; pa-04 grades that).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from portal_web.acme.typed_fields import us_date
from portal_web.common.forms import FieldReader
from portal_web.dme.catalog import DME_ITEMS, LIFETIME, MN_QUESTIONS, MODIFIERS, is_power_mobility
from sandbox.stores.acme import DmeOrder, PaCase

EARLIEST = dt.date(2020, 1, 1)
DATE_FIELDS = ("order_date", "f2f_exam_date", "mobility_assessment_date",
               "home_assessment_date", "cmn_signed_date", "delivery_date")
REQUIRED_ALL = {
    "order_date": "Written order date", "ordering_name": "Ordering practitioner",
    "ordering_npi": "Ordering practitioner NPI", "hcpcs": "HCPCS item",
    "quantity": "Quantity", "product_description": "Detailed product description",
    "icd10_primary": "Primary diagnosis", "length_of_need": "Length of need",
    "f2f_exam_date": "Face-to-face exam date", "f2f_provider_npi": "Face-to-face NPI",
    "supplier_npi": "Supplier NPI",
}
REQUIRED_PMD = {
    "mobility_assessment_date": "Specialty mobility evaluation date",
    "height_in": "Height", "weight_lb": "Weight",
    **{f"mn_{key}": f"Medical-necessity question {n}"
       for n, (key, _) in enumerate(MN_QUESTIONS, start=1)},
    "cmn_signed_by_npi": "AMN-PMD-1 signed by (NPI)", "cmn_signed_date": "AMN-PMD-1 signature date",
}


def read_order(r: FieldReader, today: dt.date, *, complete: bool) -> dict[str, Any]:
    """The form's values by field name (None when empty or wrong; messages on ``r``).

    ``complete`` also requires every field an order must have to be submitted.
    """
    v: dict[str, Any] = {}
    for name in ("order_date", "f2f_exam_date", "mobility_assessment_date",
                 "home_assessment_date", "cmn_signed_date"):
        v[name] = us_date(r, name, _label(name), earliest=EARLIEST, latest=today)
    v["delivery_date"] = us_date(r, "delivery_date", "Expected delivery date",
                                 earliest=EARLIEST, latest=today + dt.timedelta(days=730))
    v["ordering_name"] = r.text("ordering_name", "Ordering practitioner", max_len=120)
    v["ordering_npi"] = r.npi("ordering_npi", "Ordering practitioner NPI")
    v["f2f_provider_npi"] = r.npi("f2f_provider_npi", "Face-to-face NPI")
    v["cmn_signed_by_npi"] = r.npi("cmn_signed_by_npi", "AMN-PMD-1 signed by (NPI)")
    v["supplier_npi"] = r.npi("supplier_npi", "Supplier NPI")
    v["supplier_name"] = r.text("supplier_name", "Supplier name", max_len=120)
    hcpcs = r.raw.get("hcpcs", "").strip().upper()
    r.raw["hcpcs"] = hcpcs
    v["hcpcs"] = r.choice("hcpcs", "HCPCS item", DME_ITEMS)
    v["modifier"] = r.choice("modifier", "Modifier", MODIFIERS)
    v["quantity"] = r.integer("quantity", "Quantity", low=1, high=99)
    v["product_description"] = r.text("product_description", "Detailed product description",
                                      max_len=4000)
    v["icd10_primary"] = r.icd10("icd10_primary", "Primary diagnosis")
    v["icd10_secondary"] = r.icd10("icd10_secondary", "Secondary diagnosis")
    v["length_of_need"] = r.integer("length_of_need", "Length of need", low=1, high=LIFETIME,
                                    unit="months (99 = lifetime)")
    v["height_in"] = r.number("height_in", "Height", unit="inches", low=24, high=96,
                              decimals=1)
    v["weight_lb"] = r.number("weight_lb", "Weight", unit="pounds", low=30, high=800,
                              decimals=1)
    for key, _ in MN_QUESTIONS:
        answer = r.choice(f"mn_{key}", "Answer", ("yes", "no"))
        v[f"mn_{key}"] = None if answer is None else answer == "yes"
    v["clinical_summary"] = r.text("clinical_summary", "Notes for the reviewer",
                                   max_len=4000) or ""
    if complete:
        for name, label in missing(v).items():
            if name not in r.errors:
                r.fail(name, f"{label} is required to submit the order."
                       if not name.startswith("mn_") else "Answer yes or no.")
    return v


def missing(v: dict[str, Any]) -> dict[str, str]:
    """Required fields without a value (the power-mobility ones only for K08xx items)."""
    required = dict(REQUIRED_ALL)
    if is_power_mobility(v.get("hcpcs")):
        required.update(REQUIRED_PMD)
    return {name: label for name, label in required.items() if v.get(name) in (None, "")}


def _label(name: str) -> str:
    return {"order_date": "Written order date", "f2f_exam_date": "Face-to-face exam date",
            "mobility_assessment_date": "Specialty mobility evaluation date",
            "home_assessment_date": "Home assessment date",
            "cmn_signed_date": "AMN-PMD-1 signature date"}[name]


def apply(case: PaCase, order: DmeOrder, v: dict[str, Any], supplier_name: str | None,
          ordering: tuple[str | None, str | None]) -> None:
    """Write the values into the case and its order, touching only the columns that change.

    ``ordering`` is the ordering practitioner's (taxonomy, TIN) from Acme's directory.
    """
    icd = [c for c in (v["icd10_primary"], v["icd10_secondary"]) if c]
    service_to = None
    if v["delivery_date"] and v["length_of_need"]:
        months = min(v["length_of_need"], 12)  # Acme authorizes DME a year at a time
        service_to = _add_months(v["delivery_date"], months) - dt.timedelta(days=1)
    case_values = {
        "requesting_name": v["ordering_name"], "requesting_npi": v["ordering_npi"],
        "requesting_taxonomy": ordering[0], "requesting_tin": ordering[1],
        "service_code_type": "HCPCS" if v["hcpcs"] else None, "service_code": v["hcpcs"],
        "service_modifier": v["modifier"],
        "service_description": DME_ITEMS.get(v["hcpcs"] or "") or None,
        "units": v["quantity"], "unit_type": "units" if v["quantity"] else None,
        "icd10_codes": ",".join(icd) or None, "service_from": v["delivery_date"],
        "service_to": service_to, "clinical_summary": v["clinical_summary"],
        "rendering_npi": v["supplier_npi"], "rendering_name": supplier_name,
    }
    order_values = {
        "supplier_npi": v["supplier_npi"], "supplier_name": supplier_name,
        "order_date": v["order_date"], "f2f_exam_date": v["f2f_exam_date"],
        "f2f_provider_npi": v["f2f_provider_npi"],
        "mobility_assessment_date": v["mobility_assessment_date"],
        "home_assessment_date": v["home_assessment_date"], "height_in": v["height_in"],
        "weight_lb": v["weight_lb"], "length_of_need_months": v["length_of_need"],
        "product_description": v["product_description"] or "",
        "cmn_signed_by_npi": v["cmn_signed_by_npi"], "cmn_signed_date": v["cmn_signed_date"],
        **{key: v[f"mn_{key}"] for key, _ in MN_QUESTIONS},
    }
    for row, values in ((case, case_values), (order, order_values)):
        for name, value in values.items():
            if getattr(row, name) != value:
                setattr(row, name, value)


def values_of(case: PaCase, order: DmeOrder) -> dict[str, Any]:
    """A saved order as form values (dates MM/DD/YYYY), for editing and checking."""
    def us(day: dt.date | None) -> str:
        return day.strftime("%m/%d/%Y") if day else ""

    def number(value: float | None) -> str:
        return "" if value is None else f"{value:g}"

    icd = (case.icd10_codes or "").split(",")
    values: dict[str, Any] = {
        "order_date": us(order.order_date), "f2f_exam_date": us(order.f2f_exam_date),
        "mobility_assessment_date": us(order.mobility_assessment_date),
        "home_assessment_date": us(order.home_assessment_date),
        "cmn_signed_date": us(order.cmn_signed_date), "delivery_date": us(case.service_from),
        "ordering_name": case.requesting_name or "", "ordering_npi": case.requesting_npi or "",
        "f2f_provider_npi": order.f2f_provider_npi or "",
        "cmn_signed_by_npi": order.cmn_signed_by_npi or "",
        "supplier_npi": order.supplier_npi or "", "supplier_name": order.supplier_name or "",
        "hcpcs": case.service_code or "", "modifier": case.service_modifier or "",
        "quantity": str(case.units) if case.units else "",
        "product_description": order.product_description or "",
        "icd10_primary": icd[0] if icd and icd[0] else "",
        "icd10_secondary": icd[1] if len(icd) > 1 else "",
        "length_of_need": str(order.length_of_need_months or ""),
        "height_in": number(order.height_in), "weight_lb": number(order.weight_lb),
        "clinical_summary": case.clinical_summary or "",
    }
    for key, _ in MN_QUESTIONS:
        answer = getattr(order, key)
        values[f"mn_{key}"] = "" if answer is None else ("yes" if answer else "no")
    return values


def stored_values(case: PaCase, order: DmeOrder) -> dict[str, Any]:
    """A saved order as typed values (what :func:`missing` checks before submitting)."""
    icd = [c for c in (case.icd10_codes or "").split(",") if c]
    stored: dict[str, Any] = {
        "order_date": order.order_date, "ordering_name": case.requesting_name,
        "ordering_npi": case.requesting_npi, "hcpcs": case.service_code,
        "quantity": case.units, "product_description": order.product_description or None,
        "icd10_primary": icd[0] if icd else None,
        "length_of_need": order.length_of_need_months, "f2f_exam_date": order.f2f_exam_date,
        "f2f_provider_npi": order.f2f_provider_npi, "supplier_npi": order.supplier_npi,
        "mobility_assessment_date": order.mobility_assessment_date,
        "height_in": order.height_in, "weight_lb": order.weight_lb,
        "cmn_signed_by_npi": order.cmn_signed_by_npi, "cmn_signed_date": order.cmn_signed_date,
    }
    for key, _ in MN_QUESTIONS:
        stored[f"mn_{key}"] = getattr(order, key)
    return stored


def warnings(case: PaCase, order: DmeOrder) -> list[str]:
    """What Acme's reviewers would question, shown before submitting (never blocking)."""
    found = []
    if order.f2f_exam_date and order.order_date:
        if order.f2f_exam_date > order.order_date:
            found.append("The face-to-face exam is dated after the written order; the order "
                         "must follow the face-to-face encounter.")
        elif (order.order_date - order.f2f_exam_date).days > 183:
            found.append("The face-to-face exam is more than 6 months before the written "
                         "order; Acme requires one within the 6 months before the order.")
    if order.cmn_signed_date and order.order_date and order.cmn_signed_date < order.order_date:
        found.append("AMN-PMD-1 is signed before the written order date.")
    return found


def _add_months(day: dt.date, months: int) -> dt.date:
    month = day.month - 1 + months
    year = day.year + month // 12
    month = month % 12 + 1
    for last in (31, 30, 29, 28):
        try:
            return dt.date(year, month, min(day.day, last))
        except ValueError:
            continue
    raise ValueError(day)
