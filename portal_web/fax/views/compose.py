"""New fax: recipient (typed or from the directory), cover sheet, attachments, send.

The compose page is one form with several buttons, like a web fax client: *Attach* uploads
the chosen files into a draft (their pages are counted and listed), *Use* takes a number
from the directory, *Save draft* keeps everything, *Send fax* attaches whatever is still
chosen and queues the job, which gets its confirmation ID at once. Every button validates
the whole form first and writes nothing when anything is wrong; each write is one
transaction followed by a redirect, and one-time form tokens turn a repeated or
back-button submit into a visit of the page the first one went to, so a job is never
queued twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sqlalchemy import func, select
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal_web.common.forms import FieldReader
from portal_web.common.params import parse_id, query_int
from portal_web.common.requests import login_required, posted_form, session_of
from portal_web.fax.documents import (
    ACCEPT,
    MAX_PAGES,
    FaxFile,
    FaxFileError,
    read_fax_file,
)
from portal_web.fax.site import site_of, transmitter_of
from portal_web.fax.transmitter import confirmation_id
from sandbox.stores.fax import FaxAccount, FaxDocument, FaxJob, FaxNumber

guard = login_required("/login")
MAX_DOCUMENTS = 10
MAX_MESSAGE = 1500
ACTIONS = ("attach", "send", "save", "use_directory", "discard")
_NUMBER_CHARS = re.compile(r"^[0-9 ()+.\-]*$")


def parse_fax_number(raw: str) -> tuple[str, str] | str:
    """``(display, digits)`` of a US fax number, or a message saying what is wrong."""
    if not _NUMBER_CHARS.match(raw):
        return ("Enter the fax number with digits only (spaces, dashes and brackets are "
                "fine), e.g. 1-888-555-0142.")
    digits = "".join(ch for ch in raw if ch.isdigit())
    if len(digits) == 10:
        digits = "1" + digits
    if len(digits) != 11 or not digits.startswith("1"):
        return ("A fax number has 10 digits with the area code (or 11 starting with 1), "
                f"e.g. 1-888-555-0142; you entered {len(digits)} digits.")
    if digits[1] in "01" or digits[4] in "01":
        return "That is not a valid US fax number: check the area code and the next three digits."
    return f"1-{digits[1:4]}-{digits[4:7]}-{digits[7:]}", digits


@dataclass
class ComposeForm:
    """The compose form as posted: validated values, chosen files, messages."""

    reader: FieldReader
    to_number: str = ""
    to_digits: str = ""
    recipient_name: str = ""
    include_cover: bool = True
    cover_to: str = ""
    cover_from: str = ""
    cover_subject: str = ""
    cover_message: str = ""
    urgent: bool = False
    files: list[FaxFile] = field(default_factory=list)

    @property
    def errors(self) -> dict[str, str]:
        return self.reader.errors


async def read_compose(posted, account: FaxAccount) -> ComposeForm:  # noqa: ANN001
    f = posted.reader
    form = ComposeForm(reader=f)
    raw_number = f.text("to_number", "Fax number", max_len=40) or ""
    if raw_number:
        parsed = parse_fax_number(raw_number)
        if isinstance(parsed, str):
            f.fail("to_number", parsed)
        else:
            form.to_number, form.to_digits = parsed
    form.recipient_name = f.text("recipient_name", "Recipient", max_len=120) or ""
    form.include_cover = f.checkbox("include_cover")
    form.cover_to = f.text("cover_to", "Cover sheet To", max_len=120) or ""
    form.cover_from = f.text("cover_from", "Cover sheet From", max_len=120) or ""
    form.cover_subject = f.text("cover_subject", "Re: (subject)", max_len=200) or ""
    form.cover_message = f.text("cover_message", "Cover sheet message",
                                max_len=MAX_MESSAGE) or ""
    if f.errors.get("cover_message", "").endswith("or fewer."):
        f.errors["cover_message"] += " Put longer text in an attached letter."
    form.urgent = f.checkbox("urgent")
    messages = []
    for upload in posted.data.getlist("files"):
        if not isinstance(upload, UploadFile) or not upload.filename:
            continue
        data = await upload.read()
        try:
            form.files.append(read_fax_file(upload.filename, data))
        except FaxFileError as exc:
            messages.append(str(exc))
    if messages:
        f.fail("files", " ".join(messages) + " Nothing was attached; choose the files again.")
    return form


def _directory(db) -> list[FaxNumber]:  # noqa: ANN001
    return list(db.scalars(select(FaxNumber).order_by(FaxNumber.owner != "Beta Care",
                                                      FaxNumber.owner, FaxNumber.department)))


def _account(db, request: Request) -> FaxAccount:  # noqa: ANN001
    account = db.get(FaxAccount, session_of(request).principal.user_id)
    assert account is not None, "logged-in account vanished"
    return account


def _draft(db, request: Request, job_id: int) -> FaxJob | None:  # noqa: ANN001
    job = db.get(FaxJob, job_id)
    if job is None or job.account_id != session_of(request).principal.user_id:
        return None
    return job


def _documents(db, job: FaxJob | None) -> list[FaxDocument]:  # noqa: ANN001
    if job is None:
        return []
    return list(db.scalars(select(FaxDocument).where(FaxDocument.job_id == job.id)
                           .order_by(FaxDocument.position)))


def _values_of(job: FaxJob) -> dict[str, str]:
    return {"to_number": job.to_number, "recipient_name": job.recipient_name,
            "include_cover": "1" if job.include_cover else "",
            "cover_to": job.cover_to, "cover_from": job.cover_from,
            "cover_subject": job.cover_subject, "cover_message": job.cover_message,
            "urgent": "1" if job.urgent else ""}


def _from_directory(values: dict[str, str], entry: FaxNumber) -> None:
    values["to_number"] = entry.number
    values["recipient_name"] = f"{entry.owner} - {entry.department}"
    if not values.get("cover_to"):
        values["cover_to"] = f"{entry.owner} {entry.department}"


def _render(request: Request, db, *, job: FaxJob | None, values: dict[str, str],  # noqa: ANN001
            errors: dict[str, str] | None = None, status: int = 200) -> Response:
    site = site_of(request)
    documents = _documents(db, job)
    include_cover = values.get("include_cover") in ("1", "on")
    doc_pages = sum(d.page_count for d in documents)
    return site.render(request, "compose.html", {
        "nav": "compose", "job": job, "documents": documents, "values": values,
        "errors": errors or {}, "directory": _directory(db), "account": _account(db, request),
        "doc_pages": doc_pages, "total_pages": doc_pages + (1 if include_cover else 0),
        "accept": ACCEPT, "max_pages": MAX_PAGES, "max_message": MAX_MESSAGE,
        "title": "New fax" if job is None else "Draft fax"}, status_code=status)


@guard
async def compose_page(request: Request) -> Response:
    site = site_of(request)
    raw = request.path_params.get("job_id")
    with site.reader() as db:
        account = _account(db, request)
        job = None
        if raw is not None:
            job = _draft(db, request, int(raw))
            if job is None:
                return site.render(request, "missing.html", {
                    "what": f"Fax draft {raw}", "nav": "compose"}, status_code=404)
            if job.status != "draft":
                return RedirectResponse(f"/jobs/{job.id}", status_code=303)
            values = _values_of(job)
        else:
            values = {"include_cover": "1", "cover_from": account.display_name}
        pick = query_int(request, "number")
        if pick is not None:
            entry = db.get(FaxNumber, pick)
            if entry is not None:
                _from_directory(values, entry)
        return _render(request, db, job=job, values=values)


def _validate_send(form: ComposeForm, documents: list[FaxDocument], removing: int | None,
                   ) -> None:
    f = form.reader
    if not form.to_digits and "to_number" not in f.errors:
        f.fail("to_number", "Enter the recipient's fax number (or pick one from the "
                            "directory).")
    kept = [d for d in documents if d.id != removing]
    pages = sum(d.page_count for d in kept) + sum(x.pages for x in form.files)
    if not kept and not form.files and not (form.include_cover and form.cover_message):
        f.fail("files", "Attach at least one document, or send a cover sheet with a message.")
    if pages + (1 if form.include_cover else 0) > MAX_PAGES:
        f.fail("files", f"A fax can have at most {MAX_PAGES} pages (cover included); this "
                        f"one has {pages + int(form.include_cover)}. Send it in parts.")


@guard
async def compose_submit(request: Request) -> Response:
    site = site_of(request)
    raw = request.path_params.get("job_id")
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        with site.reader() as db:
            account = _account(db, request)
            job = _draft(db, request, int(raw)) if raw is not None else None
            if raw is not None and job is None:
                return site.render(request, "missing.html", {
                    "what": f"Fax draft {raw}", "nav": "compose"}, status_code=404)
            if job is not None and job.status != "draft":
                return RedirectResponse(f"/jobs/{job.id}", status_code=303)
            documents = _documents(db, job)
            action = f.raw.get("action", "save")
            if action == "discard":
                return posted.redirect(_discard(site, request, job))
            removing = None
            if action.startswith("remove:"):
                removing = next((d.id for d in documents if f"remove:{d.id}" == action), None)
                if removing is None:
                    f.fail("_form", "That attachment is no longer in this draft; reload the "
                                    "page.")
            elif action not in ACTIONS:
                f.fail("_form", "Use one of the buttons of the form.")
            if action == "use_directory":
                pick = parse_id(f.raw.get("directory_entry", ""))
                entry = db.get(FaxNumber, pick) if pick is not None else None
                if entry is None:
                    f.fail("directory_entry", "Choose a recipient in the directory list "
                                              "first.")
                else:
                    _from_directory(f.raw, entry)
            form = await read_compose(posted, account)
            if len(documents) + len(form.files) > MAX_DOCUMENTS:
                f.fail("files", f"A fax can carry at most {MAX_DOCUMENTS} attachments.")
            if action == "send":
                _validate_send(form, documents, removing)
            if action == "attach" and not form.files and "files" not in f.errors:
                f.fail("files", "Choose one or more files with the Browse button, then click "
                                "Attach.")
            if not f.ok:
                values = dict(f.raw)
                values.setdefault("include_cover", "")
                return _render(request, db, job=job, values=values, errors=f.errors)
        job_id = _save(site, request, job, form, account, removing, send=action == "send")
        if action == "send":
            transmitter_of(request).wake()
            site.flash(request, "Your fax was queued for sending.")
            return posted.redirect(f"/jobs/{job_id}")
        if action == "attach":
            n = len(form.files)
            site.flash(request, f"{n} file{'s' if n != 1 else ''} attached.")
        elif removing is not None:
            site.flash(request, "Attachment removed.")
        else:
            site.flash(request, "Draft saved.")
        return posted.redirect(f"/compose/{job_id}")


def _save(site, request: Request, job: FaxJob | None, form: ComposeForm,  # noqa: ANN001
          account: FaxAccount, removing: int | None, *, send: bool) -> int:
    """One transaction: the draft's fields and attachments (and, to send, its queueing)."""
    now = site.now()
    with site.writer(request) as db:
        if job is None:
            job = FaxJob(account_id=account.id, from_number=account.sender_number,
                         to_number="", to_digits="", status="draft", created_at=now)
            db.add(job)
        else:
            job = db.get(FaxJob, job.id)
        job.to_number, job.to_digits = form.to_number, form.to_digits
        job.recipient_name = form.recipient_name
        job.include_cover = form.include_cover
        job.cover_to, job.cover_from = form.cover_to, form.cover_from
        job.cover_subject, job.cover_message = form.cover_subject, form.cover_message
        job.urgent = form.urgent
        db.flush()
        if removing is not None:
            doc = db.get(FaxDocument, removing)
            if doc is not None and doc.job_id == job.id:
                db.delete(doc)
                db.flush()
        position = db.scalar(select(func.max(FaxDocument.position))
                             .where(FaxDocument.job_id == job.id)) or 0
        for file in form.files:
            position += 1
            db.add(FaxDocument(job_id=job.id, position=position, filename=file.filename,
                               content_type=file.content_type, page_count=file.pages,
                               content=file.data, uploaded_at=now))
        db.flush()
        pages = db.scalar(select(func.coalesce(func.sum(FaxDocument.page_count), 0))
                          .where(FaxDocument.job_id == job.id))
        job.page_count = int(pages) + (1 if job.include_cover else 0)
        if send:
            job.status = "queued"
            job.sent_at = now
            job.confirmation_id = confirmation_id(job.id, now)
        return job.id


def _discard(site, request: Request, job: FaxJob | None) -> str:  # noqa: ANN001
    if job is not None:
        with site.writer(request) as db:
            for doc in db.scalars(select(FaxDocument).where(FaxDocument.job_id == job.id)):
                db.delete(doc)
            db.flush()
            db.delete(db.get(FaxJob, job.id))
        site.flash(request, "Draft discarded.")
    return "/compose"


routes = [
    Route("/compose", compose_page, methods=["GET"], name="compose"),
    Route("/compose", compose_submit, methods=["POST"], name="compose_submit"),
    Route("/compose/{job_id:id}", compose_page, methods=["GET"], name="draft"),
    Route("/compose/{job_id:id}", compose_submit, methods=["POST"], name="draft_submit"),
]
