"""The could-not-grade rule: "could not grade" is for an extract that cannot be read, a seed
that lacks what a check needs, or an unavailable judge. A change the run made to seeded data
is graded as a failure: checks say so themselves (``Extract.seeded`` for the seed's facts,
then the rows as the run left them), and the engine backs it up by grading a check that
could not grade once more on the seeded data as if untouched — if it grades there, the run
removed what it needed, and the item is 0.
"""

from __future__ import annotations

import pytest

from sandbox.stores.ehr import Lists
from tests.verifier.builders import RunBuilder, make_task, seed_patients
from tests.verifier.fake_llm import FakeChatEndpoint
from verifier import LLMJudge, grade
from verifier.engine import RUN_CHANGED_SEED

CREDIT = [("seeded allergy kept", 70), ("anything", 30)]
LATEX, MISSING = 1101, 9999  # seed_patients' Latex allergy of MRN 402015; an id never seeded


def checks(body: str) -> str:
    return f'''
from sandbox.stores.ehr import Lists
from verifier import CouldNotGrade, Fact, Rubric, check

@check("seeded allergy kept")
def kept(ex):
{body}

@check("anything")
def anything(ex):
    return True
'''


# a check written the old way: it stops when the row it needs is gone, whoever removed it
BY_ROWS = checks('''    rows = ex.rows(Lists, Lists.id == ROW)
    if not rows:
        raise CouldNotGrade(f"no allergy {ROW} to look at")
    return rows[0].reaction == "hives"''')
# a check written the new way: the seed's facts through ex.seeded, the run's through ex.rows
BY_SEEDED = checks('''    was = ex.seeded(Lists, Lists.id == ROW, what=f"allergies {ROW}", exactly=1)[0]
    now = ex.rows(Lists, Lists.id == was.id)
    return bool(now) and now[0].reaction == was.reaction''')


def run_of(tmp_path, source: str, row: int, *, delete: bool = False):  # noqa: ANN001, ANN201
    spec = make_task(tmp_path / "task", source.replace("ROW", str(row)), credit=CREDIT,
                     may_touch={"ehr": ["lists"]})
    run = RunBuilder(tmp_path / "run", spec)
    seed_patients(run)
    run.snapshot()
    if delete:
        with run.agent() as s:
            s.delete(s.get(Lists, LATEX))
    return spec, run.close()


def test_a_check_that_cannot_see_a_row_the_run_deleted_is_graded_zero(tmp_path):
    spec, path = run_of(tmp_path, BY_ROWS, LATEX, delete=True)
    report = grade(spec, path)
    outcome = report.checks[0]
    assert (outcome.status, outcome.fraction) == ("graded", 0.0)
    assert outcome.evidence["reason"] == RUN_CHANGED_SEED
    assert outcome.evidence["on the run's data"] == f"no allergy {LATEX} to look at"
    assert outcome.evidence["on the seeded data"] == "graded 1"
    assert report.score == pytest.approx(0.3)


def test_a_seed_that_lacks_the_row_still_cannot_be_graded(tmp_path):
    spec, path = run_of(tmp_path, BY_ROWS, MISSING)
    report = grade(spec, path)
    assert report.checks[0].status == "could not grade"
    assert report.score is None and report.graded_score == pytest.approx(0.3)


def test_seeded_grades_the_runs_change_itself_and_stops_only_for_the_seed(tmp_path):
    spec, path = run_of(tmp_path / "changed", BY_SEEDED, LATEX, delete=True)
    report = grade(spec, path)
    assert (report.checks[0].status, report.checks[0].fraction) == ("graded", 0.0)
    assert "reason" not in report.checks[0].evidence  # the check's own failure, no backstop
    spec, path = run_of(tmp_path / "lacking", BY_SEEDED, MISSING)
    report = grade(spec, path)
    assert report.checks[0].status == "could not grade"
    assert report.checks[0].evidence["reason"] == (f"the seed has 0 allergies {MISSING} "
                                                   "(expected 1)")


def test_an_unreadable_input_file_still_cannot_be_graded(tmp_path):
    source = checks('''    if ex.input_sha256("absent.pdf") is None:
        raise CouldNotGrade("input/absent.pdf is missing from the extract")
    return True''')
    spec, path = run_of(tmp_path, source, LATEX, delete=True)
    report = grade(spec, path)
    assert report.checks[0].status == "could not grade"
    assert report.checks[0].evidence["reason"] == "input/absent.pdf is missing from the extract"


def test_an_unavailable_judge_still_cannot_grade(tmp_path):
    """The seeded data would grade (the rubric judge decides there), but the run's item
    could not be judged: that is the judge's, not the run's, doing."""
    source = checks('''    rubric = Rubric("note", required=(Fact("hives", text="hives"),))
    return ex.judge("hives after penicillin", rubric).facts()''')
    spec, path = run_of(tmp_path, source, LATEX)
    with FakeChatEndpoint([None]) as fake:
        report = grade(spec, path, judge=LLMJudge(fake.url, "fake-model"))
    assert report.checks[0].status == "could not grade"
    assert "LLM judge unavailable" in report.checks[0].evidence["reason"]
