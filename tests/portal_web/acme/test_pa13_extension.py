"""pa-13 through the portal's forms: 8 more PT visits on authorization A260331207 for
Owens, Carla (25% linked extension, 25% units and dates, 30% functional scores,
20% attachments)."""

from __future__ import annotations

import pytest

from tests.portal_web.acme.support import form_tokens_for
from tests.portal_web.acme.tasks import TaskRun

BASE = 1000
EXTENSION = {"units": "8", "unit_type": "visits", "service_from": "2026-10-24",
             "service_to": "2026-11-20", "visits_used": "11", "outcome_measure": "LEFS",
             "baseline_score": "32", "current_score": "51", "goal_score": "65",
             "pain_score": "3", "goals": "Stairs reciprocally without rail; walk 30 minutes "
                                         "without pain.",
             "progress_summary": "LEFS 32 to 51 since evaluation; pain 3/10."}
PROGRESS_NOTE, PLAN_OF_CARE, OLD_NOTE = 1003, 1004, 1002


def start_extension(run: TaskRun) -> int:
    page = run.portal.client.get(f"/auth/cases/{BASE}")
    assert "A260331207" in page.text and "Request extension" in page.text
    action = f"/auth/cases/{BASE}/extension"
    response = run.portal.client.post(action, data=form_tokens_for(page.text, action),
                                      follow_redirects=False)
    assert response.status_code == 303, response.text[:1000]
    return int(response.headers["location"].split("/")[3])


def extend(run: TaskRun, values: dict = EXTENSION,
           documents=(PROGRESS_NOTE, PLAN_OF_CARE)) -> str:  # noqa: ANN001
    case_id = start_extension(run)
    page = run.portal.client.get(f"/auth/requests/{case_id}/extension").text
    assert "PA26-033120" in page and 'value="11"' in page  # visits used, from the base case
    run.portal.step(case_id, "extension", values)
    return run.send(case_id, documents, "therapy_note")


@pytest.fixture
def run(task_seeds) -> TaskRun:
    return task_seeds.logged_in("pa-13")


def test_gold_path_scores_one(run):
    reference = extend(run)
    assert run.fractions() == [1.0, 1.0, 1.0, 1.0]
    page = run.portal.client.get(f"/auth/cases/{BASE}").text
    assert reference in page  # listed as a linked extension of the base authorization


def test_scores_of_the_outdated_note(run):
    extend(run, {**EXTENSION, "current_score": "41", "pain_score": "5"},
           documents=(OLD_NOTE, PLAN_OF_CARE))
    assert run.score() == pytest.approx(0.25 + 0.25 + 0.30 / 2 + 0.20 / 2)


def test_dates_counted_from_today_instead_of_the_last_authorized_day(run):
    extend(run, {**EXTENSION, "service_from": "2026-10-19", "service_to": "2026-11-16"})
    assert run.score() == pytest.approx(0.25 + 0.25 / 3 + 0.30 + 0.20)


def test_end_before_start_is_refused(run):
    case_id = start_extension(run)
    response = run.portal.step(case_id, "extension", {**EXTENSION, "service_to": "2026-10-01"},
                               expect=200)
    assert "cannot be before the start date" in response.text
