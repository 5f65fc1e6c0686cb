"""One ePA request as the pages show it: the stored row, the plan's replies read against
the sandbox clock, the question sets that have arrived, answers and attachments."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session, defer

from portal_web.epa.questions import QuestionSet, load_question_set
from portal_web.epa.status import Badge, badge
from sandbox.stores.epa import (
    EpaAnswer,
    EpaAttachment,
    EpaPlan,
    EpaPlanResponse,
    EpaRequest,
    PlanState,
    plan_state,
)

KEY_PATTERN = "[A-Za-z0-9]{4}-[A-Za-z0-9]{4}"
_KEY = re.compile(r"[A-Z0-9]{4}-?[A-Z0-9]{4}")
EDITABLE = ("questions_received", "in_progress")
SENDABLE = ("new", "questions_received", "in_progress")


def normalize_key(raw: str) -> str | None:
    """``bx7q 4ktm`` / ``BX7Q4KTM`` → ``BX7Q-4KTM``; None if it is not a Key's shape."""
    text = re.sub(r"\s+", "", raw or "").upper()
    if not _KEY.fullmatch(text):
        return None
    text = text.replace("-", "")
    return f"{text[:4]}-{text[4:]}"


@dataclass
class PaRequestView:
    """A request with everything its pages need, at one sandbox instant."""

    row: EpaRequest
    plan: EpaPlan | None
    state: PlanState
    sets: list[QuestionSet]
    answers: dict[str, str]
    answer_rows: dict[str, EpaAnswer]
    attachments: list[EpaAttachment] = field(default_factory=list)

    @property
    def key(self) -> str:
        return self.row.request_key

    @property
    def status(self) -> str:
        return self.state.status

    @property
    def badge(self) -> Badge:
        return badge(self.state.status)

    @property
    def current_set(self) -> QuestionSet | None:
        return self.sets[-1] if self.sets else None

    @property
    def earlier_sets(self) -> list[QuestionSet]:
        return self.sets[:-1]

    @property
    def editable(self) -> bool:
        """Answers and attachments may change (the plan is waiting for them)."""
        return self.state.status in EDITABLE and not self.row.archived

    @property
    def sendable(self) -> bool:
        return self.state.status in SENDABLE and not self.row.archived

    @property
    def determined(self) -> bool:
        return self.state.status in ("approved", "denied", "cancelled")

    @property
    def decision_time(self) -> datetime | None:
        return self.state.replied_at or self.row.decision_at

    @property
    def decision_note(self) -> str:
        if self.state.reply is not None:
            return self.state.reply.note
        return self.row.decision_note or ""

    def answers_of(self, qset: QuestionSet) -> dict[str, str]:
        return {k: v for k, v in self.answers.items() if k in set(qset.keys)}


def load_request(db: Session, key: str, now: datetime, *,
                 with_attachments: bool = True) -> PaRequestView | None:
    """The request with Key ``key`` (already normalised), or None."""
    row = db.scalar(select(EpaRequest).where(EpaRequest.request_key == key))
    if row is None:
        return None
    replies = list(db.scalars(select(EpaPlanResponse).where(
        EpaPlanResponse.request_id == row.id)))
    state = plan_state(row, replies, now)
    sets = [s for s in (load_question_set(db, sid) for sid in state.question_set_ids) if s]
    answer_rows = {a.question_key: a for a in db.scalars(
        select(EpaAnswer).where(EpaAnswer.request_id == row.id))}
    attachments = []
    if with_attachments:
        attachments = list(db.scalars(
            select(EpaAttachment).options(defer(EpaAttachment.content))
            .where(EpaAttachment.request_id == row.id).order_by(EpaAttachment.id)))
    plan = db.get(EpaPlan, row.plan_id) if row.plan_id is not None else None
    return PaRequestView(row=row, plan=plan, state=state, sets=sets,
                         answers={k: a.answer_value for k, a in answer_rows.items()},
                         answer_rows=answer_rows, attachments=attachments)


def all_requests(db: Session, now: datetime) -> list[tuple[EpaRequest, PlanState,
                                                           EpaPlan | None]]:
    """Every request with its state at ``now`` (the dashboard's rows)."""
    rows = list(db.scalars(select(EpaRequest).order_by(EpaRequest.id)))
    replies: dict[int, list[EpaPlanResponse]] = {}
    for reply in db.scalars(select(EpaPlanResponse)):
        replies.setdefault(reply.request_id, []).append(reply)
    plans = {p.id: p for p in db.scalars(select(EpaPlan))}
    return [(r, plan_state(r, replies.get(r.id, []), now), plans.get(r.plan_id))
            for r in rows]
