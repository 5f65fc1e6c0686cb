"""Turning a prior-authorization request (from X12 or from PAS) into an Acme case.

Both front doors produce a :class:`ReviewRequest`; :func:`evaluate` checks it against the
payer's records (member, requester, codes, questionnaire) and either refuses it with a
:class:`Rejection` — an X12 AAA reason code and a sentence — or returns a :class:`CasePlan`
that :func:`file_case` writes in one audited transaction: the ``pa_cases`` row (status from
the portal's ``cases.submitted_status`` setting, so API and portal cases behave alike), its
``pa_answers`` and its ``attachments`` (bytes unchanged).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.orm import Session
from stdnum import luhn

from portal_web.payer_api.answers import AnswerProblem, normalize_icd10, read_answers
from sandbox.stores.acme import (
    PORTAL_SETTING_DEFAULTS,
    ApiClient,
    Attachment,
    Member,
    PaAnswer,
    PaCase,
    PaQuestion,
    PaQuestionnaire,
    PaRule,
    Plan,
    PortalSetting,
    Provider,
)

REFERENCE = re.compile(r"^PA26-(\d{6})$")
CPT = re.compile(r"^(\d{4}[0-9A-Z])$")
HCPCS = re.compile(r"^[A-V]\d{4}$")
STANDARD_REVIEW = dt.timedelta(days=7)  # CMS-0057-F standard decision time
EXPEDITED_REVIEW = dt.timedelta(hours=72)
FIRST_REFERENCE = 100001


@dataclass
class Rejection(Exception):
    """A refused request: where (X12 loop), why (AAA03), what to do (AAA04), in words."""

    loop: str  # 2010A, 2010B, 2010C, 2000E, 2000F
    reason: str  # AAA03
    follow_up: str  # AAA04
    message: str

    def __str__(self) -> str:
        return self.message


@dataclass
class IncomingDocument:
    filename: str
    content_type: str
    content: bytes
    description: str
    document_type: str = "other"


@dataclass
class ReviewRequest:
    """What a provider asks for, independent of the wire format."""

    member_number: str
    last_name: str
    first_name: str
    birth_date: dt.date | None
    requester_npi: str
    requester_name: str
    category: str  # HS, SC
    certification_type: str  # I
    urgency: str  # standard, expedited
    place_of_service: str | None
    diagnoses: list[str]  # as sent (with or without the dot)
    service_code_type: str
    service_code: str
    modifier: str | None
    units: int | None
    unit_type: str
    service_from: dt.date | None
    service_to: dt.date | None
    rendering_npi: str | None = None
    rendering_name: str | None = None
    rendering_taxonomy: str | None = None
    clinical_summary: str = ""
    questionnaire_response: dict | None = None
    documents: list[IncomingDocument] = field(default_factory=list)
    awaited_documents: list[str] = field(default_factory=list)  # control numbers not received
    dx_without_dot: bool = True  # X12 sends codes without the decimal point


@dataclass
class CasePlan:
    """A request that passed every check: what :func:`file_case` writes."""

    request: ReviewRequest
    member: Member
    plan: Plan | None
    icd10: list[str]
    questionnaire: PaQuestionnaire | None
    answers: dict[str, str]
    question_ids: dict[str, int]
    description: str | None
    status: str


def setting(db: Session, key: str) -> str:
    row = db.scalar(select(PortalSetting).where(PortalSetting.key == key))
    return row.value if row is not None else PORTAL_SETTING_DEFAULTS.get(key, "")


def npi_valid(npi: str) -> bool:
    return bool(re.fullmatch(r"[12]\d{9}", npi or "")) and luhn.is_valid("80840" + npi)


def evaluate(db: Session, client: ApiClient, request: ReviewRequest, today: dt.date) -> CasePlan:
    """Check a request against the payer's records; raise :class:`Rejection` if refused."""
    if not npi_valid(request.requester_npi):
        raise Rejection("2010B", "43", "C", f"Requester NPI '{request.requester_npi[:12]}' is not "
                        "a valid NPI (10 digits, check digit per the NPI standard).")
    if request.requester_npi != client.organization_npi:
        directory = db.scalar(select(Provider).where(Provider.npi == request.requester_npi))
        if directory is None or directory.tin.replace("-", "") != \
                client.organization_tin.replace("-", ""):
            raise Rejection("2010B", "41", "N", f"Requester NPI {request.requester_npi} does not "
                            f"belong to this API client's organization ({client.name}).")
    member = db.scalar(select(Member).where(Member.member_number == request.member_number))
    if member is None:
        raise Rejection("2010C", "75", "C", f"No Acme member has ID '{request.member_number[:20]}'"
                        " (NM109 of loop 2010C).")
    if request.last_name.strip().casefold() != member.last_name.casefold() or \
            (request.first_name and request.first_name.strip().casefold()
             != member.first_name.casefold()):
        raise Rejection("2010C", "73", "C", f"Member {member.member_number}: the name sent "
                        f"({request.last_name[:30]}, {request.first_name[:30]}) does not match "
                        "the member's name on file.")
    if request.birth_date is not None and request.birth_date != member.dob:
        raise Rejection("2010C", "71", "C", f"Member {member.member_number}: the birth date "
                        f"{request.birth_date:%Y-%m-%d} does not match the member's on file.")
    first_day = request.service_from or today
    if member.coverage_start > first_day or (member.coverage_end and member.coverage_end
                                             < first_day):
        raise Rejection("2010C", "78", "N", f"Member {member.member_number} has no Acme coverage "
                        f"on {first_day:%Y-%m-%d}.")
    if request.category not in ("HS", "SC"):
        raise Rejection("2000E", "33", "N", f"UM01 {request.category[:2]}: admission reviews are "
                        "not accepted through this API; send HS (health services review) or SC "
                        "(specialty care review), or use the provider portal.")
    if request.certification_type != "I":
        raise Rejection("2000E", "33", "N", f"UM02 {request.certification_type[:1]}: this API "
                        "takes initial requests (I); extensions, revisions, cancellations and "
                        "appeals go through the provider portal.")
    if not request.diagnoses:
        raise Rejection("2000E", "AF", "C", "At least one ICD-10-CM diagnosis is required "
                        "(HI*ABK:<code> in loop 2000E).")
    icd10 = []
    for code in request.diagnoses:
        if request.dx_without_dot and "." in code:
            raise Rejection("2000E", "AF", "C", f"Diagnosis '{code[:12]}': send ICD-10-CM codes "
                            "without the decimal point (M5116, not M51.16).")
        try:
            icd10.append(normalize_icd10(code, "Diagnosis"))
        except AnswerProblem as exc:
            raise Rejection("2000E", "AF", "C", str(exc)) from exc
    code = request.service_code.strip().upper()
    if not (CPT.match(code) or HCPCS.match(code)):
        raise Rejection("2000F", "AG", "C", f"Procedure code '{code[:12]}' is not a CPT or "
                        "HCPCS code.")
    if request.units is not None and not 0 < request.units <= 999:
        raise Rejection("2000F", "AG", "C", "The service quantity must be between 1 and 999.")
    if request.service_from is None:
        raise Rejection("2000F", "57", "C", "The service date or date range is required "
                        "(DTP*472 in loop 2000F or 2000E).")
    if request.service_to is not None and request.service_to < request.service_from:
        raise Rejection("2000F", "57", "C", "The service date range ends before it starts.")
    plan = db.get(Plan, member.plan_id)
    rules = list(db.scalars(select(PaRule).where(PaRule.plan_id == member.plan_id,
                                                 PaRule.code == code)))
    questionnaire = next((q for q in db.scalars(select(PaQuestionnaire).order_by(
        PaQuestionnaire.id)) if code in [c.strip().upper() for c in q.codes.split(",")]), None)
    answers: dict[str, str] = {}
    question_ids: dict[str, int] = {}
    if questionnaire is not None:
        questions = list(db.scalars(select(PaQuestion).where(
            PaQuestion.questionnaire_id == questionnaire.id).order_by(PaQuestion.position)))
        question_ids = {q.question_key: q.id for q in questions}
        if request.questionnaire_response is None:
            raise Rejection("2000E", "AO", "C", f"CPT {code} needs the questionnaire "
                            f"'{questionnaire.title}' ({questionnaire.questionnaire_key}) "
                            "answered: send a QuestionnaireResponse (companion guide section 5: "
                            "http://api.acmehealth.test/companion-guide).")
        try:
            answers = read_answers(request.questionnaire_response, questionnaire, questions)
        except AnswerProblem as exc:
            raise Rejection("2000E", "AO", "C", str(exc)) from exc
    return CasePlan(request=request, member=member, plan=plan, icd10=icd10,
                    questionnaire=questionnaire, answers=answers, question_ids=question_ids,
                    description=rules[0].description if rules else None,
                    status=setting(db, "cases.submitted_status") or "in_review")


def next_reference(db: Session) -> str:
    """The next PA26-NNNNNN tracking reference (sequential over the store: deterministic)."""
    numbers = [int(m.group(1)) for ref in db.scalars(select(PaCase.reference_number))
               if ref and (m := REFERENCE.match(ref))]
    return f"PA26-{max([FIRST_REFERENCE - 1, *numbers]) + 1:06d}"


def file_case(db: Session, client: ApiClient, plan: CasePlan, now: dt.datetime) -> PaCase:
    """Write the case, its answers and attachments (inside the caller's writer session)."""
    request = plan.request
    expedited = request.urgency == "expedited"
    case = PaCase(
        reference_number=next_reference(db), case_type="outpatient", status=plan.status,
        urgency=request.urgency, member_id=plan.member.id, plan_id=plan.member.plan_id,
        questionnaire_id=plan.questionnaire.id if plan.questionnaire else None,
        requesting_npi=request.requester_npi, requesting_name=request.requester_name[:120],
        requesting_tin=client.organization_tin,
        rendering_npi=request.rendering_npi, rendering_name=(request.rendering_name or None),
        rendering_taxonomy=request.rendering_taxonomy,
        service_code_type=request.service_code_type,
        service_code=request.service_code.strip().upper(), service_modifier=request.modifier,
        service_description=plan.description, units=request.units, unit_type=request.unit_type,
        service_from=request.service_from, service_to=request.service_to or request.service_from,
        place_of_service=request.place_of_service, icd10_codes=",".join(plan.icd10),
        clinical_summary=request.clinical_summary, revision=0, submitted_via="x12",
        created_by=client.client_id, created_at=now, updated_at=now, submitted_at=now,
        decision_due_at=now + (EXPEDITED_REVIEW if expedited else STANDARD_REVIEW))
    db.add(case)
    db.flush()
    for key, answer in plan.answers.items():
        db.add(PaAnswer(case_id=case.id, question_id=plan.question_ids.get(key),
                        question_key=key, answer=answer, answered_at=now))
    for document in request.documents:
        attach(db, case, document, client, now)
    db.flush()
    return case


def attach(db: Session, case: PaCase, document: IncomingDocument, client: ApiClient,
           now: dt.datetime) -> Attachment:
    row = Attachment(case_id=case.id, filename=document.filename,
                     content_type=document.content_type, document_type=document.document_type,
                     description=document.description[:200], content=document.content,
                     uploaded_at=now, uploaded_by=client.client_id)
    db.add(row)
    return row


def case_count(db: Session) -> int:
    return db.scalar(select(func.count(PaCase.id))) or 0
