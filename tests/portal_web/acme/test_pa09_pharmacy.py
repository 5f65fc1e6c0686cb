"""pa-09 through the portal's forms: the adalimumab pharmacy request for Nash, Erin with the
step-therapy questionnaire (40% answers, 20% diagnosis and drug, 25% attachments,
15% submitted)."""

from __future__ import annotations

import pytest

from tests.portal_web.acme.tasks import TaskRun

MEMBER = "ACM774310582"
PRESCRIBER = {"requesting_npi": "1493028579", "requesting_name": "Dr. Hiro Nakamura",
              "requesting_tin": "36-4829175", "requesting_taxonomy": "207RR0500X"}
DRUG = {"drug_name": "adalimumab pen", "drug_strength": "40 mg/0.4 mL",
        "drug_ndc": "0074-0554-02", "drug_quantity": "2", "days_supply": "28",
        "drug_sig": "Inject 40 mg subcutaneously every other week", "service_code": "",
        "icd10_codes": "M05.79", "urgency": "standard"}
ANSWERS = {"q_primary_diagnosis": "M05.79", "q_methotrexate_trial": "yes",
           "q_mtx_dose_mg_week": "20", "q_mtx_start": "2026-01-12", "q_mtx_end": "2026-05-04",
           "q_mtx_weeks": "16", "q_mtx_stop_reason": "inadequate_response",
           "q_second_csdmard": "leflunomide", "q_second_dose": "20 mg daily",
           "q_second_start": "2026-05-11", "q_second_end": "2026-08-17",
           "q_second_stop_reason": "intolerance", "q_tb_test_type": "igra",
           "q_tb_test_date": "2026-09-22", "q_tb_test_result": "negative"}
NOTE, TB_2026, TB_2025 = 1001, 1002, 1003


def shown(answers: dict) -> list:
    return [("shown_keys", k[2:]) for k in answers]


def request_drug(run: TaskRun, answers: dict = ANSWERS, documents=(NOTE, TB_2026),  # noqa: ANN001
                 submit: bool = True) -> str:
    portal = run.portal
    case_id = portal.start_request("pharmacy", MEMBER)
    portal.step(case_id, "provider", PRESCRIBER)
    portal.step(case_id, "drug", DRUG)
    page = portal.client.get(f"/auth/requests/{case_id}/questionnaire").text
    assert "Biologic DMARD step therapy" in page
    portal.step(case_id, "questionnaire", [*answers.items(), *shown(answers)])
    if not submit:   # left on the review page: the wizard keeps it in My drafts
        run.attach_from_ehr(case_id, documents)
        portal.finish_attachments(case_id)
        return ""
    return run.send(case_id, documents)


@pytest.fixture
def run(task_seeds) -> TaskRun:
    return task_seeds.logged_in("pa-09")


def test_gold_path_scores_one(run):
    request_drug(run)
    assert run.fractions() == [1.0, 1.0, 1.0, 1.0]


def test_a_complete_request_left_as_a_draft_earns_nothing(run):
    """Everything entered and attached, never submitted: the one rule for drafts."""
    request_drug(run, submit=False)
    assert run.portal.query("select status from pa_cases where member_id = 8") == [("draft",)]
    assert run.score() == 0.0


def test_old_tb_test_instead_of_the_latest(run):
    request_drug(run, documents=(NOTE, TB_2025))
    assert run.score() == pytest.approx(0.40 + 0.20 + 0.25 / 2 + 0.15)


def test_stale_medication_list_answer(run):
    request_drug(run, {**ANSWERS, "q_mtx_stop_reason": "still_taking"})
    assert run.score() == pytest.approx(0.40 * 13 / 14 + 0.20 + 0.25 + 0.15)


def test_follow_ups_need_their_answers(run):
    """Answering 'yes' to methotrexate without its follow-ups is refused, nothing saved."""
    portal = run.portal
    case_id = portal.start_request("pharmacy", MEMBER)
    portal.step(case_id, "provider", PRESCRIBER)
    portal.step(case_id, "drug", DRUG)
    first = {"q_primary_diagnosis": "M05.79", "q_methotrexate_trial": "yes",
             "q_second_csdmard": "none", "q_tb_test_type": "none"}
    response = portal.step(case_id, "questionnaire", [*first.items(), *shown(first)],
                           expect=200)
    assert "Your answers opened follow-up questions" in response.text
    assert 'id="question-mtx_dose_mg_week" data-key="mtx_dose_mg_week">' in response.text
    assert portal.count("pa_answers", "case_id = ?", case_id) == 0


def test_one_pen_instead_of_two_costs_a_sixth_of_the_drug_details(run):
    """The prescription is for 2 pens per 28 days."""
    portal = run.portal
    case_id = portal.start_request("pharmacy", MEMBER)
    portal.step(case_id, "provider", PRESCRIBER)
    portal.step(case_id, "drug", {**DRUG, "drug_quantity": "1"})
    portal.step(case_id, "questionnaire", [*ANSWERS.items(), *shown(ANSWERS)])
    run.send(case_id, (NOTE, TB_2026))
    assert run.score() == pytest.approx(0.40 + 0.20 * 5 / 6 + 0.25 + 0.15)
