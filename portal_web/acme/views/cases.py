"""Authorization & referral status: the case list, the case page (decision, requested
versus approved, letters, documents), adding documents, editing and resubmitting a rejected
request in place, and starting an extension of an approved one."""

from __future__ import annotations

import datetime as dt
from urllib.parse import quote

from sqlalchemy import or_, select
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.acme import decisions, wizard
from portal_web.acme import questionnaire as qn
from portal_web.acme.casefacts import (
    ADMISSION_SOURCES,
    ADMISSION_TYPES,
    CASE_TYPE_LABELS,
    CLINICAL_URGENCIES,
    OUTCOME_MEASURES,
    PLACES_OF_SERVICE,
    STATUS_LABELS,
    diagnosis_rows,
)
from portal_web.acme.letters import LETTER_STATUSES, LetterFacts, decision_letter
from portal_web.acme.site import area_view, site_of, user_of
from portal_web.acme.steps import STEPS, fill_from_directory
from portal_web.acme.uploads import (
    ACCEPT,
    DOCUMENT_TYPE_LABELS,
    MAX_UPLOAD_LABEL,
    read_upload,
    store_attachment,
    unreadable_upload_shows,
)
from portal_web.common.requests import PostedForm, form_post
from sandbox.stores.acme import (
    Attachment,
    AuthExtension,
    Member,
    PaCase,
    Plan,
    Policy,
)

LIST_STATUSES = ("submitted", "in_review", "pended", "approved", "partially_approved",
                 "denied", "rejected", "cancelled")
SORTS = {"submitted": PaCase.submitted_at, "reference": PaCase.reference_number,
         "member": Member.last_name, "service": PaCase.service_code, "status": PaCase.status,
         "from": PaCase.service_from}
FIND_ACTIONS = {"find_requesting": "requesting", "find_rendering": "rendering",
                "find_facility": "facility"}
EDITABLE_STATUSES = ("rejected",)
# a request Acme has not decided can be withdrawn by the office (a duplicate, a service no
# longer needed); a decided one is appealed or left as it is
CANCELLABLE_STATUSES = ("submitted", "in_review", "pended")


def _case_or_404(db, case_id: int) -> PaCase:  # noqa: ANN001
    case = db.get(PaCase, case_id)
    if case is None or case.status == "draft":
        raise HTTPException(404, "There is no submitted request with this number. Drafts are "
                                 "under My drafts.")
    return case


# -- list ----------------------------------------------------------------------------------
@area_view("authorizations")
async def case_list(request: Request) -> Response:
    site = site_of(request)
    params = request.query_params
    text = params.get("q", "").strip()[:60]
    status = params.get("status", "")
    case_type = params.get("type", "")
    sort = params.get("sort", "submitted")
    descending = params.get("dir", "desc" if sort == "submitted" else "asc") == "desc"
    column = SORTS.get(sort, PaCase.submitted_at)
    query = (select(PaCase, Member).join(Member, Member.id == PaCase.member_id)
             .where(PaCase.status != "draft"))
    if text:
        like = f"%{text}%"
        query = query.where(or_(PaCase.reference_number.ilike(like),
                                PaCase.auth_number.ilike(like),
                                Member.member_number.ilike(like), Member.last_name.ilike(like),
                                Member.first_name.ilike(like), PaCase.service_code.ilike(like),
                                PaCase.drug_name.ilike(like)))
    if case_type in CASE_TYPE_LABELS:
        query = query.where(PaCase.case_type == case_type)
    order = column.desc() if descending else column.asc()
    with site.reader() as db:
        rules = decisions.load_rules(db)
        rows = db.execute(query.order_by(order, PaCase.id.desc())).all()
    now = site.now()
    shown = [(case, member, decisions.decision_of(case, rules, now)) for case, member in rows]
    if status in LIST_STATUSES:
        shown = [row for row in shown if row[2].status == status]
    return site.render(request, "cases.html", {
        "page_title": "Authorization & Referral Status", "rows": shown, "q": text,
        "status": status, "type": case_type, "sort": sort, "descending": descending,
        "statuses": [(s, STATUS_LABELS[s]) for s in LIST_STATUSES], "labels": STATUS_LABELS,
        "types": CASE_TYPE_LABELS,
        "breadcrumbs": [("Authorizations & Referrals", None)]}, area="authorizations")


# -- detail --------------------------------------------------------------------------------
def _detail_context(db, case: PaCase, now: dt.datetime) -> dict:  # noqa: ANN001
    decision = decisions.decision_of(case, decisions.load_rules(db), now)
    questions = qn.load_questions(db, case.questionnaire_id) if case.questionnaire_id else []
    answers = wizard.answers_of(db, case.id)
    children = list(db.scalars(select(PaCase).where(PaCase.parent_case_id == case.id,
                                                    PaCase.status != "draft")))
    return {
        "case": case, "decision": decision, "member": db.get(Member, case.member_id),
        "plan": db.get(Plan, case.plan_id) if case.plan_id else None,
        "detail": wizard.detail_of(db, case),
        "parent": db.get(PaCase, case.parent_case_id) if case.parent_case_id else None,
        "children": children,
        "diagnoses": diagnosis_rows(case.icd10_codes),
        "qa": [(q, qn.display_answer(q, answers.get(q.key)))
               for q in qn.enabled(questions, answers)],
        "attachments": wizard.attachments_of(db, case.id),
        "doc_labels": DOCUMENT_TYPE_LABELS, "doc_types": list(DOCUMENT_TYPE_LABELS.items()),
        "accept": ACCEPT, "max_upload": MAX_UPLOAD_LABEL,
        "labels": STATUS_LABELS, "type_label": CASE_TYPE_LABELS.get(case.case_type, ""),
        "places": PLACES_OF_SERVICE, "admission_types": ADMISSION_TYPES,
        "admission_sources": ADMISSION_SOURCES, "urgencies": CLINICAL_URGENCIES,
        "measures": OUTCOME_MEASURES, "has_letter": decision.status in LETTER_STATUSES,
        "cancellable": decision.status in CANCELLABLE_STATUSES,
        "page_title": f"Request {case.reference_number}",
        "breadcrumbs": [("Authorizations & Referrals", "/auth/cases"),
                        (case.reference_number or "", None)],
    }


def _case_page(request: Request, values: dict[str, str], errors: dict[str, str]) -> Response:
    """The case page, its add-documents form showing ``values`` and ``errors``."""
    site = site_of(request)
    with site.reader() as db:
        context = _detail_context(db, _case_or_404(db, request.path_params["case_id"]),
                                  site.now())
    return site.render(request, "case.html", {**context, "values": values, "errors": errors},
                       area="authorizations")


@area_view("authorizations")
async def case_page(request: Request) -> Response:
    return _case_page(request, {}, {})


@area_view("authorizations")
@unreadable_upload_shows(lambda request, errors: _case_page(request, {}, errors))
@form_post
async def add_document(request: Request, form: PostedForm) -> Response:
    site = site_of(request)
    user = user_of(request)
    case_id = request.path_params["case_id"]
    r = form.reader
    errors = dict(r.errors)
    with site.reader() as db:
        case = _case_or_404(db, case_id)
        if case.status == "cancelled":
            errors["file"] = "This request was cancelled; documents cannot be added."
    document = await read_upload(form.data, errors) if not errors else None
    if errors or document is None:
        return _case_page(request, r.raw, errors)
    with site.writer(request) as db:
        store_attachment(db, document, case_id=case_id, uploaded_by=user.username,
                         uploaded_at=site.now())
    site.flash(request, f"{document.filename} added to {case.reference_number}.")
    return form.redirect(f"/auth/cases/{case_id}#documents")


@area_view("authorizations")
@form_post
async def cancel_case(request: Request, form: PostedForm) -> Response:
    """Withdraw a request Acme has not decided: it is not reviewed, and a decision that
    was due no longer comes."""
    site = site_of(request)
    now = site.now()
    with site.writer(request) as db:
        case = _case_or_404(db, request.path_params["case_id"])
        decision = decisions.decision_of(case, decisions.load_rules(db), now)
        if decision.status not in CANCELLABLE_STATUSES:
            raise HTTPException(409, f"Request {case.reference_number} is "
                                     f"{STATUS_LABELS.get(decision.status, decision.status)}"
                                     "; only a request Acme has not decided can be "
                                     "cancelled.")
        case.status = "cancelled"
        case.updated_at = now
        reference = case.reference_number
    site.flash(request, f"Request {reference} was cancelled. Acme will not review it.")
    return form.redirect(f"/auth/cases/{request.path_params['case_id']}")


@area_view("authorizations")
async def download_attachment(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        case = db.get(PaCase, request.path_params["case_id"])
        row = db.get(Attachment, request.path_params["attachment_id"])
        if case is None or row is None or row.case_id != case.id or (
                case.status == "draft" and case.created_by != user_of(request).username):
            raise HTTPException(404, "That document is not attached to this request.")
        content, media, name = row.content, row.content_type, row.filename
    return Response(content, media_type=media, headers={
        "Content-Disposition": f"inline; filename*=UTF-8''{quote(name)}",
        "Cache-Control": "no-store"})


@area_view("authorizations")
async def letter(request: Request) -> Response:
    site = site_of(request)
    user = user_of(request)
    with site.reader() as db:
        case = _case_or_404(db, request.path_params["case_id"])
        decision = decisions.decision_of(case, decisions.load_rules(db), site.now())
        if decision.status not in LETTER_STATUSES:
            raise HTTPException(404, "No decision letter yet: Acme has not decided this "
                                     "request.")
        facts = LetterFacts(
            case=case, decision=decision, member=db.get(Member, case.member_id),
            plan=db.get(Plan, case.plan_id) if case.plan_id else None,
            organization=user.organization,
            appeal_policy=db.scalar(select(Policy).where(Policy.policy_key == "appeals-level-1")),
            p2p_policy=db.scalar(select(Policy).where(Policy.policy_key == "peer-to-peer")))
    pdf = decision_letter(facts)
    name = f"{case.reference_number}-{decision.status}-letter.pdf"
    return Response(pdf, media_type="application/pdf", headers={
        "Content-Disposition": f"inline; filename={name}", "Cache-Control": "no-store"})


# -- edit and resubmit ---------------------------------------------------------------------
def _edit_sections(case: PaCase) -> list[str]:
    steps = [s for s in wizard.steps_of(case) if s in STEPS]
    return steps


def _edit_context(db, case: PaCase) -> dict:  # noqa: ANN001
    context: dict = {"case": case, "member": db.get(Member, case.member_id),
                     "sections": _edit_sections(case),
                     "type_label": CASE_TYPE_LABELS.get(case.case_type, ""),
                     "labels": STATUS_LABELS,
                     "page_title": f"Edit and Resubmit {case.reference_number}",
                     "breadcrumbs": [("Authorizations & Referrals", "/auth/cases"),
                                     (case.reference_number, f"/auth/cases/{case.id}"),
                                     ("Edit and resubmit", None)]}
    for section in context["sections"]:
        context.update(STEPS[section].context(db, case))
    return context


@area_view("authorizations")
async def edit_page(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        case = _case_or_404(db, request.path_params["case_id"])
        if case.status not in EDITABLE_STATUSES:
            raise HTTPException(409, f"{case.reference_number} is "
                                     f"{STATUS_LABELS[case.status].lower()}; only a rejected "
                                     "request can be edited and resubmitted.")
        values: dict = {}
        for section in _edit_sections(case):
            values.update(STEPS[section].values(db, case))
        context = _edit_context(db, case)
    return site.render(request, "case_edit.html", {**context, "values": values, "errors": {}},
                       area="authorizations")


@area_view("authorizations")
@form_post
async def edit_save(request: Request, form: PostedForm) -> Response:
    """Resubmit in place: same reference, revision + 1, back in review; only the columns
    that differ from what was on file are written."""
    site = site_of(request)
    case_id = request.path_params["case_id"]
    r = form.reader
    action = r.raw.get("action", "resubmit")
    with site.reader() as db:
        case = _case_or_404(db, case_id)
        if case.status not in EDITABLE_STATUSES:
            site.flash(request, f"{case.reference_number} is already "
                                f"{STATUS_LABELS[case.status].lower()}; nothing was "
                                "resubmitted.")
            return form.redirect(f"/auth/cases/{case_id}")
        context = _edit_context(db, case)
        if action in FIND_ACTIONS:
            note = fill_from_directory(r, db, FIND_ACTIONS[action])
            errors = {f"{FIND_ACTIONS[action]}_npi": note} if note else {}
            return site.render(request, "case_edit.html", {
                **context, "values": r.raw, "errors": errors}, area="authorizations")
        values = {section: STEPS[section].read(r, db, case, site.today(), strict=True)
                  for section in context["sections"]}
        if not r.checkbox("attest"):
            r.fail("attest", "Confirm that the corrected information is accurate.")
        if not r.ok:
            return site.render(request, "case_edit.html", {
                **context, "values": r.raw, "errors": r.errors}, area="authorizations")
    now = site.now()
    status = site.setting("cases.submitted_status") or "in_review"
    with site.writer(request) as db:
        case = _case_or_404(db, case_id)
        for section, section_values in values.items():
            STEPS[section].write(db, case, section_values, now)
        wizard.set_changed(case, {
            "status": status if status in STATUS_LABELS else "in_review",
            "revision": (case.revision or 0) + 1, "submitted_at": now, "updated_at": now,
            "decision_due_at": now + wizard.DECISION_TIME.get(
                case.urgency, wizard.DECISION_TIME["standard"]),
            "decision_at": None, "rejection_code": None, "rejection_reason": None})
        reference = case.reference_number
    site.flash(request, f"{reference} was corrected and resubmitted (revision "
                        f"{case.revision}). It is now in review.")
    return form.redirect(f"/auth/cases/{case_id}")


# -- extension -----------------------------------------------------------------------------
@area_view("authorizations")
@form_post
async def start_extension(request: Request, form: PostedForm) -> Response:
    """A draft extension of an approved authorization, linked to it; the wizard asks for
    the units, dates and progress."""
    site = site_of(request)
    user = user_of(request)
    case_id = request.path_params["case_id"]
    with site.reader() as db:
        base = _case_or_404(db, case_id)
        decision = decisions.decision_of(base, decisions.load_rules(db), site.now())
    if decision.status not in ("approved", "partially_approved") or not decision.auth_number:
        raise HTTPException(409, f"{base.reference_number} is not an approved "
                                 "authorization, so it cannot be extended.")
    now = site.now()
    copied = ("member_id", "plan_id", "requesting_npi", "requesting_name",
              "requesting_taxonomy", "requesting_tin", "rendering_npi", "rendering_name",
              "rendering_taxonomy", "rendering_tin", "facility_npi", "facility_name",
              "service_code_type", "service_code", "service_modifier",
              "service_description", "place_of_service", "icd10_codes", "unit_type")
    with site.writer(request) as db:
        base = db.get(PaCase, case_id)
        case = PaCase(case_type="extension", status="draft", urgency="standard",
                      parent_case_id=base.id, revision=0, created_by=user.username,
                      created_at=now, updated_at=now,
                      **{name: getattr(base, name) for name in copied})
        db.add(case)
        db.flush()
        db.add(AuthExtension(case_id=case.id, base_case_id=base.id,
                             base_auth_number=decision.auth_number,
                             visits_used=base.units_used))
        wizard.save_draft(db, case, "extension", user_id=user.user_id, now=now)
        new_id = case.id
    return form.redirect(f"/auth/requests/{new_id}/extension")


routes = [
    Route("/auth/cases", case_list, name="cases"),
    Route("/auth/cases/{case_id:id}", case_page, name="case"),
    Route("/auth/cases/{case_id:id}/documents", add_document, methods=["POST"],
          name="add_document"),
    Route("/auth/cases/{case_id:id}/attachments/{attachment_id:id}", download_attachment,
          name="attachment"),
    Route("/auth/cases/{case_id:id}/letter.pdf", letter, name="letter"),
    Route("/auth/cases/{case_id:id}/cancel", cancel_case, methods=["POST"], name="cancel"),
    Route("/auth/cases/{case_id:id}/edit", edit_page, methods=["GET"], name="edit"),
    Route("/auth/cases/{case_id:id}/edit", edit_save, methods=["POST"], name="edit_save"),
    Route("/auth/cases/{case_id:id}/extension", start_extension, methods=["POST"],
          name="extension"),
]
