"""The clinic's prior-authorization desk, which OpenEMR lacks: tasks, worklists, authorizations.

``prior_authorizations`` keeps the columns of OpenEMR's prior-authorization module
(``auth_num``, ``start_date``, ``end_date``, ``cpt``, ``init_units``, ``remaining_units``)
plus what a PA coordinator records from the payer: status, payer, portal case reference,
decision date and units approved.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import ForeignKey, Text
from sqlalchemy.orm import Mapped, mapped_column

from sandbox.stores.ehr._base import Base


class EhrTask(Base):
    """A task addressed to a user (a provider's to-do), optionally about a patient."""

    __tablename__ = "ehr_tasks"

    id: Mapped[int] = mapped_column(primary_key=True)
    pid: Mapped[int | None] = mapped_column(ForeignKey("patient_data.pid"))
    assigned_to: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    subject: Mapped[str]
    body: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(default="Open")  # Open | In progress | Pending info | Done
    priority: Mapped[str] = mapped_column(default="Normal")  # Normal | High
    reference: Mapped[str | None]  # e.g. a payer portal reference number
    due_date: Mapped[dt.date | None]
    created: Mapped[dt.datetime]
    updated: Mapped[dt.datetime | None]


class PaWorklist(Base):
    """A named prior-authorization worklist ("PA Pending", "PA Today")."""

    __tablename__ = "pa_worklists"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(unique=True)
    description: Mapped[str | None] = mapped_column(Text)
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))


class PriorAuthorization(Base):
    """An authorization record on the patient's chart."""

    __tablename__ = "prior_authorizations"

    id: Mapped[int] = mapped_column(primary_key=True)
    pid: Mapped[int] = mapped_column(ForeignKey("patient_data.pid"))
    date: Mapped[dt.datetime]  # record created
    payer_id: Mapped[int | None] = mapped_column(ForeignKey("insurance_companies.id"))
    service: Mapped[str | None]  # "MRI lumbar spine without contrast"
    cpt: Mapped[str | None]  # CPT or HCPCS code
    diagnosis: Mapped[str | None]  # ICD10:M54.16;ICD10:M51.26
    provider_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))  # ordering
    status: Mapped[str] = mapped_column(default="Not submitted")
    # Not submitted | Submitted | Pended | Approved | Partially approved | Denied | Cancelled
    portal_reference: Mapped[str | None]  # the payer's case/reference number
    submitted_date: Mapped[dt.date | None]
    decision_date: Mapped[dt.date | None]
    auth_num: Mapped[str | None]
    start_date: Mapped[dt.date | None]
    end_date: Mapped[dt.date | None]
    init_units: Mapped[int | None]  # units requested / initially authorized
    units_approved: Mapped[int | None]
    remaining_units: Mapped[int | None]
    notes: Mapped[str | None] = mapped_column(Text)
    updated: Mapped[dt.datetime | None]
    updated_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))


class PaWorklistItem(Base):
    """One case on a worklist, in worklist order (``seq``)."""

    __tablename__ = "pa_worklist_items"

    id: Mapped[int] = mapped_column(primary_key=True)
    worklist_id: Mapped[int] = mapped_column(ForeignKey("pa_worklists.id"))
    seq: Mapped[int]
    pid: Mapped[int] = mapped_column(ForeignKey("patient_data.pid"))
    service: Mapped[str]
    cpt: Mapped[str | None]  # CPT, HCPCS or drug code
    category: Mapped[str | None]  # imaging | DME | specialty drug | procedure ...
    diagnosis: Mapped[str | None]
    place_of_service: Mapped[str | None]
    date_of_service: Mapped[dt.date | None]
    payer_id: Mapped[int | None] = mapped_column(ForeignKey("insurance_companies.id"))
    provider_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    authorization_id: Mapped[int | None] = mapped_column(ForeignKey("prior_authorizations.id"))
    status: Mapped[str] = mapped_column(default="New")  # New | In progress | Pending info | Done
    outcome: Mapped[str | None]  # submitted | no PA needed | held | approved | denied | pended
    reference: Mapped[str | None]
    note: Mapped[str | None] = mapped_column(Text)
    updated: Mapped[dt.datetime | None]
    updated_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
