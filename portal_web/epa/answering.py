"""Saving answers: the whole question form (the page without script) or one question as it
is entered (the page's script), with the same checks and the same write.

Only questions asked under the answers count: a value posted for a question the answers
no longer ask is ignored, and an answer already stored for such a question is kept — it is
shown as hidden, and cleared only when the office clears it. A refused entry writes
nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from portal_web.epa.pa_request import PaRequestView
from portal_web.epa.questions import QuestionSet, parse_answer, question_enabled
from sandbox.stores.epa import EpaAnswer, EpaRequest

Change = dict[str, str | None]  # question key -> new answer (None: no answer)


@dataclass
class FormOutcome:
    """What a posted question form asks to change, or why it cannot be saved."""

    changes: Change = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors


def apply_form(qset: QuestionSet, stored: Mapping[str, str], asked: Iterable[str],
               posted: Callable[[str], Sequence[str]], today: dt.date) -> FormOutcome:
    """Changes to the answers of ``qset`` from a posted form.

    Questions are walked in order with the answers as they would stand after the save, so
    an answer that unlocks a follow-up in the same post lets that follow-up be saved too,
    and an answer that hides one makes its posted value count for nothing. ``asked`` lists
    the questions the page had fields for; other questions are left as they are.
    """
    asked = set(asked)
    merged = dict(stored)
    visible: dict[str, str] = {}
    outcome = FormOutcome()
    for q in qset.questions:
        if not question_enabled(list(q.conditions), q.behavior, visible):
            continue
        if q.key in asked:
            parsed = parse_answer(q, posted(q.field), today)
            if parsed.error:
                outcome.errors[q.field] = parsed.error
            elif parsed.value != stored.get(q.key):
                outcome.changes[q.key] = parsed.value
                if parsed.value is None:
                    merged.pop(q.key, None)
                else:
                    merged[q.key] = parsed.value
        if q.key in merged:
            visible[q.key] = merged[q.key]
    if outcome.errors:
        outcome.changes = {}
    return outcome


def apply_one(qset: QuestionSet, stored: Mapping[str, str], key: str,
              posted: Sequence[str], today: dt.date) -> FormOutcome:
    """The change one question's entry makes (the page saves each answer as it is entered)."""
    q = qset.get(key)
    if q is None:
        return FormOutcome(errors={"_form": "That question is not part of this request's "
                                            "current question set; reload the page."})
    if key not in qset.shown(stored):
        return FormOutcome(errors={q.field: "This question is not asked under your current "
                                            "answers, so the entry was not saved; reload "
                                            "the page."})
    parsed = parse_answer(q, posted, today)
    if parsed.error:
        return FormOutcome(errors={q.field: parsed.error})
    if parsed.value == stored.get(key):
        return FormOutcome()
    return FormOutcome(changes={key: parsed.value})


def write_answers(db: Session, view: PaRequestView, changes: Change, now: dt.datetime) -> None:
    """Store ``changes`` for the request (inside the caller's write transaction).

    The request moves to ``in_progress`` (Follow Up on the dashboard) once the office
    answers the plan's questions, including a further set that arrived while it was
    ``sent_to_plan``.
    """
    if not changes:
        return
    for key, value in changes.items():
        row = view.answer_rows.get(key)
        live = db.get(EpaAnswer, row.id) if row is not None else None
        if value is None:
            if live is not None:
                db.delete(live)
        elif live is None:
            db.add(EpaAnswer(request_id=view.row.id, question_key=key, answer_value=value,
                             answered_at=now))
        else:
            live.answer_value = value
            live.answered_at = now
    request = db.get(EpaRequest, view.row.id)
    request.status = "in_progress"
    request.updated_at = now


def clear_answer(db: Session, view: PaRequestView, key: str, now: dt.datetime) -> bool:
    """Remove one stored answer (the office cleared it); False if there was none."""
    row = view.answer_rows.get(key)
    if row is None:
        return False
    live = db.get(EpaAnswer, row.id)
    if live is None:
        return False
    db.delete(live)
    request = db.get(EpaRequest, view.row.id)
    request.status = "in_progress"
    request.updated_at = now
    return True
