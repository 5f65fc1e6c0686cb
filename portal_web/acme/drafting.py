"""Shared pieces of the wizard views: finding the user's draft (and leaving a view for the
submitted case when the draft was sent meanwhile), the page context of a step, and the
redirect that moves the user on after a step is saved."""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy.orm import Session
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from portal_web.acme import wizard
from portal_web.acme.casefacts import CASE_TYPE_LABELS
from portal_web.acme.site import Endpoint, PortalPrincipal, site_of
from sandbox.stores.acme import Member, PaCase, Plan


class AlreadySubmitted(Exception):
    """The request is no longer a draft (submitted in another tab, or Back after submit)."""

    def __init__(self, case: PaCase):
        super().__init__(case.reference_number)
        self.case = case


def draft_of(db: Session, case_id: int, user: PortalPrincipal) -> PaCase:
    """The user's draft ``case_id``; 404 for anything else, AlreadySubmitted if it was sent."""
    case = db.get(PaCase, case_id)
    if case is None or case.created_by != user.username:
        raise HTTPException(404, "This request is not among your drafts. It may have been "
                                 "deleted; see My drafts and the authorization status list.")
    if case.status != "draft":
        raise AlreadySubmitted(case)
    return case


def submitted_redirect(request: Request, case: PaCase) -> Response:
    site_of(request).flash(request, f"This request was already submitted: tracking reference "
                                    f"{case.reference_number}. It is shown below; nothing "
                                    "was submitted again.")
    return RedirectResponse(f"/auth/cases/{case.id}", status_code=303)


def draft_view(view: Endpoint) -> Endpoint:
    """Decorator: a wizard view that finds the draft already submitted (another tab, Back
    after submitting) sends the user to the submitted case instead; nothing is written."""

    @functools.wraps(view)
    async def guarded(request: Request) -> Response:
        try:
            return await view(request)
        except AlreadySubmitted as done:
            return submitted_redirect(request, done.case)

    return guarded


def step_context(db: Session, case: PaCase, step: str) -> dict[str, Any]:
    """What every wizard page shows: the step bar, the member and the request type."""
    member = db.get(Member, case.member_id)
    plan = db.get(Plan, case.plan_id) if case.plan_id else None
    steps = wizard.steps_of(case)
    if step not in steps:
        steps = [*steps]
    return {
        "case": case, "member": member, "plan": plan, "step": step,
        "steps": [(s, wizard.STEP_TITLES[s]) for s in steps],
        "step_index": steps.index(step) if step in steps else 0,
        "previous": wizard.previous_step(case, step),
        "type_label": CASE_TYPE_LABELS.get(case.case_type, case.case_type),
        "page_title": "Create Authorization Request" if case.case_type != "extension"
        else "Request an Extension",
        "breadcrumbs": [("Authorizations & Referrals", "/auth/cases"),
                        ("My drafts", "/auth/drafts"), (wizard.STEP_TITLES[step], None)],
    }


def after_save(request: Request, case: PaCase, step: str, action: str, return_to: str) -> str:
    """Where a saved step goes: the drafts list, back to review, or the next step."""
    if action == "save_exit":
        site_of(request).flash(request, "Draft saved. Resume it from My drafts.")
        return "/auth/drafts"
    if return_to == "review":
        return f"/auth/requests/{case.id}/review"
    return f"/auth/requests/{case.id}/{wizard.next_step(case, step)}"
