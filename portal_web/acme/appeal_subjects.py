"""What an appeal is filed against, and whether it may be: a denied authorization (level 1,
pre-service), a denied claim (level 1, post-service) or an upheld level-1 appeal (level 2).

An appeal keeps its subject in its own columns (``case_id``, ``claim_id``,
``parent_appeal_id``); a level-2 appeal carries its level-1 appeal's case or claim too, so
the decision it disputes is one click away. A subject that cannot be appealed (a claim that
was paid, a level-1 appeal still in review) is refused with the reason; a subject that was
already appealed is only warned about (the user may still file: the mistake stays possible).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal_web.acme.deadlines import Deadline, appeal_deadline
from sandbox.stores.acme import STATUS_LABELS, Appeal, Claim, Member, PaCase, Plan

APPEALABLE_CASE_STATUSES = ("denied", "partially_approved")
APPEALABLE_CLAIM_STATUSES = ("denied", "partially_paid")
OPEN_APPEAL_STATUSES = ("submitted", "in_review")
REASON_CATEGORIES = {
    "medical_necessity": "Medical necessity",
    "experimental": "Experimental or investigational",
    "authorization": "Authorization absent or exceeded",
    "coverage": "Benefit or coverage determination",
    "coding": "Coding or bundling",
    "timely_filing": "Timely filing",
    "other": "Other",
}
APPEAL_TYPE_LABELS = {"pre_service": "Pre-service (authorization)",
                      "post_service": "Post-service (claim)"}


class NotAppealable(Exception):
    """The subject exists but cannot be appealed now; the message says why and what to do."""


@dataclass
class Subject:
    """The decision an appeal disputes, with what the forms show about it."""

    kind: str  # case | claim | level2
    member: Member
    plan: Plan | None
    case: PaCase | None = None
    claim: Claim | None = None
    parent: Appeal | None = None
    deadline: Deadline | None = None
    earlier: list[Appeal] = field(default_factory=list)  # appeals of the same decision

    @property
    def level(self) -> int:
        return 2 if self.kind == "level2" else 1

    @property
    def appeal_type(self) -> str:
        if self.parent is not None:
            return self.parent.appeal_type
        return "post_service" if self.claim is not None else "pre_service"

    @property
    def decision_date(self) -> dt.date | None:
        if self.kind == "level2" and self.parent is not None and self.parent.decision_at:
            return self.parent.decision_at.date()
        if self.claim is not None:
            return self.claim.processed_date
        if self.case is not None and self.case.decision_at:
            return self.case.decision_at.date()
        return None

    @property
    def denial_reason(self) -> str:
        if self.kind == "level2" and self.parent is not None:
            return self.parent.decision_summary or ""
        if self.claim is not None:
            code = f"CARC {self.claim.denial_carc}: " if self.claim.denial_carc else ""
            return code + (self.claim.denial_reason or "")
        if self.case is not None:
            code = f"{self.case.denial_code}: " if self.case.denial_code else ""
            return code + (self.case.denial_reason or "")
        return ""

    @property
    def title(self) -> str:
        if self.kind == "level2" and self.parent is not None:
            return f"Level-1 appeal {self.parent.reference_number}"
        if self.claim is not None:
            return f"Claim {self.claim.claim_number}"
        assert self.case is not None
        return f"Authorization {self.case.reference_number or 'case ' + str(self.case.id)}"

    def duplicates(self, exclude: int | None = None) -> list[Appeal]:
        """Filed appeals of the same level against the same decision (not this draft)."""
        return [a for a in self.earlier
                if a.id != exclude and a.status != "draft" and a.level == self.level]


def _member(db: Session, member_id: int) -> tuple[Member, Plan | None]:
    member = db.get(Member, member_id)
    if member is None:
        raise LookupError("the member of this decision is not on file")
    return member, db.get(Plan, member.plan_id)


def _first_level_appeals(db: Session, decision: Any, decision_id: int) -> list[Appeal]:
    """The first-level appeals already filed against a decision (``decision`` is the
    column of ``appeals`` naming it), oldest first."""
    return list(db.scalars(select(Appeal).where(decision == decision_id, Appeal.level == 1)
                           .order_by(Appeal.id)))


def case_subject(db: Session, case_id: int) -> Subject:
    """A denied authorization; ``LookupError`` if there is no such case."""
    case = db.get(PaCase, case_id)
    if case is None or case.status == "draft":
        raise LookupError(f"authorization case {case_id}")
    if case.status not in APPEALABLE_CASE_STATUSES:
        raise NotAppealable(
            f"Authorization {case.reference_number} is {STATUS_LABELS.get(case.status, case.status)}"
            ". Only a denied or partially approved request can be appealed; a pended request "
            "needs the information asked for, a rejected one is corrected and resubmitted.")
    member, plan = _member(db, case.member_id)
    return Subject("case", member, plan, case=case, deadline=appeal_deadline(db, case=case),
                   earlier=_first_level_appeals(db, Appeal.case_id, case.id))


def claim_subject(db: Session, claim_id: int, organization_tin: str) -> Subject:
    """A denied claim billed by the user's organization; ``LookupError`` otherwise."""
    claim = db.get(Claim, claim_id)
    if claim is None or claim.billing_tin != organization_tin:
        raise LookupError(f"claim {claim_id}")
    if claim.status not in APPEALABLE_CLAIM_STATUSES:
        raise NotAppealable(
            f"Claim {claim.claim_number} is {STATUS_LABELS.get(claim.status, claim.status)}. "
            "Only a denied or partially paid claim can be appealed; to change a billing error "
            "on a processed claim submit a corrected claim instead.")
    member, plan = _member(db, claim.member_id)
    return Subject("claim", member, plan, claim=claim,
                   deadline=appeal_deadline(db, claim=claim),
                   earlier=_first_level_appeals(db, Appeal.claim_id, claim.id))


def level2_subject(db: Session, appeal_id: int) -> Subject:
    """A second-level appeal of the level-1 appeal ``appeal_id`` (it must be upheld)."""
    parent = db.get(Appeal, appeal_id)
    if parent is None or parent.status == "draft":
        raise LookupError(f"appeal {appeal_id}")
    if parent.level != 1:
        raise NotAppealable(
            f"Appeal {parent.reference_number} is already a level-2 appeal: Acme's internal "
            "appeals end there. The member may ask the state for an external review.")
    if parent.status != "upheld":
        raise NotAppealable(
            f"Appeal {parent.reference_number} is {STATUS_LABELS.get(parent.status, parent.status)}"
            ". A level-2 appeal can be filed only after the level-1 appeal was decided and the "
            "denial upheld.")
    member, plan = _member(db, parent.member_id)
    case = db.get(PaCase, parent.case_id) if parent.case_id else None
    claim = db.get(Claim, parent.claim_id) if parent.claim_id else None
    earlier = list(db.scalars(select(Appeal).where(Appeal.parent_appeal_id == parent.id)
                              .order_by(Appeal.id)))
    return Subject("level2", member, plan, case=case, claim=claim, parent=parent,
                   deadline=appeal_deadline(db, parent=parent), earlier=earlier)


def subject_of(db: Session, appeal: Appeal, organization_tin: str) -> Subject:
    """The subject of an existing appeal (drafts included), without the eligibility rules."""
    member, plan = _member(db, appeal.member_id)
    parent = db.get(Appeal, appeal.parent_appeal_id) if appeal.parent_appeal_id else None
    case = db.get(PaCase, appeal.case_id) if appeal.case_id else None
    claim = db.get(Claim, appeal.claim_id) if appeal.claim_id else None
    if claim is not None and claim.billing_tin != organization_tin:
        raise LookupError(f"appeal {appeal.id}")
    kind = "level2" if appeal.level == 2 else "claim" if claim is not None else "case"
    if parent is not None:
        where = Appeal.parent_appeal_id == parent.id
    elif claim is not None:
        where = (Appeal.claim_id == claim.id) & (Appeal.level == appeal.level)
    elif case is not None:
        where = (Appeal.case_id == case.id) & (Appeal.level == appeal.level)
    else:
        where = Appeal.id == appeal.id
    earlier = list(db.scalars(select(Appeal).where(where).order_by(Appeal.id)))
    return Subject(kind, member, plan, case=case, claim=claim, parent=parent,
                   deadline=appeal_deadline(db, case=case, claim=claim, parent=parent),
                   earlier=earlier)
