"""What the portal shows about a case's decision.

Seeded cases carry their decisions in ``pa_cases``. A request submitted during the episode
stays ``in_review`` in the store; once ``pa_decision_rules`` says Acme has decided it (some
sandbox minutes after submission) the portal *shows* that decision. Nothing is written, so
what the submission stored — and what a verifier grades — never changes behind the user.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal_web.acme.references import AUTH_NUMBER
from sandbox.stores.acme import PaCase, PaDecisionRule

UNDECIDED = ("submitted", "in_review")


@dataclass(frozen=True)
class Decision:
    """The decision facts shown for a case (stored, or projected by a rule)."""

    status: str
    decision_at: dt.datetime | None
    auth_number: str | None
    approved_units: int | None
    approved_from: dt.date | None
    approved_to: dt.date | None
    denial_code: str | None
    denial_reason: str | None
    pend_reason: str | None
    rejection_code: str | None
    rejection_reason: str | None
    reviewer_name: str | None
    projected: bool = False


def stored(case: PaCase) -> Decision:
    return Decision(case.status, case.decision_at, case.auth_number, case.approved_units,
                    case.approved_from, case.approved_to, case.denial_code,
                    case.denial_reason, case.pend_reason, case.rejection_code,
                    case.rejection_reason, case.reviewer_name)


def load_rules(db: Session) -> list[PaDecisionRule]:
    return list(db.scalars(select(PaDecisionRule).order_by(PaDecisionRule.priority,
                                                           PaDecisionRule.id)))


def rule_for(case: PaCase, rules: list[PaDecisionRule]) -> PaDecisionRule | None:
    for rule in rules:
        if rule.plan_id is not None and rule.plan_id != case.plan_id:
            continue
        if rule.case_type is not None and rule.case_type != case.case_type:
            continue
        if rule.service_code is not None and rule.service_code != case.service_code:
            continue
        return rule
    return None


def decision_of(case: PaCase, rules: list[PaDecisionRule], now: dt.datetime) -> Decision:
    """The stored decision, or the rule's once its time has come for an undecided case."""
    if case.status not in UNDECIDED or case.submitted_at is None:
        return stored(case)
    rule = rule_for(case, rules)
    if rule is None:
        return stored(case)
    decided_at = case.submitted_at + dt.timedelta(minutes=rule.after_minutes)
    if now < decided_at:
        return stored(case)
    approved = rule.outcome in ("approved", "partially_approved")
    units = None
    if approved and case.units is not None:
        units = max(1, case.units * rule.approved_units_percent // 100)
    return Decision(
        status=rule.outcome, decision_at=decided_at,
        auth_number=AUTH_NUMBER.format(AUTH_NUMBER.floor + 500000 + case.id)
        if approved else None,
        approved_units=units,
        approved_from=case.service_from if approved else None,
        approved_to=case.service_to if approved else None,
        denial_code=rule.reason_code if rule.outcome == "denied" else None,
        denial_reason=rule.reason if rule.outcome == "denied" else None,
        pend_reason=rule.reason if rule.outcome == "pended" else None,
        rejection_code=None, rejection_reason=None,
        reviewer_name=rule.reviewer_name, projected=True)
