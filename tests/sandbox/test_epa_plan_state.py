"""The plan's scripted replies (``epa_plan_responses``) read against the sandbox clock, and
the ePA data they rely on."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from sandbox.clock import SandboxClock
from sandbox.paths import TASKS_DIR, WORLD_DIR
from sandbox.seeding import load_rows
from sandbox.stores import Store
from sandbox.stores.epa import (
    EpaEnableWhen,
    EpaPlanResponse,
    EpaQuestion,
    EpaRequest,
    plan_state,
)

SENT = datetime(2026, 10, 19, 9, 30)


def request(status: str = "sent_to_plan", sends: int = 1, set_id: int | None = 1) -> EpaRequest:
    return EpaRequest(id=7, request_key="AAAA-1111", status=status, send_count=sends,
                      question_set_id=set_id, sent_at=SENT if sends else None,
                      patient_last="X", patient_first="Y", patient_dob=date(1970, 1, 1),
                      member_number="M", drug_name="d", prescriber_name="p",
                      prescriber_npi="1234567893")


def reply(send: int, minutes: int, outcome: str, set_id: int | None = None) -> EpaPlanResponse:
    return EpaPlanResponse(request_id=7, send_number=send, delay_minutes=minutes,
                           outcome=outcome, question_set_id=set_id, note=f"{outcome} note")


def test_determination_arrives_after_its_delay():
    replies = [reply(1, 60, "approved")]
    before = plan_state(request(), replies, SENT + timedelta(minutes=59))
    assert (before.status, before.reply) == ("sent_to_plan", None)
    after = plan_state(request(), replies, SENT + timedelta(minutes=60))
    assert (after.status, after.replied_at) == ("approved", SENT + timedelta(minutes=60))
    assert after.question_set_ids == (1,)


def test_further_question_set_arrives_then_stays_while_answered():
    replies = [reply(1, 30, "questions", 2), reply(2, 240, "denied")]
    arrived = plan_state(request(), replies, SENT + timedelta(hours=1))
    assert (arrived.status, arrived.question_set_ids) == ("questions_received", (1, 2))
    answering = plan_state(request("in_progress"), replies, SENT + timedelta(hours=1))
    assert (answering.status, answering.current_set_id) == ("in_progress", 2)
    resent = plan_state(request(sends=2), replies, SENT + timedelta(hours=4))
    assert (resent.status, resent.question_set_ids) == ("denied", (1, 2))


@pytest.mark.parametrize("status", ["questions_received", "in_progress", "new", "denied"])
def test_unsent_or_decided_requests_keep_their_stored_status(status):
    state = plan_state(request(status, sends=0), [reply(1, 0, "approved")],
                       SENT + timedelta(days=9))
    assert state.status == status


def test_a_request_without_a_reply_waits():
    assert plan_state(request(), [], SENT + timedelta(days=30)).status == "sent_to_plan"


def _store(tmp_path: Path) -> Store:
    store = Store("epa", tmp_path / "epa.sqlite", SandboxClock()).create()
    load_rows(store, WORLD_DIR / "epa.yaml")
    load_rows(store, TASKS_DIR / "R09.03.01.04-T20" / "seed" / "epa.yaml")
    return store


def test_question_sets_of_one_request_never_share_a_key(tmp_path):
    """Answers are keyed by request and question key, so a request's sets must not clash."""
    store = _store(tmp_path)
    with store.reader() as db:
        keys: dict[int, set[str]] = {}
        for q in db.scalars(select(EpaQuestion)):
            keys.setdefault(q.question_set_id, set()).add(q.question_key)
        for req in db.scalars(select(EpaRequest)):
            sets = [req.question_set_id] + [
                r.question_set_id for r in db.scalars(select(EpaPlanResponse).where(
                    EpaPlanResponse.request_id == req.id)) if r.question_set_id]
            seen: set[str] = set()
            for set_id in (s for s in sets if s is not None):
                assert not seen & keys[set_id], req.request_key
                seen |= keys[set_id]


def test_conditions_refer_to_earlier_questions_of_the_same_set(tmp_path):
    store = _store(tmp_path)
    with store.reader() as db:
        questions = {q.id: q for q in db.scalars(select(EpaQuestion))}
        for cond in db.scalars(select(EpaEnableWhen)):
            q = questions[cond.question_id]
            parents = [p for p in questions.values() if p.question_set_id == q.question_set_id
                       and p.question_key == cond.depends_on_key]
            assert parents and parents[0].position < q.position, q.question_key


def test_every_reply_has_a_known_outcome_and_questions_carry_a_set(tmp_path):
    store = _store(tmp_path)
    with store.reader() as db:
        for r in db.scalars(select(EpaPlanResponse)):
            assert r.outcome in ("approved", "denied", "pended", "questions")
            assert (r.question_set_id is not None) == (r.outcome == "questions")
            assert r.delay_minutes >= 0 and r.send_number >= 1
