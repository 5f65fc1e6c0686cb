"""pa-20: Turner, Joy's semaglutide ePA (70% answers on gold path; 15% no contradictions;
15% sent). Expected scores are that arithmetic."""

from __future__ import annotations

import pytest

from sandbox.stores.epa import EpaAnswer, EpaRequest
from tests.verifier.tasks.pa_support import NOW, Run, seed_once, spec_of

SPEC = spec_of("pa-20")
ANSWERS, CONSISTENT, SENT = 0.70, 0.15, 0.15
JOY, JOYCE = 1000, 1001
GOLD = {
    "diagnosis": "t2dm", "icd10_code": "E11.65", "a1c_recent": "8.4",
    "a1c_recent_date": "2026-09-15", "a1c_prior": "9.2", "a1c_prior_date": "2025-08-04",
    "metformin_trial": "yes", "metformin_current": "yes",
    "metformin_dose": "1000 mg twice daily", "metformin_months": "14", "bmi": "34.2",
    "mtc_men2": "no", "pancreatitis": "no", "other_glp1": "no",
}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return seed_once(SPEC, tmp_path_factory.mktemp("pa20"))


@pytest.fixture
def run(seeded, tmp_path):
    return Run(SPEC, seeded, tmp_path / "run")


def answer(run: Run, answers: dict[str, str], *, request: int = JOY, send: bool = True,
           **write) -> None:
    """What the ePA portal saves: one row per answered question, then the request sent."""
    with run.write("epa", **write) as s:
        for key, value in answers.items():
            s.add(EpaAnswer(request_id=request, question_key=key, answer_value=value,
                            answered_at=NOW))
        row = s.get(EpaRequest, request)
        row.status = "sent_to_plan" if send else "in_progress"
        row.updated_at = NOW
        if send:
            row.sent_at = NOW


def test_gold_answers_sent_score_one(run):
    answer(run, GOLD)
    assert run.fractions() == [1.0, 1.0, 1.0]


def test_dose_in_other_words_passes(run):
    answer(run, {**GOLD, "metformin_dose": "metformin 1,000 mg BID"})
    assert run.score() == pytest.approx(1.0)


def test_untouched_earns_only_no_contradictions(run):
    assert run.fractions() == [0.0, 1.0, 0.0]
    assert run.score() == pytest.approx(CONSISTENT)


@pytest.mark.parametrize("key, wrong", [
    ("diagnosis", "weight"), ("a1c_recent", "8.1"),          # the middle A1c, not the latest
    ("metformin_dose", "500 mg twice daily"), ("mtc_men2", "yes"),   # papillary, not MTC
])
def test_each_wrong_answer_costs_one_fourteenth(run, key, wrong):
    answer(run, {**GOLD, key: wrong})
    report = run.grade()
    assert report.checks[0].fraction == pytest.approx(13 / 14)
    # a wrong branch answer hides the gold follow-ups, whose answers then contradict it
    hides = key == "diagnosis"
    assert report.checks[1].fraction == (0.0 if hides else 1.0)
    assert report.score == pytest.approx(ANSWERS * 13 / 14 + CONSISTENT * (not hides) + SENT)


@pytest.mark.parametrize("extra", [
    {"metformin_contraindication": "other"},     # off the gold path and hidden
    {"mtc_men2_details": "mother, papillary thyroid cancer"},
])
def test_answer_on_a_hidden_branch_is_a_contradiction(run, extra):
    answer(run, {**GOLD, **extra})
    report = run.grade()
    assert [c.fraction for c in report.checks] == [1.0, 0.0, 1.0]
    assert report.checks[1].evidence["off_gold_path"] == sorted(extra)


def test_answers_never_sent_earn_nothing(run):
    """A request never sent to the plan earns nothing for its content (verifier.payer.filed)."""
    answer(run, GOLD, send=False)
    assert run.fractions() == [0.0, 1.0, 0.0]
    assert run.score() == pytest.approx(CONSISTENT)


@pytest.mark.parametrize("dose", ["1000 mg b.i.d.", "1,000 mg every 12 hours",
                                  "metformin 1000 mg 2x daily", "1000 mg twice-daily"])
def test_dose_wordings_pa01_accepts_pass_here_too(run, dose):
    answer(run, {**GOLD, "metformin_dose": dose})
    assert run.score() == pytest.approx(1.0)


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}])
def test_rows_of_another_channel_or_episode_do_not_count(run, write):
    answer(run, GOLD, **write)
    report = run.grade()
    assert report.score == pytest.approx(CONSISTENT)
    assert report.channel["exclusions"]


def test_lookalike_request_earns_nothing(run):
    answer(run, GOLD, request=JOYCE)
    assert run.score() == pytest.approx(CONSISTENT)
