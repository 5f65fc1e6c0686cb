"""The epa store: a CoverMyMeds-style electronic prior authorization portal for pharmacy PAs.

A request starts from an e-prescription (drug, patient, prescriber already filled); the plan
returns a question set whose questions unlock follow-ups through FHIR-style ``enableWhen``
conditions (``epa_enable_when``). The office answers, attaches notes and sends the request
to the plan. :func:`question_enabled` is the one definition of "this question is shown"
that the portal and the verifier both use: an answer to a question that is not enabled
under the final answers contradicts them.

The plan's side is data: ``epa_plan_responses`` scripts what the plan replies to each send
of a request (a determination, or a further question set) and how long after the send it
arrives. :func:`plan_state` reads those rows against the sandbox clock; nothing is written
when a reply "arrives", so the stored request keeps what the office did (status
``sent_to_plan``) and a reply shows up on the dashboard once its time has come, also after
the clock is advanced.

Conventions as in :mod:`sandbox.stores.acme`: naive sandbox-local times, status tokens in
``REQUEST_STATUSES``, multi-choice answers as sorted option values joined by ``|``,
booleans answered ``yes``/``no``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta

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

from sandbox.stores.base import UploadedFile, system_metadata


class Base(DeclarativeBase):
    metadata = system_metadata("epa")

REQUEST_STATUSES = (
    "new", "questions_received", "in_progress", "sent_to_plan", "approved", "denied",
    "pended", "cancelled",
)
STATUS_LABELS = {
    "new": "New", "questions_received": "Questions received", "in_progress": "In progress",
    "sent_to_plan": "Sent to plan", "approved": "Approved", "denied": "Denied",
    "pended": "Pended", "cancelled": "Cancelled",
}
OPERATORS = ("exists", "=", "!=", ">", "<", ">=", "<=")
# What a plan replies to a send (``epa_plan_responses.outcome``).
PLAN_OUTCOMES = ("approved", "denied", "pended", "questions")


class EpaUser(Base):
    __tablename__ = "epa_users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(60), unique=True)
    password_sha256: Mapped[str] = mapped_column(String(64))
    display_name: Mapped[str] = mapped_column(String(100))
    organization: Mapped[str] = mapped_column(String(120))
    npi: Mapped[str | None] = mapped_column(String(10), default=None)
    role: Mapped[str] = mapped_column(String(40), default="office_staff")
    active: Mapped[bool] = mapped_column(Boolean, default=True)


class EpaPlan(Base):
    """A pharmacy benefit the portal can route requests to."""

    __tablename__ = "epa_plans"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    plan_key: Mapped[str] = mapped_column(String(40), unique=True)  # roster key
    name: Mapped[str] = mapped_column(String(100))
    pbm_name: Mapped[str] = mapped_column(String(100))
    rx_bin: Mapped[str] = mapped_column(String(10))
    rx_pcn: Mapped[str] = mapped_column(String(20))
    rx_group: Mapped[str] = mapped_column(String(20))


class EpaQuestionSet(Base):
    __tablename__ = "epa_question_sets"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    set_key: Mapped[str] = mapped_column(String(40), unique=True)
    title: Mapped[str] = mapped_column(String(200))
    drug_name: Mapped[str] = mapped_column(String(120))
    plan_id: Mapped[int] = mapped_column(ForeignKey("epa_plans.id"))
    version: Mapped[str] = mapped_column(String(20), default="2026.1")


class EpaQuestion(Base):
    """One question (FHIR Questionnaire item); shown when its conditions hold."""

    __tablename__ = "epa_questions"
    __table_args__ = (UniqueConstraint("question_set_id", "question_key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    question_set_id: Mapped[int] = mapped_column(ForeignKey("epa_question_sets.id"))
    question_key: Mapped[str] = mapped_column(String(40))  # linkId
    position: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    # boolean, choice, multi_choice, integer, decimal, date, text
    answer_type: Mapped[str] = mapped_column(String(16))
    options: Mapped[str] = mapped_column(Text, default="")  # "value=Label" lines
    required: Mapped[bool] = mapped_column(Boolean, default=True)
    unit: Mapped[str] = mapped_column(String(20), default="")
    help_text: Mapped[str] = mapped_column(Text, default="")
    enable_behavior: Mapped[str] = mapped_column(String(3), default="all")  # all, any


class EpaEnableWhen(Base):
    """A condition on an earlier answer (``depends_on_key`` ``operator`` ``answer_value``)."""

    __tablename__ = "epa_enable_when"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    question_id: Mapped[int] = mapped_column(ForeignKey("epa_questions.id"))
    depends_on_key: Mapped[str] = mapped_column(String(40))
    operator: Mapped[str] = mapped_column(String(6))
    answer_value: Mapped[str] = mapped_column(String(100), default="")


class EpaRequest(Base):
    """One ePA request (the dashboard row), pre-filled from the e-prescription."""

    __tablename__ = "epa_requests"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    request_key: Mapped[str] = mapped_column(String(12), unique=True)  # e.g. "BX7Q-4KTM"
    label: Mapped[str] = mapped_column(String(120), default="")
    status: Mapped[str] = mapped_column(String(20), default="new")
    owner_user_id: Mapped[int | None] = mapped_column(ForeignKey("epa_users.id"), default=None)
    plan_id: Mapped[int | None] = mapped_column(ForeignKey("epa_plans.id"), default=None)
    question_set_id: Mapped[int | None] = mapped_column(
        ForeignKey("epa_question_sets.id"), default=None)
    # patient
    patient_last: Mapped[str] = mapped_column(String(60))
    patient_first: Mapped[str] = mapped_column(String(60))
    patient_dob: Mapped[date] = mapped_column(Date)
    patient_sex: Mapped[str] = mapped_column(String(10), default="")
    member_number: Mapped[str] = mapped_column(String(20))
    # drug
    drug_name: Mapped[str] = mapped_column(String(120))
    drug_strength: Mapped[str] = mapped_column(String(60), default="")
    drug_form: Mapped[str] = mapped_column(String(60), default="")
    ndc: Mapped[str | None] = mapped_column(String(13), default=None)
    quantity: Mapped[str] = mapped_column(String(30), default="")
    days_supply: Mapped[int | None] = mapped_column(Integer, default=None)
    refills: Mapped[int | None] = mapped_column(Integer, default=None)
    sig: Mapped[str] = mapped_column(String(200), default="")
    icd10_code: Mapped[str | None] = mapped_column(String(10), default=None)
    # prescriber and pharmacy
    prescriber_name: Mapped[str] = mapped_column(String(120))
    prescriber_npi: Mapped[str] = mapped_column(String(10))
    prescriber_phone: Mapped[str] = mapped_column(String(20), default="")
    prescriber_fax: Mapped[str] = mapped_column(String(20), default="")
    pharmacy_name: Mapped[str] = mapped_column(String(120), default="")
    pharmacy_ncpdp: Mapped[str] = mapped_column(String(7), default="")
    # lifecycle
    archived: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    updated_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    sent_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    decision_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    decision_note: Mapped[str] = mapped_column(Text, default="")
    # sends and the prescriber attestation that goes with each (added for the portal)
    send_count: Mapped[int] = mapped_column(Integer, default=0)  # "Send to Plan" so far
    attested_by: Mapped[str] = mapped_column(String(120), default="")
    attested_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)


class EpaPlanResponse(Base):
    """What the plan replies to the ``send_number``-th send of a request, and when.

    The reply arrives ``delay_minutes`` after that send (``epa_requests.sent_at``). A
    ``questions`` reply carries the next question set; the others are determinations.
    """

    __tablename__ = "epa_plan_responses"
    __table_args__ = (UniqueConstraint("request_id", "send_number"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    request_id: Mapped[int] = mapped_column(ForeignKey("epa_requests.id"))
    send_number: Mapped[int] = mapped_column(Integer, default=1)
    delay_minutes: Mapped[int] = mapped_column(Integer, default=60)
    outcome: Mapped[str] = mapped_column(String(12))  # PLAN_OUTCOMES
    question_set_id: Mapped[int | None] = mapped_column(
        ForeignKey("epa_question_sets.id"), default=None)
    note: Mapped[str] = mapped_column(Text, default="")  # the determination's wording


class EpaAnswer(Base):
    __tablename__ = "epa_answers"
    __table_args__ = (UniqueConstraint("request_id", "question_key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    request_id: Mapped[int] = mapped_column(ForeignKey("epa_requests.id"))
    question_key: Mapped[str] = mapped_column(String(40))
    answer_value: Mapped[str] = mapped_column(Text)
    answered_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)


class EpaAttachment(UploadedFile, Base):
    __tablename__ = "epa_attachments"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    request_id: Mapped[int] = mapped_column(ForeignKey("epa_requests.id"))
    uploaded_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)


# -- branching ---------------------------------------------------------------------------
def _compare(answer: str, operator: str, expected: str) -> bool:
    if operator == "exists":
        present = answer != ""
        return present if expected.lower() in ("", "true", "yes") else not present
    if operator in ("=", "!="):
        equal = answer.strip().lower() == expected.strip().lower()
        return equal if operator == "=" else not equal
    left: float | str
    right: float | str
    try:
        left, right = float(answer), float(expected)
    except ValueError:
        left, right = answer, expected  # ISO dates compare as text
    return {">": left > right, "<": left < right,  # type: ignore[operator]
            ">=": left >= right, "<=": left <= right}[operator]  # type: ignore[operator]


def question_enabled(conditions: list[tuple[str, str, str]], behavior: str,
                     answers: Mapping[str, str]) -> bool:
    """Whether a question shows, given its (depends_on_key, operator, value) conditions.

    A condition on an unanswered question is false (except ``exists`` = false), as in FHIR.
    """
    if not conditions:
        return True
    results = []
    for key, operator, expected in conditions:
        if operator not in OPERATORS:
            raise ValueError(f"unknown enableWhen operator {operator!r}; use {OPERATORS}")
        answer = answers.get(key, "")
        if answer == "" and operator != "exists":
            results.append(False)
            continue
        results.append(_compare(answer, operator, expected))
    return all(results) if behavior == "all" else any(results)


def enabled_keys(questions: list[tuple[str, str, list[tuple[str, str, str]]]],
                 answers: Mapping[str, str]) -> list[str]:
    """The keys of the questions shown, in order, for ``(key, behavior, conditions)`` items.

    Answers to questions that are not shown do not count for later conditions, so a
    follow-up of a hidden follow-up is hidden too.
    """
    visible: dict[str, str] = {}
    shown = []
    for key, behavior, conditions in questions:
        if question_enabled(conditions, behavior, visible):
            shown.append(key)
            if key in answers:
                visible[key] = answers[key]
    return shown


# -- the plan's replies ------------------------------------------------------------------
@dataclass(frozen=True)
class PlanState:
    """A request as the portal shows it at one sandbox instant.

    ``status`` is the stored status, or the outcome of a plan reply that has arrived
    (``questions_received`` for a further question set). ``question_set_ids`` are the sets
    the plan has sent so far, oldest first; the last one is the one being answered.
    """

    status: str
    question_set_ids: tuple[int, ...]
    reply: EpaPlanResponse | None = None
    replied_at: datetime | None = None

    @property
    def current_set_id(self) -> int | None:
        return self.question_set_ids[-1] if self.question_set_ids else None


def reply_time(request: EpaRequest, reply: EpaPlanResponse) -> datetime | None:
    """When a reply to the request's latest send arrives (None if never sent)."""
    if request.sent_at is None:
        return None
    return request.sent_at + timedelta(minutes=reply.delay_minutes)


def plan_state(request: EpaRequest, replies: list[EpaPlanResponse],
               now: datetime) -> PlanState:
    """The request's status and question sets at ``now`` (naive sandbox-local time).

    Replies to earlier sends have arrived by definition (the office answered and sent
    again); the reply to the latest send arrives when its delay has passed, and only while
    the stored status is still ``sent_to_plan``.
    """
    sent = request.send_count or 0
    by_send = {r.send_number: r for r in replies}
    sets = [request.question_set_id] if request.question_set_id is not None else []
    for number in range(1, sent):
        earlier = by_send.get(number)
        if earlier is not None and earlier.outcome == "questions" and earlier.question_set_id:
            sets.append(earlier.question_set_id)
    latest = by_send.get(sent)
    if request.status != "sent_to_plan":
        if (latest is not None and latest.outcome == "questions" and latest.question_set_id
                and request.status in ("questions_received", "in_progress")):
            sets.append(latest.question_set_id)  # the office is answering it
        return PlanState(request.status, tuple(sets))
    if latest is not None:
        arrives = reply_time(request, latest)
        if arrives is not None and arrives <= now:
            if latest.outcome == "questions" and latest.question_set_id:
                return PlanState("questions_received", (*sets, latest.question_set_id),
                                 latest, arrives)
            return PlanState(latest.outcome, tuple(sets), latest, arrives)
    return PlanState("sent_to_plan", tuple(sets))
