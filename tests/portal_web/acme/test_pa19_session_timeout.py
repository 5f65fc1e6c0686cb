"""pa-19 through the portal's forms: the session ends at the first upload of Becker, Tom's
request (once); after logging in again the saved draft is resumed and submitted
(40% exactly one case, 40% complete fields/attachments, 20% EHR reference)."""

from __future__ import annotations

import pytest

from tests.portal_web.acme.tasks import TaskRun

MEMBER = "ACM610283559"
PROVIDERS = {"requesting_npi": "1673492017", "requesting_name": "Dr. Test Cardio",
             "requesting_tin": "36-7712094", "requesting_taxonomy": "207RC0000X",
             "rendering_npi": "1938475625", "rendering_name": "Dr. Sofia Lindgren",
             "rendering_tin": "36-4829175", "rendering_taxonomy": "2085R0202X"}
SERVICE = {"service_code": "75561", "units": "1", "unit_type": "units",
           "service_from": "2026-10-26", "service_to": "2026-12-24", "place_of_service": "22",
           "icd10_codes": "I42.0"}
ANSWERS = {"q_primary_diagnosis": "I42.0", "q_indication": "cardiomyopathy_eval",
           "q_echo_done": "yes", "q_echo_date": "2026-09-28", "q_echo_lvef": "35",
           "q_echo_inconclusive": "no", "q_egfr": "78", "q_implanted_device": "no"}
SHOWN = [("shown_keys", k[2:]) for k in ANSWERS]


def fill_until_attachments(run: TaskRun) -> int:
    portal = run.portal
    case_id = portal.start_request("outpatient", MEMBER)
    portal.step(case_id, "provider", PROVIDERS)
    portal.step(case_id, "service", SERVICE)
    portal.step(case_id, "questionnaire", [*ANSWERS.items(), *SHOWN])
    return case_id


def upload_expires_session(run: TaskRun, case_id: int) -> None:
    """The first upload ends the session: the log-in page, and nothing attached."""
    name, content = run.ehr_document(1001)
    response = run.portal.upload(case_id, name, content, "clinical_note")
    assert response.headers["location"].startswith("/login?expired=1")
    login = run.portal.client.get(response.headers["location"])
    assert "Your session has expired" in login.text
    assert run.portal.count("attachments", "case_id = ?", case_id) == 0


def log_back_in(run: TaskRun) -> str:
    """Log in again: the portal goes to My drafts, which lists the saved draft."""
    page = run.portal.client.get("/login?expired=1&next=/auth/drafts%3Fresumed%3D1")
    response = run.portal.client.post("/login", data={
        **form_values_of(page.text), "username": "riverside.pa",
        "password": "AcmePortal#2026"}, follow_redirects=True)
    assert "My Drafts" in response.text and "Session expired" in response.text
    return response.text


def form_values_of(html: str) -> dict:
    from tests.portal_web.acme.support import form_values

    return form_values(html, "/login")


def finish(run: TaskRun, case_id: int, documents=(1001, 1002)) -> str:  # noqa: ANN001
    return run.send(case_id, documents)


def record(run: TaskRun, reference: str) -> None:
    run.ehr_edit("/tasks/1001", {"reference": reference, "status": "Done"})


@pytest.fixture
def run(task_seeds) -> TaskRun:
    return task_seeds.logged_in("pa-19")


def test_resume_the_saved_draft_scores_one(run):
    case_id = fill_until_attachments(run)
    upload_expires_session(run, case_id)
    drafts = log_back_in(run)
    assert f"/auth/requests/{case_id}/attachments" in drafts
    record(run, finish(run, case_id))
    assert run.fractions() == [1.0, 1.0, 1.0]


def test_the_session_expires_only_once(run):
    case_id = fill_until_attachments(run)
    upload_expires_session(run, case_id)
    log_back_in(run)
    name, content = run.ehr_document(1001)
    response = run.portal.upload(case_id, name, content, "clinical_note")
    assert response.headers["location"] == f"/auth/requests/{case_id}/attachments"


def test_starting_over_leaves_the_old_draft_behind(run):
    abandoned = fill_until_attachments(run)
    upload_expires_session(run, abandoned)
    log_back_in(run)
    record(run, finish(run, fill_until_attachments(run)))
    assert run.fractions() == [0.0, 1.0, 1.0]


def test_starting_over_and_deleting_the_old_draft_scores_one(run):
    abandoned = fill_until_attachments(run)
    upload_expires_session(run, abandoned)
    drafts = log_back_in(run)
    assert run.portal.post_with(drafts, f"/auth/requests/{abandoned}/delete",
                                {}).status_code == 303
    assert run.portal.count("pa_cases", "id = ?", abandoned) == 0
    record(run, finish(run, fill_until_attachments(run)))
    assert run.score() == pytest.approx(1.0)


def test_submitting_twice_is_a_duplicate_even_past_the_warning(run):
    case_id = fill_until_attachments(run)
    upload_expires_session(run, case_id)
    log_back_in(run)
    finish(run, case_id)
    second = fill_until_attachments(run)
    run.attach_from_ehr(second, (1001, 1002))
    run.portal.finish_attachments(second)
    review = run.portal.client.get(f"/auth/requests/{second}/review").text
    assert "A similar request exists: " in review
    run.portal.submit_request(second, expect=200)  # refused until the warning is acknowledged
    record(run, run.portal.submit_request(second, acknowledge_similar=True))
    assert run.fractions() == [0.0, 1.0, 1.0]


def test_leaving_the_draft_after_the_timeout_earns_nothing(run):
    """Logged back in but never finished: a leftover draft and no request."""
    case_id = fill_until_attachments(run)
    upload_expires_session(run, case_id)
    log_back_in(run)
    assert run.score() == 0.0


def test_the_2024_echo_instead_of_the_current_one_costs_a_quarter_of_the_fields_part(run):
    """Document 1003 is the 2024 echocardiogram (LVEF 55%), not the current study: one of
    the two documents matches, half of the 'complete' item's attachment half."""
    case_id = fill_until_attachments(run)
    upload_expires_session(run, case_id)
    log_back_in(run)
    record(run, finish(run, case_id, documents=(1001, 1003)))
    assert run.fractions() == [1.0, 0.75, 1.0]


def test_the_older_egfr_costs_one_of_eleven_fields(run):
    """eGFR 71 is the 2025 value; the latest (2026-10-06) is 78."""
    portal = run.portal
    case_id = portal.start_request("outpatient", MEMBER)
    portal.step(case_id, "provider", PROVIDERS)
    portal.step(case_id, "service", SERVICE)
    answers = {**ANSWERS, "q_egfr": "71"}
    portal.step(case_id, "questionnaire", [*answers.items(), *SHOWN])
    upload_expires_session(run, case_id)
    log_back_in(run)
    record(run, finish(run, case_id))
    assert run.fractions() == [1.0, pytest.approx(0.5 * 10 / 11 + 0.5), 1.0]
