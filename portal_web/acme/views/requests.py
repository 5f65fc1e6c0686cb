"""Starting a request, My drafts, the review page, submission and the one-time
confirmation page. The steps in between are in ``views/steps.py``."""

from __future__ import annotations

from sqlalchemy import select
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal_web.acme import members, wizard
from portal_web.acme import questionnaire as qn
from portal_web.acme.casefacts import (
    ADMISSION_SOURCES,
    ADMISSION_TYPES,
    CASE_TYPE_LABELS,
    CLINICAL_URGENCIES,
    NEW_REQUEST_TYPES,
    OUTCOME_MEASURES,
    PLACES_OF_SERVICE,
    STATUS_LABELS,
    diagnosis_rows,
)
from portal_web.acme.drafting import draft_of, draft_view, step_context
from portal_web.acme.site import area_view, site_of, user_of
from portal_web.acme.uploads import DOCUMENT_TYPE_LABELS
from portal_web.common.forms import FieldReader
from portal_web.common.params import parse_id
from portal_web.common.requests import PostedForm, form_post, session_of
from sandbox.stores.acme import Member, PaCase, PaDraft, Plan

CONFIRMATIONS_KEY = "confirmations"  # case ids whose confirmation page may still be shown


# -- start ---------------------------------------------------------------------------------
def _new_page(request: Request, params, errors: dict[str, str] | None = None) -> Response:  # noqa: ANN001
    """Step 1: the request type and the member (search by ID, or name and birth date)."""
    site = site_of(request)
    r = FieldReader(params, errors)
    case_type = params.get("type", "")
    results = None
    chosen = None
    with site.reader() as db:
        member_id = parse_id(params.get("member", ""))
        if member_id is not None:
            row = db.execute(select(Member, Plan).join(Plan, Plan.id == Member.plan_id)
                             .where(Member.id == member_id)).first()
            if row is not None:
                chosen = members.MemberRow(row[0], row[1],
                                           members.coverage_active(row[0], site.today()))
        if any(params.get(k) for k in ("member_id", "last_name", "first_name", "dob")):
            search = members.read_search(r)
            if search is not None:
                results = members.find(db, search, site.today())
    if case_type and case_type not in NEW_REQUEST_TYPES:
        r.fail("type", "Choose one of the request types listed.")
        case_type = ""
    return site.render(request, "request_new.html", {
        "page_title": "Create Authorization Request", "values": r.raw, "errors": r.errors,
        "case_type": case_type, "results": results, "chosen": chosen, "today": site.today(),
        "types": [(t, CASE_TYPE_LABELS[t]) for t in NEW_REQUEST_TYPES],
        "breadcrumbs": [("Authorizations & Referrals", "/auth/cases"), ("New request", None)],
    }, area="authorizations")


@area_view("authorizations")
async def new_request(request: Request) -> Response:
    return _new_page(request, request.query_params)


@area_view("authorizations")
@form_post
async def start_request(request: Request, form: PostedForm) -> Response:
    """Create the draft for the chosen type and member; the wizard continues from it."""
    site = site_of(request)
    user = user_of(request)
    r = form.reader
    case_type = r.choice("case_type", "Request type", NEW_REQUEST_TYPES, required=True)
    member_id = r.integer("member_id", "Member", low=1, high=10**8, required=True)
    with site.reader() as db:
        member = db.get(Member, member_id) if member_id else None
        if member_id and member is None:
            r.fail("member_id", "That member was not found; search again.")
        elif member is not None and not members.coverage_active(member, site.today()):
            r.fail("member_id", f"{member.first_name} {member.last_name}'s coverage is "
                                "not active today, so a request cannot be started.")
    if not r.ok or member is None or case_type is None:
        message = " ".join(r.errors.values())
        return _new_page(request, {"type": r.raw.get("case_type", "")},
                         {"type": message})
    now = site.now()
    with site.writer(request) as db:
        case = PaCase(case_type=case_type, status="draft", urgency="standard",
                      member_id=member.id, plan_id=member.plan_id, revision=0,
                      created_by=user.username, created_at=now, updated_at=now)
        db.add(case)
        db.flush()
        first = wizard.steps_of(case)[1]
        wizard.save_draft(db, case, first, user_id=user.user_id, now=now)
        case_id = case.id
    return form.redirect(f"/auth/requests/{case_id}/{first}")


# -- drafts --------------------------------------------------------------------------------
@area_view("authorizations")
async def drafts(request: Request) -> Response:
    site = site_of(request)
    user = user_of(request)
    with site.reader() as db:
        rows = db.execute(
            select(PaCase, Member, PaDraft).join(Member, Member.id == PaCase.member_id)
            .outerjoin(PaDraft, PaDraft.case_id == PaCase.id)
            .where(PaCase.status == "draft", PaCase.created_by == user.username)
            .order_by(PaCase.updated_at.desc(), PaCase.id.desc())).all()
        recent = db.execute(
            select(PaCase, Member).join(Member, Member.id == PaCase.member_id)
            .where(PaCase.status != "draft", PaCase.submitted_at.is_not(None))
            .order_by(PaCase.submitted_at.desc(), PaCase.id.desc()).limit(8)).all()
    return site.render(request, "drafts.html", {
        "page_title": "My Drafts", "rows": rows, "recent": recent,
        "labels": STATUS_LABELS, "types": CASE_TYPE_LABELS, "step_titles": wizard.STEP_TITLES,
        "expired_notice": request.query_params.get("resumed") == "1",
        "breadcrumbs": [("Authorizations & Referrals", "/auth/cases"), ("My drafts", None)],
    }, area="authorizations")


@area_view("authorizations")
@draft_view
@form_post
async def delete_draft(request: Request, form: PostedForm) -> Response:
    site = site_of(request)
    user = user_of(request)
    case_id = request.path_params["case_id"]
    with site.writer(request) as db:
        case = draft_of(db, case_id, user)
        wizard.delete_draft(db, case)
    site.flash(request, "Draft deleted.")
    return form.redirect("/auth/drafts")


# -- review and submission -----------------------------------------------------------------
def review_context(db, case: PaCase, today) -> dict:  # noqa: ANN001
    context = step_context(db, case, "review")
    questions = qn.load_questions(db, case.questionnaire_id) if case.questionnaire_id else []
    answers = wizard.answers_of(db, case.id)
    context.update({
        "detail": wizard.detail_of(db, case),
        "diagnoses": diagnosis_rows(case.icd10_codes),
        "qa": [(q, qn.display_answer(q, answers.get(q.key)))
               for q in qn.enabled(questions, answers)],
        "attachments": wizard.attachments_of(db, case.id),
        "doc_types": DOCUMENT_TYPE_LABELS,
        "gaps": wizard.missing(db, case, today),
        "similar": wizard.similar_requests(db, case, today),
        "parent": db.get(PaCase, case.parent_case_id) if case.parent_case_id else None,
        "labels": STATUS_LABELS, "places": PLACES_OF_SERVICE,
        "admission_types": ADMISSION_TYPES, "admission_sources": ADMISSION_SOURCES,
        "urgencies": CLINICAL_URGENCIES, "measures": OUTCOME_MEASURES, "today": today,
    })
    return context


@area_view("authorizations")
@draft_view
async def review(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        case = draft_of(db, request.path_params["case_id"], user_of(request))
        context = review_context(db, case, site.today())
    return site.render(request, "step_review.html", {**context, "values": {}, "errors": {}},
                       area="authorizations")


@area_view("authorizations")
@draft_view
@form_post
async def submit(request: Request, form: PostedForm) -> Response:
    site = site_of(request)
    user = user_of(request)
    case_id = request.path_params["case_id"]
    r = form.reader
    with site.reader() as db:
        case = draft_of(db, case_id, user)
        context = review_context(db, case, site.today())
    if context["gaps"]:
        r.fail("gaps", "The request is not complete: finish the steps listed below.")
    if context["similar"] and not r.checkbox("acknowledge_similar"):
        r.fail("acknowledge_similar", "A similar request exists. Open it to check, or "
                                      "tick the box to submit this one anyway.")
    if not r.checkbox("attest"):
        r.fail("attest", "Confirm that the information is accurate and supported by the "
                         "medical record.")
    if not r.ok:
        return site.render(request, "step_review.html", {**context, "values": r.raw,
                                                         "errors": r.errors},
                           area="authorizations")
    status = site.setting("cases.submitted_status") or "in_review"
    with site.writer(request) as db:
        case = draft_of(db, case_id, user)
        wizard.submit(db, case, status=status if status in STATUS_LABELS else "in_review",
                      now=site.now())
    confirmations = session_of(request).data.setdefault(CONFIRMATIONS_KEY, [])
    confirmations.append(case_id)
    return form.redirect(f"/auth/requests/{case_id}/confirmation")


@area_view("authorizations")
async def confirmation(request: Request) -> Response:
    """The page with the tracking reference: shown once, like the payer portals' (the
    reference stays on the case list and the case page)."""
    site = site_of(request)
    case_id = request.path_params["case_id"]
    pending = session_of(request).data.get(CONFIRMATIONS_KEY, [])
    with site.reader() as db:
        case = db.get(PaCase, case_id)
        if case is None or case.status == "draft":
            raise HTTPException(404, "There is no submitted request at this address.")
        if case_id not in pending:
            site.flash(request, "The confirmation page can only be viewed once. The tracking "
                                f"reference {case.reference_number} is shown on this case "
                                "and in the authorization status list.")
            return RedirectResponse(f"/auth/cases/{case_id}", status_code=303)
        pending.remove(case_id)
        member = db.get(Member, case.member_id)
        attachments = wizard.attachments_of(db, case_id)
    return site.render(request, "confirmation.html", {
        "page_title": "Request Submitted", "case": case, "member": member,
        "attachments": attachments, "type_label": CASE_TYPE_LABELS.get(case.case_type, ""),
        "labels": STATUS_LABELS,
        "breadcrumbs": [("Authorizations & Referrals", "/auth/cases"), ("Confirmation", None)],
    }, area="authorizations")


routes = [
    Route("/auth/requests/new", new_request, methods=["GET"], name="new_request"),
    Route("/auth/requests/start", start_request, methods=["POST"], name="start_request"),
    Route("/auth/drafts", drafts, name="drafts"),
    Route("/auth/requests/{case_id:id}/delete", delete_draft, methods=["POST"],
          name="delete_draft"),
    Route("/auth/requests/{case_id:id}/review", review, methods=["GET"], name="review"),
    Route("/auth/requests/{case_id:id}/submit", submit, methods=["POST"], name="submit"),
    Route("/auth/requests/{case_id:id}/confirmation", confirmation, name="confirmation"),
]
