"""pa-01 (browser) and its API control pa-18: the lumbar MRI request for Alvarez, Tomas.

Both split 25% codes; 35% answers (nine, proportional); 20% attachments (exactly the two
notes); 20% reference (pa-01: in the EHR task; pa-18: in output/ref.txt).
"""

from __future__ import annotations

import pytest

from sandbox.stores.acme import Attachment, PaAnswer, PaCase, X12Transaction
from sandbox.stores.ehr import Document, EhrTask
from tests.verifier.tasks.pa_support import NOW, Run, seed_once, spec_of

CODES, ANSWERS, ATTACH, REF = 0.25, 0.35, 0.20, 0.20
ALVAREZ, LOOKALIKE = 1, 2  # Acme members.id
REFERENCE = "PA26-042207"
GOLD = {"primary_diagnosis": "M51.16", "symptom_duration_weeks": "10",
        "conservative_therapy_6wk": "yes", "physical_therapy": "yes", "pt_weeks": "6",
        "nsaid_trial": "yes", "nsaid_name": "Naproxen 500 mg BID", "red_flags": "none",
        "prior_imaging": "xray"}
CHANNEL = {"pa-01": "browser", "pa-18": "api"}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """Both tasks seeded once: pa-01 gets every case, pa-18 the ones that differ by channel."""
    return {a: seed_once(spec_of(a), tmp_path_factory.mktemp(a)) for a in ("pa-01", "pa-18")}


@pytest.fixture
def run(seeded, tmp_path):
    """pa-01 (the item-by-item cases; pa-18 grades with the same helpers)."""
    return Run(spec_of("pa-01"), seeded["pa-01"], tmp_path / "run")


@pytest.fixture(params=["pa-01", "pa-18"])
def any_run(request, seeded, tmp_path):
    return Run(spec_of(request.param), seeded[request.param], tmp_path / "run")


def alias(run: Run) -> str:
    return run.spec.alias


def submit(run: Run, *, member: int = ALVAREZ, docs: tuple[int, ...] = (1002, 1003),
           answers: dict | None = None, channel: str | None = None, status: str = "in_review",
           **case) -> None:
    """The portal wizard (pa-01) or the 278 endpoint (pa-18) saving a submitted request."""
    channel = channel or CHANNEL[alias(run)]
    contents = {d: run.seeded("ehr", Document, d) for d in docs}
    with run.write("acme", channel=channel, actor="riverside.pa") as s:
        row = PaCase(**{
            "reference_number": REFERENCE, "case_type": "outpatient", "status": status,
            "member_id": member, "plan_id": 1, "questionnaire_id": 1,
            "requesting_npi": "1546827399", "requesting_name": "Dr. Test Grant",
            "service_code_type": "CPT", "service_code": "72148", "icd10_codes": "M51.16",
            "units": 1, "unit_type": "units", "place_of_service": "22",
            "submitted_via": "portal" if channel == "browser" else "x12",
            "created_by": "riverside.pa", "created_at": NOW, "updated_at": NOW,
            "submitted_at": NOW, **case})
        s.add(row)
        s.flush()
        for key, value in (answers or GOLD).items():
            s.add(PaAnswer(case_id=row.id, question_key=key, answer=value, answered_at=NOW))
        for doc in contents.values():
            s.add(Attachment(case_id=row.id, filename=doc.name, document_type="clinical_note",
                             content=doc.document_data, uploaded_at=NOW))
        if channel == "api":
            s.add(X12Transaction(direction="outbound", control_number="000000101",
                                 raw=f"ISA*...~HCR*A4*{REFERENCE}~", case_id=row.id, at=NOW))


def record_reference(run: Run, reference: str = REFERENCE, *, task_id: int = 1001,
                     **write) -> None:
    if alias(run) == "pa-18":
        run.output("ref.txt", reference + "\n")
        return
    with run.write("ehr", **write) as s:
        task = s.get(EhrTask, task_id)
        task.reference = reference
        task.status = "Done"
        task.updated = NOW


def solve(run: Run, **submission) -> None:
    submit(run, **submission)
    record_reference(run)


def test_correct_submission_scores_one(any_run):
    solve(any_run)
    assert any_run.fractions() == [1.0, 1.0, 1.0, 1.0]


def test_untouched_scores_zero(any_run):
    assert any_run.score() == 0.0


@pytest.mark.parametrize("case", [{"service_code": "72158"}, {"icd10_codes": "M54.50,M51.16"}])
def test_one_code_wrong_loses_half_the_codes(run, case):
    solve(run, **case)
    assert run.score() == pytest.approx(CODES / 2 + ANSWERS + ATTACH + REF)


def test_secondary_icd10_codes_are_allowed(run):
    solve(run, icd10_codes="M51.16,I10")
    assert run.score() == pytest.approx(1.0)


@pytest.mark.parametrize("key, wrong", [
    ("pt_weeks", "12"),                                        # visits, not weeks
    ("nsaid_name", "ibuprofen 600 mg three times daily"),      # the resolved 2024 episode
    ("red_flags", "progressive_deficit"), ("prior_imaging", "none"),
])
def test_each_wrong_answer_costs_one_ninth(run, key, wrong):
    solve(run, answers={**GOLD, key: wrong})
    assert run.score() == pytest.approx(CODES + ANSWERS * 8 / 9 + ATTACH + REF)


@pytest.mark.parametrize("dose", ["naproxen 500 mg twice-daily", "Naproxen 500mg 2x daily",
                                  "naproxen 500 mg q12h", "naproxen 500 mg every 12 hours"])
def test_any_wording_of_twice_daily_passes_as_in_pa20(run, dose):
    solve(run, answers={**GOLD, "nsaid_name": dose})
    assert run.score() == pytest.approx(1.0)


def test_a_bare_q12_is_no_frequency(run):
    """"q12" without hours says nothing (pa-20's rule, now shared)."""
    solve(run, answers={**GOLD, "nsaid_name": "naproxen 500 mg q12"})
    assert run.score() == pytest.approx(CODES + ANSWERS * 8 / 9 + ATTACH + REF)


def test_missing_answer_costs_one_ninth(run):
    solve(run, answers={k: v for k, v in GOLD.items() if k != "pt_weeks"})
    assert run.score() == pytest.approx(CODES + ANSWERS * 8 / 9 + ATTACH + REF)


@pytest.mark.parametrize("docs, fraction", [
    ((1002,), 1 / 2),                 # one note missing
    ((1002, 1003, 1001), 2 / 3),      # plus the radiograph report
    ((1001, 1004), 0.0),              # the radiograph and the look-alike's note
])
def test_attachments_must_be_exactly_the_two_notes(run, docs, fraction):
    solve(run, docs=docs)
    assert run.score() == pytest.approx(CODES + ANSWERS + ATTACH * fraction + REF)


@pytest.mark.parametrize("written", ["PA26-042270", REFERENCE + "1", "1" + REFERENCE])
def test_wrong_reference_loses_the_reference(any_run, written):
    submit(any_run)
    record_reference(any_run, written)  # a longer number holding the reference is not it
    assert any_run.fractions() == [1.0, 1.0, 1.0, 0.0]


def test_draft_is_not_a_submission(run):
    solve(run, status="draft", submitted_at=None)
    assert run.score() == 0.0


def test_lookalike_member_earns_nothing(any_run):
    solve(any_run, member=LOOKALIKE)
    report = any_run.grade()
    assert report.score == 0.0
    assert report.footprint["other_patient"]


def test_rows_of_the_other_channel_do_not_count(any_run):
    other = "api" if alias(any_run) == "pa-01" else "browser"
    solve(any_run, channel=other)
    report = any_run.grade()
    assert report.score == 0.0
    assert any(f"written through {other}" in e["reason"] for e in report.channel["exclusions"])


def test_reference_in_the_lookalikes_task_does_not_count(run):
    submit(run)
    record_reference(run, task_id=1002)
    assert run.fractions() == [1.0, 1.0, 1.0, 0.0]


def test_rows_of_another_episode_do_not_count(run):
    submit(run)
    record_reference(run, episode="ep-other")
    report = run.grade()
    assert report.score == pytest.approx(CODES + ANSWERS + ATTACH)
    assert "episode ep-other" in report.channel["exclusions"][0]["reason"]


@pytest.fixture
def api_run(seeded, tmp_path):
    return Run(spec_of("pa-18"), seeded["pa-18"], tmp_path / "run")


@pytest.mark.parametrize("submission, expected", [
    ({"service_code": "72158"}, CODES / 2 + ANSWERS + ATTACH + REF),
    ({"answers": {**GOLD, "pt_weeks": "12"}}, CODES + ANSWERS * 8 / 9 + ATTACH + REF),
    ({"docs": (1002, 1003, 1001)}, CODES + ANSWERS + ATTACH * 2 / 3 + REF),
])
def test_api_control_grades_each_item_as_pa01(api_run, submission, expected):
    solve(api_run, **submission)
    assert api_run.score() == pytest.approx(expected)
