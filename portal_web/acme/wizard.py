"""The request wizard's rules: the steps of each request type, what a complete request
needs, similar requests, drafts, and submission.

A request is a ``pa_cases`` row from its first step on (status ``draft``; each completed
step saves it and its ``pa_drafts`` row), so a timed-out user finds it under My drafts.
Submitting gives it a tracking reference and the status ``portal_settings``
``cases.submitted_status`` (In review).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal_web.acme import questionnaire as qn
from portal_web.acme.references import PA_CASE, next_reference
from sandbox.clock import business_days_after
from sandbox.stores.acme import (
    AdmissionNotification,
    Attachment,
    AuthExtension,
    NetworkException,
    PaAnswer,
    PaCase,
    PaDraft,
)

STEP_TITLES = {
    "member": "Member",
    "provider": "Providers",
    "service": "Service",
    "admission": "Admission",
    "drug": "Medication",
    "extension": "Extension",
    "exception": "Network gap",
    "questionnaire": "Clinical questions",
    "attachments": "Attachments",
    "review": "Review & submit",
    "dme_order": "DME order form (DME portal)",
}
BASE_STEPS = {
    "outpatient": ("member", "provider", "service", "questionnaire", "attachments", "review"),
    "inpatient_notification": ("member", "provider", "admission", "attachments", "review"),
    "pharmacy": ("member", "provider", "drug", "questionnaire", "attachments", "review"),
    "network_exception": ("member", "provider", "service", "exception", "attachments",
                          "review"),
    "extension": ("extension", "attachments", "review"),
}
DETAIL_MODELS = {"inpatient_notification": AdmissionNotification,
                 "extension": AuthExtension, "network_exception": NetworkException}
SIMILAR_WINDOW_DAYS = 180
DECISION_TIME = {"standard": dt.timedelta(days=7), "expedited": dt.timedelta(hours=72)}


def steps_of(case: PaCase) -> list[str]:
    """The steps of this request; the questionnaire only when one applies."""
    steps = list(BASE_STEPS.get(case.case_type, BASE_STEPS["outpatient"]))
    if "questionnaire" in steps and case.questionnaire_id is None:
        steps.remove("questionnaire")
    return steps


def next_step(case: PaCase, step: str) -> str:
    steps = steps_of(case)
    return steps[min(steps.index(step) + 1, len(steps) - 1)] if step in steps else steps[0]


def previous_step(case: PaCase, step: str) -> str | None:
    steps = steps_of(case)
    index = steps.index(step) if step in steps else 0
    return steps[index - 1] if index > 0 else None


def detail_of(db: Session, case: PaCase):  # noqa: ANN201 - the case type's detail row
    model = DETAIL_MODELS.get(case.case_type)
    if model is None:
        return None
    return db.scalar(select(model).where(model.case_id == case.id))


@dataclass(frozen=True)
class Gap:
    """Something a request still lacks before it can be submitted."""

    step: str
    message: str


def missing(db: Session, case: PaCase, today: dt.date) -> list[Gap]:
    """What stops the request from being submitted, by step (empty when complete)."""
    gaps: list[Gap] = []
    kind = case.case_type
    if kind != "extension":
        if not case.requesting_npi:
            gaps.append(Gap("provider", "Enter the requesting provider's NPI."))
        if kind in ("outpatient", "network_exception") and not case.rendering_npi:
            gaps.append(Gap("provider", "Enter the rendering (servicing) provider's NPI."))
        if kind == "inpatient_notification" and not (case.rendering_npi and case.facility_npi):
            gaps.append(Gap("provider", "Enter the attending physician and the facility."))
        if kind == "network_exception" and not case.rendering_tin:
            gaps.append(Gap("provider", "Enter the out-of-network provider's TIN."))
    if kind in ("outpatient", "network_exception"):
        if not (case.service_code and case.units and case.service_from and case.service_to
                and case.place_of_service and case.icd10_codes):
            gaps.append(Gap("service", "Complete the service: code, units, dates, place of "
                                       "service and diagnosis codes."))
    if kind == "pharmacy" and not (case.drug_name and case.drug_strength and case.drug_quantity
                                   and case.days_supply and case.drug_sig
                                   and case.icd10_codes):
        gaps.append(Gap("drug", "Complete the medication: drug, strength, quantity, days "
                                "supply, directions and diagnosis."))
    detail = detail_of(db, case)
    if kind == "inpatient_notification" and (detail is None or detail.admit_at is None
                                             or not case.icd10_codes):
        gaps.append(Gap("admission", "Enter the admission date and time and the admitting "
                                     "diagnoses."))
    if kind == "extension" and (detail is None or not case.units or not case.service_from
                                or detail.current_score is None):
        gaps.append(Gap("extension", "Enter the additional units, dates and progress "
                                     "measures."))
    if kind == "network_exception" and (detail is None or detail.nearest_in_network_miles
                                        is None or not detail.clinical_urgency):
        gaps.append(Gap("exception", "Enter the nearest in-network distance and the clinical "
                                     "urgency."))
    if case.questionnaire_id is not None and kind in ("outpatient", "pharmacy"):
        questions = qn.load_questions(db, case.questionnaire_id)
        answers = answers_of(db, case.id)
        unanswered = [q for q in qn.enabled(questions, answers)
                      if q.required and not answers.get(q.key)]
        if unanswered:
            gaps.append(Gap("questionnaire", f"Answer the clinical questions "
                                             f"({len(unanswered)} still open)."))
    return gaps


def answers_of(db: Session, case_id: int) -> dict[str, str]:
    return {a.question_key: a.answer for a in db.scalars(
        select(PaAnswer).where(PaAnswer.case_id == case_id))}


def attachments_of(db: Session, case_id: int) -> list[Attachment]:
    return list(db.scalars(select(Attachment).where(Attachment.case_id == case_id)
                           .order_by(Attachment.id)))


def similar_requests(db: Session, case: PaCase, today: dt.date) -> list[PaCase]:
    """Other requests for the same member and service (or drug, or admission) that are
    not drafts, from the last 180 days — what the duplicate warning names."""
    since = dt.datetime.combine(today - dt.timedelta(days=SIMILAR_WINDOW_DAYS), dt.time())
    query = select(PaCase).where(PaCase.member_id == case.member_id, PaCase.id != case.id,
                                 PaCase.status != "draft", PaCase.submitted_at >= since)
    found = []
    for other in db.scalars(query.order_by(PaCase.submitted_at.desc())):
        if case.case_type == "extension" or other.id == case.parent_case_id:
            if case.case_type == other.case_type == "extension" and \
                    case.parent_case_id == other.parent_case_id:
                found.append(other)  # a second extension of the same authorization
            continue
        if case.service_code and other.service_code == case.service_code:
            found.append(other)
        elif case.drug_name and other.drug_name and \
                other.drug_name.split()[0].lower() == case.drug_name.split()[0].lower():
            found.append(other)
        elif case.case_type == "inpatient_notification" == other.case_type:
            found.append(other)
    return found


def save_draft(db: Session, case: PaCase, step: str, *, user_id: int,
               now: dt.datetime) -> None:
    """Remember where the user is: the case's and its ``pa_drafts`` row's wizard step."""
    if case.wizard_step != step:
        case.wizard_step = step
    case.updated_at = now
    draft = db.scalar(select(PaDraft).where(PaDraft.case_id == case.id))
    if draft is None:
        db.add(PaDraft(case_id=case.id, portal_user_id=user_id, wizard_step=step,
                       form_state="{}", saved_at=now))
    else:
        if draft.wizard_step != step:
            draft.wizard_step = step
        draft.saved_at = now


def submit(db: Session, case: PaCase, *, status: str, now: dt.datetime) -> str:
    """Give the draft its tracking reference and send it; returns the reference."""
    case.reference_number = next_reference(db, PaCase.reference_number, PA_CASE)
    case.status = status
    case.submitted_at = now
    case.submitted_via = "portal"
    case.decision_due_at = now + DECISION_TIME.get(case.urgency, DECISION_TIME["standard"])
    case.wizard_step = None
    case.updated_at = now
    draft = db.scalar(select(PaDraft).where(PaDraft.case_id == case.id))
    if draft is not None:
        draft.wizard_step = "submitted"
        draft.saved_at = now
    if case.case_type == "inpatient_notification":
        detail = detail_of(db, case)
        if detail is not None and detail.admit_at is not None and detail.notification_due is None:
            detail.notification_due = business_days_after(detail.admit_at.date(), 2)
    return case.reference_number


def delete_draft(db: Session, case: PaCase) -> None:
    """Remove a never-submitted request and everything saved with it."""
    for model in (PaAnswer, Attachment, PaDraft, *DETAIL_MODELS.values()):
        for row in db.scalars(select(model).where(model.case_id == case.id)):
            db.delete(row)
    db.flush()
    db.delete(case)


def set_changed(row: object, values: dict[str, object]) -> list[str]:
    """Assign only the values that differ (the audit then records only real changes);
    returns the names changed."""
    changed = []
    for key, value in values.items():
        if getattr(row, key) != value:
            setattr(row, key, value)
            changed.append(key)
    return changed
