"""Peer-to-peer reviews: the denied requests with offered times, the scheduling page of one
case (every slot Acme offered, with its status), the booking form and its confirmation.

Booking writes the request (confirmation P2P-NNNNNN, status ``scheduled``) and turns the
slot ``booked`` — the only column of the slot that changes. The review window (policy
'peer-to-peer') is shown above the slots; Acme offers some times after it, and booking one
is accepted with a warning, as is any time the ordering physician is busy (the portal cannot
know). A case has at most one scheduled review; cancelling frees its slot again.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal_web.acme.appeal_subjects import NotAppealable, Subject, case_subject
from portal_web.acme.deadlines import Deadline, p2p_window
from portal_web.acme.references import P2P, next_reference
from portal_web.acme.site import area_view, site_of, user_of
from portal_web.acme.typed_fields import phone
from portal_web.common.params import parse_id
from portal_web.common.requests import PostedForm, form_post, posted_form
from sandbox.stores.acme import STATUS_LABELS, Member, P2pRequest, P2pSlot, PaCase, Plan

AREA = "authorizations"
SLOT_LABELS = {"open": "Available", "booked": "Booked", "withdrawn": "Withdrawn"}
REQUEST_LABELS = {"scheduled": "Scheduled", "completed": "Completed",
                  "cancelled": "Cancelled"}


def _crumbs(*extra: tuple[str, str | None]) -> list[tuple[str, str | None]]:
    return [("Authorizations & Referrals", "/auth/cases"),
            ("Peer-to-peer reviews", "/p2p"), *extra]


def _scheduled(db, case_id: int) -> P2pRequest | None:  # noqa: ANN001
    return db.scalar(select(P2pRequest).where(P2pRequest.case_id == case_id,
                                              P2pRequest.status == "scheduled"))


@area_view(AREA)
async def overview(request: Request) -> Response:
    """Denied requests with offered review times, and every review requested."""
    site = site_of(request)
    with site.reader() as db:
        slot_cases = set(db.scalars(select(P2pSlot.case_id).where(P2pSlot.case_id.is_not(None))))
        cases = list(db.execute(
            select(PaCase, Member).join(Member, Member.id == PaCase.member_id)
            .where(PaCase.status.in_(("denied", "partially_approved")))
            .order_by(PaCase.decision_at.desc())))
        slots = list(db.scalars(select(P2pSlot)))
        requests = list(db.execute(
            select(P2pRequest, P2pSlot, PaCase, Member)
            .join(P2pSlot, P2pSlot.id == P2pRequest.slot_id)
            .join(PaCase, PaCase.id == P2pRequest.case_id)
            .join(Member, Member.id == PaCase.member_id)
            .order_by(P2pSlot.start_at)))
        rows = []
        for case, member in cases:
            open_slots = [s for s in slots if s.case_id == case.id and s.status == "open"]
            rows.append({"case": case, "member": member, "window": p2p_window(db, case),
                         "open_slots": len(open_slots), "offered": case.id in slot_cases,
                         "scheduled": _scheduled(db, case.id)})
    return site.render(request, "p2p_list.html", {
        "page_title": "Peer-to-peer reviews", "cases": rows, "requests": requests,
        "labels": STATUS_LABELS, "request_labels": REQUEST_LABELS, "today": site.today(),
        "breadcrumbs": _crumbs()[:-1] + [("Peer-to-peer reviews", None)]}, area=AREA)


def _subject(db, case_id: int) -> Subject:  # noqa: ANN001
    try:
        return case_subject(db, case_id)
    except LookupError:
        raise HTTPException(404, f"Authorization case {case_id} was not found. Open it from "
                                 "Peer-to-peer reviews.") from None


def _page_context(request: Request, db, subject: Subject, values: dict[str, Any],  # noqa: ANN001
                  errors: dict[str, str]) -> dict[str, Any]:
    site = site_of(request)
    case = subject.case
    assert case is not None
    slots = list(db.scalars(select(P2pSlot).where(P2pSlot.case_id == case.id)
                            .order_by(P2pSlot.start_at)))
    window = p2p_window(db, case)
    now = site.now()
    return {
        "page_title": "Schedule a peer-to-peer review", "subject": subject, "case": case,
        "slots": slots, "slot_labels": SLOT_LABELS, "window": window, "now": now,
        "today": now.date(), "scheduled": _scheduled(db, case.id), "values": values,
        "errors": errors, "labels": STATUS_LABELS,
        "breadcrumbs": _crumbs((case.reference_number or f"Case {case.id}", None)),
    }


@area_view(AREA)
async def schedule(request: Request) -> Response:
    """GET: the offered times and the booking form; POST: book the chosen time."""
    site = site_of(request)
    user = user_of(request)
    case_id = int(request.path_params["case_id"])
    with site.reader() as db:
        try:
            subject = _subject(db, case_id)
        except NotAppealable as exc:
            return site.render(request, "p2p_unavailable.html", {
                "page_title": "Peer-to-peer review not available",
                "message": str(exc).replace("appealed", "discussed in a peer-to-peer review"),
                "breadcrumbs": _crumbs(("Not available", None))}, area=AREA)
        if request.method == "GET":
            case = subject.case
            assert case is not None
            values = {"physician_name": case.requesting_name or "",
                      "physician_npi": case.requesting_npi or ""}
            return site.render(request, "p2p_case.html",
                               _page_context(request, db, subject, values, {}), area=AREA)
    async with posted_form(request) as form:
        if form.replay:
            return form.replay
        r = form.reader
        with site.reader() as db:
            context = _page_context(request, db, subject, r.raw, r.errors)
            slot = _chosen_slot(r, context)
            physician = r.text("physician_name", "Physician name", required=True, max_len=120)
            npi = r.npi("physician_npi", "Physician NPI", required=True)
            callback = phone(r, "callback_phone", "Callback number", required=True)
            notes = r.text("notes", "Notes for the medical director", max_len=2000) or ""
            if context["scheduled"] is not None:
                r.fail("_form", f"A peer-to-peer review is already scheduled for this request "
                                f"({context['scheduled'].confirmation_number}). Cancel it "
                                "before choosing another time.")
            if not r.ok:
                return site.render(request, "p2p_case.html", context, area=AREA)
        assert slot is not None
        with site.writer(request) as db:
            row = db.get(P2pSlot, slot.id)
            if row is None or row.status != "open":  # booked meanwhile
                raise HTTPException(409, "That time was booked a moment ago. Go back and "
                                         "choose another time.")
            row.status = "booked"
            booking = P2pRequest(
                confirmation_number=next_reference(db, P2pRequest.confirmation_number, P2P),
                case_id=case_id, slot_id=slot.id, physician_name=physician,
                physician_npi=npi, callback_phone=callback, notes=notes,
                status="scheduled", requested_by=user.username, requested_at=site.now())
            db.add(booking)
            db.flush()
            booking_id = booking.id
        return form.redirect(f"/p2p/requests/{booking_id}?booked=1")


def _chosen_slot(r, context: dict[str, Any]) -> P2pSlot | None:  # noqa: ANN001
    raw = r.raw.get("slot_id", "").strip()
    slots = {str(s.id): s for s in context["slots"]}
    if not raw:
        r.fail("slot_id", "Choose one of the offered times.")
        return None
    slot = slots.get(raw)
    if slot is None:
        r.fail("slot_id", "That time is not one Acme offered for this request; choose one of "
                          "the times listed.")
        return None
    if slot.status != "open":
        r.fail("slot_id", f"The {slot.start_at:%m/%d/%Y %I:%M %p} time is "
                          f"{SLOT_LABELS.get(slot.status, slot.status).lower()}; choose an "
                          "available time.")
        return None
    if slot.start_at <= context["now"]:
        r.fail("slot_id", f"The {slot.start_at:%m/%d/%Y %I:%M %p} time has passed; choose a "
                          "later one.")
        return None
    return slot


def _request(db, request_id: int) -> tuple[P2pRequest, P2pSlot, Subject]:  # noqa: ANN001
    booking = db.get(P2pRequest, request_id)
    if booking is None:
        raise HTTPException(404, f"Peer-to-peer request {request_id} was not found. Open it "
                                 "from Peer-to-peer reviews.")
    slot = db.get(P2pSlot, booking.slot_id)
    case = db.get(PaCase, booking.case_id)
    member = db.get(Member, case.member_id)
    subject = Subject("case", member, db.get(Plan, member.plan_id), case=case)
    return booking, slot, subject


def _outside(window: Deadline | None, slot: P2pSlot) -> bool:
    return bool(window and slot.start_at.date() > window.last_day)


@area_view(AREA)
async def booking_page(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        booking, slot, subject = _request(db, int(request.path_params["request_id"]))
        window = p2p_window(db, subject.case)
        return site.render(request, "p2p_request.html", {
            "page_title": f"Peer-to-peer review {booking.confirmation_number}",
            "booking": booking, "slot": slot, "subject": subject, "window": window,
            "outside_window": _outside(window, slot), "labels": STATUS_LABELS,
            "request_labels": REQUEST_LABELS, "today": site.today(),
            "just_booked": request.query_params.get("booked") == "1",
            "breadcrumbs": _crumbs((booking.confirmation_number, None))}, area=AREA)


@area_view(AREA)
@form_post
async def cancel(request: Request, form: PostedForm) -> Response:
    """Cancel a scheduled review; its time is offered again."""
    site = site_of(request)
    request_id = int(request.path_params["request_id"])
    with site.writer(request) as db:
        booking = db.get(P2pRequest, request_id)
        if booking is None:
            raise HTTPException(404, f"Peer-to-peer request {request_id} was not found.")
        if booking.status != "scheduled":
            raise HTTPException(409, f"Peer-to-peer review {booking.confirmation_number} "
                                     f"is {booking.status}; only a scheduled review can "
                                     "be cancelled.")
        booking.status = "cancelled"
        slot = db.get(P2pSlot, booking.slot_id)
        if slot is not None and slot.status == "booked":
            slot.status = "open"
        number, case_id = booking.confirmation_number, booking.case_id
    site.flash(request, f"Peer-to-peer review {number} was cancelled; the time is offered "
                        "again.")
    return form.redirect(f"/p2p/case/{case_id}")


@area_view(AREA)
async def from_case(request: Request) -> Response:
    """"Request peer-to-peer" on a case page: its scheduling page."""
    raw = request.query_params.get("case", "")
    if parse_id(raw) is None or len(raw) > 9:
        return RedirectResponse("/p2p", 303)
    return RedirectResponse(f"/p2p/case/{raw}", 303)


routes = [
    Route("/p2p", overview, methods=["GET"], name="p2p"),
    Route("/p2p/new", from_case, methods=["GET"]),
    Route("/p2p/case/{case_id:id}", schedule, methods=["GET", "POST"], name="p2p_case"),
    Route("/p2p/requests/{request_id:id}", booking_page, methods=["GET"], name="p2p_request"),
    Route("/p2p/requests/{request_id:id}/cancel", cancel, methods=["POST"]),
]
