"""A plan's question set as the portal renders and validates it.

Questions come from ``epa_questions`` with their ``epa_enable_when`` conditions; whether one
is shown is decided only by :func:`sandbox.stores.epa.question_enabled` /
:func:`~sandbox.stores.epa.enabled_keys` (the verifier's rule too). An answer is stored as
text in the store's conventions: yes/no for booleans, the option value for a choice, sorted
option values joined by ``|`` for several choices, ISO dates, plain decimal numbers.
:func:`parse_answer` turns what was typed into that text or a message saying what to fix.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal_web.common.forms import clean_text
from sandbox.stores.epa import (
    EpaEnableWhen,
    EpaQuestion,
    EpaQuestionSet,
    enabled_keys,
    question_enabled,
)

MAX_TEXT = 1000
EARLIEST_DATE = dt.date(1900, 1, 1)
# Plausible ranges by unit, so an impossible value (a BMI of 342) is caught as it is entered.
UNIT_RANGES: dict[str, tuple[float, float]] = {
    "%": (0, 100),
    "kg/m2": (5, 150),
    "months": (0, 600),
    "mL/min/1.73m2": (0, 200),
}
DEFAULT_RANGE = (0, 100_000)
DECIMAL_PLACES = 2
_DATE_US = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")
_DATE_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


@dataclass(frozen=True)
class Question:
    """One question of a set, with what the page needs to draw and check it."""

    key: str
    position: int
    text: str
    answer_type: str
    options: tuple[tuple[str, str], ...]
    required: bool
    unit: str
    help_text: str
    behavior: str
    conditions: tuple[tuple[str, str, str], ...]
    depth: int = 0

    @property
    def field(self) -> str:
        """The form field name of the answer."""
        return f"a_{self.key}"

    @property
    def is_follow_up(self) -> bool:
        return bool(self.conditions)

    def option_label(self, value: str) -> str:
        return dict(self.options).get(value, value)


@dataclass(frozen=True)
class QuestionSet:
    """A set's questions in position order."""

    id: int
    title: str
    questions: tuple[Question, ...]

    @property
    def keys(self) -> list[str]:
        return [q.key for q in self.questions]

    def get(self, key: str) -> Question | None:
        return next((q for q in self.questions if q.key == key), None)

    def items(self) -> list[tuple[str, str, list[tuple[str, str, str]]]]:
        """The questions as :func:`~sandbox.stores.epa.enabled_keys` takes them."""
        return [(q.key, q.behavior, list(q.conditions)) for q in self.questions]

    def shown(self, answers: Mapping[str, str]) -> list[str]:
        """Keys of the questions asked under ``answers``, in order."""
        return enabled_keys(self.items(), answers)

    def hidden_answered(self, answers: Mapping[str, str]) -> list[Question]:
        """Questions of this set that hold an answer but are not asked under the answers.

        Such an answer is kept (the office may have a reason to change the earlier answer
        back); it is shown apart, marked hidden, with a way to clear it.
        """
        shown = set(self.shown(answers))
        return [q for q in self.questions if q.key in answers and q.key not in shown]

    def unanswered_required(self, answers: Mapping[str, str]) -> list[Question]:
        shown = self.shown(answers)
        return [q for q in self.questions
                if q.key in shown and q.required and not answers.get(q.key)]

    def numbers(self, answers: Mapping[str, str]) -> dict[str, int]:
        """The number each shown question carries on the page (1, 2, ... in order)."""
        return {key: i for i, key in enumerate(self.shown(answers), start=1)}


def _options(text: str) -> tuple[tuple[str, str], ...]:
    pairs = []
    for line in (text or "").splitlines():
        if "=" in line:
            value, label = line.split("=", 1)
            pairs.append((value.strip(), label.strip()))
    return tuple(pairs)


def load_question_set(db: Session, set_id: int) -> QuestionSet | None:
    """The question set ``set_id`` with its conditions, or None if there is no such set."""
    row = db.get(EpaQuestionSet, set_id)
    if row is None:
        return None
    rows = list(db.scalars(select(EpaQuestion).where(EpaQuestion.question_set_id == set_id)
                           .order_by(EpaQuestion.position, EpaQuestion.id)))
    conditions: dict[int, list[tuple[str, str, str]]] = {q.id: [] for q in rows}
    for cond in db.scalars(select(EpaEnableWhen).where(
            EpaEnableWhen.question_id.in_([q.id for q in rows])).order_by(EpaEnableWhen.id)):
        conditions[cond.question_id].append((cond.depends_on_key, cond.operator,
                                             cond.answer_value))
    depth: dict[str, int] = {}
    questions = []
    for q in rows:
        parents = [depth[key] for key, _, _ in conditions[q.id] if key in depth]
        depth[q.question_key] = (max(parents) + 1) if parents else 0
        questions.append(Question(
            key=q.question_key, position=q.position, text=q.text, answer_type=q.answer_type,
            options=_options(q.options), required=bool(q.required), unit=q.unit or "",
            help_text=q.help_text or "", behavior=q.enable_behavior or "all",
            conditions=tuple(conditions[q.id]), depth=min(depth[q.question_key], 3)))
    return QuestionSet(id=row.id, title=row.title, questions=tuple(questions))


# -- answers -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Parsed:
    """What was typed for one question: the text to store (None = no answer) or a message."""

    value: str | None = None
    error: str | None = None


def _label(q: Question) -> str:
    text = q.text.rstrip("?:. ")
    return text if len(text) <= 60 else text[:57].rstrip() + "..."


def parse_date(raw: str) -> dt.date | None:
    """MM/DD/YYYY (as the portal shows dates) or YYYY-MM-DD; None if neither or invalid."""
    raw = raw.strip()
    match = _DATE_US.fullmatch(raw)
    try:
        if match:
            return dt.date(int(match[3]), int(match[1]), int(match[2]))
        match = _DATE_ISO.fullmatch(raw)
        if match:
            return dt.date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None
    return None


def _number(q: Question, raw: str, *, whole: bool) -> Parsed:
    low, high = UNIT_RANGES.get(q.unit, DEFAULT_RANGE)
    unit = f" {q.unit}" if q.unit else ""
    text = raw.replace(",", "").strip()
    if text.endswith("%") and q.unit == "%":
        text = text[:-1].strip()
    if whole:
        if not re.fullmatch(r"[+-]?\d{1,9}", text):
            return Parsed(error=f"{_label(q)}: enter a whole number{unit} "
                                f"(you entered '{raw[:20]}').")
        number = Decimal(int(text))
    else:
        try:
            number = Decimal(text)
        except InvalidOperation:
            number = None
        if number is None or not number.is_finite() or not re.fullmatch(
                r"[+-]?(\d+(\.\d*)?|\.\d+)", text):
            return Parsed(error=f"{_label(q)}: enter a number{unit}, such as 8.4 "
                                f"(you entered '{raw[:20]}').")
        if -number.as_tuple().exponent > DECIMAL_PLACES:  # type: ignore[operator]
            return Parsed(error=f"{_label(q)}: enter at most {DECIMAL_PLACES} decimal "
                                "places.")
    if not low <= float(number) <= high:
        return Parsed(error=f"{_label(q)} must be between {low:g} and {high:g}{unit}.")
    if number == 0:
        return Parsed(value="0")
    return Parsed(value=str(int(number)) if whole else format(number.normalize(), "f"))


def parse_answer(q: Question, raw: Sequence[str], today: dt.date) -> Parsed:
    """Check what was entered for ``q``; ``raw`` holds the posted values of its field.

    An empty entry is "no answer" (``Parsed()``); whether a required question may be left
    unanswered is decided when the request is sent, not while answering.
    """
    values = [clean_text(v) for v in raw if isinstance(v, str)]
    values = [v for v in values if v]
    if not values:
        return Parsed()
    first = values[0]
    kind = q.answer_type
    if kind == "boolean":
        if first.lower() not in ("yes", "no"):
            return Parsed(error=f"{_label(q)}: choose Yes or No.")
        return Parsed(value=first.lower())
    if kind == "choice":
        allowed = [value for value, _ in q.options]
        if first not in allowed:
            return Parsed(error=f"{_label(q)}: '{first[:30]}' is not one of the choices; "
                                "pick one from the list.")
        return Parsed(value=first)
    if kind == "multi_choice":
        allowed = [value for value, _ in q.options]
        chosen = sorted(set(values))
        unknown = [v for v in chosen if v not in allowed]
        if unknown:
            return Parsed(error=f"{_label(q)}: '{unknown[0][:30]}' is not one of the "
                                "choices; tick boxes from the list.")
        if "none" in chosen and len(chosen) > 1:
            return Parsed(error=f"{_label(q)}: 'None' cannot be ticked together with "
                                "other choices; untick one.")
        return Parsed(value="|".join(chosen))
    if kind == "integer":
        return _number(q, first, whole=True)
    if kind == "decimal":
        return _number(q, first, whole=False)
    if kind == "date":
        day = parse_date(first)
        if day is None:
            return Parsed(error=f"{_label(q)}: enter a date as MM/DD/YYYY "
                                f"(you entered '{first[:20]}').")
        if day > today:
            return Parsed(error=f"{_label(q)}: {day.strftime('%m/%d/%Y')} is in the "
                                "future; enter the date it happened.")
        if day < EARLIEST_DATE:
            return Parsed(error=f"{_label(q)}: enter a date after 01/01/1900.")
        return Parsed(value=day.isoformat())
    # free text
    if len(first) > MAX_TEXT:
        return Parsed(error=f"{_label(q)}: shorten the answer to {MAX_TEXT} characters or "
                            f"fewer (it has {len(first)}).")
    return Parsed(value=first)


def display_answer(q: Question | None, value: str | None) -> str:
    """A stored answer as the page shows it (labels for choices, MM/DD/YYYY dates)."""
    if value is None or value == "":
        return ""
    if q is None:
        return value
    if q.answer_type == "boolean":
        return {"yes": "Yes", "no": "No"}.get(value, value)
    if q.answer_type == "choice":
        return q.option_label(value)
    if q.answer_type == "multi_choice":
        return ", ".join(q.option_label(v) for v in value.split("|") if v)
    if q.answer_type == "date":
        day = parse_date(value)
        return day.strftime("%m/%d/%Y") if day else value
    if q.unit and q.answer_type in ("integer", "decimal"):
        return f"{value} {q.unit}"
    return value


def field_value(q: Question, value: str | None) -> str | list[str]:
    """A stored answer as its form field holds it (a list for several choices)."""
    if q.answer_type == "multi_choice":
        return [v for v in (value or "").split("|") if v]
    if q.answer_type == "date" and value:
        day = parse_date(value)
        return day.strftime("%m/%d/%Y") if day else value
    return value or ""


def condition_text(qset: QuestionSet, q: Question) -> str:
    """Why a follow-up is asked, in words ("Asked because question 'X' is 'Y'")."""
    parts = []
    for key, operator, expected in q.conditions:
        parent = qset.get(key)
        name = f"'{_label(parent)}'" if parent else key
        if operator == "exists":
            parts.append(f"{name} is answered")
        elif operator == "=":
            parts.append(f"{name} is '{display_answer(parent, expected)}'")
        elif operator == "!=":
            parts.append(f"{name} is not '{display_answer(parent, expected)}'")
        else:
            parts.append(f"{name} {operator} {expected}")
    joiner = " or " if q.behavior == "any" else " and "
    return "Asked because " + joiner.join(parts) if parts else ""


__all__ = [
    "Parsed", "Question", "QuestionSet", "condition_text", "display_answer", "field_value",
    "load_question_set", "parse_answer", "parse_date", "question_enabled",
]
