"""Beta Care's acknowledgement of an appeal received by fax, timely or late.

Beta Care takes first-level appeals by fax at its appeals line, within the window of its
appeals bulletin (``policies``: category ``appeals``, level 1) counted from the denial date
of the claim (``beta_claims``). A fax that reaches the appeals line and names a denied
claim — on the cover sheet or in an attached page — is acknowledged on the job's page once
delivered. A late appeal is still accepted, with a warning that it may be dismissed: the
service never refuses to send it, so filing an expired appeal stays a possible mistake.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from sandbox.stores.fax import BetaClaim, FaxDocument, FaxJob, FaxNumber, Policy


@dataclass(frozen=True)
class AppealAcknowledgement:
    """Beta Care's answer to an appeal for one claim."""

    claim_number: str
    patient: str
    denial_date: date
    deadline: date
    received: date
    window_days: int

    @property
    def late(self) -> bool:
        return self.received > self.deadline


def _pdf_text(doc: FaxDocument) -> str:
    if doc.content_type != "application/pdf":
        return ""
    from pypdf import PdfReader

    try:
        return " ".join(page.extract_text() or "" for page in
                        PdfReader(io.BytesIO(bytes(doc.content))).pages)
    except Exception:  # noqa: BLE001 - an unreadable page names no claim
        return ""


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").upper()


def acknowledgements(db: Session, job: FaxJob) -> list[AppealAcknowledgement]:
    """One acknowledgement per Beta claim the delivered fax ``job`` appeals."""
    if job.status != "delivered" or job.delivered_at is None:
        return []
    line = db.scalar(select(FaxNumber).where(FaxNumber.digits == job.to_digits))
    if line is None or line.owner != "Beta Care" or line.purpose != "appeals":
        return []
    policy = db.scalar(select(Policy).where(Policy.category == "appeals",
                                            Policy.appeal_level == 1))
    if policy is None or not policy.deadline_days:
        return []
    documents = db.scalars(select(FaxDocument).where(FaxDocument.job_id == job.id))
    text = _normal(" ".join([job.cover_subject, job.cover_message,
                             *(_pdf_text(d) for d in documents)]))
    found = []
    for claim in db.scalars(select(BetaClaim).order_by(BetaClaim.claim_number)):
        if claim.denial_date is None or _normal(claim.claim_number) not in text:
            continue
        found.append(AppealAcknowledgement(
            claim_number=claim.claim_number,
            patient=f"{claim.patient_last}, {claim.patient_first}",
            denial_date=claim.denial_date,
            deadline=claim.denial_date + timedelta(days=policy.deadline_days),
            received=job.delivered_at.date(), window_days=policy.deadline_days))
    return found
