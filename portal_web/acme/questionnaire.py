"""The clinical questionnaire of a request: which one applies, which questions show, and
how answers are checked and stored.

A questionnaire is chosen by the service code (``pa_questionnaires.codes``) or, for a drug,
by its generic name. A question shows when its enableWhen conditions hold (the inline one
on ``pa_questions`` plus rows of ``pa_question_conditions``, combined by
``enable_behavior``); answers to hidden questions neither count for later conditions nor
get stored. Stored answers are text: ``yes``/``no``, numbers as typed (normalised), dates
``YYYY-MM-DD``, ICD-10 codes with their dot, multi-choice values sorted and joined by ``|``.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal_web.common.forms import icd10cm_description, icd10cm_normalise
from sandbox.stores.acme import PaQuestion, PaQuestionCondition, PaQuestionnaire

OPERATORS = ("=", "!=", ">", "<", ">=", "<=", "exists")
BOOLEAN_OPTIONS = (("yes", "Yes"), ("no", "No"))
FIELD_PREFIX = "q_"


@dataclass(frozen=True)
class Condition:
    key: str
    operator: str
    value: str


@dataclass
class Question:
    """A question as the form shows it."""

    id: int
    key: str
    position: int
    text: str
    answer_type: str
    options: list[tuple[str, str]]
    required: bool
    unit: str
    help_text: str
    behavior: str = "all"
    conditions: list[Condition] = field(default_factory=list)

    @property
    def field(self) -> str:
        return FIELD_PREFIX + self.key

    @property
    def is_follow_up(self) -> bool:
        return bool(self.conditions)


def parse_options(text: str) -> list[tuple[str, str]]:
    options = []
    for line in (text or "").splitlines():
        line = line.strip()
        if line:
            value, _, label = line.partition("=")
            options.append((value.strip(), (label or value).strip()))
    return options


def for_case(db: Session, *, code: str | None = None,
             drug_name: str | None = None) -> PaQuestionnaire | None:
    """The questionnaire for a service code or a drug (its first word, the generic name)."""
    keys = []
    if code:
        keys.append(code.strip().upper())
    if drug_name:
        word = re.split(r"[\s(/,]+", drug_name.strip().lower())[0]
        if word:
            keys.append(word)
    if not keys:
        return None
    for questionnaire in db.scalars(select(PaQuestionnaire).order_by(PaQuestionnaire.id)):
        codes = {c.strip().lower() for c in questionnaire.codes.split(",")}
        if any(k.lower() in codes for k in keys):
            return questionnaire
    return None


def load_questions(db: Session, questionnaire_id: int) -> list[Question]:
    rows = list(db.scalars(select(PaQuestion).where(
        PaQuestion.questionnaire_id == questionnaire_id).order_by(PaQuestion.position)))
    extra: dict[int, list[Condition]] = {}
    if rows:
        for c in db.scalars(select(PaQuestionCondition).where(
                PaQuestionCondition.question_id.in_([r.id for r in rows]))
                .order_by(PaQuestionCondition.id)):
            extra.setdefault(c.question_id, []).append(
                Condition(c.enable_question_key, c.enable_operator, c.enable_value or ""))
    questions = []
    for row in rows:
        conditions = []
        if row.enable_question_key:
            conditions.append(Condition(row.enable_question_key, row.enable_operator or "=",
                                        row.enable_value or ""))
        conditions.extend(extra.get(row.id, []))
        options = list(BOOLEAN_OPTIONS) if row.answer_type == "boolean" \
            else parse_options(row.options)
        questions.append(Question(
            id=row.id, key=row.question_key, position=row.position, text=row.text,
            answer_type=row.answer_type, options=options, required=row.required,
            unit=row.unit or "", help_text=row.help_text or "",
            behavior=(row.enable_behavior or "all"), conditions=conditions))
    return questions


# -- enableWhen ------------------------------------------------------------------------
def _compare(answer: str, operator: str, expected: str) -> bool:
    if operator == "exists":
        present = answer != ""
        return present if expected.lower() in ("", "true", "yes") else not present
    values = answer.split("|") if "|" in answer else [answer]  # multi-choice: any value
    if operator in ("=", "!="):
        equal = any(v.strip().lower() == expected.strip().lower() for v in values)
        return equal if operator == "=" else not equal
    try:
        left: object = float(answer)
        right: object = float(expected)
    except ValueError:
        left, right = answer, expected  # ISO dates compare as text
    return {">": left > right, "<": left < right,  # type: ignore[operator]
            ">=": left >= right, "<=": left <= right}[operator]  # type: ignore[operator]


def condition_holds(condition: Condition, answers: Mapping[str, str]) -> bool:
    if condition.operator not in OPERATORS:
        raise ValueError(f"unknown enableWhen operator {condition.operator!r}; use {OPERATORS}")
    answer = answers.get(condition.key, "")
    if answer == "" and condition.operator != "exists":
        return False
    return _compare(answer, condition.operator, condition.value)


def is_enabled(question: Question, visible: Mapping[str, str]) -> bool:
    if not question.conditions:
        return True
    results = [condition_holds(c, visible) for c in question.conditions]
    return all(results) if question.behavior == "all" else any(results)


def enabled(questions: list[Question], answers: Mapping[str, str]) -> list[Question]:
    """The questions shown for ``answers``, in order; answers of hidden questions do not
    count for later conditions (a follow-up of a hidden follow-up stays hidden)."""
    visible: dict[str, str] = {}
    shown = []
    for question in questions:
        if is_enabled(question, visible):
            shown.append(question)
            if answers.get(question.key, "") != "":
                visible[question.key] = answers[question.key]
    return shown


# -- answers from a posted form ------------------------------------------------------------
def raw_answers(questions: list[Question], form: Mapping[str, str],
                lists: Mapping[str, list[str]]) -> dict[str, str]:
    """What the form says for each question, as stored text (unchecked)."""
    answers = {}
    for q in questions:
        if q.answer_type == "multi_choice":
            values = sorted({v.strip() for v in lists.get(q.field, []) if v.strip()})
            answers[q.key] = "|".join(values)
        else:
            answers[q.key] = re.sub(r"[\x00-\x1f\x7f]", " ", form.get(q.field, "")).strip()
    return answers


def check_answer(q: Question, value: str, today: dt.date) -> tuple[str | None, str | None]:
    """(stored value, None) or (None, message) for one shown question."""
    label = _label(q)
    if value == "":
        return (None, f"{label}: an answer is required.") if q.required else ("", None)
    allowed = {v for v, _ in q.options}
    if q.answer_type in ("boolean", "choice"):
        if value not in allowed:
            return None, f"{label}: choose one of the offered answers."
        return value, None
    if q.answer_type == "multi_choice":
        values = value.split("|")
        if any(v not in allowed for v in values):
            return None, f"{label}: choose from the offered answers."
        if "none" in values and len(values) > 1:
            return None, f"{label}: 'None' cannot be combined with other answers."
        return value, None
    if q.answer_type == "integer":
        if not re.fullmatch(r"\d{1,6}", value):
            return None, f"{label}: enter a whole number{_unit(q)} (you entered '{value[:20]}')."
        return str(int(value)), None
    if q.answer_type == "decimal":
        try:
            number = Decimal(value.replace(",", ""))
        except InvalidOperation:
            number = None
        if number is None or not number.is_finite() or number < 0 or number > 100000 \
                or number.as_tuple().exponent < -2:  # type: ignore[operator]
            return None, (f"{label}: enter a number{_unit(q)} with at most 2 decimals "
                          f"(you entered '{value[:20]}').")
        text = format(number.normalize(), "f")
        return text, None
    if q.answer_type == "date":
        try:
            day = dt.date.fromisoformat(value) if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) \
                else None
        except ValueError:
            day = None
        if day is None:
            return None, f"{label}: enter a date written YYYY-MM-DD (you entered '{value[:20]}')."
        if day > today:
            return None, f"{label}: the date cannot be in the future ({today.isoformat()} is today)."
        return day.isoformat(), None
    if q.answer_type == "icd10":
        code = icd10cm_normalise(value)
        if not re.fullmatch(r"[A-Z][0-9][0-9A-Z](\.[0-9A-Z]{1,4})?", code) \
                or icd10cm_description(code) is None:
            return None, f"{label}: '{value[:12]}' is not a valid ICD-10-CM code (e.g. M51.16)."
        return code, None
    if len(value) > 2000:
        return None, f"{label}: shorten the answer to 2000 characters."
    return value, None


def _label(q: Question) -> str:
    text = q.text if len(q.text) <= 60 else q.text[:57] + "..."
    return f"Question {q.position} ({text})"


def _unit(q: Question) -> str:
    return f" in {q.unit}" if q.unit else ""


def display_answer(q: Question, value: str | None) -> str:
    if value is None or value == "":
        return ""
    labels = dict(q.options)
    if q.answer_type in ("boolean", "choice"):
        return labels.get(value, value)
    if q.answer_type == "multi_choice":
        return "; ".join(labels.get(v, v) for v in value.split("|"))
    if q.answer_type == "icd10":
        return f"{value} - {icd10cm_description(value) or ''}"
    return f"{value} {q.unit}".strip() if q.unit else value
