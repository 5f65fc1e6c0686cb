"""Patients, users and the address book, organisations, coverage, and shared code lists.

Table and column names are OpenEMR's (``patient_data.pubpid`` is the MRN, ``users`` doubles
as the address book through ``abook_type``, ``list_options`` holds every coded list).
Columns marked *sandbox* have no OpenEMR equivalent.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import ForeignKey, Text
from sqlalchemy.orm import Mapped, mapped_column

from sandbox.stores.ehr._base import Base


class Facility(Base):
    """A clinic or hospital (``facility``); encounters and users point here."""

    __tablename__ = "facility"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str]
    phone: Mapped[str | None]
    fax: Mapped[str | None]
    street: Mapped[str | None]
    city: Mapped[str | None]
    state: Mapped[str | None]
    postal_code: Mapped[str | None]
    country_code: Mapped[str] = mapped_column(default="USA")
    federal_ein: Mapped[str | None]
    facility_npi: Mapped[str | None]
    tax_id_type: Mapped[str] = mapped_column(default="EI")
    pos_code: Mapped[str | None]  # place of service: 11 office, 21 inpatient hospital
    service_location: Mapped[int] = mapped_column(default=1)
    billing_location: Mapped[int] = mapped_column(default=0)
    primary_business_entity: Mapped[int] = mapped_column(default=0)
    color: Mapped[str | None]
    inactive: Mapped[int] = mapped_column(default=0)


class User(Base):
    """A log-in user, a provider, or an address-book entry (``users``).

    OpenEMR keeps external contacts (specialists, labs, imaging centres) in the same table:
    ``username`` is empty and ``abook_type`` says what they are (``spe`` specialist,
    ``ord_lab`` lab, ``ord_img`` imaging, ``external_provider``...). ``authorized=1`` marks a
    provider who can sign.
    """

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    uuid: Mapped[str | None]
    username: Mapped[str | None]  # empty for address-book entries
    fname: Mapped[str | None]
    mname: Mapped[str | None]
    lname: Mapped[str | None]
    suffix: Mapped[str | None]
    title: Mapped[str | None]  # Dr.
    valedictory: Mapped[str | None]  # MD, DO, DPT, RN
    npi: Mapped[str | None]
    taxonomy: Mapped[str | None]
    federaltaxid: Mapped[str | None]  # TIN, e.g. 36-4829175
    specialty: Mapped[str | None]
    organization: Mapped[str | None]
    street: Mapped[str | None]
    city: Mapped[str | None]
    state: Mapped[str | None]
    zip: Mapped[str | None]
    phonew1: Mapped[str | None]
    fax: Mapped[str | None]
    email: Mapped[str | None]
    abook_type: Mapped[str | None]
    authorized: Mapped[int] = mapped_column(default=0)
    active: Mapped[int] = mapped_column(default=1)
    calendar: Mapped[int] = mapped_column(default=0)  # shown as a column in the calendar
    facility_id: Mapped[int | None] = mapped_column(ForeignKey("facility.id"))
    see_auth: Mapped[int] = mapped_column(default=1)
    info: Mapped[str | None] = mapped_column(Text)
    notes: Mapped[str | None] = mapped_column(Text)
    role: Mapped[str | None]  # sandbox: ACL group shown in the UI (Physician, RN, ...)
    network: Mapped[str | None]  # sandbox: payer network status, e.g. "Acme Health in-network"


class UserSecure(Base):
    """Password hashes of log-in users (``users_secure``; see :mod:`.security`)."""

    __tablename__ = "users_secure"

    id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    username: Mapped[str] = mapped_column(unique=True)
    password: Mapped[str]  # pbkdf2_sha256$iterations$salt$hash
    last_update_password: Mapped[dt.datetime | None]
    login_fail_counter: Mapped[int] = mapped_column(default=0)


class Pharmacy(Base):
    """A pharmacy a prescription can be sent to (``pharmacies``; address inlined)."""

    __tablename__ = "pharmacies"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str]
    transmit_method: Mapped[int] = mapped_column(default=1)  # 1 print, 2 email, 3 fax, 4 eRx
    email: Mapped[str | None]
    ncpdp: Mapped[str | None]
    npi: Mapped[str | None]
    street: Mapped[str | None]
    city: Mapped[str | None]
    state: Mapped[str | None]
    zip: Mapped[str | None]
    phone: Mapped[str | None]
    fax: Mapped[str | None]


class InsuranceCompany(Base):
    """A payer (``insurance_companies``); ``cms_id`` is the payer id."""

    __tablename__ = "insurance_companies"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str]
    attn: Mapped[str | None]
    cms_id: Mapped[str | None]
    ins_type_code: Mapped[int | None]
    alt_cms_id: Mapped[str | None]
    inactive: Mapped[int] = mapped_column(default=0)
    phone: Mapped[str | None]
    fax: Mapped[str | None]
    pa_channel: Mapped[str | None]  # sandbox: portal | fax
    pa_fax: Mapped[str | None]  # sandbox
    portal_url: Mapped[str | None]  # sandbox


class PatientData(Base):
    """Demographics (``patient_data``): ``pid`` is the internal id, ``pubpid`` the MRN."""

    __tablename__ = "patient_data"

    id: Mapped[int] = mapped_column(primary_key=True)
    pid: Mapped[int] = mapped_column(unique=True)
    pubpid: Mapped[str] = mapped_column(unique=True)
    uuid: Mapped[str | None]
    title: Mapped[str | None]
    fname: Mapped[str]
    mname: Mapped[str | None]
    lname: Mapped[str]
    DOB: Mapped[dt.date]
    sex: Mapped[str]  # Male | Female
    street: Mapped[str | None]
    city: Mapped[str | None]
    state: Mapped[str | None]
    postal_code: Mapped[str | None]
    country_code: Mapped[str] = mapped_column(default="USA")
    phone_home: Mapped[str | None]
    phone_cell: Mapped[str | None]
    email: Mapped[str | None]
    language: Mapped[str | None]
    race: Mapped[str | None]
    ethnicity: Mapped[str | None]
    status: Mapped[str | None]  # marital status, as in OpenEMR
    contact_relationship: Mapped[str | None]  # emergency contact name
    phone_contact: Mapped[str | None]
    providerID: Mapped[int | None] = mapped_column(ForeignKey("users.id"))  # PCP
    ref_providerID: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    pharmacy_id: Mapped[int | None] = mapped_column(ForeignKey("pharmacies.id"))
    hipaa_notice: Mapped[str | None]
    regdate: Mapped[dt.date | None]
    deceased_date: Mapped[dt.datetime | None]
    care_setting: Mapped[str] = mapped_column(default="outpatient")  # sandbox: | inpatient
    location: Mapped[str | None]  # sandbox: inpatient unit/room/bed, e.g. "4 West 412-A"


class InsuranceData(Base):
    """A patient's coverage (``insurance_data``): ``policy_number`` is the member id."""

    __tablename__ = "insurance_data"

    id: Mapped[int] = mapped_column(primary_key=True)
    pid: Mapped[int] = mapped_column(ForeignKey("patient_data.pid"))
    type: Mapped[str] = mapped_column(default="primary")  # primary | secondary | tertiary
    provider: Mapped[int] = mapped_column(ForeignKey("insurance_companies.id"))
    plan_name: Mapped[str | None]
    policy_number: Mapped[str | None]
    group_number: Mapped[str | None]
    policy_type: Mapped[str | None]  # sandbox use: PPO | HMO | EPO | PBM
    subscriber_lname: Mapped[str | None]
    subscriber_fname: Mapped[str | None]
    subscriber_relationship: Mapped[str] = mapped_column(default="self")
    subscriber_DOB: Mapped[dt.date | None]
    subscriber_sex: Mapped[str | None]
    date: Mapped[dt.date | None]  # effective date
    date_end: Mapped[dt.date | None]
    accept_assignment: Mapped[str] = mapped_column(default="TRUE")


class ListOption(Base):
    """One option of a coded list (``list_options``): reactions, severities, routes..."""

    __tablename__ = "list_options"

    list_id: Mapped[str] = mapped_column(primary_key=True)
    option_id: Mapped[str] = mapped_column(primary_key=True)
    title: Mapped[str]
    seq: Mapped[int] = mapped_column(default=0)
    is_default: Mapped[int] = mapped_column(default=0)
    option_value: Mapped[float] = mapped_column(default=0.0)
    mapping: Mapped[str | None]
    notes: Mapped[str | None] = mapped_column(Text)
    codes: Mapped[str | None]  # e.g. SNOMED-CT:39579001
    activity: Mapped[int] = mapped_column(default=1)


class Code(Base):
    """A code of a code system the EHR validates against (``codes``; CVX, CPT4, HCPCS)."""

    __tablename__ = "codes"

    id: Mapped[int] = mapped_column(primary_key=True)
    code_type: Mapped[str]  # CVX | CPT4 | HCPCS
    code: Mapped[str]
    code_text: Mapped[str]
    code_text_short: Mapped[str | None]
    units: Mapped[str | None]  # HCPCS billing unit, e.g. "1 mg"
    active: Mapped[int] = mapped_column(default=1)


class Global(Base):
    """An administration setting (``globals``), e.g. ``rest_fhir_api`` on/off."""

    __tablename__ = "globals"

    gl_name: Mapped[str] = mapped_column(primary_key=True)
    gl_index: Mapped[int] = mapped_column(primary_key=True, default=0)
    gl_value: Mapped[str]


class OAuthClient(Base):
    """A registered API client (``oauth_clients``) for the FHIR R4 API."""

    __tablename__ = "oauth_clients"

    client_id: Mapped[str] = mapped_column(primary_key=True)
    client_role: Mapped[str] = mapped_column(default="system")
    client_name: Mapped[str]
    client_secret: Mapped[str]  # a hash (see .security), never the plain secret
    grant_types: Mapped[str] = mapped_column(default="client_credentials")
    scope: Mapped[str] = mapped_column(Text)
    token_endpoint_auth_method: Mapped[str] = mapped_column(default="client_secret_post")
    is_enabled: Mapped[int] = mapped_column(default=1)
    register_date: Mapped[dt.datetime | None]
