"""The wizard's step pages: providers, service / medication / admission / extension /
network gap, the clinical questionnaire, and attachments. Each completed step saves the
draft; "Save draft and exit" saves what is valid so far.

pa-19: ``portal_settings`` ``session.expire_at_step = attachments`` (optionally only for
``session.expire_for_member``) ends the session once, at the first upload; the draft saved
so far survives and the log-in page leads back to My drafts.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal_web.acme import questionnaire as qn
from portal_web.acme import wizard
from portal_web.acme.drafting import after_save, draft_of, draft_view, step_context
from portal_web.acme.site import AcmeSite, area_view, site_of, user_of
from portal_web.acme.steps import STEPS, fill_from_directory
from portal_web.acme.uploads import (
    ACCEPT,
    DOCUMENT_TYPE_LABELS,
    MAX_UPLOAD_LABEL,
    read_upload,
    store_attachment,
    unreadable_upload_shows,
)
from portal_web.common.forms import FORM_ERROR
from portal_web.common.requests import PostedForm, form_post, session_of
from sandbox.stores.acme import Attachment, Member, PaAnswer, PaCase, PaDraft, PaQuestionnaire

FIND_ACTIONS = {"find_requesting": "requesting", "find_rendering": "rendering",
                "find_facility": "facility"}


def _render_step(request: Request, site: AcmeSite, db, case, step: str,  # noqa: ANN001
                 values: dict[str, Any], errors: dict[str, str],
                 extra: dict[str, Any] | None = None) -> Response:
    context = step_context(db, case, step)
    handler = STEPS.get(step)
    if handler is not None:
        context.update(handler.context(db, case))
    context.update(extra or {})
    context.update(values=values, errors=errors,
                   return_to=request.query_params.get("return", "") or values.get("return", ""))
    template = handler.template if handler is not None else f"step_{step}.html"
    return site.render(request, template, context, area="authorizations")


def _step_of(request: Request, case) -> str:  # noqa: ANN001
    step = request.path_params["step"]
    if step not in wizard.steps_of(case) or step in ("review",):
        raise HTTPException(404, "This request has no such step; go back to My drafts.")
    return step


# -- data steps ----------------------------------------------------------------------------
@area_view("authorizations")
@draft_view
async def step_page(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        case = draft_of(db, request.path_params["case_id"], user_of(request))
        step = _step_of(request, case)
        if step == "questionnaire":
            return _questionnaire_page(request, site, db, case, None, {})
        if step == "attachments":
            return _attachments_page(request, site, db, case, {}, {})
        if step == "member":
            return _render_step(request, site, db, case, step, {}, {})
        values = STEPS[step].values(db, case)
        return _render_step(request, site, db, case, step, values, {})


@area_view("authorizations")
@draft_view
@form_post
async def step_save(request: Request, form: PostedForm) -> Response:
    site = site_of(request)
    user = user_of(request)
    case_id = request.path_params["case_id"]
    r = form.reader
    action = r.raw.get("action", "continue")
    with site.reader() as db:
        case = draft_of(db, case_id, user)
        step = _step_of(request, case)
        if step in ("questionnaire", "attachments", "member"):
            raise HTTPException(405)
        handler = STEPS[step]
        if action in FIND_ACTIONS:
            note = fill_from_directory(r, db, FIND_ACTIONS[action])
            errors = {f"{FIND_ACTIONS[action]}_npi": note} if note else {}
            return _render_step(request, site, db, case, step, r.raw, errors)
        values = handler.read(r, db, case, site.today(),
                              strict=action != "save_exit")
        if not r.ok:
            return _render_step(request, site, db, case, step, r.raw, r.errors)
    now = site.now()
    with site.writer(request) as db:
        case = draft_of(db, case_id, user)
        handler.write(db, case, values, now)
        target = after_save(request, case, step, action, r.raw.get("return", ""))
        following = wizard.next_step(case, step) if action != "save_exit" else step
        wizard.save_draft(db, case, following, user_id=user.user_id, now=now)
    return form.redirect(target)


# -- questionnaire ---------------------------------------------------------------------------
def _questionnaire_page(request: Request, site: AcmeSite, db, case,  # noqa: ANN001
                        answers: dict[str, str] | None, errors: dict[str, str],
                        notice: str = "") -> Response:
    questions = qn.load_questions(db, case.questionnaire_id) if case.questionnaire_id else []
    if answers is None:
        answers = wizard.answers_of(db, case.id)
    shown = {q.key for q in qn.enabled(questions, answers)}
    values = {q.field: answers.get(q.key, "") for q in questions}
    chosen = {q.field: set(answers.get(q.key, "").split("|")) for q in questions
              if q.answer_type == "multi_choice"}
    return _render_step(request, site, db, case, "questionnaire", values, errors, {
        "questionnaire": db.get(PaQuestionnaire, case.questionnaire_id)
        if case.questionnaire_id else None,
        "questions": questions, "shown": shown, "chosen": chosen, "notice": notice,
        "operators_json": [
            {"key": q.key, "field": q.field, "behavior": q.behavior,
             "conditions": [[c.key, c.operator, c.value] for c in q.conditions]}
            for q in questions]})


@area_view("authorizations")
@draft_view
@form_post
async def questionnaire_save(request: Request, form: PostedForm) -> Response:
    """Check the shown questions; a follow-up that the new answers enable but that was not
    on the page (no script) comes back to be answered before anything is saved."""
    site = site_of(request)
    user = user_of(request)
    case_id = request.path_params["case_id"]
    r = form.reader
    action = r.raw.get("action", "continue")
    strict = action != "save_exit"
    with site.reader() as db:
        case = draft_of(db, case_id, user)
        questions = qn.load_questions(db, case.questionnaire_id) \
            if case.questionnaire_id else []
        lists = {q.field: r.getlist(q.field) for q in questions}
        raw = qn.raw_answers(questions, r.raw, lists)
        shown = qn.enabled(questions, raw)
        posted_keys = set(r.getlist("shown_keys"))
        errors = dict(r.errors)
        if action == "refresh":
            return _questionnaire_page(request, site, db, case, raw, errors,
                                       "Follow-up questions updated.")
        stored: dict[str, str] = {}
        for q in shown:
            value, message = qn.check_answer(q, raw.get(q.key, ""), site.today())
            if message and (strict or raw.get(q.key, "")):
                errors[q.field] = message
            elif value:
                stored[q.key] = value
        newly = [q for q in shown if q.key not in posted_keys and q.required
                 and not raw.get(q.key)]
        if newly and strict:
            errors[FORM_ERROR] = ("Your answers opened follow-up questions; answer "
                                  "them below, then continue.")
        if errors:
            return _questionnaire_page(request, site, db, case, raw, errors)
    now = site.now()
    with site.writer(request) as db:
        case = draft_of(db, case_id, user)
        existing = {a.question_key: a for a in db.scalars(
            select(PaAnswer).where(PaAnswer.case_id == case.id))}
        by_key = {q.key: q for q in questions}
        for key, row in existing.items():
            if key not in stored:
                db.delete(row)
        for key, value in stored.items():
            row = existing.get(key)
            if row is None:
                db.add(PaAnswer(case_id=case.id, question_id=by_key[key].id,
                                question_key=key, answer=value, answered_at=now))
            elif row.answer != value:
                row.answer = value
                row.answered_at = now
        target = after_save(request, case, "questionnaire", action, r.raw.get("return", ""))
        following = wizard.next_step(case, "questionnaire") if strict else "questionnaire"
        wizard.save_draft(db, case, following, user_id=user.user_id, now=now)
    return form.redirect(target)


# -- attachments -----------------------------------------------------------------------------
def _attachments_page(request: Request, site: AcmeSite, db, case,  # noqa: ANN001
                      values: dict[str, str], errors: dict[str, str]) -> Response:
    return _render_step(request, site, db, case, "attachments", values, errors, {
        "attachments": wizard.attachments_of(db, case.id), "accept": ACCEPT,
        "doc_types": list(DOCUMENT_TYPE_LABELS.items()), "doc_labels": DOCUMENT_TYPE_LABELS,
        "max_upload": MAX_UPLOAD_LABEL})


def _expiry_due(site: AcmeSite, db, case) -> bool:  # noqa: ANN001
    """Whether this upload is the one at which the portal ends the session (once)."""
    if site.setting("session.expire_at_step").strip() != "attachments":
        return False
    member_number = site.setting("session.expire_for_member").strip()
    member = db.get(Member, case.member_id)
    if member_number and (member is None or member.member_number != member_number):
        return False
    if member is not None and member.member_number in site.expired_members:
        return False
    already = db.scalar(select(PaDraft.id).join(PaCase, PaCase.id == PaDraft.case_id).where(
        PaCase.member_id == case.member_id, PaDraft.session_expired.is_(True)).limit(1))
    return already is None


def _attachments_again(request: Request, errors: dict[str, str]) -> Response:
    """The attachments step with ``errors``, nothing else posted kept."""
    site = site_of(request)
    with site.reader() as db:
        case = draft_of(db, request.path_params["case_id"], user_of(request))
        return _attachments_page(request, site, db, case, {}, errors)


@area_view("authorizations")
@draft_view
@unreadable_upload_shows(_attachments_again)
@form_post
async def upload(request: Request, form: PostedForm) -> Response:
    site = site_of(request)
    user = user_of(request)
    case_id = request.path_params["case_id"]
    r = form.reader
    errors = dict(r.errors)
    with site.reader() as db:
        case = draft_of(db, case_id, user)
        expire = _expiry_due(site, db, case)
        member = db.get(Member, case.member_id)
    if expire:
        now = site.now()
        with site.writer(request) as db:
            draft = db.scalar(select(PaDraft).where(PaDraft.case_id == case_id))
            if draft is None:
                db.add(PaDraft(case_id=case_id, portal_user_id=user.user_id,
                               wizard_step="attachments", form_state="{}", saved_at=now,
                               session_expired=True))
            else:
                draft.session_expired = True
                draft.saved_at = now
        site.expired_members.add(member.member_number)
        request.state.session = site.sessions.logout(session_of(request))
        return RedirectResponse("/login?expired=1&next=/auth/drafts%3Fresumed%3D1",
                                status_code=303)
    document = await read_upload(form.data, errors)
    if errors or document is None:
        with site.reader() as db:
            case = draft_of(db, case_id, user)
            return _attachments_page(request, site, db, case, r.raw, errors)
    with site.writer(request) as db:
        case = draft_of(db, case_id, user)
        store_attachment(db, document, case_id=case.id, uploaded_by=user.username,
                         uploaded_at=site.now())
        wizard.save_draft(db, case, "attachments", user_id=user.user_id, now=site.now())
    site.flash(request, f"{document.filename} attached.")
    return form.redirect(f"/auth/requests/{case_id}/attachments"
                         + (f"?return={r.raw['return']}" if r.raw.get("return") else ""))


@area_view("authorizations")
@draft_view
@form_post
async def remove_attachment(request: Request, form: PostedForm) -> Response:
    site = site_of(request)
    user = user_of(request)
    case_id = request.path_params["case_id"]
    with site.writer(request) as db:
        case = draft_of(db, case_id, user)
        row = db.get(Attachment, request.path_params["attachment_id"])
        if row is None or row.case_id != case.id:
            raise HTTPException(404, "That document is not attached to this request.")
        name = row.filename
        db.delete(row)
    site.flash(request, f"{name} removed.")
    return form.redirect(f"/auth/requests/{case_id}/attachments")


@area_view("authorizations")
@draft_view
@form_post
async def attachments_continue(request: Request, form: PostedForm) -> Response:
    site = site_of(request)
    user = user_of(request)
    case_id = request.path_params["case_id"]
    action = form.reader.raw.get("action", "continue")
    with site.writer(request) as db:
        case = draft_of(db, case_id, user)
        step = "attachments" if action == "save_exit" else "review"
        wizard.save_draft(db, case, step, user_id=user.user_id, now=site.now())
    if action == "save_exit":
        site.flash(request, "Draft saved. Resume it from My drafts.")
        return form.redirect("/auth/drafts")
    return form.redirect(f"/auth/requests/{case_id}/review")


routes = [
    Route("/auth/requests/{case_id:id}/questionnaire", questionnaire_save, methods=["POST"],
          name="questionnaire_save"),
    Route("/auth/requests/{case_id:id}/attachments", attachments_continue, methods=["POST"],
          name="attachments_continue"),
    Route("/auth/requests/{case_id:id}/attachments/upload", upload, methods=["POST"],
          name="upload"),
    Route("/auth/requests/{case_id:id}/attachments/{attachment_id:id}/remove",
          remove_attachment, methods=["POST"], name="remove_attachment"),
    Route("/auth/requests/{case_id:id}/{step:str}", step_page, methods=["GET"],
          name="step"),
    Route("/auth/requests/{case_id:id}/{step:str}", step_save, methods=["POST"],
          name="step_save"),
]
