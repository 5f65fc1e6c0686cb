"""The fax store: the clinic's web fax service, the fax sink, and Beta Care's fax-side records.

Beta Care takes prior-authorization requests and appeals only by fax. The office composes a
job in the web fax service (recipient number, cover sheet, uploaded documents); sending it
delivers one transmission to the sink, which keeps the received PDF (cover + documents) in
``received_faxes``. ``fax_documents`` keeps each uploaded file as uploaded, so a filled
AcroForm's field values can still be read by a verifier. ``fax_numbers`` is the directory
the service suggests numbers from (Beta Care's real PA and appeals lines plus decoys).

Beta Care has no portal: its provider bulletins (``policies``, with the appeal deadline in
structured columns) are published on the fax service's "Payer resources" page, and its
denied claims (``beta_claims``) are what pa-17's denial list refers to.

Conventions as in :mod:`sandbox.stores.acme`. Fax numbers are kept as typed/displayed
(``1-888-555-0142``) and as ``digits`` (``18885550142``) for exact comparison.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import (
    Boolean,
    Date,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from sandbox.stores.base import StoredFile, UploadedFile, system_metadata


class Base(DeclarativeBase):
    metadata = system_metadata("fax")

JOB_STATUSES = ("draft", "queued", "sending", "delivered", "failed", "cancelled")
# How a called fax line answers (``fax_numbers.line_behaviour``); a number that is not in the
# directory behaves as ``no_fax_tone`` (most numbers are not fax machines).
LINE_BEHAVIOURS = ("answers", "busy_once", "busy", "no_fax_tone")


def fax_digits(number: str) -> str:
    """A fax number reduced to its digits with the US country code (``18885550142``)."""
    digits = "".join(ch for ch in number if ch.isdigit())
    if len(digits) == 10:
        digits = "1" + digits
    return digits


class FaxAccount(Base):
    """A log-in of the web fax service and the number its faxes come from."""

    __tablename__ = "fax_accounts"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(60), unique=True)
    password_sha256: Mapped[str] = mapped_column(String(64))
    display_name: Mapped[str] = mapped_column(String(100))
    organization: Mapped[str] = mapped_column(String(120))
    sender_number: Mapped[str] = mapped_column(String(20))
    sender_phone: Mapped[str] = mapped_column(String(20), default="")
    active: Mapped[bool] = mapped_column(Boolean, default=True)


class FaxNumber(Base):
    """A directory entry: whose number it is and what it accepts."""

    __tablename__ = "fax_numbers"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    number: Mapped[str] = mapped_column(String(20))
    digits: Mapped[str] = mapped_column(String(15), unique=True)
    owner: Mapped[str] = mapped_column(String(120))
    department: Mapped[str] = mapped_column(String(120))
    purpose: Mapped[str] = mapped_column(String(20))  # pa_medical, pa_pharmacy, appeals, ...
    is_payer: Mapped[bool] = mapped_column(Boolean, default=True)
    notes: Mapped[str] = mapped_column(Text, default="")
    line_behaviour: Mapped[str] = mapped_column(String(12), default="answers")
    remote_csid: Mapped[str] = mapped_column(String(20), default="")  # the answering fax's ID


class FaxJob(Base):
    """One outgoing fax: recipient, cover sheet and status (the confirmation id is the
    number the office logs)."""

    __tablename__ = "fax_jobs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    confirmation_id: Mapped[str | None] = mapped_column(String(24), unique=True, default=None)
    account_id: Mapped[int] = mapped_column(ForeignKey("fax_accounts.id"))
    from_number: Mapped[str] = mapped_column(String(20))
    to_number: Mapped[str] = mapped_column(String(20))
    to_digits: Mapped[str] = mapped_column(String(15))
    recipient_name: Mapped[str] = mapped_column(String(120), default="")
    include_cover: Mapped[bool] = mapped_column(Boolean, default=True)
    cover_to: Mapped[str] = mapped_column(String(120), default="")
    cover_from: Mapped[str] = mapped_column(String(120), default="")
    cover_subject: Mapped[str] = mapped_column(String(200), default="")  # "Re:" line
    cover_message: Mapped[str] = mapped_column(Text, default="")
    urgent: Mapped[bool] = mapped_column(Boolean, default=False)
    page_count: Mapped[int] = mapped_column(Integer, default=0)  # cover included
    status: Mapped[str] = mapped_column(String(12), default="draft")
    failure_reason: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    sent_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    delivered_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)


class FaxDocument(UploadedFile, Base):
    """A file attached to a job, exactly as uploaded (fillable-form fields intact)."""

    __tablename__ = "fax_documents"
    __table_args__ = (UniqueConstraint("job_id", "position"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("fax_jobs.id"))
    position: Mapped[int] = mapped_column(Integer)  # order after the cover sheet
    page_count: Mapped[int] = mapped_column(Integer)
    uploaded_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)


class ReceivedFax(StoredFile, Base):
    """What the sink received: one PDF per delivered transmission (cover sheet first)."""

    __tablename__ = "received_faxes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("fax_jobs.id"), unique=True)
    to_digits: Mapped[str] = mapped_column(String(15))
    from_digits: Mapped[str] = mapped_column(String(15))
    page_count: Mapped[int] = mapped_column(Integer)
    received_at: Mapped[datetime] = mapped_column(DateTime)


class Policy(Base):
    """A Beta Care provider bulletin; the same columns as ``acme.policies``."""

    __tablename__ = "policies"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    policy_key: Mapped[str] = mapped_column(String(60), unique=True)
    payer_name: Mapped[str] = mapped_column(String(100), default="Beta Care")
    category: Mapped[str] = mapped_column(String(30))
    title: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    appeal_level: Mapped[int | None] = mapped_column(Integer, default=None)
    deadline_days: Mapped[int | None] = mapped_column(Integer, default=None)
    deadline_unit: Mapped[str | None] = mapped_column(String(20), default=None)
    deadline_basis: Mapped[str | None] = mapped_column(String(120), default=None)
    effective_from: Mapped[date] = mapped_column(Date)


class BetaClaim(Base):
    """A Beta Care claim denial known to the office (appealed by fax, cited on the cover)."""

    __tablename__ = "beta_claims"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    claim_number: Mapped[str] = mapped_column(String(24), unique=True)
    member_number: Mapped[str] = mapped_column(String(20))
    patient_last: Mapped[str] = mapped_column(String(60))
    patient_first: Mapped[str] = mapped_column(String(60))
    patient_dob: Mapped[date] = mapped_column(Date)
    dos: Mapped[date] = mapped_column(Date)
    procedure_code: Mapped[str] = mapped_column(String(10))
    billed_cents: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(12), default="denied")
    denial_date: Mapped[date | None] = mapped_column(Date, default=None)
    denial_carc: Mapped[str | None] = mapped_column(String(8), default=None)
    denial_reason: Mapped[str | None] = mapped_column(Text, default=None)
