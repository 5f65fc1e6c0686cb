"""The regulator store: the state insurance department's external-review request portal.

After a plan's final internal denial, an enrollee (or the provider on their behalf) asks
the state for an independent external review. The portal's request form has the twelve
fields in ``FORM_FIELDS`` (the same names are the AcroForm field names of the downloadable
PDF form, so a filled PDF upload and a web submission compare alike); a request is one
``external_reviews`` row, with any uploaded documents in ``review_documents``.

Conventions as in :mod:`sandbox.stores.acme`: naive sandbox-local times, ``Date`` for
calendar facts, status tokens in ``REVIEW_STATUSES``.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Boolean, Date, DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from sandbox.stores.base import UploadedFile, system_metadata


class Base(DeclarativeBase):
    metadata = system_metadata("regulator")

# The twelve fields of the state form, in form order (pa-12 compares each exactly).
FORM_FIELDS = (
    "enrollee_name",          # "Last, First"
    "enrollee_dob",           # date
    "member_id",              # insurer's member number
    "insurer_name",           # chosen from ``insurers``
    "plan_name",
    "insurer_reference",      # the insurer's number of the final adverse determination
    "treating_provider_name",
    "treating_provider_npi",
    "service_requested",      # description in words
    "service_code",           # CPT/HCPCS
    "diagnosis_code",         # ICD-10-CM, primary
    "final_denial_date",      # date of the final internal adverse determination
)
REVIEW_STATUSES = ("draft", "submitted", "eligibility_review", "assigned", "decided", "withdrawn")
APPLICANT_TYPES = ("covered_person", "representative", "provider")
PLAN_TYPES = ("group_insured", "individual", "self_funded", "student", "other")
DENIAL_TYPES = ("medical_necessity", "experimental", "rescission", "other")
DOCUMENT_TYPES = ("form", "denial_letter", "medical_records", "authorization", "other")


class RegulatorUser(Base):
    __tablename__ = "regulator_users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(60), unique=True)
    password_sha256: Mapped[str] = mapped_column(String(64))
    display_name: Mapped[str] = mapped_column(String(100))
    organization: Mapped[str] = mapped_column(String(120), default="")
    email: Mapped[str] = mapped_column(String(120), default="")
    active: Mapped[bool] = mapped_column(Boolean, default=True)


class Insurer(Base):
    """An insurer regulated by the state (the form's insurer drop-down)."""

    __tablename__ = "insurers"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    naic_code: Mapped[str] = mapped_column(String(5))
    review_deadline_months: Mapped[int] = mapped_column(Integer, default=4)


class ExternalReview(Base):
    """One external-review request: the twelve form fields, then the rest of the form."""

    __tablename__ = "external_reviews"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    reference_number: Mapped[str | None] = mapped_column(String(24), unique=True, default=None)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("regulator_users.id"), default=None)
    # the twelve fields
    enrollee_name: Mapped[str | None] = mapped_column(String(120), default=None)
    enrollee_dob: Mapped[date | None] = mapped_column(Date, default=None)
    member_id: Mapped[str | None] = mapped_column(String(20), default=None)
    insurer_name: Mapped[str | None] = mapped_column(String(120), default=None)
    plan_name: Mapped[str | None] = mapped_column(String(120), default=None)
    insurer_reference: Mapped[str | None] = mapped_column(String(24), default=None)
    treating_provider_name: Mapped[str | None] = mapped_column(String(120), default=None)
    treating_provider_npi: Mapped[str | None] = mapped_column(String(10), default=None)
    service_requested: Mapped[str | None] = mapped_column(String(200), default=None)
    service_code: Mapped[str | None] = mapped_column(String(10), default=None)
    diagnosis_code: Mapped[str | None] = mapped_column(String(10), default=None)
    final_denial_date: Mapped[date | None] = mapped_column(Date, default=None)
    # the rest of the form (not among the twelve compared fields)
    denial_type: Mapped[str | None] = mapped_column(String(30), default=None)  # medical_necessity
    expedited: Mapped[bool] = mapped_column(Boolean, default=False)
    applicant_name: Mapped[str | None] = mapped_column(String(120), default=None)
    applicant_relationship: Mapped[str | None] = mapped_column(String(40), default=None)
    applicant_phone: Mapped[str | None] = mapped_column(String(20), default=None)
    reason_for_request: Mapped[str] = mapped_column(Text, default="")
    # the rest of the uniform request form as the portal asks it
    applicant_type: Mapped[str | None] = mapped_column(String(30), default=None)  # APPLICANT_TYPES
    applicant_email: Mapped[str | None] = mapped_column(String(120), default=None)
    enrollee_address: Mapped[str | None] = mapped_column(String(200), default=None)
    patient_is_enrollee: Mapped[bool] = mapped_column(Boolean, default=True)
    patient_name: Mapped[str | None] = mapped_column(String(120), default=None)
    patient_dob: Mapped[date | None] = mapped_column(Date, default=None)
    plan_type: Mapped[str | None] = mapped_column(String(30), default=None)  # PLAN_TYPES
    treating_provider_phone: Mapped[str | None] = mapped_column(String(20), default=None)
    other_providers: Mapped[str] = mapped_column(Text, default="")
    expedited_physician: Mapped[str | None] = mapped_column(String(120), default=None)
    expedited_certified: Mapped[bool] = mapped_column(Boolean, default=False)
    release_authorized: Mapped[bool] = mapped_column(Boolean, default=False)
    attest_true: Mapped[bool] = mapped_column(Boolean, default=False)
    signature_name: Mapped[str | None] = mapped_column(String(120), default=None)
    signature_date: Mapped[date | None] = mapped_column(Date, default=None)
    status: Mapped[str] = mapped_column(String(20), default="draft")
    created_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    submitted_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)


class ReviewDocument(UploadedFile, Base):
    """A document uploaded with a request (the filled PDF form, denial letters ...)."""

    __tablename__ = "review_documents"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    review_id: Mapped[int] = mapped_column(ForeignKey("external_reviews.id"))
    document_type: Mapped[str] = mapped_column(String(40), default="other")  # form, denial_letter
    uploaded_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
