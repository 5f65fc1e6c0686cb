"""Send to Plan (with the prescriber attestation) and Archive / Unarchive.

A send is refused while a required question that the answers ask is unanswered, and
without the attestation. It writes the request once: status ``sent_to_plan``, the send's
time and number, and who attested; a second submit of the same page, or of a page opened
before the send, finds the request already sent and writes nothing.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.common.forms import FORM_ERROR
from portal_web.common.requests import PostedForm, form_post, login_required
from portal_web.epa.pa_request import PaRequestView
from portal_web.epa.questions import display_answer
from portal_web.epa.site import LOGIN_PATH, site_of, user_of
from portal_web.epa.views.request import (
    hidden_entries,
    locked_reason,
    page_context,
    read_view,
    view_or_404,
)
from sandbox.stores.epa import EpaRequest

guard = login_required(LOGIN_PATH)
ATTESTATION = (
    "I attest that the information in this request is true and accurate to the best of my "
    "knowledge, that it is supported by the patient's medical record, and that I am the "
    "prescriber or am sending it on the prescriber's behalf with the prescriber's "
    "authorization.")


def send_context(view: PaRequestView, errors: dict[str, str] | None = None,
                 attest: bool = False) -> dict[str, Any]:
    qset = view.current_set
    answers = view.answers_of(qset) if qset else {}
    summary = []
    missing = []
    if qset is not None:
        numbers = qset.numbers(answers)
        for key in qset.shown(answers):
            q = qset.get(key)
            assert q is not None
            summary.append({"number": numbers[key], "question": q,
                            "display": display_answer(q, answers.get(key))})
        missing = [{"number": numbers[q.key], "question": q}
                   for q in qset.unanswered_required(answers)]
    return {"view": view, "row": view.row, "plan": view.plan, "nav": "request",
            "qset": qset, "summary": summary, "missing": missing,
            "hidden": hidden_entries(qset, view) if qset else [],
            "attestation": ATTESTATION, "attest": attest, "errors": errors or {},
            "locked_reason": "" if view.sendable else locked_reason(view)}


@guard
async def send_page(request: Request) -> Response:
    return site_of(request).render(request, "send.html", send_context(read_view(request)))


def _problems(view: PaRequestView, attested: bool) -> dict[str, str]:
    errors: dict[str, str] = {}
    if not view.sendable:
        errors[FORM_ERROR] = locked_reason(view)
        return errors
    qset = view.current_set
    if qset is not None:
        missing = qset.unanswered_required(view.answers_of(qset))
        if missing:
            numbers = qset.numbers(view.answers_of(qset))
            listed = ", ".join(str(numbers[q.key]) for q in missing)
            errors["questions"] = (f"Answer the required question{'s' if len(missing) > 1 else ''} "
                                   f"{listed} before sending (marked * on the request).")
    if not attested:
        errors["attest"] = "Tick the prescriber attestation to sign the request."
    return errors


@guard
@form_post
async def send(request: Request, posted: PostedForm) -> Response:
    site = site_of(request)
    key = request.path_params["key"]
    user = user_of(request)
    attested = posted.reader.checkbox("attest")
    view = read_view(request)
    errors = {**posted.reader.errors, **_problems(view, attested)}
    if errors:
        return site.render(request, "send.html", send_context(view, errors, attested))
    now = site.now()
    with site.writer(request) as db:
        live = view_or_404(site, db, key)
        late = _problems(live, attested)
        if late:  # sent from another tab meanwhile: nothing more is written
            return site.render(request, "send.html", send_context(live, late, attested))
        row = db.get(EpaRequest, live.row.id)
        row.status = "sent_to_plan"
        row.send_count = (row.send_count or 0) + 1
        row.sent_at = now
        row.updated_at = now
        row.attested_by = user.display_name
        row.attested_at = now
    plan = view.plan.name if view.plan else "the plan"
    site.flash(request, f"Sent to {plan}. The plan's reply will appear on this request and "
                        "on your Dashboard.")
    return posted.redirect(f"/request/{key}")


@guard
@form_post
async def archive(request: Request, posted: PostedForm) -> Response:
    """Archive (hide from the working lists) or unarchive a request."""
    site = site_of(request)
    key = request.path_params["key"]
    wanted = posted.data.get("archive")
    view = read_view(request)
    if posted.reader.errors or wanted not in ("1", "0"):
        message = posted.reader.errors.get(FORM_ERROR, "Use the Archive or Unarchive "
                                                       "button of the request.")
        return site.render(request, "request.html",
                           page_context(view, errors={FORM_ERROR: message}))
    archived = wanted == "1"
    if bool(view.row.archived) != archived:
        with site.writer(request) as db:
            row = db.get(EpaRequest, view.row.id)
            row.archived = archived
            row.updated_at = site.now()
    site.flash(request, "Request archived: find it under Archived on the Dashboard."
               if archived else "Request restored to the Dashboard.")
    return posted.redirect(f"/request/{key}")


routes = [
    Route("/request/{key:epakey}/send", send_page, methods=["GET"], name="send_page"),
    Route("/request/{key:epakey}/send", send, methods=["POST"], name="send"),
    Route("/request/{key:epakey}/archive", archive, methods=["POST"], name="archive"),
]
