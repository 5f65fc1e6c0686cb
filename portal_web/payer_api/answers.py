"""A FHIR QuestionnaireResponse read as the answers of one of Acme's questionnaires.

Both front doors of the API carry questionnaire answers as a QuestionnaireResponse (R4), as
Da Vinci DTR/PAS do: inside a 275 for the X12 278, inside the Bundle for ``Claim/$submit``.
``linkId`` is the question key (``symptom_duration_weeks``); answers are read by the
question's type and stored in the text form the portal stores (``yes``/``no``, numbers as
digits, ICD-10-CM with its dot, a multi-choice as sorted codes joined by ``|``). Questions
are enabled by the same ``enableWhen`` rule the portal applies; answering a disabled
question, leaving an enabled required one empty, or an answer of the wrong type is refused
with a message naming the ``linkId``.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal, InvalidOperation
from typing import Any

from pydantic import ValidationError

from portal_web.common import icd10cm
from sandbox.stores.acme import PaQuestion, PaQuestionnaire

ICD10_SYSTEM = "http://hl7.org/fhir/sid/icd-10-cm"
QUESTIONNAIRE_BASE = "http://api.acmehealth.test/fhir/Questionnaire/"


class AnswerProblem(ValueError):
    """The answers cannot be accepted; the message says which item and why."""


def questionnaire_id(q: PaQuestionnaire) -> str:
    """The FHIR id of a questionnaire (ids allow no underscore: ``lumbar-mri``)."""
    return q.questionnaire_key.replace("_", "-")


def questionnaire_url(q: PaQuestionnaire) -> str:
    return QUESTIONNAIRE_BASE + questionnaire_id(q)


def options(question: PaQuestion) -> dict[str, str]:
    found = {}
    for line in (question.options or "").splitlines():
        value, _, label = line.partition("=")
        if value.strip():
            found[value.strip()] = label.strip()
    return found


def read_answers(qr: dict[str, Any], questionnaire: PaQuestionnaire,
                 questions: list[PaQuestion]) -> dict[str, str]:
    """question_key -> stored answer text, or :class:`AnswerProblem`."""
    from fhir.resources.R4B.questionnaireresponse import QuestionnaireResponse

    try:
        QuestionnaireResponse.model_validate(qr)
    except (ValidationError, ValueError, TypeError) as exc:
        first = exc.errors()[0] if isinstance(exc, ValidationError) else None
        where = ".".join(str(p) for p in first["loc"]) if first else ""
        detail = f"{where}: {first['msg']}" if first else str(exc)
        raise AnswerProblem(f"The QuestionnaireResponse is not valid FHIR R4 ({detail[:200]})."
                            ) from exc
    canonical = str(qr.get("questionnaire") or "").split("|")[0]
    if canonical.rstrip("/").rsplit("/", 1)[-1].replace("-", "_") != \
            questionnaire.questionnaire_key:
        raise AnswerProblem(
            f"QuestionnaireResponse.questionnaire is '{canonical[:80]}'; this service needs "
            f"{questionnaire_url(questionnaire)} ({questionnaire.title}).")
    if qr.get("status") not in ("completed", "amended"):
        raise AnswerProblem("QuestionnaireResponse.status must be 'completed'.")
    given = _flatten(qr.get("item") or [])
    by_key = {q.question_key: q for q in questions}
    unknown = sorted(set(given) - set(by_key))
    if unknown:
        raise AnswerProblem(f"linkId {unknown[0][:40]} is not a question of "
                            f"{questionnaire.questionnaire_key}; its questions are: "
                            f"{', '.join(q.question_key for q in questions)}.")
    answers: dict[str, str] = {}
    for question in sorted(questions, key=lambda q: q.position):
        raw = given.get(question.question_key, [])
        enabled = _enabled(question, answers)
        if raw and not enabled:
            raise AnswerProblem(
                f"linkId {question.question_key} is answered but not enabled: it applies only "
                f"when {question.enable_question_key} {question.enable_operator} "
                f"{question.enable_value}.")
        if not enabled:
            continue
        if not raw:
            if question.required:
                raise AnswerProblem(f"linkId {question.question_key} ('{question.text}') is "
                                    "required and has no answer.")
            continue
        answers[question.question_key] = _answer_text(question, raw)
    return answers


def _flatten(items: list[Any]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        if not isinstance(item, dict):
            continue
        answers = [a for a in item.get("answer") or [] if isinstance(a, dict)]
        if answers:
            found.setdefault(str(item.get("linkId")), []).extend(answers)
        found.update(_flatten(item.get("item") or []))
        for answer in answers:
            found.update(_flatten(answer.get("item") or []))
    return found


def _enabled(question: PaQuestion, answers: dict[str, str]) -> bool:
    key = question.enable_question_key
    if not key:
        return True
    value = answers.get(key)
    operator, target = question.enable_operator or "=", question.enable_value or ""
    if operator == "exists":
        return (value is not None) == (target.lower() != "false")
    if value is None:
        return False
    if operator in ("=", "!="):
        equal = target.casefold() in value.casefold().split("|")
        return equal if operator == "=" else not equal
    try:
        left, right = Decimal(value), Decimal(target)
    except InvalidOperation:
        return False
    return {">": left > right, "<": left < right, ">=": left >= right,
            "<=": left <= right}.get(operator, False)


def _answer_text(question: PaQuestion, raw: list[dict[str, Any]]) -> str:
    key, kind = question.question_key, question.answer_type
    if kind != "multi_choice" and len(raw) > 1:
        raise AnswerProblem(f"linkId {key} takes one answer; {len(raw)} were sent.")
    first = raw[0]
    if kind == "boolean":
        value = first.get("valueBoolean")
        if isinstance(value, bool):
            return "yes" if value else "no"
        code = _code(first).lower()
        if code in ("yes", "no", "y", "n"):
            return "yes" if code.startswith("y") else "no"
        raise AnswerProblem(f"linkId {key} needs valueBoolean (true or false).")
    if kind in ("integer", "decimal"):
        number = first.get("valueInteger", first.get("valueDecimal"))
        if number is None and isinstance(first.get("valueQuantity"), dict):
            number = first["valueQuantity"].get("value")
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            raise AnswerProblem(f"linkId {key} needs a number (valueInteger"
                                f"{' or valueDecimal' if kind == 'decimal' else ''}).")
        if kind == "integer":
            if float(number) != int(number):
                raise AnswerProblem(f"linkId {key} needs a whole number of {question.unit or 'units'}.")
            number = int(number)
        if number < 0:
            raise AnswerProblem(f"linkId {key} cannot be negative.")
        return str(number)
    if kind == "date":
        value = first.get("valueDate")
        try:
            return dt.date.fromisoformat(str(value)).isoformat()
        except ValueError as exc:
            raise AnswerProblem(f"linkId {key} needs valueDate (YYYY-MM-DD).") from exc
    if kind == "text":
        value = first.get("valueString")
        if not isinstance(value, str) or not value.strip():
            raise AnswerProblem(f"linkId {key} needs valueString text.")
        return " ".join(value.split())[:2000]
    if kind == "icd10":
        return _icd10(key, first)
    if kind in ("choice", "multi_choice"):
        allowed = options(question)
        codes = []
        for answer in raw:
            code = _code(answer)
            if code not in allowed:
                raise AnswerProblem(f"linkId {key}: '{code[:30]}' is not an option "
                                    f"(options: {', '.join(allowed)}).")
            codes.append(code)
        if kind == "multi_choice" and "none" in codes and len(codes) > 1:
            raise AnswerProblem(f"linkId {key}: 'none' cannot be combined with other options.")
        return "|".join(sorted(set(codes)))
    raise AnswerProblem(f"linkId {key} has a type this API does not read ({kind}).")


def _code(answer: dict[str, Any]) -> str:
    coding = answer.get("valueCoding")
    if isinstance(coding, dict) and isinstance(coding.get("code"), str):
        return coding["code"].strip()
    value = answer.get("valueString")
    return value.strip() if isinstance(value, str) else ""


def _icd10(key: str, answer: dict[str, Any]) -> str:
    coding = answer.get("valueCoding")
    if not isinstance(coding, dict) or coding.get("system") != ICD10_SYSTEM:
        raise AnswerProblem(f"linkId {key} needs valueCoding with system {ICD10_SYSTEM}.")
    return normalize_icd10(str(coding.get("code") or ""), f"linkId {key}")


def normalize_icd10(code: str, where: str) -> str:
    """An ICD-10-CM code upper case with its dot, or :class:`AnswerProblem`."""
    text = code.strip().upper()
    if not (text and icd10cm.is_valid(text)):
        raise AnswerProblem(f"{where}: '{code[:12]}' is not an ICD-10-CM code.")
    dotted = icd10cm.add_dot(text) or text  # valid: its name, with the dot it has
    if not icd10cm.is_leaf(dotted):
        raise AnswerProblem(f"{where}: {dotted} is a category, not a billable ICD-10-CM code; "
                            "send the most specific code.")
    return dotted
