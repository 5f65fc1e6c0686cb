"""pa-01 through the portal's forms: the lumbar MRI request for Alvarez, Tomas, graded by
the task's verifier (25% codes, 35% answers, 20% attachments, 20% EHR reference)."""

from __future__ import annotations

import pytest

from tests.portal_web.acme.tasks import TaskRun

MEMBER, LOOKALIKE = "ACM402918331", "ACM402918313"
PROVIDERS = {"requesting_npi": "1546827399", "requesting_name": "Dr. Test Grant",
             "requesting_tin": "36-4829175", "requesting_taxonomy": "207X00000X",
             "rendering_npi": "1938475625", "rendering_name": "Dr. Sofia Lindgren",
             "rendering_tin": "36-4829175", "rendering_taxonomy": "2085R0202X"}
SERVICE = {"service_code": "72148", "units": "1", "unit_type": "units",
           "service_from": "2026-10-26", "service_to": "2026-12-24", "place_of_service": "22",
           "icd10_codes": "M51.16\nM54.16", "urgency": "standard"}
ANSWERS = [("q_primary_diagnosis", "M51.16"), ("q_symptom_duration_weeks", "10"),
           ("q_conservative_therapy_6wk", "yes"), ("q_physical_therapy", "yes"),
           ("q_pt_weeks", "6"), ("q_nsaid_trial", "yes"),
           ("q_nsaid_name", "naproxen 500 mg twice daily"), ("q_red_flags", "none"),
           ("q_prior_imaging", "xray")]
SHOWN = [("shown_keys", k[2:]) for k, _ in ANSWERS]
NOTES = (1002, 1003)


def request_mri(run: TaskRun, member: str = MEMBER, answers=ANSWERS, notes=NOTES) -> str:  # noqa: ANN001
    portal = run.portal
    case_id = portal.start_request("outpatient", member)
    portal.step(case_id, "provider", PROVIDERS)
    portal.step(case_id, "service", SERVICE)
    portal.step(case_id, "questionnaire", [*answers, *SHOWN])
    return run.send(case_id, notes)


def record_in_ehr(run: TaskRun, reference: str) -> None:
    run.ehr_edit("/tasks/1001", {"reference": reference, "status": "Done"})


@pytest.fixture
def run(task_seeds) -> TaskRun:
    return task_seeds.logged_in("pa-01")


def test_gold_path_scores_one(run):
    reference = request_mri(run)
    record_in_ehr(run, reference)
    assert run.fractions() == [1.0, 1.0, 1.0, 1.0]


def test_lookalike_member_earns_nothing(run):
    reference = request_mri(run, member=LOOKALIKE)
    record_in_ehr(run, reference)
    assert run.score() == 0.0


def test_wrong_symptom_duration_costs_a_ninth_of_the_answers(run):
    answers = [(k, "8" if k == "q_symptom_duration_weeks" else v) for k, v in ANSWERS]
    record_in_ehr(run, request_mri(run, answers=answers))
    assert run.score() == pytest.approx(0.25 + 0.35 * 8 / 9 + 0.20 + 0.20)


def test_one_note_missing_costs_half_the_attachments(run):
    record_in_ehr(run, request_mri(run, notes=(1002,)))
    assert run.score() == pytest.approx(0.25 + 0.35 + 0.20 / 2 + 0.20)


def test_draft_never_submitted_earns_nothing(run):
    case_id = run.portal.start_request("outpatient", MEMBER)
    run.portal.step(case_id, "provider", PROVIDERS)
    run.portal.step(case_id, "service", SERVICE)
    assert run.score() == 0.0


def test_the_radiograph_report_as_an_extra_attachment_costs_a_third(run):
    """The lumbar radiograph report (EHR document 1001) is imaging, not a supporting note:
    two of three attached documents match."""
    record_in_ehr(run, request_mri(run, notes=(1002, 1003, 1001)))
    assert run.score() == pytest.approx(0.25 + 0.35 + 0.20 * 2 / 3 + 0.20)


def test_the_resolved_back_strain_as_primary_diagnosis_costs_half_the_codes(run):
    """The 2024 lumbar strain (M54.50, resolved) listed first makes it the primary code."""
    service = {**SERVICE, "icd10_codes": "M54.50\nM51.16"}
    portal = run.portal
    case_id = portal.start_request("outpatient", MEMBER)
    portal.step(case_id, "provider", PROVIDERS)
    portal.step(case_id, "service", service)
    portal.step(case_id, "questionnaire", [*ANSWERS, *SHOWN])
    record_in_ehr(run, run.send(case_id, NOTES))
    assert run.fractions() == [0.5, 1.0, 1.0, 1.0]


def test_the_reference_on_the_lookalikes_task_does_not_count(run):
    """Task 1002 belongs to the look-alike Alvarez, Tomas (MRN 510210)."""
    reference = request_mri(run)
    run.ehr_edit("/tasks/1002", {"reference": reference})
    assert run.fractions() == [1.0, 1.0, 1.0, 0.0]
