"""pa-03: the sleep-study appeal (15% appeal linked to case; 25% attachments, three gold
documents; 35% clinical facts, four string matches; 25% judged argument, two rubric facts)."""

from __future__ import annotations

import pytest

from sandbox.stores.acme import Appeal, Attachment
from sandbox.stores.ehr import Document
from tests.verifier.fake_llm import FakeChatEndpoint
from tests.verifier.tasks.pa_support import NOW, Run, seed_once, spec_of
from verifier import LLMJudge

SPEC = spec_of("pa-03")
LINK, ATTACH, FACTS, ARGUMENT = 0.15, 0.25, 0.35, 0.25
BROOKS = 3  # Acme members.id
LETTER = """Re: Lena Brooks (DOB 1969-04-12), member ACM517200846, case PA26-040215,
attended in-lab polysomnography (CPT 95810).

We appeal the denial for insufficient documentation of OSA symptoms. The enclosed records
document her symptoms of obstructive sleep apnea:
- Epworth Sleepiness Scale score 14 (sleep medicine consultation, Dr. Lisa Brandt,
  2026-09-18, attached).
- BMI 36.8 (primary-care visit note of 2026-09-02, attached).
- Witnessed apneas: her bed partner reports pauses in breathing most nights (attached
  questionnaire).
- Comorbidities: hypertension and type 2 diabetes.
Please approve the in-lab study.
Lisa Brandt, MD, Sleep Medicine"""


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return seed_once(SPEC, tmp_path_factory.mktemp("pa03"))


@pytest.fixture
def run(seeded, tmp_path):
    return Run(SPEC, seeded, tmp_path / "run")


def appeal(run: Run, *, letter: str = LETTER, docs: tuple[int, ...] = (1001, 1002, 1003),
           member: int = BROOKS, status: str = "submitted", **fields) -> None:
    """The portal's appeal form: the appeal with its letter, then the uploads."""
    contents = [run.seeded("ehr", Document, d) for d in docs]
    write = {k: fields.pop(k) for k in ("channel", "episode") if k in fields}
    with run.write("acme", actor="riverside.pa", **write) as s:
        row = Appeal(**{"reference_number": "AP26-011402", "level": 1, "case_id": 1000,
                        "member_id": member, "appeal_type": "pre_service",
                        "reason_category": "medical_necessity", "letter_text": letter,
                        "requested_outcome": "Approve CPT 95810", "status": status,
                        "created_by": "riverside.pa", "created_at": NOW, "submitted_at": NOW,
                        **fields})
        s.add(row)
        s.flush()
        for doc in contents:
            s.add(Attachment(appeal_id=row.id, filename=doc.name, content=doc.document_data,
                             document_type="clinical_note", uploaded_at=NOW))


def test_gold_appeal_scores_one(run):
    appeal(run)
    report = run.grade()
    assert [c.fraction for c in report.checks] == [1.0, 1.0, 1.0, 1.0]
    assert report.judge["name"] == "rubric"


def test_untouched_scores_zero(run):
    assert run.score() == 0.0


def test_not_linked_to_the_case_loses_the_link(run):
    appeal(run, case_id=None)
    assert run.score() == pytest.approx(ATTACH + FACTS + ARGUMENT)


@pytest.mark.parametrize("docs, share", [((1001, 1002), 2 / 3),
                                         ((1001, 1002, 1003, 1004), 1.0)])
def test_attachments_include_the_gold_documents(run, docs, share):
    appeal(run, docs=docs)
    assert run.score() == pytest.approx(LINK + ATTACH * share + FACTS + ARGUMENT)


@pytest.mark.parametrize("old, new", [
    ("Epworth Sleepiness Scale score 14", "daytime sleepiness"),
    ("Witnessed apneas: her bed partner reports pauses in breathing most nights",
     "Loud snoring"),
    ("hypertension and type 2 diabetes", "hypertension"),
])
def test_each_missing_fact_costs_a_quarter(run, old, new):
    assert old in LETTER
    appeal(run, letter=LETTER.replace(old, new))
    assert run.score() == pytest.approx(LINK + ATTACH + FACTS * 3 / 4 + ARGUMENT)


def test_stale_value_loses_the_fact_and_the_argument(run):
    appeal(run, letter=LETTER.replace("score 14", "score 8"))
    assert run.score() == pytest.approx(LINK + ATTACH + FACTS * 3 / 4)


def test_facts_without_an_argument_lose_the_argument(run):
    facts = ("Epworth 14. BMI 36.8. Witnessed apneas per bed partner. "
             "Hypertension and type 2 diabetes.")
    appeal(run, letter=facts)
    assert run.score() == pytest.approx(LINK + ATTACH + FACTS)


def test_draft_appeal_is_not_submitted(run):
    appeal(run, status="draft")
    assert run.score() == 0.0


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}])
def test_rows_of_another_channel_or_episode_do_not_count(run, write):
    appeal(run, **write)
    report = run.grade()
    assert report.score == 0.0
    assert {e["table"] for e in report.channel["exclusions"]} == {"appeals", "attachments"}


def test_appeal_for_another_member_earns_nothing(run):
    appeal(run, member=1, case_id=None)
    assert run.score() == 0.0


def test_llm_judge_decides_the_argument_by_majority(run):
    appeal(run)
    yes = '{"R1": "yes", "R2": "yes", "F1": "no"}'
    no = '{"R1": "yes", "R2": "no", "F1": "no"}'
    with FakeChatEndpoint([yes, no, no]) as fake:
        report = run.grade(judge=LLMJudge(fake.url, "fake-model"))
    assert [c.fraction for c in report.checks] == [1.0, 1.0, 1.0, 0.5]
    assert report.judge["name"] == "llm:fake-model" and len(fake.requests) == 3


def test_unreachable_llm_judge_cannot_grade_the_argument(run):
    appeal(run)
    with FakeChatEndpoint([None]) as fake:
        report = run.grade(judge=LLMJudge(fake.url, "fake-model"))
    assert report.checks[3].status == "could not grade"
    assert report.score is None
    assert report.graded_score == pytest.approx(LINK + ATTACH + FACTS)
