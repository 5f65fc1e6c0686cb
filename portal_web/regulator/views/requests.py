"""External review requests: the dashboard, the request form, filled-PDF import, documents,
the confirmation and the status page.

The request form is one page with numbered parts and a bar of buttons: *Attach* uploads the
chosen documents into a draft (a completed PDF request form attached this way also fills
the empty answers from its fields), *Save draft* keeps the answers, *Submit request* checks
everything and files the request, which gets its reference number (``ER-YYYY-NNNNNN``).
Every button validates first and writes nothing when anything is wrong; each write is one
transaction, and one-time form tokens make a repeated submit land on the request it filed.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal_web.common.downloads import document_response
from portal_web.common.forms import FieldReader
from portal_web.common.requests import login_required, posted_form, session_of
from portal_web.regulator.pdfform import FORM_FILENAME, blank_form, read_pdf_form
from portal_web.regulator.requestform import (
    APPLICANT_LABELS,
    DENIAL_LABELS,
    DOCUMENT_LABELS,
    MONTHS_TO_FILE,
    PLAN_LABELS,
    apply,
    filing_deadline,
    preliminary_review_due,
    read_request,
    values_of,
)
from portal_web.regulator.site import site_of
from sandbox.stores.regulator import (
    DOCUMENT_TYPES,
    ExternalReview,
    Insurer,
    ReviewDocument,
)

guard = login_required("/login")
MAX_FILE = 12 * 1024 * 1024
MAX_DOCUMENTS = 12
ACCEPT = ".pdf,.png,.jpg,.jpeg,.tif,.tiff"
_MAGIC = {b"%PDF": "application/pdf", b"\x89PNG": "image/png", b"\xff\xd8\xff": "image/jpeg",
          b"II*\x00": "image/tiff", b"MM\x00*": "image/tiff"}
ACTIONS = ("attach", "save", "submit", "discard")


def reference_number(review_id: int, year: int) -> str:
    """``ER-YYYY-NNNNNN`` (fixtures/world/regulator.yaml)."""
    return f"ER-{year}-{4400 + review_id:06d}"


@dataclass(frozen=True)
class Upload:
    filename: str
    content_type: str
    data: bytes


def _clean_name(name: str) -> str:
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return "".join(ch for ch in base if ch.isprintable()).strip()[:200] or "document"


async def _uploads(f: FieldReader, data) -> list[Upload]:  # noqa: ANN001 - FormData
    found, problems = [], []
    for item in data.getlist("documents"):
        if not isinstance(item, UploadFile) or not item.filename:
            continue
        name = _clean_name(item.filename)
        content = await item.read(MAX_FILE + 1)
        mime = next((m for magic, m in _MAGIC.items() if content.startswith(magic)), None)
        if not content:
            problems.append(f"{name} is empty.")
        elif len(content) > MAX_FILE:
            problems.append(f"{name} is larger than 12 MB.")
        elif mime is None:
            problems.append(f"{name} is not a PDF, PNG, JPEG or TIFF file.")
        else:
            found.append(Upload(name, mime, content))
    if problems:
        f.fail("documents", " ".join(problems) + " Nothing was attached; choose the files "
                                                 "again.")
    return found


def _owned(request: Request):  # noqa: ANN202 - a where clause
    return ExternalReview.user_id == session_of(request).principal.user_id


def _review(db, request: Request, raw: str | int) -> ExternalReview | None:  # noqa: ANN001
    review = db.get(ExternalReview, int(raw))
    if review is None or review.user_id != session_of(request).principal.user_id:
        return None
    return review


def _documents(db, review: ExternalReview | None) -> list[ReviewDocument]:  # noqa: ANN001
    if review is None:
        return []
    return list(db.scalars(select(ReviewDocument).where(ReviewDocument.review_id == review.id)
                           .order_by(ReviewDocument.id)))


def _insurers(db) -> list[Insurer]:  # noqa: ANN001
    return list(db.scalars(select(Insurer).order_by(Insurer.name)))


def _missing(request: Request, what: str) -> Response:
    return site_of(request).render(request, "missing.html", {"what": what}, status_code=404)


def _form_context(db, review: ExternalReview | None) -> dict:  # noqa: ANN001
    return {"review": review, "documents": _documents(db, review),
            "insurers": _insurers(db), "applicant_labels": APPLICANT_LABELS,
            "plan_labels": PLAN_LABELS, "denial_labels": DENIAL_LABELS,
            "document_labels": DOCUMENT_LABELS, "accept": ACCEPT,
            "months_to_file": MONTHS_TO_FILE, "nav": "new"}


def _deadline_of(values: dict[str, str]) -> str:
    import datetime as dt

    try:
        return filing_deadline(dt.date.fromisoformat(values.get("final_denial_date", "")))\
            .isoformat()
    except ValueError:
        return ""


def _render_form(request: Request, db, review: ExternalReview | None,  # noqa: ANN001
                 values: dict[str, str], errors: dict[str, str] | None = None,
                 notices: list[str] | None = None) -> Response:
    site = site_of(request)
    return site.render(request, "request_form.html", {
        **_form_context(db, review), "values": values, "errors": errors or {},
        "deadline": _deadline_of(values), "notices": notices or [],
        "title": "External review request"})


# -- pages ---------------------------------------------------------------------------------
@guard
async def dashboard(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        reviews = list(db.scalars(select(ExternalReview).where(_owned(request))
                                  .order_by(ExternalReview.id.desc())))
    return site.render(request, "dashboard.html", {
        "reviews": reviews, "nav": "home", "months_to_file": MONTHS_TO_FILE,
        "title": "My external review requests"})


@guard
async def form_page(request: Request) -> Response:
    site = site_of(request)
    raw = request.path_params.get("review_id")
    with site.reader() as db:
        review = None
        if raw is not None:
            review = _review(db, request, raw)
            if review is None:
                return _missing(request, f"Request {raw}")
            if review.status != "draft":
                return RedirectResponse(f"/requests/{review.id}", status_code=303)
        return _render_form(request, db, review, values_of(review))


@guard
async def form_submit(request: Request) -> Response:
    site = site_of(request)
    raw = request.path_params.get("review_id")
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        with site.reader() as db:
            review = _review(db, request, raw) if raw is not None else None
            if raw is not None and review is None:
                return _missing(request, f"Request {raw}")
            if review is not None and review.status != "draft":
                return RedirectResponse(f"/requests/{review.id}", status_code=303)
            documents = _documents(db, review)
            action = f.raw.get("action", "save")
            if action == "discard":
                return posted.redirect(_discard(request, review))
            removing = None
            if action.startswith("remove:"):
                removing = next((d.id for d in documents if action == f"remove:{d.id}"), None)
                if removing is None:
                    f.fail("_form", "That document is no longer attached; reload the page.")
            elif action not in ACTIONS:
                f.fail("_form", "Use one of the buttons of the form.")
            uploads = await _uploads(f, posted.data)
            doc_type = f.choice("document_type", "Type of document", DOCUMENT_TYPES,
                                required=bool(uploads))
            notices = _import_forms(f, uploads) if doc_type == "form" else []
            if action == "attach" and not uploads and "documents" not in f.errors:
                f.fail("documents", "Choose a file with the Browse button, then click Attach.")
            if len(documents) + len(uploads) > MAX_DOCUMENTS:
                f.fail("documents", f"A request can have at most {MAX_DOCUMENTS} documents.")
            insurers = [i.name for i in _insurers(db)]
            _canonical_insurer(f.raw, insurers)
            values = read_request(f, insurers, site.today(), complete=action == "submit")
            if not f.ok:
                return _render_form(request, db, review, dict(f.raw), f.errors, notices)
        review_id = _save(request, review, values, uploads, doc_type, removing,
                          submit=action == "submit")
        if action == "submit":
            return posted.redirect(f"/requests/{review_id}?submitted=1")
        message = {"attach": "Document attached.", "save": "Draft saved."}.get(
            action, "Document removed.")
        if notices:
            message = notices[0]
        site.flash(request, message)
        return posted.redirect(f"/requests/{review_id}/edit")


def _canonical_insurer(values: dict[str, str], insurers: list[str]) -> dict[str, str]:
    """An insurer typed into the PDF form in other letter case is the listed insurer."""
    typed = " ".join(values.get("insurer_name", "").split()).lower()
    match = next((name for name in insurers if name.lower() == typed), None)
    if match:
        values["insurer_name"] = match
    return values


def _import_forms(f: FieldReader, uploads: list[Upload]) -> list[str]:
    """Empty answers filled from an attached, completed PDF request form."""
    notices = []
    for upload in uploads:
        if upload.content_type != "application/pdf":
            continue
        fields = read_pdf_form(upload.data)
        if fields is None:
            continue
        filled = 0
        for name, value in fields.items():
            if value and not f.raw.get(name, "").strip():
                f.raw[name] = value
                filled += 1
        notices.append(f"Document attached. {filled} answer{'s' if filled != 1 else ''} "
                       f"filled from {upload.filename}; check them before you submit.")
    return notices


def _save(request: Request, review: ExternalReview | None, values: dict, uploads: list[Upload],
          doc_type: str | None, removing: int | None, *, submit: bool) -> int:
    site = site_of(request)
    now = site.now()
    with site.writer(request) as db:
        if review is None:
            review = ExternalReview(user_id=session_of(request).principal.user_id,
                                    status="draft", created_at=now)
            db.add(review)
        else:
            review = db.get(ExternalReview, review.id)
        apply(review, values)
        db.flush()
        if removing is not None:
            doc = db.get(ReviewDocument, removing)
            if doc is not None and doc.review_id == review.id:
                db.delete(doc)
        for upload in uploads:
            db.add(ReviewDocument(review_id=review.id, filename=upload.filename,
                                  document_type=doc_type or "other",
                                  content_type=upload.content_type, content=upload.data,
                                  uploaded_at=now))
        if submit:
            review.status = "submitted"
            review.submitted_at = now
            review.signature_date = now.date()
            review.reference_number = reference_number(review.id, now.year)
        return review.id


def _discard(request: Request, review: ExternalReview | None) -> str:
    site = site_of(request)
    if review is not None:
        with site.writer(request) as db:
            for doc in db.scalars(select(ReviewDocument)
                                  .where(ReviewDocument.review_id == review.id)):
                db.delete(doc)
            db.flush()
            db.delete(db.get(ExternalReview, review.id))
        site.flash(request, "Draft deleted.")
    return "/"


@guard
async def status_page(request: Request) -> Response:
    site = site_of(request)
    raw = request.path_params["review_id"]
    with site.reader() as db:
        review = _review(db, request, raw)
        if review is None:
            return _missing(request, f"Request {raw}")
        if review.status == "draft":
            return RedirectResponse(f"/requests/{review.id}/edit", status_code=303)
        documents = _documents(db, review)
        insurer = db.scalar(select(Insurer).where(Insurer.name == review.insurer_name))
    deadline = filing_deadline(review.final_denial_date, insurer.review_deadline_months
                               if insurer else MONTHS_TO_FILE) \
        if review.final_denial_date else None
    submitted = review.submitted_at.date() if review.submitted_at else site.today()
    return site.render(request, "status.html", {
        "review": review, "documents": documents, "deadline": deadline,
        "late": deadline is not None and submitted > deadline,
        "withdrawable": review.status in WITHDRAWABLE,
        "preliminary_due": preliminary_review_due(submitted),
        "just_submitted": request.query_params.get("submitted") == "1",
        "applicant_labels": APPLICANT_LABELS, "plan_labels": PLAN_LABELS,
        "denial_labels": DENIAL_LABELS, "document_labels": DOCUMENT_LABELS, "nav": "home",
        "title": f"Request {review.reference_number}"})


# a request can be withdrawn until the Department assigns it to a review organization
WITHDRAWABLE = ("submitted", "eligibility_review")


@guard
async def withdraw(request: Request) -> Response:
    """``GET``: what withdrawing means, and the two buttons; ``POST``: the request is
    closed (``withdrawn``). A request past eligibility review is answered with its page."""
    site = site_of(request)
    raw = request.path_params["review_id"]
    if request.method == "POST":
        async with posted_form(request) as posted:
            if posted.replay:
                return posted.replay
            with site.writer(request) as db:
                review = _review(db, request, raw)
                if review is None:
                    return _missing(request, f"Request {raw}")
                if review.status not in WITHDRAWABLE:
                    return RedirectResponse(f"/requests/{review.id}", status_code=303)
                review.status = "withdrawn"
                target, number = f"/requests/{review.id}", review.reference_number
            site.flash(request, f"Request {number} was withdrawn.")
            return posted.redirect(target)
    with site.reader() as db:
        review = _review(db, request, raw)
        if review is None:
            return _missing(request, f"Request {raw}")
        if review.status not in WITHDRAWABLE:
            return RedirectResponse(f"/requests/{review.id}", status_code=303)
        insurer = db.scalar(select(Insurer).where(Insurer.name == review.insurer_name))
    deadline = filing_deadline(review.final_denial_date, insurer.review_deadline_months
                               if insurer else MONTHS_TO_FILE) \
        if review.final_denial_date else None
    return site.render(request, "withdraw.html", {
        "review": review, "deadline": deadline, "nav": "home",
        "title": f"Withdraw request {review.reference_number}"})


@guard
async def document_file(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        review = _review(db, request, request.path_params["review_id"])
        doc = db.get(ReviewDocument, int(request.path_params["doc_id"]))
        if review is None or doc is None or doc.review_id != review.id:
            return _missing(request, "That document")
    return document_response(bytes(doc.content), doc.content_type, doc.filename,
                             fallback="document")


@guard
async def forms_page(request: Request) -> Response:
    return site_of(request).render(request, "forms.html", {
        "nav": "forms", "form_filename": FORM_FILENAME, "months_to_file": MONTHS_TO_FILE,
        "title": "Forms and instructions"})


async def form_pdf(request: Request) -> Response:
    """The blank fillable request form (public, like the agency's forms page)."""
    return Response(blank_form(), media_type="application/pdf", headers={
        "Content-Disposition": f"attachment; filename=\"{FORM_FILENAME}\"",
        "Cache-Control": "no-store"})


@guard
async def import_page(request: Request) -> Response:
    site = site_of(request)
    if request.method == "GET":
        return site.render(request, "import.html", {"nav": "new", "errors": {},
                                                    "title": "Upload a completed form"})
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        uploads = await _uploads(f, posted.data)
        fields = read_pdf_form(uploads[0].data) if uploads and \
            uploads[0].content_type == "application/pdf" else None
        if "documents" not in f.errors:
            if not uploads:
                f.fail("documents", "Choose the completed request form (PDF) to upload.")
            elif len(uploads) > 1:
                f.fail("documents", "Upload one form at a time; add other documents on the "
                                    "next page.")
            elif fields is None:
                f.fail("documents", f"{uploads[0].filename} is not the Department's request "
                                    "form (it has none of the form's fields). Download the "
                                    "form, fill it in, save it and upload that copy.")
        if not f.ok:
            return site.render(request, "import.html", {"nav": "new", "errors": f.errors,
                                                        "title": "Upload a completed form"})
        with site.reader() as db:
            insurers = [i.name for i in _insurers(db)]
        reader = FieldReader(_canonical_insurer(fields, insurers))
        values = read_request(reader, insurers, site.today(), complete=False)
        values = {k: v for k, v in values.items() if k not in reader.errors}
        review_id = _save(request, None, values, uploads, "form", None, submit=False)
        filled = sum(1 for k, v in fields.items() if v and k not in reader.errors)
        message = (f"Your form was read: {filled} answer{'s' if filled != 1 else ''} filled "
                   "in below. Check them, complete the rest and submit.")
        if reader.errors:
            message += " Not taken from the form: " + " ".join(reader.errors.values())
        site.flash(request, message)
        return posted.redirect(f"/requests/{review_id}/edit")


routes = [
    Route("/", dashboard, methods=["GET"], name="home"),
    Route("/requests/new", form_page, methods=["GET"], name="new_request"),
    Route("/requests/new", form_submit, methods=["POST"], name="new_request_submit"),
    Route("/requests/import", import_page, methods=["GET", "POST"], name="import"),
    Route("/requests/{review_id:id}", status_page, methods=["GET"], name="request"),
    Route("/requests/{review_id:id}/withdraw", withdraw, methods=["GET", "POST"],
          name="withdraw"),
    Route("/requests/{review_id:id}/edit", form_page, methods=["GET"], name="edit"),
    Route("/requests/{review_id:id}/edit", form_submit, methods=["POST"], name="edit_submit"),
    Route("/requests/{review_id:id}/documents/{doc_id:id}", document_file, methods=["GET"],
          name="document"),
    Route("/forms", forms_page, methods=["GET"], name="forms"),
    Route(f"/forms/{FORM_FILENAME}", form_pdf, methods=["GET"], name="form_pdf"),
]
