"""Referrals, documents, messages, the calendar and the access log.

A referral is a ``transactions`` row with ``title='LBTref'``; its fields (``refer_to``,
``body`` = reason, ``refer_urgency`` ...) are ``lbt_data`` rows defined by the ``LBTref``
layout in ``layout_options``. Documents keep their bytes in ``documents.document_data`` and
are filed through ``categories_to_documents``.
"""

from __future__ import annotations

import datetime as dt
import hashlib

from sqlalchemy import ForeignKey, LargeBinary, Text
from sqlalchemy.orm import Mapped, mapped_column, validates

from sandbox.stores.ehr._base import Base


class Transaction(Base):
    """A patient transaction (``transactions``); ``title`` is the layout (``LBTref``)."""

    __tablename__ = "transactions"

    id: Mapped[int] = mapped_column(primary_key=True)
    date: Mapped[dt.datetime]
    title: Mapped[str]
    pid: Mapped[int] = mapped_column(ForeignKey("patient_data.pid"))
    user: Mapped[str | None]
    groupname: Mapped[str] = mapped_column(default="Default")
    authorized: Mapped[int] = mapped_column(default=1)


class LbtData(Base):
    """One field value of a transaction (``lbt_data``), e.g. ``refer_to`` = users.id."""

    __tablename__ = "lbt_data"

    form_id: Mapped[int] = mapped_column(ForeignKey("transactions.id"), primary_key=True)
    field_id: Mapped[str] = mapped_column(primary_key=True)
    field_value: Mapped[str | None] = mapped_column(Text)


class Category(Base):
    """A document category (``categories``), nested by ``parent``."""

    __tablename__ = "categories"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str]
    value: Mapped[str | None]
    parent: Mapped[int] = mapped_column(default=0)
    lft: Mapped[int] = mapped_column(default=0)
    rght: Mapped[int] = mapped_column(default=0)
    aco_spec: Mapped[str] = mapped_column(default="patients|docs")
    codes: Mapped[str | None]


class Document(Base):
    """A stored document (``documents``): bytes, hash and type, filed under a category.

    ``foreign_id`` is the patient's pid; ``hash`` is the sha256 of ``document_data`` (kept
    true to the bytes on every assignment, so seeds omit it); ``docdate`` is the clinical date
    of the document (not the upload time).
    """

    __tablename__ = "documents"

    id: Mapped[int] = mapped_column(primary_key=True)
    uuid: Mapped[str | None]
    type: Mapped[str] = mapped_column(default="file_url")
    size: Mapped[int | None]
    date: Mapped[dt.datetime]  # uploaded
    url: Mapped[str | None]
    mimetype: Mapped[str] = mapped_column(default="application/pdf")
    pages: Mapped[int | None]
    owner: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    revision: Mapped[dt.datetime | None]
    foreign_id: Mapped[int] = mapped_column(ForeignKey("patient_data.pid"))
    docdate: Mapped[dt.date | None]
    hash: Mapped[str | None]
    list_id: Mapped[int] = mapped_column(default=0)
    name: Mapped[str]  # file name shown in the document tree
    encounter_id: Mapped[int | None] = mapped_column(ForeignKey("form_encounter.encounter"))
    deleted: Mapped[int] = mapped_column(default=0)
    document_data: Mapped[bytes | None] = mapped_column(LargeBinary)
    description: Mapped[str | None] = mapped_column(Text)  # sandbox: note shown with it

    @validates("document_data")
    def _keep_hash(self, _key: str, data: bytes | None) -> bytes | None:
        """Keep ``hash`` and ``size`` true to the stored bytes."""
        self.hash = None if data is None else hashlib.sha256(data).hexdigest()
        self.size = None if data is None else len(data)
        return data


class CategoryToDocument(Base):
    """Files a document under a category (``categories_to_documents``)."""

    __tablename__ = "categories_to_documents"

    category_id: Mapped[int] = mapped_column(ForeignKey("categories.id"), primary_key=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id"), primary_key=True)


class Pnote(Base):
    """A message between users, optionally about a patient (``pnotes``).

    ``title`` is a ``note_type`` option (e.g. "Prior Auth"), ``assigned_to`` a username,
    ``message_status`` New | Read | Forwarded | Done.
    """

    __tablename__ = "pnotes"

    id: Mapped[int] = mapped_column(primary_key=True)
    date: Mapped[dt.datetime]
    body: Mapped[str] = mapped_column(Text)
    pid: Mapped[int | None] = mapped_column(ForeignKey("patient_data.pid"))
    user: Mapped[str | None]  # sender username
    groupname: Mapped[str] = mapped_column(default="Default")
    activity: Mapped[int] = mapped_column(default=1)
    authorized: Mapped[int] = mapped_column(default=0)
    title: Mapped[str] = mapped_column(default="Unassigned")
    assigned_to: Mapped[str | None]  # recipient username
    deleted: Mapped[int] = mapped_column(default=0)
    message_status: Mapped[str] = mapped_column(default="New")
    update_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    update_date: Mapped[dt.datetime | None]


class CalendarCategory(Base):
    """An appointment category (``openemr_postcalendar_categories``)."""

    __tablename__ = "openemr_postcalendar_categories"

    pc_catid: Mapped[int] = mapped_column(primary_key=True)
    pc_constant_id: Mapped[str | None]
    pc_catname: Mapped[str]
    pc_catcolor: Mapped[str | None]
    pc_catdesc: Mapped[str | None] = mapped_column(Text)
    pc_duration: Mapped[int] = mapped_column(default=900)  # seconds
    pc_cattype: Mapped[int] = mapped_column(default=0)  # 0 patient, 1 provider, 2 clinic
    pc_active: Mapped[int] = mapped_column(default=1)
    pc_seq: Mapped[int] = mapped_column(default=0)


class CalendarEvent(Base):
    """An appointment or provider event (``openemr_postcalendar_events``).

    ``pc_aid`` is the provider's users.id, ``pc_pid`` the patient's pid (OpenEMR keeps both
    as text; integers here), ``pc_hometext`` the comment (where a confirmation goes).
    """

    __tablename__ = "openemr_postcalendar_events"

    pc_eid: Mapped[int] = mapped_column(primary_key=True)
    pc_catid: Mapped[int] = mapped_column(ForeignKey("openemr_postcalendar_categories.pc_catid"))
    pc_aid: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    pc_pid: Mapped[int | None] = mapped_column(ForeignKey("patient_data.pid"))
    pc_title: Mapped[str]
    pc_time: Mapped[dt.datetime | None]  # when the event was created
    pc_hometext: Mapped[str | None] = mapped_column(Text)
    pc_informant: Mapped[str | None]  # creating user id, as text in OpenEMR
    pc_eventDate: Mapped[dt.date]
    pc_endDate: Mapped[dt.date | None]
    pc_duration: Mapped[int] = mapped_column(default=900)  # seconds
    pc_recurrtype: Mapped[int] = mapped_column(default=0)
    pc_startTime: Mapped[dt.time | None]
    pc_endTime: Mapped[dt.time | None]
    pc_alldayevent: Mapped[int] = mapped_column(default=0)
    pc_location: Mapped[str | None]
    pc_eventstatus: Mapped[int] = mapped_column(default=1)
    pc_sharing: Mapped[int] = mapped_column(default=1)
    pc_apptstatus: Mapped[str] = mapped_column(default="-")  # apptstat option id
    pc_facility: Mapped[int | None] = mapped_column(ForeignKey("facility.id"))
    pc_room: Mapped[str | None]


class Log(Base):
    """The access/audit view users see (``log``): record views, document views, logins.

    Separate from the store's hash-chained ``audit_log``: this is what the application
    itself reports (reads included), as OpenEMR's ``log`` table does.
    """

    __tablename__ = "log"

    id: Mapped[int] = mapped_column(primary_key=True)
    date: Mapped[dt.datetime]
    event: Mapped[str]  # login | logout | patient-record-select | document-view | ...
    category: Mapped[str | None]
    user: Mapped[str | None]
    groupname: Mapped[str | None]
    comments: Mapped[str | None] = mapped_column(Text)
    user_notes: Mapped[str | None] = mapped_column(Text)
    patient_id: Mapped[int | None] = mapped_column(ForeignKey("patient_data.pid"))
    success: Mapped[int] = mapped_column(default=1)
    log_from: Mapped[str] = mapped_column(default="open-emr")
    document_id: Mapped[int | None] = mapped_column(ForeignKey("documents.id"))  # sandbox
