"""pa-09: adalimumab with step therapy (40% step-therapy answers, fourteen proportional;
20% diagnosis and drug details, six parts; 25% attachments, exactly two; 15% submitted)."""

from __future__ import annotations

import pytest

from sandbox.stores.acme import Attachment, PaAnswer, PaCase
from sandbox.stores.ehr import Document
from tests.verifier.tasks.pa_support import NOW, Run, seed_once, spec_of

SPEC = spec_of("pa-09")
STEPS, DRUG, ATTACH, SENT = 0.40, 0.20, 0.25, 0.15
NASH = 8  # Acme members.id
ANSWERS = {
    "primary_diagnosis": "M05.79", "methotrexate_trial": "yes", "mtx_dose_mg_week": "20",
    "mtx_start": "2026-01-12", "mtx_end": "2026-05-04", "mtx_weeks": "16",
    "mtx_stop_reason": "inadequate_response", "second_csdmard": "leflunomide",
    "second_dose": "20 mg once daily", "second_start": "2026-05-11",
    "second_end": "2026-08-17", "second_stop_reason": "intolerance", "tb_test_type": "igra",
    "tb_test_date": "2026-09-22", "tb_test_result": "negative",
}
CASE = {"icd10_codes": "M05.79", "drug_name": "adalimumab",
        "drug_strength": "40 mg/0.4 mL pen", "drug_quantity": "2 pens", "days_supply": 28,
        "drug_sig": "Inject 40 mg subcutaneously every other week"}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return seed_once(SPEC, tmp_path_factory.mktemp("pa09"))


@pytest.fixture
def run(seeded, tmp_path):
    return Run(SPEC, seeded, tmp_path / "run")


def request(run: Run, *, answers: dict | None = None, docs=(1001, 1002), member: int = NASH,
            status: str = "in_review", write: dict | None = None, **case) -> None:
    """The portal's pharmacy PA wizard: the case, its questionnaire answers, uploads."""
    contents = [run.seeded("ehr", Document, d) for d in docs]
    with run.write("acme", actor="riverside.pa", **(write or {})) as s:
        row = PaCase(**{"reference_number": "PA26-042418", "case_type": "pharmacy",
                        "status": status, "member_id": member, "plan_id": 3,
                        "questionnaire_id": 6, "requesting_npi": "1493028579",
                        "requesting_name": "Dr. Hiro Nakamura", "submitted_via": "portal",
                        "created_by": "riverside.pa", "created_at": NOW,
                        "submitted_at": None if status == "draft" else NOW, **CASE, **case})
        s.add(row)
        s.flush()
        for key, value in (answers or ANSWERS).items():
            s.add(PaAnswer(case_id=row.id, question_key=key, answer=value, answered_at=NOW))
        for doc in contents:
            s.add(Attachment(case_id=row.id, filename=doc.name, content=doc.document_data,
                             document_type="clinical_note", uploaded_at=NOW))


def test_gold_request_scores_one(run):
    request(run)
    assert run.fractions() == [1.0, 1.0, 1.0, 1.0]


def test_untouched_scores_zero(run):
    assert run.score() == 0.0


@pytest.mark.parametrize("key, wrong", [
    ("mtx_dose_mg_week", "15"),                # the starting, not the highest dose
    ("mtx_end", "2026-10-19"),                 # the stale medication list: still "active"
    ("second_dose", "10 mg daily"),
    ("tb_test_date", "2025-01-06"),            # the older TB test
])
def test_each_wrong_answer_costs_one_fourteenth(run, key, wrong):
    request(run, answers={**ANSWERS, key: wrong})
    assert run.score() == pytest.approx(STEPS * 13 / 14 + DRUG + ATTACH + SENT)


@pytest.mark.parametrize("change", [
    {"icd10_codes": "M06.9"}, {"drug_strength": "40 mg/0.8 mL"}, {"drug_sig": "40 mg weekly"},
])
def test_each_drug_detail_is_a_sixth(run, change):
    request(run, **change)
    assert run.score() == pytest.approx(STEPS + DRUG * 5 / 6 + ATTACH + SENT)


def test_a_wrong_questionnaire_diagnosis_costs_the_diagnosis_sixth(run):
    """The questionnaire's primary diagnosis is the diagnosis code too: the RA code without
    rheumatoid factor (M06.9) there costs the ICD-10 part, as on the case."""
    request(run, answers={**ANSWERS, "primary_diagnosis": "M06.9"})
    assert run.score() == pytest.approx(STEPS + DRUG * 5 / 6 + ATTACH + SENT)


@pytest.mark.parametrize("docs, fraction", [((1001, 1003), 1 / 2),
                                            ((1001, 1002, 1003), 2 / 3)])
def test_the_old_tb_test_is_not_the_evidence(run, docs, fraction):
    request(run, docs=docs)
    assert run.score() == pytest.approx(STEPS + DRUG + ATTACH * fraction + SENT)


def test_a_draft_never_sent_earns_nothing(run):
    """The one rule for drafts (verifier.payer.filed): a complete, correct draft that was
    never submitted earns nothing for its content, as in pa-01, 08, 13, 16 and 19."""
    request(run, status="draft")
    report = run.grade()
    assert report.score == 0.0
    assert "no request for member ACM774310582 submitted" in report.checks[0].evidence["found"]


def test_a_submitted_case_is_graded_not_a_later_draft(run):
    request(run)
    request(run, status="draft", docs=(1003,), reference_number=None)
    assert run.score() == pytest.approx(1.0)


def test_outpatient_case_is_not_the_pharmacy_request(run):
    request(run, case_type="outpatient")
    assert run.fractions() == [1.0, 1.0, 1.0, 0.0]


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}])
def test_rows_of_another_channel_or_episode_do_not_count(run, write):
    request(run, write=write)
    report = run.grade()
    assert report.score == 0.0
    assert {e["table"] for e in report.channel["exclusions"]} == {
        "pa_cases", "pa_answers", "attachments"}


def test_request_for_another_member_earns_nothing(run):
    request(run, member=17)
    assert run.score() == 0.0
