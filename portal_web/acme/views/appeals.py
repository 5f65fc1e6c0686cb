"""Appeals: the dashboard, starting an appeal, the three steps of filing one (appeal details
→ documents → review and submit) and the appeal page.

An appeal is a ``draft`` row from its first step on, so its documents can be uploaded one by
one through the browser's file chooser and nothing typed is lost between steps; it gets its
reference (AP26-NNNNNN), ``submitted`` status and submission time only when submitted. The
filing deadline is computed from the policy pages (:mod:`portal_web.acme.deadlines`) and
shown on every step; a late appeal is accepted with a warning, and a second appeal of the
same decision needs the user to acknowledge the earlier one — both mistakes stay possible.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sqlalchemy import select
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal_web.acme.appeal_subjects import (
    APPEAL_TYPE_LABELS,
    APPEALABLE_CASE_STATUSES,
    REASON_CATEGORIES,
    NotAppealable,
    Subject,
    case_subject,
    claim_subject,
    level2_subject,
    subject_of,
)
from portal_web.acme.attachment_views import attachment_response, upload_context
from portal_web.acme.deadlines import case_appeal_deadline, level2_deadline
from portal_web.acme.references import APPEAL, next_reference
from portal_web.acme.site import area_view, site_of, user_of
from portal_web.acme.typed_fields import phone
from portal_web.acme.uploads import read_upload, store_attachment
from portal_web.common.params import parse_id
from portal_web.common.requests import PostedForm, form_post, posted_form
from sandbox.stores.acme import STATUS_LABELS, Appeal, Attachment, Claim, Member, PaCase

AREA = "appeals"
STEPS = ("Appeal details", "Documents", "Review and submit")
LIST_SORTS = {"filed": Appeal.submitted_at, "reference": Appeal.reference_number,
              "deadline": Appeal.filing_deadline, "status": Appeal.status,
              "level": Appeal.level, "decision": Appeal.decision_at}
DETAIL_FIELDS = ("reason_category", "requested_outcome", "letter_text", "contact_name",
                 "contact_phone", "expedited")


def _not_found(what: str) -> HTTPException:
    return HTTPException(404, f"{what} was not found. Open it again from the Appeals "
                              "dashboard or the claim or authorization it belongs to.")


def _appeal(db, appeal_id: int, user) -> tuple[Appeal, Subject]:  # noqa: ANN001
    appeal = db.get(Appeal, appeal_id)
    if appeal is None:
        raise _not_found(f"Appeal {appeal_id}")
    try:
        subject = subject_of(db, appeal, user.organization_tin)
    except LookupError:
        raise _not_found(f"Appeal {appeal_id}") from None
    return appeal, subject


def _draft(db, appeal_id: int, user) -> tuple[Appeal, Subject]:  # noqa: ANN001
    appeal, subject = _appeal(db, appeal_id, user)
    if appeal.status != "draft":
        raise HTTPException(409, f"Appeal {appeal.reference_number} was already submitted, "
                                 "so it can no longer be changed. Add information by calling "
                                 "Provider Services with the appeal reference.")
    return appeal, subject


def _crumbs(*extra: tuple[str, str | None]) -> list[tuple[str, str | None]]:
    return [("Appeals", "/appeals"), *extra]


# -- dashboard ---------------------------------------------------------------------------
@area_view(AREA)
async def dashboard(request: Request) -> Response:
    """Every appeal of the organization, newest first, with filters and sortable columns."""
    site = site_of(request)
    params = request.query_params
    status = params.get("status", "")
    level = params.get("level", "")
    q = params.get("q", "").strip()[:40]
    sort = params.get("sort", "filed")
    direction = "asc" if params.get("dir") == "asc" else "desc"
    column = LIST_SORTS.get(sort, Appeal.submitted_at)
    with site.reader() as db:
        query = select(Appeal, Member).join(Member, Member.id == Appeal.member_id)
        if status in STATUS_LABELS:
            query = query.where(Appeal.status == status)
        if level in ("1", "2"):
            query = query.where(Appeal.level == int(level))
        rows = list(db.execute(query.order_by(
            column.asc().nulls_first() if direction == "asc" else column.desc().nulls_first(),
            Appeal.id.desc())))
        cases = {c.id: c for c in db.scalars(select(PaCase).where(
            PaCase.id.in_({a.case_id for a, _ in rows if a.case_id})))}
        claims = {c.id: c for c in db.scalars(select(Claim).where(
            Claim.id.in_({a.claim_id for a, _ in rows if a.claim_id})))}
    items = []
    for appeal, member in rows:
        case = cases.get(appeal.case_id) if appeal.case_id else None
        claim = claims.get(appeal.claim_id) if appeal.claim_id else None
        disputed = (f"Claim {claim.claim_number}" if claim else
                    case.reference_number if case else "")
        text = " ".join(str(v) for v in (appeal.reference_number, member.member_number,
                                          member.last_name, member.first_name, disputed))
        if q and q.lower() not in text.lower():
            continue
        items.append({"appeal": appeal, "member": member, "disputed": disputed,
                      "case": case, "claim": claim})
    return site.render(request, "appeals_list.html", {
        "page_title": "Appeals", "items": items, "labels": STATUS_LABELS,
        "type_labels": APPEAL_TYPE_LABELS, "status": status, "level": level, "q": q,
        "sort": sort, "dir": direction,
        "statuses": [s for s in ("draft", "submitted", "in_review", "upheld", "overturned",
                                 "partially_overturned", "dismissed")],
        "breadcrumbs": _crumbs()}, area=AREA)


# -- starting an appeal ------------------------------------------------------------------
@area_view(AREA)
async def start(request: Request) -> Response:
    """Choose the decision to appeal: a denied authorization, a claim, or an upheld appeal."""
    site = site_of(request)
    user = user_of(request)
    case_param = request.query_params.get("case", "")
    if parse_id(case_param) is not None and len(case_param) <= 9:  # "Appeal this decision"
        return RedirectResponse(f"/appeals/new/case/{case_param}", 303)
    claim_number = re.sub(r"\D", "", request.query_params.get("claim_number", ""))[:24]
    reference = request.query_params.get("reference", "").strip().upper()[:24]
    lookup_error = None
    with site.reader() as db:
        if claim_number:
            claim = db.scalar(select(Claim).where(Claim.claim_number == claim_number,
                                                  Claim.billing_tin == user.organization_tin))
            if claim is not None:
                return RedirectResponse(f"/appeals/new/claim/{claim.id}", 303)
            lookup_error = (f"No claim {claim_number} billed by your organization (TIN "
                            f"{user.organization_tin}) was found. Check the claim number on "
                            "the remittance advice.")
        elif reference:
            case = db.scalar(select(PaCase).where(PaCase.reference_number == reference))
            if case is not None:
                return RedirectResponse(f"/appeals/new/case/{case.id}", 303)
            level1 = db.scalar(select(Appeal).where(Appeal.reference_number == reference))
            if level1 is not None:
                return RedirectResponse(f"/appeals/{level1.id}/level2", 303)
            lookup_error = (f"No authorization or appeal {reference} was found. Enter the "
                            "tracking reference (PA26-…) or the appeal reference (AP26-…).")
        denied = list(db.execute(
            select(PaCase, Member).join(Member, Member.id == PaCase.member_id)
            .where(PaCase.status.in_(APPEALABLE_CASE_STATUSES))
            .order_by(PaCase.decision_at.desc())))
        upheld = list(db.execute(
            select(Appeal, Member).join(Member, Member.id == Appeal.member_id)
            .where(Appeal.status == "upheld", Appeal.level == 1)
            .order_by(Appeal.decision_at.desc())))
        denied_rows = [{"case": c, "member": m, "deadline": case_appeal_deadline(db, c)}
                       for c, m in denied]
        upheld_rows = [{"appeal": a, "member": m, "deadline": level2_deadline(db, a)}
                       for a, m in upheld]
    return site.render(request, "appeals_start.html", {
        "page_title": "File an appeal", "denied": denied_rows, "upheld": upheld_rows,
        "today": site.today(), "labels": STATUS_LABELS, "lookup_error": lookup_error,
        "claim_number": claim_number, "reference": reference,
        "breadcrumbs": _crumbs(("File an appeal", None))}, area=AREA)


def _load_subject(request: Request, db) -> Subject:  # noqa: ANN001
    kind = request.path_params.get("kind", "level2")
    key = int(request.path_params["key"])
    if kind not in ("case", "claim", "level2"):
        raise _not_found(f"Page {request.url.path}")
    try:
        if kind == "case":
            return case_subject(db, key)
        if kind == "claim":
            return claim_subject(db, key, user_of(request).organization_tin)
        return level2_subject(db, key)
    except LookupError:
        raise _not_found({"case": "Authorization", "claim": "Claim"}.get(kind, "Appeal")
                         + f" {key}") from None


def _refused(request: Request, message: str) -> Response:
    return site_of(request).render(request, "appeals_unavailable.html", {
        "page_title": "This decision cannot be appealed", "message": message,
        "breadcrumbs": _crumbs(("File an appeal", "/appeals/new"), ("Not available", None))},
        area=AREA)


def _form_context(request: Request, subject: Subject, values: dict[str, Any],
                  errors: dict[str, str], appeal: Appeal | None = None) -> dict[str, Any]:
    site = site_of(request)
    action = (f"/appeals/{appeal.id}/edit" if appeal is not None else request.url.path)
    return {
        "page_title": ("Second-level appeal" if subject.level == 2 else
                       "First-level appeal"),
        "subject": subject, "appeal": appeal, "values": values, "errors": errors,
        "action": action, "reasons": list(REASON_CATEGORIES.items()), "steps": STEPS,
        "step": 1, "today": site.today(), "labels": STATUS_LABELS,
        "type_labels": APPEAL_TYPE_LABELS,
        "breadcrumbs": _crumbs(("File an appeal", "/appeals/new"), (subject.title, None)),
    }


def _read_details(reader, subject: Subject) -> dict[str, Any]:  # noqa: ANN001
    """Step 1's fields, validated (messages left on the reader)."""
    values: dict[str, Any] = {
        "reason_category": reader.choice("reason_category", "Reason for the appeal",
                                         REASON_CATEGORIES, required=True),
        "requested_outcome": reader.text("requested_outcome", "Requested outcome",
                                         required=True, max_len=1000),
        "letter_text": reader.text("letter_text", "Appeal letter", required=True,
                                   max_len=20_000),
        "contact_name": reader.text("contact_name", "Contact name", required=True,
                                    max_len=120),
        "contact_phone": phone(reader, "contact_phone", "Contact phone", required=True),
        "expedited": subject.appeal_type == "pre_service" and reader.checkbox("expedited"),
    }
    letter = values["letter_text"] or ""
    if values["letter_text"] is not None and len(letter.split()) < 10:
        reader.fail("letter_text", "Appeal letter: explain in at least a few sentences why "
                                   "the decision should be changed (10 words or more).")
    return values


@area_view(AREA)
async def new_appeal(request: Request) -> Response:
    """Step 1 of a new appeal (GET: the form; POST: save it as a draft, go to documents)."""
    site = site_of(request)
    user = user_of(request)
    with site.reader() as db:
        try:
            subject = _load_subject(request, db)
        except NotAppealable as exc:
            return _refused(request, str(exc))
        if request.method == "GET":
            values = {"contact_name": user.display_name}
            return site.render(request, "appeals_form.html",
                               _form_context(request, subject, values, {}), area=AREA)
    async with posted_form(request) as form:
        if form.replay:
            return form.replay
        values = _read_details(form.reader, subject)
        if not form.reader.ok:
            return site.render(request, "appeals_form.html", _form_context(
                request, subject, form.reader.raw, form.reader.errors), area=AREA)
        now = site.now()
        with site.writer(request) as db:
            appeal = Appeal(
                level=subject.level, member_id=subject.member.id,
                case_id=subject.case.id if subject.case else None,
                claim_id=subject.claim.id if subject.claim else None,
                parent_appeal_id=subject.parent.id if subject.parent else None,
                appeal_type=subject.appeal_type, status="draft",
                filing_deadline=subject.deadline.last_day if subject.deadline else None,
                created_by=user.username, created_at=now, **values)
            db.add(appeal)
            db.flush()
            appeal_id = appeal.id
        site.flash(request, "Appeal saved as a draft. Attach the supporting documents, then "
                            "review and submit it.")
        return form.redirect(f"/appeals/{appeal_id}/documents")


@area_view(AREA)
async def edit_appeal(request: Request) -> Response:
    """Step 1 of a draft, again (only the changed columns are written)."""
    site = site_of(request)
    user = user_of(request)
    appeal_id = int(request.path_params["appeal_id"])
    with site.reader() as db:
        appeal, subject = _draft(db, appeal_id, user)
    if request.method == "GET":
        values = {name: getattr(appeal, name) or "" for name in DETAIL_FIELDS}
        values["expedited"] = "1" if appeal.expedited else ""
        return site.render(request, "appeals_form.html",
                           _form_context(request, subject, values, {}, appeal), area=AREA)
    async with posted_form(request) as form:
        if form.replay:
            return form.replay
        values = _read_details(form.reader, subject)
        if not form.reader.ok:
            return site.render(request, "appeals_form.html", _form_context(
                request, subject, form.reader.raw, form.reader.errors, appeal), area=AREA)
        with site.writer(request) as db:
            row, _ = _draft(db, appeal_id, user)
            for name, value in values.items():
                if getattr(row, name) != value:
                    setattr(row, name, value)
        return form.redirect(f"/appeals/{appeal_id}/documents")


# -- steps 2 and 3 of a draft -------------------------------------------------------------
StepContext = Callable[[Request, Appeal, Subject, list[Attachment], dict[str, Any],
                        dict[str, str]], dict[str, Any]]


def _draft_step_context(request: Request, appeal: Appeal, subject: Subject,
                        attachments: list[Attachment], step: int, values: dict[str, Any],
                        errors: dict[str, str]) -> dict[str, Any]:
    """What the documents and the review step of a draft appeal both show."""
    return {
        "page_title": ("Second-level appeal" if appeal.level == 2 else "First-level appeal"),
        "appeal": appeal, "subject": subject, "attachments": attachments, "steps": STEPS,
        "step": step, "values": values, "errors": errors, "today": site_of(request).today(),
        "labels": STATUS_LABELS,
        "breadcrumbs": _crumbs(("File an appeal", "/appeals/new"), (subject.title, None)),
    }


def _attachments(db, appeal_id: int) -> list[Attachment]:  # noqa: ANN001
    return list(db.scalars(select(Attachment).where(Attachment.appeal_id == appeal_id)
                           .order_by(Attachment.id)))


def _draft_step_page(request: Request, template: str, context_of: StepContext) -> Response:
    """A step page of the user's draft appeal (GET), with its documents so far."""
    site = site_of(request)
    appeal_id = int(request.path_params["appeal_id"])
    with site.reader() as db:
        appeal, subject = _draft(db, appeal_id, user_of(request))
        attachments = _attachments(db, appeal_id)
        return site.render(request, template, context_of(
            request, appeal, subject, attachments, {}, {}), area=AREA)


# -- step 2: documents -------------------------------------------------------------------
def _documents_context(request: Request, appeal: Appeal, subject: Subject,
                       attachments: list[Attachment], values: dict[str, Any],
                       errors: dict[str, str]) -> dict[str, Any]:
    return {**_draft_step_context(request, appeal, subject, attachments, 2, values, errors),
            **upload_context()}


@area_view(AREA)
async def documents(request: Request) -> Response:
    return _draft_step_page(request, "appeals_documents.html", _documents_context)


@area_view(AREA)
@form_post
async def upload(request: Request, form: PostedForm) -> Response:
    """Attach one document (the browser's file chooser) to a draft appeal."""
    site = site_of(request)
    user = user_of(request)
    appeal_id = int(request.path_params["appeal_id"])
    document = await read_upload(form.data, form.reader.errors)
    with site.reader() as db:
        appeal, subject = _draft(db, appeal_id, user)
        attachments = _attachments(db, appeal_id)
        if len(attachments) >= 20 and document is not None:
            form.reader.fail("file", "An appeal can carry at most 20 documents; remove "
                                     "one before attaching another.")
        if not form.reader.ok:
            return site.render(request, "appeals_documents.html", _documents_context(
                request, appeal, subject, attachments, form.reader.raw,
                form.reader.errors), area=AREA)
    assert document is not None
    with site.writer(request) as db:
        _draft(db, appeal_id, user)
        store_attachment(db, document, appeal_id=appeal_id, uploaded_by=user.username,
                         uploaded_at=site.now())
    site.flash(request, f"{document.filename} attached.")
    return form.redirect(f"/appeals/{appeal_id}/documents")


@area_view(AREA)
@form_post
async def remove_document(request: Request, form: PostedForm) -> Response:
    site = site_of(request)
    user = user_of(request)
    appeal_id = int(request.path_params["appeal_id"])
    attachment_id = int(request.path_params["attachment_id"])
    with site.writer(request) as db:
        _draft(db, appeal_id, user)
        row = db.get(Attachment, attachment_id)
        if row is None or row.appeal_id != appeal_id:
            raise _not_found(f"Document {attachment_id} of this appeal")
        name = row.filename
        db.delete(row)
    site.flash(request, f"{name} removed.")
    return form.redirect(f"/appeals/{appeal_id}/documents")


# -- step 3: review and submit -----------------------------------------------------------
def _review_context(request: Request, appeal: Appeal, subject: Subject,
                    attachments: list[Attachment], values: dict[str, Any],
                    errors: dict[str, str]) -> dict[str, Any]:
    context = _draft_step_context(request, appeal, subject, attachments, 3, values, errors)
    return {**context,
            "late": bool(subject.deadline and subject.deadline.is_late(context["today"])),
            "duplicates": subject.duplicates(exclude=appeal.id),
            "reasons": REASON_CATEGORIES, "type_labels": APPEAL_TYPE_LABELS}


@area_view(AREA)
async def review(request: Request) -> Response:
    return _draft_step_page(request, "appeals_review.html", _review_context)


@area_view(AREA)
@form_post
async def submit(request: Request, form: PostedForm) -> Response:
    """Submit a draft: reference number, status ``submitted``, submission time."""
    site = site_of(request)
    user = user_of(request)
    appeal_id = int(request.path_params["appeal_id"])
    r = form.reader
    with site.reader() as db:
        appeal, subject = _draft(db, appeal_id, user)
        attachments = _attachments(db, appeal_id)
        if not r.checkbox("attest"):
            r.fail("attest", "Confirm the attestation to submit the appeal.")
        duplicates = subject.duplicates(exclude=appeal.id)
        if duplicates and not r.checkbox("acknowledge_duplicate"):
            r.fail("acknowledge_duplicate", "This decision was already appealed ("
                   + ", ".join(a.reference_number or "draft" for a in duplicates)
                   + "). Tick the box to file another appeal anyway, or delete this "
                     "draft.")
        missing = [label for name, label in (("letter_text", "appeal letter"),
                                             ("requested_outcome", "requested outcome"),
                                             ("contact_phone", "contact phone"))
                   if not getattr(appeal, name)]
        if missing:
            r.fail("_form", "The appeal is missing its " + ", ".join(missing)
                   + ": go back to Appeal details and complete it.")
        if not r.ok:
            return site.render(request, "appeals_review.html", _review_context(
                request, appeal, subject, attachments, r.raw, r.errors), area=AREA)
    now = site.now()
    with site.writer(request) as db:
        row, _ = _draft(db, appeal_id, user)
        row.reference_number = next_reference(db, Appeal.reference_number, APPEAL)
        row.status = "submitted"
        row.submitted_at = now
    return form.redirect(f"/appeals/{appeal_id}?filed=1")


@area_view(AREA)
@form_post
async def delete_draft(request: Request, form: PostedForm) -> Response:
    site = site_of(request)
    user = user_of(request)
    appeal_id = int(request.path_params["appeal_id"])
    with site.writer(request) as db:
        row, _ = _draft(db, appeal_id, user)
        for attachment in _attachments(db, appeal_id):
            db.delete(attachment)
        db.delete(row)
    site.flash(request, "The draft appeal was deleted.")
    return form.redirect("/appeals")


# -- the appeal page ---------------------------------------------------------------------
@area_view(AREA)
async def detail(request: Request) -> Response:
    site = site_of(request)
    appeal_id = int(request.path_params["appeal_id"])
    with site.reader() as db:
        appeal, subject = _appeal(db, appeal_id, user_of(request))
        attachments = _attachments(db, appeal_id)
        followups = list(db.scalars(select(Appeal).where(Appeal.parent_appeal_id == appeal.id)
                                    .order_by(Appeal.id)))
        today = site.today()
        filed_late = bool(subject.deadline and appeal.submitted_at
                          and appeal.submitted_at.date() > subject.deadline.last_day)
        return site.render(request, "appeals_detail.html", {
            "page_title": f"Appeal {appeal.reference_number or '(draft)'}",
            "appeal": appeal, "subject": subject, "attachments": attachments,
            "followups": followups, "labels": STATUS_LABELS, "reasons": REASON_CATEGORIES,
            "type_labels": APPEAL_TYPE_LABELS, "today": today, "filed_late": filed_late,
            "just_filed": request.query_params.get("filed") == "1",
            "breadcrumbs": _crumbs((appeal.reference_number or "Draft appeal", None))},
            area=AREA)


@area_view(AREA)
async def download(request: Request) -> Response:
    site = site_of(request)
    appeal_id = int(request.path_params["appeal_id"])
    with site.reader() as db:
        _appeal(db, appeal_id, user_of(request))
        row = db.get(Attachment, int(request.path_params["attachment_id"]))
        if row is None or row.appeal_id != appeal_id:
            raise _not_found("That document")
        return attachment_response(row)


routes = [
    Route("/appeals", dashboard, methods=["GET"], name="appeals"),
    Route("/appeals/new", start, methods=["GET"], name="appeal_start"),
    Route("/appeals/new/{kind:str}/{key:id}", new_appeal, methods=["GET", "POST"],
          name="appeal_new"),
    Route("/appeals/{key:id}/level2", new_appeal, methods=["GET", "POST"],
          name="appeal_level2"),
    Route("/appeals/{appeal_id:id}", detail, methods=["GET"], name="appeal"),
    Route("/appeals/{appeal_id:id}/edit", edit_appeal, methods=["GET", "POST"]),
    Route("/appeals/{appeal_id:id}/documents", documents, methods=["GET"]),
    Route("/appeals/{appeal_id:id}/documents", upload, methods=["POST"]),
    Route("/appeals/{appeal_id:id}/documents/{attachment_id:id}/remove", remove_document,
          methods=["POST"]),
    Route("/appeals/{appeal_id:id}/documents/{attachment_id:id}", download, methods=["GET"]),
    Route("/appeals/{appeal_id:id}/review", review, methods=["GET"]),
    Route("/appeals/{appeal_id:id}/submit", submit, methods=["POST"]),
    Route("/appeals/{appeal_id:id}/delete", delete_draft, methods=["POST"]),
]
