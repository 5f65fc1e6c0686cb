"""The acme store: Acme Health's provider portal, its DME portal and its X12 278 API.

One SQLite file backs three front doors (the portal site, the DME site, the 278 endpoint),
because they are one payer's records: a case submitted through the API shows up in the
portal's case list. Every request a provider sends the payer is a row of ``pa_cases``
(``case_type`` says which kind); the kinds with extra facts have a 1:1 detail table keyed
by ``case_id``: ``admission_notifications``, ``auth_extensions``, ``network_exceptions``,
``dme_orders``. The service itself (code, units, date range, place of service, diagnosis
codes, requesting/rendering provider) always lives on the case row, so one status page,
one reference-number scheme and one attachment link serve every kind.

Where the identifiers are: ``members.member_number`` is the payer's member ID (``ACM`` + 9
digits; ``member_id`` columns elsewhere are foreign keys to ``members.id``);
``pa_cases.reference_number`` / ``appeals.reference_number`` / ``p2p_requests.
confirmation_number`` / ``claim_corrections.reference_number`` are what the office records
in the EHR; ``pa_cases.auth_number`` is the authorization number of an approval.

Conventions (verifiers and portals rely on them):
- times are naive sandbox-local ``DateTime``; calendar facts are ``Date``;
- money is integer cents (exact; SQLite has no decimal type);
- ``icd10_codes`` is the codes in entered order, upper case with the dot, joined by ``,``
  without spaces (``M51.16,M54.16``); the first is the primary diagnosis;
- a multi-choice answer is its option values sorted and joined by ``|``;
- status values are the lower-case tokens in the ``*_STATUSES`` tuples below; the portal
  shows them through ``STATUS_LABELS``;
- timestamps have no default: the writer sets them from the sandbox clock, seeds give them.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from sandbox.stores.base import UploadedFile, system_metadata


class Base(DeclarativeBase):
    metadata = system_metadata("acme")

CASE_TYPES = (
    "outpatient",              # procedures, imaging, therapy visits (pa-01, -03, -05, -10, -19)
    "inpatient_notification",  # admission notification / retro authorization (pa-08)
    "pharmacy",                # medical-benefit or PBM drug request (pa-09)
    "dme",                     # DME order with CMN (pa-04, DME portal)
    "extension",               # more units on an existing authorization (pa-13)
    "network_exception",       # out-of-network gap exception (pa-16)
)
CASE_STATUSES = (
    "draft", "submitted", "in_review", "pended", "approved", "partially_approved",
    "denied", "rejected", "cancelled",
)
APPEAL_STATUSES = (
    "draft", "submitted", "in_review", "upheld", "overturned", "partially_overturned",
    "dismissed",
)
CLAIM_STATUSES = ("received", "in_process", "paid", "partially_paid", "denied", "adjusted", "voided")
STATUS_LABELS = {
    "draft": "Draft", "submitted": "Submitted", "in_review": "In review", "pended": "Pended",
    "approved": "Approved", "partially_approved": "Partially approved", "denied": "Denied",
    "rejected": "Rejected", "cancelled": "Cancelled", "upheld": "Denial upheld",
    "overturned": "Overturned", "partially_overturned": "Partially overturned",
    "dismissed": "Dismissed", "received": "Received", "in_process": "In process",
    "paid": "Paid", "partially_paid": "Partially paid", "adjusted": "Adjusted",
    "voided": "Voided", "open": "Open", "booked": "Booked", "scheduled": "Scheduled",
}
# X12 278 HCR01 action codes for the statuses that carry a decision.
X12_ACTION_CODES = {
    "approved": "A1", "partially_approved": "A2", "denied": "A3", "pended": "A4",
    "in_review": "A4", "cancelled": "C",
}
DOCUMENT_TYPES = (
    "clinical_note", "progress_note", "history_and_physical", "imaging_report", "lab_result",
    "therapy_note", "plan_of_care", "letter_of_medical_necessity", "appeal_letter",
    "dosimetry_plan", "medical_literature", "face_to_face_note", "mobility_assessment",
    "home_assessment", "prescription", "network_search", "claim_form", "other",
)


# -- configuration and reference data ----------------------------------------------------
# Portal behaviour switches; a ``portal_settings`` row overrides the default. pa-19 seeds
# ``session.expire_at_step = attachments`` for one member's request.
PORTAL_SETTING_DEFAULTS = {
    "session.idle_timeout_minutes": "30",
    "session.expire_at_step": "",      # wizard step at which the session is expired, once
    "session.expire_for_member": "",   # member number that expiry applies to (empty: any)
    "drafts.autosave": "true",         # save the draft case as each wizard step completes
    "cases.submitted_status": "in_review",  # status a case takes when submitted
}


class PortalSetting(Base):
    """A switch of the portal's behaviour (keys and defaults: ``PORTAL_SETTING_DEFAULTS``)."""

    __tablename__ = "portal_settings"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(64), unique=True)
    value: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")


class Plan(Base):
    __tablename__ = "plans"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    plan_key: Mapped[str] = mapped_column(String(40), unique=True)  # roster key
    name: Mapped[str] = mapped_column(String(100))
    plan_type: Mapped[str] = mapped_column(String(10))  # PPO, HMO, PBM
    payer_name: Mapped[str] = mapped_column(String(100), default="Acme Health")
    payer_id: Mapped[str] = mapped_column(String(20), default="ACME1")
    group_number: Mapped[str | None] = mapped_column(String(20), default=None)
    rx_bin: Mapped[str | None] = mapped_column(String(10), default=None)
    rx_pcn: Mapped[str | None] = mapped_column(String(20), default=None)


class Member(Base):
    __tablename__ = "members"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    member_number: Mapped[str] = mapped_column(String(20), unique=True)  # ACM + 9 digits
    last_name: Mapped[str] = mapped_column(String(60))
    first_name: Mapped[str] = mapped_column(String(60))
    dob: Mapped[date] = mapped_column(Date)
    sex: Mapped[str] = mapped_column(String(10))
    plan_id: Mapped[int] = mapped_column(ForeignKey("plans.id"))
    coverage_start: Mapped[date] = mapped_column(Date)
    coverage_end: Mapped[date | None] = mapped_column(Date, default=None)
    address: Mapped[str] = mapped_column(String(200), default="")
    phone: Mapped[str] = mapped_column(String(20), default="")
    roster_key: Mapped[str] = mapped_column(String(40), default="")


class Provider(Base):
    """A provider in Acme's directory (network status decides exception requests)."""

    __tablename__ = "providers"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    npi: Mapped[str] = mapped_column(String(10), unique=True)
    last_name: Mapped[str] = mapped_column(String(60))
    first_name: Mapped[str] = mapped_column(String(60), default="")
    organization: Mapped[str] = mapped_column(String(120), default="")
    credential: Mapped[str] = mapped_column(String(20), default="")
    specialty: Mapped[str] = mapped_column(String(80), default="")
    taxonomy: Mapped[str] = mapped_column(String(10))
    tin: Mapped[str] = mapped_column(String(10))
    network_status: Mapped[str] = mapped_column(String(12))  # in_network, out_of_network
    address: Mapped[str] = mapped_column(String(200), default="")
    city: Mapped[str] = mapped_column(String(60), default="")
    state: Mapped[str] = mapped_column(String(2), default="")
    zip: Mapped[str] = mapped_column(String(10), default="")
    phone: Mapped[str] = mapped_column(String(20), default="")
    roster_key: Mapped[str] = mapped_column(String(40), default="")


class PortalUser(Base):
    """A provider-office log-in (credentials reach the agent only through task files)."""

    __tablename__ = "portal_users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(60), unique=True)
    password_sha256: Mapped[str] = mapped_column(String(64))
    display_name: Mapped[str] = mapped_column(String(100))
    organization: Mapped[str] = mapped_column(String(120))
    organization_tin: Mapped[str] = mapped_column(String(10))
    organization_npi: Mapped[str] = mapped_column(String(10))
    role: Mapped[str] = mapped_column(String(40), default="office_staff")
    sites: Mapped[str] = mapped_column(String(40), default="provider,dme")  # portals it may use
    active: Mapped[bool] = mapped_column(Boolean, default=True)


class ApiClient(Base):
    """An X12 278 API credential (only the control-pair task hands one out)."""

    __tablename__ = "api_clients"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    client_id: Mapped[str] = mapped_column(String(60), unique=True)
    secret_sha256: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(100))
    organization_npi: Mapped[str] = mapped_column(String(10))
    organization_tin: Mapped[str] = mapped_column(String(10))
    scopes: Mapped[str] = mapped_column(String(200), default="278 275 status")
    active: Mapped[bool] = mapped_column(Boolean, default=True)


class Policy(Base):
    """A policy page; appeal deadlines are read from the structured columns (pa-17)."""

    __tablename__ = "policies"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    policy_key: Mapped[str] = mapped_column(String(60), unique=True)
    payer_name: Mapped[str] = mapped_column(String(100), default="Acme Health")
    category: Mapped[str] = mapped_column(String(30))  # appeals, prior_auth, notification, ...
    title: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)  # Markdown shown on the page
    appeal_level: Mapped[int | None] = mapped_column(Integer, default=None)
    deadline_days: Mapped[int | None] = mapped_column(Integer, default=None)
    deadline_unit: Mapped[str | None] = mapped_column(String(20), default=None)  # calendar/business
    deadline_basis: Mapped[str | None] = mapped_column(String(120), default=None)
    effective_from: Mapped[date] = mapped_column(Date)


# -- PA requirement lookup (pa-06, pa-14) ------------------------------------------------
RULE_DETERMINATIONS = ("required", "not_required", "notification_only", "delegated",
                       "not_covered")


class PaRule(Base):
    """Whether a code needs prior authorization under a plan.

    ``place_of_service`` None applies to every place; a row with a specific place wins over
    it (see :func:`match_rule`). ``submit_via`` tells the office where a request goes.
    ``determination`` refines ``requires_pa`` where the answer is neither plain yes nor no
    (see :func:`rule_determination`); ``units_threshold`` is the number of units a member
    may receive without authorization (more units need one).
    """

    __tablename__ = "pa_rules"
    __table_args__ = (UniqueConstraint("plan_id", "code", "place_of_service"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    rule_id: Mapped[str] = mapped_column(String(20), unique=True)
    plan_id: Mapped[int] = mapped_column(ForeignKey("plans.id"))
    code: Mapped[str] = mapped_column(String(10))
    code_type: Mapped[str] = mapped_column(String(8))  # CPT, HCPCS
    description: Mapped[str] = mapped_column(String(200))  # our own wording
    place_of_service: Mapped[str | None] = mapped_column(String(2), default=None)
    requires_pa: Mapped[bool] = mapped_column(Boolean)
    submit_via: Mapped[str] = mapped_column(String(20), default="portal")  # portal, dme_portal
    documentation: Mapped[str] = mapped_column(Text, default="")
    notes: Mapped[str] = mapped_column(Text, default="")
    effective_from: Mapped[date] = mapped_column(Date)
    effective_to: Mapped[date | None] = mapped_column(Date, default=None)
    determination: Mapped[str | None] = mapped_column(String(20), default=None)
    delegated_vendor: Mapped[str | None] = mapped_column(String(120), default=None)
    units_threshold: Mapped[int | None] = mapped_column(Integer, default=None)


def rule_determination(rule: PaRule, units: int | None = None) -> str:
    """One of ``RULE_DETERMINATIONS`` for a lookup of ``units`` under ``rule``.

    A rule without ``determination`` answers ``required``/``not_required`` from
    ``requires_pa``; a units threshold makes a request of at most that many units
    ``not_required``.
    """
    if rule.determination:
        return rule.determination
    if rule.requires_pa and rule.units_threshold is not None and units is not None \
            and units <= rule.units_threshold:
        return "not_required"
    return "required" if rule.requires_pa else "not_required"


def match_rule(rules: list[PaRule], code: str, place_of_service: str | None) -> PaRule | None:
    """The rule that answers a lookup: the code's place-specific row, else its any-place row."""
    code = code.strip().upper()
    candidates = [r for r in rules if r.code.upper() == code]
    for rule in candidates:
        if place_of_service and rule.place_of_service == place_of_service:
            return rule
    for rule in candidates:
        if rule.place_of_service is None:
            return rule
    return None


class RuleLookup(Base):
    """One lookup made in the portal (so a verifier can see that it was made)."""

    __tablename__ = "rule_lookups"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    portal_user_id: Mapped[int | None] = mapped_column(ForeignKey("portal_users.id"), default=None)
    api_client_id: Mapped[int | None] = mapped_column(ForeignKey("api_clients.id"), default=None)
    plan_id: Mapped[int] = mapped_column(ForeignKey("plans.id"))
    code: Mapped[str] = mapped_column(String(10))
    place_of_service: Mapped[str | None] = mapped_column(String(2), default=None)
    matched_rule_id: Mapped[str | None] = mapped_column(String(20), default=None)
    requires_pa: Mapped[bool | None] = mapped_column(Boolean, default=None)  # None: no rule
    looked_up_at: Mapped[datetime] = mapped_column(DateTime)
    units: Mapped[int | None] = mapped_column(Integer, default=None)
    determination: Mapped[str | None] = mapped_column(String(20), default=None)  # as shown


# -- questionnaires ----------------------------------------------------------------------
class PaQuestionnaire(Base):
    __tablename__ = "pa_questionnaires"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    questionnaire_key: Mapped[str] = mapped_column(String(40), unique=True)
    title: Mapped[str] = mapped_column(String(200))
    service_category: Mapped[str] = mapped_column(String(40))
    codes: Mapped[str] = mapped_column(String(200))  # codes it applies to, comma-separated
    version: Mapped[str] = mapped_column(String(20), default="2026.1")


class PaQuestion(Base):
    """One question; it shows only when ``enable_question_key`` ``enable_operator``
    ``enable_value`` holds (FHIR enableWhen semantics). Further conditions are rows of
    ``pa_question_conditions``; ``enable_behavior`` says whether all or any must hold."""

    __tablename__ = "pa_questions"
    __table_args__ = (UniqueConstraint("questionnaire_id", "question_key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    questionnaire_id: Mapped[int] = mapped_column(ForeignKey("pa_questionnaires.id"))
    question_key: Mapped[str] = mapped_column(String(40))
    position: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    # boolean, choice, multi_choice, integer, decimal, date, text, icd10
    answer_type: Mapped[str] = mapped_column(String(16))
    options: Mapped[str] = mapped_column(Text, default="")  # "value=Label" lines
    required: Mapped[bool] = mapped_column(Boolean, default=True)
    unit: Mapped[str] = mapped_column(String(20), default="")
    help_text: Mapped[str] = mapped_column(Text, default="")
    enable_question_key: Mapped[str | None] = mapped_column(String(40), default=None)
    enable_operator: Mapped[str | None] = mapped_column(String(8), default=None)
    enable_value: Mapped[str | None] = mapped_column(String(100), default=None)
    enable_behavior: Mapped[str] = mapped_column(String(3), default="all")  # all, any


class PaQuestionCondition(Base):
    """A further enableWhen condition of a question (beside its inline one)."""

    __tablename__ = "pa_question_conditions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    question_id: Mapped[int] = mapped_column(ForeignKey("pa_questions.id"))
    enable_question_key: Mapped[str] = mapped_column(String(40))
    enable_operator: Mapped[str] = mapped_column(String(8))
    enable_value: Mapped[str] = mapped_column(String(100), default="")


class PaDecisionRule(Base):
    """How Acme decides a new request some sandbox minutes after it is submitted.

    The portal shows the decision once the time has passed without writing it, so what a
    submission stored stays as submitted. A rule matches on any of plan, case type and
    service code (None matches everything); the lowest ``priority`` that matches applies.
    """

    __tablename__ = "pa_decision_rules"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    priority: Mapped[int] = mapped_column(Integer, default=100)
    plan_id: Mapped[int | None] = mapped_column(ForeignKey("plans.id"), default=None)
    case_type: Mapped[str | None] = mapped_column(String(24), default=None)
    service_code: Mapped[str | None] = mapped_column(String(10), default=None)
    after_minutes: Mapped[int] = mapped_column(Integer)
    outcome: Mapped[str] = mapped_column(String(20))  # approved, partially_approved, denied, pended
    approved_units_percent: Mapped[int] = mapped_column(Integer, default=100)
    reason_code: Mapped[str | None] = mapped_column(String(12), default=None)
    reason: Mapped[str] = mapped_column(Text, default="")
    reviewer_name: Mapped[str] = mapped_column(String(120), default="Acme Utilization Management")


# -- cases -------------------------------------------------------------------------------
class PaCase(Base):
    """A request to the payer, from draft to decision (see the module docstring)."""

    __tablename__ = "pa_cases"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    reference_number: Mapped[str | None] = mapped_column(String(24), unique=True, default=None)
    case_type: Mapped[str] = mapped_column(String(24), default="outpatient")
    status: Mapped[str] = mapped_column(String(20), default="draft")
    urgency: Mapped[str] = mapped_column(String(12), default="standard")  # standard, expedited
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    plan_id: Mapped[int | None] = mapped_column(ForeignKey("plans.id"), default=None)
    questionnaire_id: Mapped[int | None] = mapped_column(
        ForeignKey("pa_questionnaires.id"), default=None)
    parent_case_id: Mapped[int | None] = mapped_column(ForeignKey("pa_cases.id"), default=None)
    # providers
    requesting_npi: Mapped[str | None] = mapped_column(String(10), default=None)
    requesting_name: Mapped[str | None] = mapped_column(String(120), default=None)
    requesting_taxonomy: Mapped[str | None] = mapped_column(String(10), default=None)
    requesting_tin: Mapped[str | None] = mapped_column(String(10), default=None)
    rendering_npi: Mapped[str | None] = mapped_column(String(10), default=None)
    rendering_name: Mapped[str | None] = mapped_column(String(120), default=None)
    rendering_taxonomy: Mapped[str | None] = mapped_column(String(10), default=None)
    rendering_tin: Mapped[str | None] = mapped_column(String(10), default=None)
    facility_npi: Mapped[str | None] = mapped_column(String(10), default=None)
    facility_name: Mapped[str | None] = mapped_column(String(120), default=None)
    # service
    service_code_type: Mapped[str | None] = mapped_column(String(8), default=None)  # CPT, HCPCS
    service_code: Mapped[str | None] = mapped_column(String(10), default=None)
    service_modifier: Mapped[str | None] = mapped_column(String(8), default=None)
    service_description: Mapped[str | None] = mapped_column(String(200), default=None)
    units: Mapped[int | None] = mapped_column(Integer, default=None)
    unit_type: Mapped[str | None] = mapped_column(String(12), default=None)  # units, visits, days
    service_from: Mapped[date | None] = mapped_column(Date, default=None)
    service_to: Mapped[date | None] = mapped_column(Date, default=None)
    place_of_service: Mapped[str | None] = mapped_column(String(2), default=None)
    icd10_codes: Mapped[str | None] = mapped_column(String(200), default=None)
    # drug requests (pharmacy)
    drug_name: Mapped[str | None] = mapped_column(String(120), default=None)
    drug_strength: Mapped[str | None] = mapped_column(String(60), default=None)
    drug_ndc: Mapped[str | None] = mapped_column(String(13), default=None)
    drug_quantity: Mapped[str | None] = mapped_column(String(30), default=None)
    days_supply: Mapped[int | None] = mapped_column(Integer, default=None)
    drug_sig: Mapped[str | None] = mapped_column(String(200), default=None)
    clinical_summary: Mapped[str] = mapped_column(Text, default="")
    # lifecycle
    wizard_step: Mapped[str | None] = mapped_column(String(20), default=None)  # while a draft
    revision: Mapped[int] = mapped_column(Integer, default=0)  # +1 on each edit-and-resubmit
    submitted_via: Mapped[str | None] = mapped_column(String(10), default=None)  # portal, x12
    created_by: Mapped[str | None] = mapped_column(String(60), default=None)
    created_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    updated_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    submitted_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    decision_due_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    # decision
    decision_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    auth_number: Mapped[str | None] = mapped_column(String(20), default=None)
    approved_units: Mapped[int | None] = mapped_column(Integer, default=None)
    approved_from: Mapped[date | None] = mapped_column(Date, default=None)
    approved_to: Mapped[date | None] = mapped_column(Date, default=None)
    units_used: Mapped[int | None] = mapped_column(Integer, default=None)  # payer's utilization
    denial_code: Mapped[str | None] = mapped_column(String(12), default=None)
    denial_reason: Mapped[str | None] = mapped_column(Text, default=None)
    pend_reason: Mapped[str | None] = mapped_column(Text, default=None)
    rejection_code: Mapped[str | None] = mapped_column(String(12), default=None)
    rejection_reason: Mapped[str | None] = mapped_column(Text, default=None)
    reviewer_name: Mapped[str | None] = mapped_column(String(120), default=None)


class PaAnswer(Base):
    """An answer to one questionnaire question of a case (text form; see module docstring)."""

    __tablename__ = "pa_answers"
    __table_args__ = (UniqueConstraint("case_id", "question_key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    case_id: Mapped[int] = mapped_column(ForeignKey("pa_cases.id"))
    question_id: Mapped[int | None] = mapped_column(ForeignKey("pa_questions.id"), default=None)
    question_key: Mapped[str] = mapped_column(String(40))
    answer: Mapped[str] = mapped_column(Text)
    answered_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)


class PaDraft(Base):
    """Autosaved wizard state of a draft case, kept so a user can resume after a timeout."""

    __tablename__ = "pa_drafts"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    case_id: Mapped[int] = mapped_column(ForeignKey("pa_cases.id"), unique=True)
    portal_user_id: Mapped[int | None] = mapped_column(ForeignKey("portal_users.id"), default=None)
    wizard_step: Mapped[str] = mapped_column(String(20))
    form_state: Mapped[str] = mapped_column(Text, default="{}")  # JSON of unsaved page fields
    saved_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    session_expired: Mapped[bool] = mapped_column(Boolean, default=False)


class Attachment(UploadedFile, Base):
    """A document attached to exactly one case, appeal or claim correction."""

    __tablename__ = "attachments"
    __table_args__ = (CheckConstraint(
        "(case_id IS NOT NULL) + (appeal_id IS NOT NULL) + (correction_id IS NOT NULL) = 1",
        name="attachment_has_one_owner"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    case_id: Mapped[int | None] = mapped_column(ForeignKey("pa_cases.id"), default=None)
    appeal_id: Mapped[int | None] = mapped_column(ForeignKey("appeals.id"), default=None)
    correction_id: Mapped[int | None] = mapped_column(
        ForeignKey("claim_corrections.id"), default=None)
    document_type: Mapped[str] = mapped_column(String(40), default="other")
    description: Mapped[str] = mapped_column(String(200), default="")
    uploaded_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    uploaded_by: Mapped[str | None] = mapped_column(String(60), default=None)


class AdmissionNotification(Base):
    """Inpatient admission facts of an ``inpatient_notification`` case (pa-08)."""

    __tablename__ = "admission_notifications"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    case_id: Mapped[int] = mapped_column(ForeignKey("pa_cases.id"), unique=True)
    admit_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    admission_type: Mapped[str | None] = mapped_column(String(12), default=None)  # emergency...
    admission_source: Mapped[str | None] = mapped_column(String(30), default=None)
    attending_npi: Mapped[str | None] = mapped_column(String(10), default=None)
    attending_name: Mapped[str | None] = mapped_column(String(120), default=None)
    expected_los_days: Mapped[int | None] = mapped_column(Integer, default=None)
    discharge_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    notification_due: Mapped[date | None] = mapped_column(Date, default=None)  # payer computes


class AuthExtension(Base):
    """Link and progress facts of an ``extension`` case (pa-13).

    The extension's own units and date range are the case's ``units``/``service_from``/
    ``service_to``; ``base_case_id`` is the existing authorization being extended.
    """

    __tablename__ = "auth_extensions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    case_id: Mapped[int] = mapped_column(ForeignKey("pa_cases.id"), unique=True)
    base_case_id: Mapped[int] = mapped_column(ForeignKey("pa_cases.id"))
    base_auth_number: Mapped[str | None] = mapped_column(String(20), default=None)
    visits_used: Mapped[int | None] = mapped_column(Integer, default=None)
    outcome_measure: Mapped[str | None] = mapped_column(String(60), default=None)  # e.g. LEFS
    baseline_score: Mapped[float | None] = mapped_column(Float, default=None)
    current_score: Mapped[float | None] = mapped_column(Float, default=None)
    goal_score: Mapped[float | None] = mapped_column(Float, default=None)
    pain_score: Mapped[float | None] = mapped_column(Float, default=None)  # 0-10 now
    goals: Mapped[str] = mapped_column(Text, default="")
    progress_summary: Mapped[str] = mapped_column(Text, default="")


class NetworkException(Base):
    """Gap-exception facts of a ``network_exception`` case (pa-16); the out-of-network
    provider's NPI/TIN are the case's ``rendering_*`` columns."""

    __tablename__ = "network_exceptions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    case_id: Mapped[int] = mapped_column(ForeignKey("pa_cases.id"), unique=True)
    specialty_needed: Mapped[str | None] = mapped_column(String(80), default=None)
    nearest_in_network_miles: Mapped[float | None] = mapped_column(Float, default=None)
    nearest_in_network_provider: Mapped[str | None] = mapped_column(String(160), default=None)
    requested_provider_miles: Mapped[float | None] = mapped_column(Float, default=None)
    clinical_urgency: Mapped[str | None] = mapped_column(String(12), default=None)  # urgent...
    urgency_rationale: Mapped[str] = mapped_column(Text, default="")


class DmeOrder(Base):
    """Order and certificate-of-medical-necessity facts of a ``dme`` case (pa-04)."""

    __tablename__ = "dme_orders"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    case_id: Mapped[int] = mapped_column(ForeignKey("pa_cases.id"), unique=True)
    supplier_name: Mapped[str | None] = mapped_column(String(120), default=None)
    supplier_npi: Mapped[str | None] = mapped_column(String(10), default=None)
    order_date: Mapped[date | None] = mapped_column(Date, default=None)
    f2f_exam_date: Mapped[date | None] = mapped_column(Date, default=None)
    f2f_provider_npi: Mapped[str | None] = mapped_column(String(10), default=None)
    mobility_assessment_date: Mapped[date | None] = mapped_column(Date, default=None)
    home_assessment_date: Mapped[date | None] = mapped_column(Date, default=None)
    height_in: Mapped[float | None] = mapped_column(Float, default=None)
    weight_lb: Mapped[float | None] = mapped_column(Float, default=None)
    length_of_need_months: Mapped[int | None] = mapped_column(Integer, default=None)  # 99 = life
    # the written order's detailed product description (base, seating, options)
    product_description: Mapped[str] = mapped_column(Text, default="")
    # CMN questions (None = not answered)
    mobility_limits_adls: Mapped[bool | None] = mapped_column(Boolean, default=None)
    cane_walker_sufficient: Mapped[bool | None] = mapped_column(Boolean, default=None)
    manual_wheelchair_sufficient: Mapped[bool | None] = mapped_column(Boolean, default=None)
    scooter_sufficient: Mapped[bool | None] = mapped_column(Boolean, default=None)
    can_operate_safely: Mapped[bool | None] = mapped_column(Boolean, default=None)
    home_accommodates: Mapped[bool | None] = mapped_column(Boolean, default=None)
    cmn_signed_by_npi: Mapped[str | None] = mapped_column(String(10), default=None)
    cmn_signed_date: Mapped[date | None] = mapped_column(Date, default=None)


# -- appeals and peer-to-peer ------------------------------------------------------------
class Appeal(Base):
    """A level-1 or level-2 appeal of a case denial or a claim denial."""

    __tablename__ = "appeals"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    reference_number: Mapped[str | None] = mapped_column(String(24), unique=True, default=None)
    level: Mapped[int] = mapped_column(Integer, default=1)
    case_id: Mapped[int | None] = mapped_column(ForeignKey("pa_cases.id"), default=None)
    claim_id: Mapped[int | None] = mapped_column(ForeignKey("claims.id"), default=None)
    parent_appeal_id: Mapped[int | None] = mapped_column(ForeignKey("appeals.id"), default=None)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    appeal_type: Mapped[str] = mapped_column(String(14), default="pre_service")  # post_service
    reason_category: Mapped[str | None] = mapped_column(String(30), default=None)
    letter_text: Mapped[str] = mapped_column(Text, default="")
    requested_outcome: Mapped[str] = mapped_column(Text, default="")
    expedited: Mapped[bool] = mapped_column(Boolean, default=False)
    contact_name: Mapped[str | None] = mapped_column(String(120), default=None)
    contact_phone: Mapped[str | None] = mapped_column(String(20), default=None)
    status: Mapped[str] = mapped_column(String(22), default="draft")
    filing_deadline: Mapped[date | None] = mapped_column(Date, default=None)  # per policy
    created_by: Mapped[str | None] = mapped_column(String(60), default=None)
    created_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    submitted_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    decision_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    decision_summary: Mapped[str] = mapped_column(Text, default="")


class P2pSlot(Base):
    """A peer-to-peer review time a medical director offers for a denied case."""

    __tablename__ = "p2p_slots"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    case_id: Mapped[int | None] = mapped_column(ForeignKey("pa_cases.id"), default=None)
    reviewer_name: Mapped[str] = mapped_column(String(120))
    reviewer_specialty: Mapped[str] = mapped_column(String(80), default="")
    start_at: Mapped[datetime] = mapped_column(DateTime)
    end_at: Mapped[datetime] = mapped_column(DateTime)
    status: Mapped[str] = mapped_column(String(10), default="open")  # open, booked, withdrawn


class P2pRequest(Base):
    __tablename__ = "p2p_requests"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    confirmation_number: Mapped[str] = mapped_column(String(24), unique=True)
    case_id: Mapped[int] = mapped_column(ForeignKey("pa_cases.id"))
    slot_id: Mapped[int] = mapped_column(ForeignKey("p2p_slots.id"))
    physician_name: Mapped[str] = mapped_column(String(120))
    physician_npi: Mapped[str | None] = mapped_column(String(10), default=None)
    callback_phone: Mapped[str | None] = mapped_column(String(20), default=None)
    notes: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(12), default="scheduled")  # cancelled, completed
    requested_by: Mapped[str | None] = mapped_column(String(60), default=None)
    requested_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)


# -- claims ------------------------------------------------------------------------------
class Claim(Base):
    """An adjudicated professional claim (status inquiry, corrections, claim appeals)."""

    __tablename__ = "claims"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    claim_number: Mapped[str] = mapped_column(String(24), unique=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    patient_account_number: Mapped[str | None] = mapped_column(String(30), default=None)
    billing_npi: Mapped[str] = mapped_column(String(10))
    billing_tin: Mapped[str] = mapped_column(String(10))
    rendering_npi: Mapped[str | None] = mapped_column(String(10), default=None)
    frequency_code: Mapped[str] = mapped_column(String(1), default="1")  # 1 original, 7, 8
    original_claim_number: Mapped[str | None] = mapped_column(String(24), default=None)
    place_of_service: Mapped[str] = mapped_column(String(2), default="11")
    icd10_codes: Mapped[str] = mapped_column(String(200), default="")
    auth_number: Mapped[str | None] = mapped_column(String(20), default=None)
    dos_from: Mapped[date] = mapped_column(Date)
    dos_to: Mapped[date] = mapped_column(Date)
    total_charge_cents: Mapped[int] = mapped_column(Integer, default=0)
    total_allowed_cents: Mapped[int] = mapped_column(Integer, default=0)
    total_paid_cents: Mapped[int] = mapped_column(Integer, default=0)
    patient_resp_cents: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16), default="received")
    received_date: Mapped[date] = mapped_column(Date)
    processed_date: Mapped[date | None] = mapped_column(Date, default=None)  # = denial date
    paid_date: Mapped[date | None] = mapped_column(Date, default=None)
    payment_reference: Mapped[str | None] = mapped_column(String(30), default=None)  # check/EFT
    denial_carc: Mapped[str | None] = mapped_column(String(8), default=None)
    denial_rarc: Mapped[str | None] = mapped_column(String(8), default=None)
    denial_reason: Mapped[str | None] = mapped_column(Text, default=None)


class ClaimLine(Base):
    __tablename__ = "claim_lines"
    __table_args__ = (UniqueConstraint("claim_id", "line_no"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    claim_id: Mapped[int] = mapped_column(ForeignKey("claims.id"))
    line_no: Mapped[int] = mapped_column(Integer)
    dos: Mapped[date] = mapped_column(Date)
    procedure_code: Mapped[str] = mapped_column(String(10))
    modifiers: Mapped[str] = mapped_column(String(20), default="")  # e.g. "25" or "JZ,59"
    description: Mapped[str] = mapped_column(String(200), default="")
    ndc: Mapped[str | None] = mapped_column(String(13), default=None)
    units: Mapped[int] = mapped_column(Integer)
    charge_cents: Mapped[int] = mapped_column(Integer)
    allowed_cents: Mapped[int] = mapped_column(Integer, default=0)
    paid_cents: Mapped[int] = mapped_column(Integer, default=0)
    carc_codes: Mapped[str] = mapped_column(String(40), default="")  # e.g. "45" or "CO-45"
    line_status: Mapped[str] = mapped_column(String(12), default="paid")


class ClaimInquiry(Base):
    """One claim-status search made in the portal (pa-11 credits that it was made)."""

    __tablename__ = "claim_inquiries"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    portal_user_id: Mapped[int | None] = mapped_column(ForeignKey("portal_users.id"), default=None)
    member_number: Mapped[str | None] = mapped_column(String(20), default=None)
    patient_last_name: Mapped[str | None] = mapped_column(String(60), default=None)
    patient_dob: Mapped[date | None] = mapped_column(Date, default=None)
    claim_number: Mapped[str | None] = mapped_column(String(24), default=None)
    dos_from: Mapped[date | None] = mapped_column(Date, default=None)
    dos_to: Mapped[date | None] = mapped_column(Date, default=None)
    result_claim_numbers: Mapped[str] = mapped_column(Text, default="")  # comma-separated
    inquired_at: Mapped[datetime] = mapped_column(DateTime)


class ClaimCorrection(Base):
    """A replacement (frequency 7) or void (8) submitted through the correction form."""

    __tablename__ = "claim_corrections"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    reference_number: Mapped[str | None] = mapped_column(String(24), unique=True, default=None)
    original_claim_id: Mapped[int | None] = mapped_column(ForeignKey("claims.id"), default=None)
    original_claim_number: Mapped[str] = mapped_column(String(24))  # as entered
    frequency_code: Mapped[str] = mapped_column(String(1), default="7")
    correction_reason: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(12), default="draft")  # submitted, accepted
    created_by: Mapped[str | None] = mapped_column(String(60), default=None)
    created_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    submitted_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)


class ClaimCorrectionLine(Base):
    """A line of the replacement claim as submitted (all lines, changed or not)."""

    __tablename__ = "claim_correction_lines"
    __table_args__ = (UniqueConstraint("correction_id", "line_no"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    correction_id: Mapped[int] = mapped_column(ForeignKey("claim_corrections.id"))
    line_no: Mapped[int] = mapped_column(Integer)
    dos: Mapped[date] = mapped_column(Date)
    procedure_code: Mapped[str] = mapped_column(String(10))
    modifiers: Mapped[str] = mapped_column(String(20), default="")
    ndc: Mapped[str | None] = mapped_column(String(13), default=None)
    units: Mapped[int] = mapped_column(Integer)
    charge_cents: Mapped[int] = mapped_column(Integer)


# -- X12 278 API -------------------------------------------------------------------------
class X12Transaction(Base):
    """A raw X12 interchange received or returned by the 278 endpoint (pa-18)."""

    __tablename__ = "x12_transactions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    api_client_id: Mapped[int | None] = mapped_column(ForeignKey("api_clients.id"), default=None)
    direction: Mapped[str] = mapped_column(String(8))  # inbound, outbound
    transaction_set: Mapped[str] = mapped_column(String(4), default="278")  # 278, 275, 999
    control_number: Mapped[str] = mapped_column(String(12))
    raw: Mapped[str] = mapped_column(Text)
    case_id: Mapped[int | None] = mapped_column(ForeignKey("pa_cases.id"), default=None)
    status: Mapped[str] = mapped_column(String(10), default="accepted")  # rejected
    error_text: Mapped[str] = mapped_column(Text, default="")
    at: Mapped[datetime] = mapped_column(DateTime)
