"""Corrected claims: a replacement (frequency code 7) or a void (8) of a processed claim,
citing the original claim number (CMS-1500 box 22 / 837P REF*F8) and repeating every line.

The form is prefilled with the original's lines, each editable and numbered; the reason is
required. The original claim number stays editable (it is stored as entered, like box 22):
it must name a claim of the organization that Acme has finalized — a correction while the
original is still in process, or of a voided claim, is refused with the reason. A second
correction of the same claim needs the earlier one acknowledged; a correction after the
policy's 180 days is accepted with a warning. Submitting writes one ``claim_corrections``
row (reference CC26-NNNNNN) and its lines; the original claim is not touched.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from sqlalchemy import select
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal_web.acme.deadlines import correction_deadline
from portal_web.acme.references import CORRECTION, next_reference
from portal_web.acme.remittance import FINALIZED, FREQUENCY_LABELS
from portal_web.acme.site import area_view, site_of, user_of
from portal_web.acme.typed_fields import (
    dollars,
    modifiers,
    money_cents,
    ndc,
    procedure_code,
    us_date,
)
from portal_web.acme.views.claims import claim_of
from portal_web.common.requests import posted_form
from sandbox.stores.acme import (
    STATUS_LABELS,
    Claim,
    ClaimCorrection,
    ClaimCorrectionLine,
    ClaimLine,
    Member,
    Plan,
)

AREA = "claims"
FREQUENCIES = {"7": "Replacement of prior claim (frequency 7)",
               "8": "Void/cancel of prior claim (frequency 8)"}
LINE_FIELDS = ("dos", "code", "mod", "ndc", "units", "charge")


def _crumbs(*extra: tuple[str, str | None]) -> list[tuple[str, str | None]]:
    return [("Claims & Payments", "/claims/status"), *extra]


def refusal(claim: Claim) -> str | None:
    """Why ``claim`` cannot be corrected now, or None when it can."""
    if claim.status == "voided":
        return (f"Claim {claim.claim_number} was voided, so it can no longer be corrected. "
                "Submit a new original claim for the service if it should be paid.")
    if claim.status not in FINALIZED:
        return (f"Claim {claim.claim_number} is still in process (received "
                f"{claim.received_date:%m/%d/%Y}; status "
                f"{STATUS_LABELS.get(claim.status, claim.status)}). A corrected or voided "
                "claim can be submitted only after Acme has finalized the original. Check "
                "its status again once it is processed.")
    return None


@area_view(AREA)
async def start(request: Request) -> Response:
    """Find the claim to correct by its number."""
    site = site_of(request)
    user = user_of(request)
    raw = request.query_params.get("claim_number", "")
    number = re.sub(r"[\s-]", "", raw)[:24]
    error = None
    if raw:
        if not re.fullmatch(r"\d{11}", number):
            error = (f"'{number[:24]}' is not an Acme claim number; enter the 11 digits from "
                     "the remittance advice.")
        else:
            with site.reader() as db:
                claim = db.scalar(select(Claim).where(
                    Claim.claim_number == number, Claim.billing_tin == user.organization_tin))
            if claim is not None:
                return RedirectResponse(f"/claims/{claim.id}/correct", 303)
            error = (f"No claim {number} billed by your organization was found. Check the "
                     "number, or find the claim in Claim status inquiry.")
    return site.render(request, "corrections_start.html", {
        "page_title": "Corrected claim / void", "claim_number": number, "error": error,
        "breadcrumbs": _crumbs(("Corrected claim / void", None))}, area=AREA)


def _lines(db, claim_id: int) -> list[ClaimLine]:  # noqa: ANN001
    return list(db.scalars(select(ClaimLine).where(ClaimLine.claim_id == claim_id)
                           .order_by(ClaimLine.line_no)))


def _prefill(claim: Claim, lines: list[ClaimLine]) -> dict[str, str]:
    values = {"original_claim_number": claim.claim_number}
    for line in lines:
        n = line.line_no
        values.update({f"line-{n}-dos": line.dos.strftime("%m/%d/%Y"),
                       f"line-{n}-code": line.procedure_code,
                       f"line-{n}-mod": line.modifiers or "", f"line-{n}-ndc": line.ndc or "",
                       f"line-{n}-units": str(line.units),
                       f"line-{n}-charge": dollars(line.charge_cents)})
    return values


def _context(request: Request, db, claim: Claim, values: dict[str, Any],  # noqa: ANN001
             errors: dict[str, str]) -> dict[str, Any]:
    site = site_of(request)
    member = db.get(Member, claim.member_id)
    earlier = list(db.scalars(select(ClaimCorrection).where(
        ClaimCorrection.original_claim_id == claim.id, ClaimCorrection.status != "draft")
        .order_by(ClaimCorrection.id)))
    return {
        "page_title": f"Corrected claim for {claim.claim_number}", "claim": claim,
        "member": member, "plan": db.get(Plan, member.plan_id) if member else None,
        "lines": _lines(db, claim.id), "values": values, "errors": errors,
        "frequencies": FREQUENCIES, "refusal": refusal(claim), "earlier": earlier,
        "deadline": correction_deadline(db, claim), "today": site.today(),
        "labels": STATUS_LABELS, "frequency_labels": FREQUENCY_LABELS,
        "breadcrumbs": _crumbs(("Claim status inquiry", "/claims/status"),
                               (f"Claim {claim.claim_number}", f"/claims/{claim.id}"),
                               ("Corrected claim", None)),
    }


def _read_lines(r, lines: list[ClaimLine], earliest: dt.date,  # noqa: ANN001
                latest: dt.date) -> list[dict[str, Any]]:
    """Every line of the form, validated; the line numbers are the original's."""
    read = []
    for line in lines:
        n = line.line_no
        label = f"Line {n}"
        units = r.integer(f"line-{n}-units", f"{label} units", low=1, high=9999,
                          required=True)
        read.append({
            "line_no": n,
            "dos": us_date(r, f"line-{n}-dos", f"{label} service date", required=True,
                           earliest=earliest, latest=latest),
            "procedure_code": procedure_code(r, f"line-{n}-code", f"{label} procedure code",
                                             required=True),
            "modifiers": modifiers(r, f"line-{n}-mod", f"{label} modifiers"),
            "ndc": ndc(r, f"line-{n}-ndc", f"{label} NDC"),
            "units": units,
            "charge_cents": money_cents(r, f"line-{n}-charge", f"{label} charge",
                                        required=True),
        })
    return read


@area_view(AREA)
async def correct(request: Request) -> Response:
    """GET: the prefilled correction form; POST: submit the replacement or void."""
    site = site_of(request)
    user = user_of(request)
    claim_id = int(request.path_params["claim_id"])
    with site.reader() as db:
        claim = claim_of(db, claim_id, user.organization_tin)
        if request.method == "GET":
            values = _prefill(claim, _lines(db, claim.id))
            return site.render(request, "corrections_form.html",
                               _context(request, db, claim, values, {}), area=AREA)
    async with posted_form(request) as form:
        if form.replay:
            return form.replay
        r = form.reader
        with site.reader() as db:
            claim = claim_of(db, claim_id, user.organization_tin)
            context = _context(request, db, claim, r.raw, r.errors)
            frequency = r.choice("frequency_code", "Claim frequency", FREQUENCIES,
                                 required=True)
            entered = re.sub(r"[\s-]", "", r.raw.get("original_claim_number", ""))
            original = None
            if not entered:
                r.fail("original_claim_number", "Original claim number is required (the "
                                                "payer claim number of the claim you correct).")
            elif not re.fullmatch(r"\d{11}", entered):
                r.fail("original_claim_number", f"Original claim number: '{entered[:24]}' is "
                                                "not an Acme claim number (11 digits).")
            else:
                original = db.scalar(select(Claim).where(
                    Claim.claim_number == entered, Claim.billing_tin == user.organization_tin))
                if original is None:
                    r.fail("original_claim_number", f"No claim {entered} billed by your "
                                                    "organization was found; check the number "
                                                    "on the remittance advice.")
                elif refusal(original):
                    r.fail("original_claim_number", refusal(original))
            reason = r.text("correction_reason", "Reason for the correction", required=True,
                            max_len=2000)
            lines = _read_lines(r, context["lines"], earliest=claim.dos_from - dt.timedelta(
                days=366), latest=site.today())
            earlier = [c for c in context["earlier"]
                       if original is not None and c.original_claim_id == original.id]
            if earlier and not r.checkbox("acknowledge_duplicate"):
                r.fail("acknowledge_duplicate", "A correction of this claim was already "
                       "submitted (" + ", ".join(c.reference_number or "" for c in earlier)
                       + "). Tick the box to submit another one anyway.")
            if not r.ok:
                return site.render(request, "corrections_form.html", context, area=AREA)
        assert original is not None
        now = site.now()
        with site.writer(request) as db:
            row = ClaimCorrection(
                reference_number=next_reference(db, ClaimCorrection.reference_number,
                                                CORRECTION),
                original_claim_id=original.id, original_claim_number=entered,
                frequency_code=frequency, correction_reason=reason, status="submitted",
                created_by=user.username, created_at=now, submitted_at=now)
            db.add(row)
            db.flush()
            for line in lines:
                db.add(ClaimCorrectionLine(correction_id=row.id, **line))
            correction_id = row.id
        return form.redirect(f"/claims/corrections/{correction_id}?submitted=1")


@area_view(AREA)
async def corrections_list(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        rows = list(db.execute(
            select(ClaimCorrection, Claim, Member)
            .join(Claim, Claim.id == ClaimCorrection.original_claim_id, isouter=True)
            .join(Member, Member.id == Claim.member_id, isouter=True)
            .order_by(ClaimCorrection.submitted_at.desc().nulls_last(),
                      ClaimCorrection.id.desc())))
    return site.render(request, "corrections_list.html", {
        "page_title": "Submitted corrections", "rows": rows,
        "frequency_labels": FREQUENCY_LABELS,
        "breadcrumbs": _crumbs(("Submitted corrections", None))}, area=AREA)


@area_view(AREA)
async def correction_page(request: Request) -> Response:
    site = site_of(request)
    user = user_of(request)
    with site.reader() as db:
        row = db.get(ClaimCorrection, int(request.path_params["correction_id"]))
        claim = db.get(Claim, row.original_claim_id) if row and row.original_claim_id else None
        if row is None or (claim is not None and claim.billing_tin != user.organization_tin):
            raise HTTPException(404, "That correction was not found. Open it from Submitted "
                                     "corrections.")
        lines = list(db.scalars(select(ClaimCorrectionLine).where(
            ClaimCorrectionLine.correction_id == row.id).order_by(ClaimCorrectionLine.line_no)))
        originals = {line.line_no: line for line in _lines(db, claim.id)} if claim else {}
        member = db.get(Member, claim.member_id) if claim else None
        deadline = correction_deadline(db, claim) if claim else None
    late = bool(deadline and row.submitted_at and row.submitted_at.date() > deadline.last_day)
    return site.render(request, "corrections_detail.html", {
        "page_title": f"Corrected claim {row.reference_number}", "correction": row,
        "claim": claim, "member": member, "lines": lines, "originals": originals,
        "frequency_labels": FREQUENCY_LABELS, "deadline": deadline, "late": late,
        "just_submitted": request.query_params.get("submitted") == "1",
        "breadcrumbs": _crumbs(("Submitted corrections", "/claims/corrections"),
                               (row.reference_number or "Correction", None))}, area=AREA)


routes = [
    Route("/claims/corrections", corrections_list, methods=["GET"]),
    Route("/claims/corrections/new", start, methods=["GET"]),
    Route("/claims/corrections/{correction_id:id}", correction_page, methods=["GET"]),
    Route("/claims/{claim_id:id}/correct", correct, methods=["GET", "POST"]),
]
