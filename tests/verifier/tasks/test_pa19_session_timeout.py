"""pa-19: one complete request despite the timeout (40% exactly one case; 40% complete
fields/attachments, two halves; 20% EHR reference)."""

from __future__ import annotations

import pytest

from sandbox.stores.acme import Attachment, PaAnswer, PaCase, PaDraft
from sandbox.stores.ehr import Document, EhrTask
from tests.verifier.tasks.pa_support import NOW, Run, seed_once, spec_of

SPEC = spec_of("pa-19")
ONE, COMPLETE, REF = 0.40, 0.40, 0.20
BECKER = 16
ANSWERS = {"primary_diagnosis": "I42.0", "indication": "cardiomyopathy_eval",
           "echo_done": "yes", "echo_date": "2026-09-28", "echo_lvef": "35",
           "echo_inconclusive": "no", "egfr": "78", "implanted_device": "no"}
FIELDS = 11  # CPT, ICD-10, requesting NPI and eight answers


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return seed_once(SPEC, tmp_path_factory.mktemp("pa19"))


@pytest.fixture
def run(seeded, tmp_path):
    return Run(SPEC, seeded, tmp_path / "run")


def draft(run: Run, *, member: int = BECKER, answers: dict | None = None, **write) -> int:
    """The wizard's autosave up to the attachment step, where the session expires."""
    with run.write("acme", actor="riverside.pa", **write) as s:
        case = PaCase(case_type="outpatient", status="draft", member_id=member, plan_id=1,
                      questionnaire_id=3, requesting_npi="1673492017",
                      requesting_name="Dr. Test Cardio", service_code_type="CPT",
                      service_code="75561", icd10_codes="I42.0", units=1,
                      place_of_service="22", wizard_step="attachments",
                      created_by="riverside.pa", created_at=NOW, updated_at=NOW)
        s.add(case)
        s.flush()
        for key, value in (answers or ANSWERS).items():
            s.add(PaAnswer(case_id=case.id, question_key=key, answer=value, answered_at=NOW))
        s.add(PaDraft(case_id=case.id, portal_user_id=1, wizard_step="attachments",
                      saved_at=NOW, session_expired=True))
        return case.id


def finish(run: Run, case_id: int, *, docs=(1001, 1002), reference: str = "PA26-042800",
           **write) -> None:
    """After logging back in: the saved draft resumed, documents uploaded, submitted."""
    contents = [run.seeded("ehr", Document, d) for d in docs]
    with run.write("acme", actor="riverside.pa", **write) as s:
        case = s.get(PaCase, case_id)
        for doc in contents:
            s.add(Attachment(case_id=case_id, filename=doc.name, content=doc.document_data,
                             document_type="clinical_note", uploaded_at=NOW))
        case.status, case.reference_number = "in_review", reference
        case.submitted_at, case.wizard_step, case.submitted_via = NOW, None, "portal"


def record(run: Run, reference: str = "PA26-042800", **write) -> None:
    with run.write("ehr", **write) as s:
        task = s.get(EhrTask, 1001)
        task.reference, task.status, task.updated = reference, "Done", NOW


def solve(run: Run, **answers) -> None:
    finish(run, draft(run, answers={**ANSWERS, **answers}))
    record(run)


def test_resumed_draft_submitted_scores_one(run):
    solve(run)
    assert run.fractions() == [1.0, 1.0, 1.0]


def test_untouched_scores_zero(run):
    assert run.score() == 0.0


def test_abandoned_draft_left_behind_is_not_exactly_one(run):
    draft(run)
    solve(run)
    report = run.grade()
    assert [c.fraction for c in report.checks] == [0.0, 1.0, 1.0]
    assert report.checks[0].evidence["leftover"]


def test_abandoned_draft_withdrawn_or_deleted_is_fine(run):
    abandoned = draft(run)
    solve(run)
    with run.write("acme") as s:
        s.delete(s.get(PaDraft, abandoned))
        for answer in s.query(PaAnswer).filter(PaAnswer.case_id == abandoned):
            s.delete(answer)
        s.flush()
        s.delete(s.get(PaCase, abandoned))
    assert run.score() == pytest.approx(1.0)


def test_submitted_twice_is_not_exactly_one(run):
    solve(run)
    finish(run, draft(run), reference="PA26-042801")
    assert run.fractions() == [0.0, 1.0, 0.0]  # the latest submission is graded


def test_one_wrong_answer_costs_an_eleventh_of_half(run):
    solve(run, egfr="71")                       # the 2025 value
    assert run.score() == pytest.approx(ONE + COMPLETE * (0.5 * 10 / FIELDS + 0.5) + REF)


def test_old_echo_instead_of_the_current_one(run):
    finish(run, draft(run), docs=(1001, 1003))
    record(run)
    assert run.score() == pytest.approx(ONE + COMPLETE * (0.5 + 0.5 * 1 / 2) + REF)


def test_wrong_reference_in_the_ehr(run):
    finish(run, draft(run))
    record(run, reference="PA26-042080")
    assert run.fractions() == [1.0, 1.0, 0.0]


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}])
def test_rows_of_another_channel_or_episode_do_not_count(run, write):
    finish(run, draft(run, **write), **write)
    record(run, **write)
    report = run.grade()
    assert report.score == 0.0
    assert {"pa_cases", "ehr_tasks"} <= {e["table"] for e in report.channel["exclusions"]}


def test_request_for_another_member_earns_nothing(run):
    finish(run, draft(run, member=1))
    assert run.score() == 0.0
