"""Rubric judge (deterministic, default) and LLM judge (majority of 3, via a local fake)."""

from __future__ import annotations

import socket

import pytest

from tests.verifier.builders import RunBuilder, make_task, seed_patients
from tests.verifier.fake_llm import FakeChatEndpoint
from verifier import (
    NOT_GRADED,
    CouldNotGrade,
    Fact,
    LLMJudge,
    Rubric,
    RubricJudge,
    VerifyError,
    grade,
    judge_from_env,
)

LETTER = ("Dear reviewer, Ms. Brooks completed 8 weeks of physical therapy without relief. "
          "Her LDH was 312 U/L on 2026-09-02. The denial cited missing conservative therapy; "
          "that therapy is documented.")
RUBRIC = Rubric(
    "appeal letter",
    required=(Fact("LDH 312", regex=r"LDH\D{0,12}312"),
              Fact("8 weeks of therapy", text="8 weeks of physical therapy"),
              Fact("denial reason addressed", text="conservative therapy",
                   question="Does the letter answer the denial reason (conservative therapy)?")),
    forbidden=(Fact("an MRI date that is not in the chart", text="MRI on 2026-01-05"),),
    context="An appeal letter for a denied lumbar MRI.")
CHECKS = '''
from verifier import Fact, Rubric, check
from tests.verifier.test_judges import RUBRIC

@check("clinical facts")
def facts(ex):
    return ex.judge(ex.output_text("appeal.txt") or "", RUBRIC).facts()

@check("no fabrication")
def no_fabrication(ex):
    return ex.judge(ex.output_text("appeal.txt") or "", RUBRIC).no_fabrication()
'''


def extract(tmp_path, letter=LETTER):
    spec = make_task(tmp_path / "tasks", CHECKS,
                     credit=[("clinical facts", 75), ("no fabrication", 25)])
    run = RunBuilder(tmp_path / "run", spec)
    seed_patients(run)
    run.snapshot()
    (run.root / "output" / "appeal.txt").write_text(letter)
    return spec, run.close()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_rubric_judge_matches_facts_and_fabrications():
    verdict = RubricJudge().evaluate(LETTER + " MRI on 2026-01-05.", RUBRIC)
    assert verdict.required == {"LDH 312": True, "8 weeks of therapy": True,
                                "denial reason addressed": True}
    assert verdict.fabrications == ["an MRI date that is not in the chart"]
    assert verdict.no_fabrication().fraction == 0.0
    partial = RubricJudge().evaluate("LDH: 312", RUBRIC)
    assert partial.facts().fraction == pytest.approx(1 / 3)
    assert partial.missing == ["8 weeks of therapy", "denial reason addressed"]


def test_rubric_judge_cannot_decide_a_fact_without_a_pattern():
    rubric = Rubric("argument", required=(Fact("persuasive", question="Is it persuasive?"),))
    with pytest.raises(CouldNotGrade, match="only an LLM judge"):
        RubricJudge().evaluate("anything", rubric)


def test_default_judge_grades_the_report_deterministically(tmp_path):
    spec, path = extract(tmp_path, LETTER.replace("312", "321"))
    report = grade(spec, path, judge="rubric")
    assert report.score == pytest.approx(0.75 * 2 / 3 + 0.25)
    assert report.judge["name"] == "rubric"
    [verdict] = report.judge["verdicts"]  # judged once, used by both checks
    assert verdict["required"]["LDH 312"] is False


def test_llm_judge_takes_the_majority_of_three_and_reports_raw_answers(tmp_path):
    answers = ['{"R1": "yes", "R2": "no", "R3": "yes", "F1": "no"}',
               '```json\n{"R1": "yes", "R2": "yes", "R3": "no", "F1": "no"}\n```',
               'Here: {"R1": "no", "R2": "yes", "R3": "yes", "F1": "yes"}']
    spec, path = extract(tmp_path)
    with FakeChatEndpoint(answers) as fake:
        report = grade(spec, path, judge=LLMJudge(fake.url, "grader-1", "sk-test"))
    assert report.score == pytest.approx(1.0)
    assert len(fake.requests) == 3
    assert fake.requests[0]["model"] == "grader-1"
    assert LETTER in fake.requests[0]["messages"][1]["content"]
    assert fake.headers[0]["Authorization"] == "Bearer sk-test"
    assert report.judge["name"] == "llm:grader-1" and "sk-test" not in str(report.to_json())
    raw = report.judge["verdicts"][0]["raw"]
    assert [r["answer"] for r in raw] == answers


def test_llm_judge_from_the_environment(tmp_path, monkeypatch):
    spec, path = extract(tmp_path)
    no = '{"R1": "no", "R2": "no", "R3": "no", "F1": "yes"}'
    with FakeChatEndpoint([no]) as fake:
        monkeypatch.setenv("EHR_SANDBOX_JUDGE_URL", fake.url)
        monkeypatch.setenv("EHR_SANDBOX_JUDGE_MODEL", "grader-2")
        report = grade(spec, path)
    assert report.judge["name"] == "llm:grader-2"
    assert report.score == pytest.approx(0.0)


def test_unavailable_llm_judge_means_could_not_grade(tmp_path):
    spec, path = extract(tmp_path)
    report = grade(spec, path, judge=LLMJudge(f"http://127.0.0.1:{closed_port()}/v1", "m",
                                              timeout=2))
    assert [c.status for c in report.checks] == [NOT_GRADED, NOT_GRADED]
    assert report.score is None and report.complete is False
    assert report.graded_score == 0.0 and report.ungraded_weight == 1.0
    assert "LLM judge unavailable at http://127.0.0.1:" in report.checks[0].evidence["reason"]
    assert all("error" in r for r in report.checks[0].evidence["raw"])


def test_no_majority_among_usable_answers_means_could_not_grade(tmp_path):
    spec, path = extract(tmp_path)
    answers = ['{"R1": "yes", "R2": "yes", "R3": "yes", "F1": "no"}', None, "I cannot tell."]
    with FakeChatEndpoint(answers) as fake:
        report = grade(spec, path, judge=LLMJudge(fake.url, "m"))
    assert report.score is None
    assert report.checks[0].evidence["reason"].startswith(f"LLM judge at {fake.url}")
    assert [r.get("usable") for r in report.checks[0].evidence["raw"]] == [True, None, False]


def test_judge_choice_from_environment():
    assert judge_from_env(env={}).name == "rubric"
    assert judge_from_env(env={"EHR_SANDBOX_JUDGE_URL": "http://x/v1",
                               "EHR_SANDBOX_JUDGE_MODEL": "m"}).name == "llm:m"
    assert judge_from_env("rubric", env={"EHR_SANDBOX_JUDGE_URL": "http://x/v1"}).name == \
        "rubric"
    with pytest.raises(VerifyError, match="EHR_SANDBOX_JUDGE_MODEL"):
        judge_from_env("llm", env={"EHR_SANDBOX_JUDGE_URL": "http://x/v1"})
    with pytest.raises(VerifyError, match="unknown judge"):
        judge_from_env(env={"EHR_SANDBOX_JUDGE": "oracle"})
