"""Sent log, drafts, and each job's delivery report.

The sent log lists every job that left the drafts, newest first, sortable by column and
filterable by status, with its confirmation ID, recipient, pages and live status. A job's
page is its delivery report: the cover sheet fields, the attachments with their pages, the
transmission log up to now (dialling, busy lines and retries, pages sent, confirmation by
the remote machine) and, for an appeal that reached Beta Care, Beta Care's acknowledgement.
Statuses are brought up to date (:meth:`FaxTransmitter.process`) before each page is shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal_web.common.downloads import document_response
from portal_web.common.requests import login_required, session_of
from portal_web.fax.appeals import acknowledgements
from portal_web.fax.sink import received_pdf
from portal_web.fax.site import site_of, transmitter_of
from portal_web.fax.transmission import LineEvent, state_at
from portal_web.fax.transmitter import plan_for
from sandbox.stores.fax import FaxAccount, FaxDocument, FaxJob, FaxNumber, ReceivedFax

guard = login_required("/login")
SORTS = {"sent": "Sent", "recipient": "Recipient", "pages": "Pages", "status": "Status",
         "confirmation": "Confirmation ID"}
FILTERS = {"all": "All faxes", "progress": "In progress", "delivered": "Delivered",
           "failed": "Failed"}
STATUS_LABELS = {"queued": "Queued", "sending": "Sending", "delivered": "Delivered",
                 "failed": "Failed", "draft": "Draft", "cancelled": "Cancelled"}


@dataclass(frozen=True)
class JobLine:
    """A job as the log shows it: the row, its line, and where its transmission is."""

    job: FaxJob
    line: FaxNumber | None
    state: LineEvent | None
    events: list[LineEvent]

    @property
    def status_label(self) -> str:
        if self.state is None:
            return STATUS_LABELS.get(self.job.status, self.job.status)
        if self.job.status == "queued" and self.state.attempt:
            return "Retry pending"
        if self.job.status == "sending" and self.state.page:
            return f"Sending p. {self.state.page}/{self.job.page_count}"
        if self.job.status == "sending":
            return "Dialling"
        return STATUS_LABELS.get(self.job.status, self.job.status)

    @property
    def attempts(self) -> int:
        return max((e.attempt for e in self.events), default=0)

    @property
    def recipient(self) -> str:
        if self.job.recipient_name:
            return self.job.recipient_name
        if self.line is not None:
            return f"{self.line.owner} - {self.line.department}"
        return ""


def _lines(db) -> dict[str, FaxNumber]:  # noqa: ANN001
    return {n.digits: n for n in db.scalars(select(FaxNumber))}


def job_line(job: FaxJob, lines: dict[str, FaxNumber], now) -> JobLine:  # noqa: ANN001
    line = lines.get(job.to_digits)
    if job.sent_at is None:
        return JobLine(job, line, None, [])
    plan = plan_for(job, line)
    events = [e for e in plan if e.at <= now]
    return JobLine(job, line, state_at(plan, now), events)


def _owned(request: Request):  # noqa: ANN202 - a SQLAlchemy where clause
    return FaxJob.account_id == session_of(request).principal.user_id


@guard
async def sent_log(request: Request) -> Response:
    site = site_of(request)
    transmitter_of(request).process()
    transmitter_of(request).wake()
    sort = request.query_params.get("sort", "sent")
    sort = sort if sort in SORTS else "sent"
    order = "asc" if request.query_params.get("dir") == "asc" else "desc"
    show = request.query_params.get("show", "all")
    show = show if show in FILTERS else "all"
    q = request.query_params.get("q", "").strip()[:60]
    now = site.now()
    with site.reader() as db:
        lines = _lines(db)
        jobs = list(db.scalars(select(FaxJob).where(_owned(request),
                                                    FaxJob.status != "draft")))
        drafts = db.scalar(select(FaxJob.id).where(_owned(request), FaxJob.status == "draft")
                           .limit(1)) is not None
    rows = [job_line(j, lines, now) for j in jobs]
    if show == "progress":
        rows = [r for r in rows if r.job.status in ("queued", "sending")]
    elif show in ("delivered", "failed"):
        rows = [r for r in rows if r.job.status == show]
    if q:
        needle = q.lower()
        digits = re.sub(r"\D", "", q)
        rows = [r for r in rows if needle in " ".join([
            r.job.confirmation_id or "", r.recipient, r.job.to_number, r.job.cover_subject,
            r.job.cover_to]).lower() or (len(digits) >= 4 and digits in r.job.to_digits)]
    keys = {"sent": lambda r: (r.job.sent_at, r.job.id),
            "recipient": lambda r: (r.recipient.lower(), r.job.id),
            "pages": lambda r: (r.job.page_count, r.job.id),
            "status": lambda r: (r.job.status, r.job.id),
            "confirmation": lambda r: (r.job.confirmation_id or "", r.job.id)}
    rows.sort(key=keys[sort], reverse=order == "desc")
    return site.render(request, "sent.html", {
        "nav": "sent", "rows": rows, "sort": sort, "order": order, "show": show, "q": q,
        "sorts": SORTS, "filters": FILTERS, "has_drafts": drafts, "title": "Sent faxes",
        "quote": quote})


@guard
async def drafts_page(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        drafts = list(db.scalars(select(FaxJob).where(_owned(request),
                                                      FaxJob.status == "draft")
                                 .order_by(FaxJob.created_at.desc(), FaxJob.id.desc())))
        counts = {d.id: len(list(db.scalars(select(FaxDocument.id)
                                            .where(FaxDocument.job_id == d.id))))
                  for d in drafts}
    return site.render(request, "drafts.html", {"nav": "drafts", "drafts": drafts,
                                                "counts": counts, "title": "Drafts"})


def _job(db, request: Request, raw: str) -> FaxJob | None:  # noqa: ANN001
    job = db.get(FaxJob, int(raw))
    if job is None or job.account_id != session_of(request).principal.user_id:
        return None
    return job


@guard
async def job_page(request: Request) -> Response:
    site = site_of(request)
    transmitter_of(request).process()
    raw = request.path_params["job_id"]
    now = site.now()
    with site.reader() as db:
        job = _job(db, request, raw)
        if job is None:
            return site.render(request, "missing.html", {"what": f"Fax job {raw}",
                                                         "nav": "sent"}, status_code=404)
        if job.status == "draft":
            return RedirectResponse(f"/compose/{job.id}", status_code=303)
        line = job_line(job, _lines(db), now)
        documents = list(db.scalars(select(FaxDocument).where(FaxDocument.job_id == job.id)
                                    .order_by(FaxDocument.position)))
        received = db.scalar(select(ReceivedFax).where(ReceivedFax.job_id == job.id))
        account = db.get(FaxAccount, job.account_id)
        acks = acknowledgements(db, job)
    return site.render(request, "job.html", {
        "nav": "sent", "line": line, "job": job, "documents": documents,
        "received": received, "account": account, "acks": acks,
        "title": f"Fax {job.confirmation_id}"})


@guard
async def job_document(request: Request) -> Response:
    """An attachment as it was uploaded (opens in the browser's viewer)."""
    site = site_of(request)
    with site.reader() as db:
        job = _job(db, request, request.path_params["job_id"])
        doc = db.get(FaxDocument, int(request.path_params["doc_id"]))
        if job is None or doc is None or doc.job_id != job.id:
            return site.render(request, "missing.html", {"what": "That attachment",
                                                         "nav": "sent"}, status_code=404)
    return _file(bytes(doc.content), doc.content_type, doc.filename)


@guard
async def job_image(request: Request) -> Response:
    """The fax as transmitted (cover sheet and pages): what the recipient received."""
    site = site_of(request)
    with site.reader() as db:
        job = _job(db, request, request.path_params["job_id"])
        if job is None or job.status == "draft":
            return site.render(request, "missing.html", {"what": "That fax",
                                                         "nav": "sent"}, status_code=404)
        received = db.scalar(select(ReceivedFax).where(ReceivedFax.job_id == job.id))
        if received is not None:
            data = bytes(received.content)
        else:
            documents = list(db.scalars(select(FaxDocument)
                                        .where(FaxDocument.job_id == job.id)))
            data = received_pdf(job, documents, db.get(FaxAccount, job.account_id))
    return _file(data, "application/pdf", f"{job.confirmation_id}.pdf")


def _file(data: bytes, media_type: str, name: str) -> Response:
    return document_response(data, media_type, name, fallback="file")


routes = [
    Route("/sent", sent_log, methods=["GET"], name="sent"),
    Route("/drafts", drafts_page, methods=["GET"], name="drafts"),
    Route("/jobs/{job_id:id}", job_page, methods=["GET"], name="job"),
    Route("/jobs/{job_id:id}/fax.pdf", job_image, methods=["GET"], name="job_image"),
    Route("/jobs/{job_id:id}/documents/{doc_id:id}", job_document, methods=["GET"],
          name="job_document"),
]
