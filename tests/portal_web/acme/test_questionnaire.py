"""The questionnaire rules: which questions show (enableWhen with one or several
conditions, =, !=, >), and how answers are checked and stored."""

from __future__ import annotations

import datetime as dt

import pytest

from portal_web.acme import questionnaire as qn
from tests.portal_web.support import run_store

TODAY = dt.date(2026, 10, 19)


def question(key: str, answer_type: str = "boolean", conditions=(), behavior: str = "all",
             options=(), required: bool = True) -> qn.Question:  # noqa: ANN001
    return qn.Question(id=0, key=key, position=0, text=key, answer_type=answer_type,
                       options=list(options) or list(qn.BOOLEAN_OPTIONS), required=required,
                       unit="", help_text="", behavior=behavior,
                       conditions=[qn.Condition(*c) for c in conditions])


KNEE = [question("months", "integer"), question("mechanical"),
        question("persist", conditions=[("mechanical", "=", "yes"), ("months", ">", "0")]),
        question("any", conditions=[("mechanical", "=", "yes"), ("months", ">", "3")],
                 behavior="any"),
        question("second", "choice", options=[("none", "None"), ("lef", "Leflunomide")]),
        question("dose", "text", conditions=[("second", "!=", "none")]),
        question("dose_detail", "text", conditions=[("dose", "exists", "true")])]


def keys(answers: dict[str, str]) -> list[str]:
    return [q.key for q in qn.enabled(KNEE, answers)]


def test_all_conditions_must_hold():
    assert "persist" in keys({"mechanical": "yes", "months": "1"})
    assert "persist" not in keys({"mechanical": "yes", "months": "0"})
    assert "persist" not in keys({"mechanical": "no", "months": "4"})


def test_any_condition_may_hold():
    assert "any" in keys({"mechanical": "no", "months": "4"})
    assert "any" not in keys({"mechanical": "no", "months": "2"})


def test_not_equal_and_follow_up_of_a_hidden_follow_up():
    assert "dose" in keys({"second": "lef"})
    assert "dose" not in keys({"second": "none"})
    # an answer left over in a hidden question does not open its own follow-ups
    assert "dose_detail" not in keys({"second": "none", "dose": "20 mg"})
    assert "dose_detail" in keys({"second": "lef", "dose": "20 mg"})


def test_unknown_operator_is_an_error():
    with pytest.raises(ValueError, match="unknown enableWhen operator"):
        qn.condition_holds(qn.Condition("a", "~", "1"), {"a": "1"})


def test_multi_choice_equality_means_any_chosen_value():
    assert qn.condition_holds(qn.Condition("flags", "=", "fracture"),
                              {"flags": "fracture|infection"})
    assert not qn.condition_holds(qn.Condition("flags", "!=", "fracture"),
                                  {"flags": "fracture|infection"})


@pytest.mark.parametrize("answer_type,value,stored", [
    ("integer", "010", "10"), ("decimal", "20.50", "20.5"), ("decimal", "20", "20"),
    ("date", "2026-09-28", "2026-09-28"), ("icd10", "m5116", "M51.16"),
    ("boolean", "yes", "yes"), ("text", "naproxen 500 mg", "naproxen 500 mg")])
def test_answers_are_stored_normalised(answer_type, value, stored):
    assert qn.check_answer(question("q", answer_type), value, TODAY) == (stored, None)


@pytest.mark.parametrize("answer_type,value,message", [
    ("integer", "ten", "whole number"), ("decimal", "1.234", "at most 2 decimals"),
    ("date", "09/28/2026", "YYYY-MM-DD"), ("date", "2026-12-01", "cannot be in the future"),
    ("icd10", "Z99.999", "not a valid ICD-10-CM"), ("boolean", "maybe", "offered answers"),
    ("boolean", "", "an answer is required")])
def test_bad_answers_say_what_to_do(answer_type, value, message):
    stored, problem = qn.check_answer(question("q", answer_type), value, TODAY)
    assert stored is None and message in problem


def test_none_cannot_be_combined_in_a_multi_choice():
    q = question("flags", "multi_choice", options=[("none", "None"), ("fracture", "F")])
    assert "cannot be combined" in qn.check_answer(q, "fracture|none", TODAY)[1]


def test_world_questionnaires_are_chosen_by_code_or_drug(seeds):
    run = seeds.run("pa-01")
    with run_store(run, "acme") as store, store.reader() as db:
        assert qn.for_case(db, code="72148").questionnaire_key == "lumbar_mri"
        assert qn.for_case(db, drug_name="Adalimumab pen 40 mg").questionnaire_key == \
            "biologic_step_therapy"
        assert qn.for_case(db, code="70450") is None
        knee = qn.load_questions(db, qn.for_case(db, code="29881").id)
        persist = next(q for q in knee if q.key == "symptoms_persist")
        assert [(c.key, c.operator) for c in persist.conditions] == [
            ("mechanical_symptoms", "="), ("conservative_care_months", ">")]
