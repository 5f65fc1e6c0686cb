"""Claims & Payments: claim status inquiry (by patient, by claim number, by service dates)
and the claim page with its lines, adjustment codes and remittance.

Each inquiry is recorded in ``claim_inquiries`` (who searched, with what, which claims came
back) and then shown from that record, so a refresh or the back button shows the same
results without searching — or recording — again. Only claims the user's organization
billed (its TIN) are found.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from sqlalchemy import func, select
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.acme.remittance import FINALIZED, FREQUENCY_LABELS, STATUS_CATEGORY, legend
from portal_web.acme.remittance import adjustments as parse_adjustments
from portal_web.acme.site import area_view, site_of, user_of
from portal_web.acme.typed_fields import us_date
from portal_web.common.requests import PostedForm, form_post
from sandbox.stores.acme import (
    STATUS_LABELS,
    Appeal,
    Claim,
    ClaimCorrection,
    ClaimInquiry,
    ClaimLine,
    Member,
    Plan,
    Provider,
)

AREA = "claims"
MODES = {"patient": "Patient", "claim": "Claim number", "dates": "Service dates"}
MAX_RANGE_DAYS = 366
EARLIEST = dt.date(2020, 1, 1)


def _crumbs(*extra: tuple[str, str | None]) -> list[tuple[str, str | None]]:
    return [("Claims & Payments", "/claims/status"), *extra]


def _form_context(request: Request, mode: str, values: dict[str, Any],
                  errors: dict[str, str]) -> dict[str, Any]:
    return {"page_title": "Claim status inquiry", "modes": MODES, "mode": mode,
            "values": values, "errors": errors,
            "breadcrumbs": _crumbs(("Claim status inquiry", None))}


@area_view(AREA)
async def status_form(request: Request) -> Response:
    site = site_of(request)
    mode = request.query_params.get("by", "patient")
    mode = mode if mode in MODES else "patient"
    return site.render(request, "claims_status.html", {
        **_form_context(request, mode, {"search_by": mode}, {}), "inquiry": None,
        "results": None}, area=AREA)


def _criteria(r, mode: str, today: dt.date) -> dict[str, Any]:  # noqa: ANN001
    """The search fields of ``mode``, validated (messages left on the reader)."""
    found: dict[str, Any] = {"member_number": None, "patient_last_name": None,
                             "patient_dob": None, "claim_number": None, "dos_from": None,
                             "dos_to": None}
    if mode == "claim":
        raw = re.sub(r"[\s-]", "", r.raw.get("claim_number", ""))
        if not raw:
            r.fail("claim_number", "Claim number is required (the 11 digits on the remittance advice).")
        elif not re.fullmatch(r"\d{11}", raw):
            r.fail("claim_number", f"Claim number: '{raw[:24]}' is not an Acme claim number; "
                                   "enter the 11 digits shown on the remittance advice.")
        else:
            found["claim_number"] = raw
        return found
    required_dates = mode == "dates"
    found["dos_from"] = us_date(r, "dos_from", "Service date from", required=required_dates,
                                earliest=EARLIEST, latest=today)
    found["dos_to"] = us_date(r, "dos_to", "Service date to", required=required_dates,
                              earliest=EARLIEST, latest=today + dt.timedelta(days=1))
    if found["dos_from"] and found["dos_to"]:
        if found["dos_to"] < found["dos_from"]:
            r.fail("dos_to", "Service date to must be on or after the from date.")
        elif (found["dos_to"] - found["dos_from"]).days > MAX_RANGE_DAYS:
            r.fail("dos_to", "Search at most 12 months of service dates at a time.")
    if mode == "patient":
        member = r.raw.get("member_number", "").strip().upper().replace(" ", "")
        last = r.text("patient_last_name", "Patient last name", max_len=60)
        dob = us_date(r, "patient_dob", "Patient date of birth", earliest=dt.date(1900, 1, 1),
                      latest=today)
        if member and not re.fullmatch(r"ACM\d{9}", member):
            r.fail("member_number", f"Member ID: '{member[:20]}' is not an Acme member ID "
                                    "(ACM followed by 9 digits, as on the member's card).")
        elif not member and not (last and dob):
            r.fail("member_number", "Enter the member ID, or the patient's last name and "
                                    "date of birth.")
        found.update(member_number=member or None, patient_last_name=last, patient_dob=dob)
    return found


def search(db, criteria: dict[str, Any], organization_tin: str) -> list[Claim]:  # noqa: ANN001
    """Claims of the organization matching every given criterion, newest service first."""
    query = select(Claim).join(Member, Member.id == Claim.member_id).where(
        Claim.billing_tin == organization_tin)
    if criteria["claim_number"]:
        query = query.where(Claim.claim_number == criteria["claim_number"])
    if criteria["member_number"]:
        query = query.where(Member.member_number == criteria["member_number"])
    if criteria["patient_last_name"]:
        query = query.where(func.lower(Member.last_name) == criteria["patient_last_name"].lower())
    if criteria["patient_dob"]:
        query = query.where(Member.dob == criteria["patient_dob"])
    if criteria["dos_from"]:
        query = query.where(Claim.dos_to >= criteria["dos_from"])
    if criteria["dos_to"]:
        query = query.where(Claim.dos_from <= criteria["dos_to"])
    return list(db.scalars(query.order_by(Claim.dos_from.desc(), Claim.claim_number)))


@area_view(AREA)
@form_post
async def run_inquiry(request: Request, form: PostedForm) -> Response:
    """Validate the search, record it in ``claim_inquiries`` and show its results."""
    site = site_of(request)
    user = user_of(request)
    r = form.reader
    mode = r.raw.get("search_by", "patient")
    mode = mode if mode in MODES else "patient"
    criteria = _criteria(r, mode, site.today())
    if not r.ok:
        return site.render(request, "claims_status.html", {
            **_form_context(request, mode, r.raw, r.errors), "inquiry": None,
            "results": None}, area=AREA)
    with site.reader() as db:
        numbers = [c.claim_number for c in search(db, criteria, user.organization_tin)]
    with site.writer(request) as db:
        inquiry = ClaimInquiry(portal_user_id=user.user_id,
                               result_claim_numbers=",".join(numbers),
                               inquired_at=site.now(), **criteria)
        db.add(inquiry)
        db.flush()
        inquiry_id = inquiry.id
    return form.redirect(f"/claims/status/results/{inquiry_id}")


def _values_of(inquiry: ClaimInquiry, mode: str) -> dict[str, str]:
    def us(day: dt.date | None) -> str:
        return day.strftime("%m/%d/%Y") if day else ""

    return {"search_by": mode, "member_number": inquiry.member_number or "",
            "patient_last_name": inquiry.patient_last_name or "",
            "patient_dob": us(inquiry.patient_dob), "claim_number": inquiry.claim_number or "",
            "dos_from": us(inquiry.dos_from), "dos_to": us(inquiry.dos_to)}


@area_view(AREA)
async def results(request: Request) -> Response:
    site = site_of(request)
    user = user_of(request)
    with site.reader() as db:
        inquiry = db.get(ClaimInquiry, int(request.path_params["inquiry_id"]))
        if inquiry is None or inquiry.portal_user_id != user.user_id:
            raise HTTPException(404, "That search is not one of yours. Search again from "
                                     "Claim status inquiry.")
        numbers = [n for n in (inquiry.result_claim_numbers or "").split(",") if n]
        rows = list(db.execute(select(Claim, Member).join(Member, Member.id == Claim.member_id)
                               .where(Claim.claim_number.in_(numbers),
                                      Claim.billing_tin == user.organization_tin)
                               .order_by(Claim.dos_from.desc(), Claim.claim_number)))
    mode = ("claim" if inquiry.claim_number else
            "patient" if inquiry.member_number or inquiry.patient_last_name else "dates")
    return site.render(request, "claims_status.html", {
        **_form_context(request, mode, _values_of(inquiry, mode), {}), "inquiry": inquiry,
        "results": rows, "labels": STATUS_LABELS, "categories": STATUS_CATEGORY}, area=AREA)


def claim_of(db, claim_id: int, organization_tin: str) -> Claim:  # noqa: ANN001
    claim = db.get(Claim, claim_id)
    if claim is None or claim.billing_tin != organization_tin:
        raise HTTPException(404, f"Claim {claim_id} was not found among your organization's "
                                 "claims. Search for it in Claim status inquiry.")
    return claim


@area_view(AREA)
async def claim_page(request: Request) -> Response:
    site = site_of(request)
    user = user_of(request)
    with site.reader() as db:
        claim = claim_of(db, int(request.path_params["claim_id"]), user.organization_tin)
        member = db.get(Member, claim.member_id)
        plan = db.get(Plan, member.plan_id) if member else None
        lines = list(db.scalars(select(ClaimLine).where(ClaimLine.claim_id == claim.id)
                                .order_by(ClaimLine.line_no)))
        rendering = db.scalar(select(Provider).where(Provider.npi == claim.rendering_npi)) \
            if claim.rendering_npi else None
        billing = db.scalar(select(Provider).where(Provider.npi == claim.billing_npi))
        corrections = list(db.scalars(select(ClaimCorrection).where(
            ClaimCorrection.original_claim_id == claim.id).order_by(ClaimCorrection.id)))
        appeals = list(db.scalars(select(Appeal).where(Appeal.claim_id == claim.id)
                                  .order_by(Appeal.id)))
    return site.render(request, "claims_detail.html", {
        "page_title": f"Claim {claim.claim_number}", "claim": claim, "member": member,
        "plan": plan, "lines": [(line, parse_adjustments(line.carc_codes)) for line in lines],
        "legend": legend([line.carc_codes for line in lines]
                         + [f"CO-{claim.denial_carc}" if claim.denial_carc else None]),
        "rendering": rendering, "billing": billing, "corrections": corrections,
        "appeals": appeals, "labels": STATUS_LABELS, "category": STATUS_CATEGORY.get(
            claim.status), "finalized": claim.status in FINALIZED,
        "frequency_labels": FREQUENCY_LABELS,
        "can_appeal": claim.status in ("denied", "partially_paid"),
        "billed_units": sum(line.units for line in lines),
        "breadcrumbs": _crumbs(("Claim status inquiry", "/claims/status"),
                               (f"Claim {claim.claim_number}", None))}, area=AREA)


routes = [
    Route("/claims", status_form, methods=["GET"]),
    Route("/claims/status", status_form, methods=["GET"], name="claim_status"),
    Route("/claims/status", run_inquiry, methods=["POST"]),
    Route("/claims/status/results/{inquiry_id:id}", results, methods=["GET"]),
    Route("/claims/{claim_id:id}", claim_page, methods=["GET"], name="claim"),
]
