"""Filing deadlines and review windows, computed from Acme's policy pages.

The ``policies`` table states each window in structured columns (``deadline_days``,
``deadline_unit``) next to the words of the page, so the portal shows the same date the
page promises: a level-1 appeal is due 180 calendar days after the denial notice, a level-2
appeal 60 days after the level-1 decision, a peer-to-peer review must take place within 14
days of the determination. The last day counts: something filed on the deadline is on time.

A late filing is not refused here: the portal accepts it with a warning (Acme dismisses
untimely appeals later), so the mistake stays possible.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from sandbox.clock import business_days_after
from sandbox.stores.acme import Appeal, Claim, PaCase, Policy

APPEAL_LEVEL_1 = "appeals-level-1"
APPEAL_LEVEL_2 = "appeals-level-2"
PEER_TO_PEER = "peer-to-peer"
CORRECTED_CLAIMS = "corrected-claims"


@dataclass(frozen=True)
class Deadline:
    """The last day of a window that opens on ``basis`` under one policy page."""

    policy_key: str
    policy_title: str
    basis: dt.date
    basis_label: str  # "denial notice", "level-1 decision", ...
    days: int
    unit: str  # calendar_days | business_days
    last_day: dt.date

    def is_late(self, today: dt.date) -> bool:
        """Whether filing on ``today`` misses the window (the last day still counts)."""
        return today > self.last_day

    def days_left(self, today: dt.date) -> int:
        """Calendar days from ``today`` to the last day (negative once it has passed)."""
        return (self.last_day - today).days

    @property
    def rule(self) -> str:
        """The rule in words, as the policy page states it."""
        unit = "business days" if self.unit == "business_days" else "calendar days"
        return f"{self.days} {unit} from the {self.basis_label}"


def _policy(db: Session, key: str) -> Policy | None:
    return db.scalar(select(Policy).where(Policy.policy_key == key))


def window(db: Session, policy_key: str, basis: dt.date | None,
           basis_label: str) -> Deadline | None:
    """The deadline ``policy_key`` sets for a window opening on ``basis``; None if unknown."""
    policy = _policy(db, policy_key)
    if policy is None or basis is None or not policy.deadline_days:
        return None
    unit = policy.deadline_unit or "calendar_days"
    if unit == "business_days":
        last = business_days_after(basis, policy.deadline_days)
    else:
        last = basis + dt.timedelta(days=policy.deadline_days)
    return Deadline(policy.policy_key, policy.title, basis, basis_label,
                    policy.deadline_days, unit, last)


def case_appeal_deadline(db: Session, case: PaCase) -> Deadline | None:
    """Level-1 appeal of a case decision: from the decision date."""
    basis = case.decision_at.date() if case.decision_at else None
    return window(db, APPEAL_LEVEL_1, basis, "date of the denial notice")


def claim_appeal_deadline(db: Session, claim: Claim) -> Deadline | None:
    """Level-1 (post-service) appeal of a denied claim: from the processed date."""
    return window(db, APPEAL_LEVEL_1, claim.processed_date, "date of the denial notice")


def level2_deadline(db: Session, level1: Appeal) -> Deadline | None:
    """Level-2 appeal: from the level-1 decision date."""
    basis = level1.decision_at.date() if level1.decision_at else None
    return window(db, APPEAL_LEVEL_2, basis, "date of the level-1 decision")


def appeal_deadline(db: Session, *, case: PaCase | None = None, claim: Claim | None = None,
                    parent: Appeal | None = None) -> Deadline | None:
    """The filing deadline of an appeal of ``parent`` (level 2), a claim, or a case."""
    if parent is not None:
        return level2_deadline(db, parent)
    if claim is not None:
        return claim_appeal_deadline(db, claim)
    if case is not None:
        return case_appeal_deadline(db, case)
    return None


def p2p_window(db: Session, case: PaCase) -> Deadline | None:
    """The peer-to-peer review window: the talk must take place by its last day."""
    basis = case.decision_at.date() if case.decision_at else None
    return window(db, PEER_TO_PEER, basis, "date of the adverse determination")


def correction_deadline(db: Session, claim: Claim) -> Deadline | None:
    """Corrected or voided claims: from the date the original was processed."""
    return window(db, CORRECTED_CLAIMS, claim.processed_date,
                  "date the original claim was processed")
