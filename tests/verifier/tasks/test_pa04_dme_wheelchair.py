"""pa-04 and its complete-docs twin (30% documents checked in the access log; 40% correct
submit/hold decision; 30% task or submission fields)."""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox.stores.acme import Attachment, DmeOrder, PaCase
from sandbox.stores.ehr import Document, EhrTask, Log
from tests.verifier.tasks.pa_support import NOW, Run, seed_once, spec_of

SPEC = spec_of("pa-04")
CHECKED, DECISION, FIELDS = 0.30, 0.40, 0.30
PID, KIM, LOOKALIKE_PID = 104, 4, 105
CMN = {"supplier_name": "Prairie Mobility & Home Medical", "supplier_npi": "1309485724",
       "order_date": dt.date(2026, 10, 13), "f2f_exam_date": dt.date(2026, 9, 29),
       "f2f_provider_npi": "1728394051", "mobility_assessment_date": dt.date(2026, 10, 6),
       "home_assessment_date": dt.date(2026, 10, 9), "height_in": 70.0, "weight_lb": 182.0,
       "length_of_need_months": 99, "mobility_limits_adls": True,
       "cane_walker_sufficient": False, "manual_wheelchair_sufficient": False,
       "scooter_sufficient": False, "can_operate_safely": True, "home_accommodates": True,
       "cmn_signed_by_npi": "1728394051", "cmn_signed_date": dt.date(2026, 10, 13)}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    root = tmp_path_factory.mktemp("pa04")
    return {"default": seed_once(SPEC, root / "default"),
            "complete-docs": seed_once(SPEC, root / "complete", "complete-docs")}


@pytest.fixture
def hold_run(seeded, tmp_path):
    return Run(SPEC, seeded["default"], tmp_path / "run")


@pytest.fixture
def submit_run(seeded, tmp_path):
    return Run(SPEC, seeded["complete-docs"], tmp_path / "run")


def view(run: Run, *docs: int, pid: int = PID, **write) -> None:
    """What the web EHR logs when a document is opened in the Documents tab."""
    with run.write("ehr", **write) as s:
        for doc in docs:
            s.add(Log(date=NOW, event="document-view", category="Documents", user="pa.coord",
                      groupname="Default", comments=f"document {doc}", patient_id=pid,
                      success=1, document_id=doc))


BODY = ("Acme requires a home assessment before the power wheelchair order can be submitted. "
        "None is in the chart.")


def task(run: Run, *, to: int = 26, subject: str = "K0823 on hold: documentation missing",
         body: str = BODY, pid: int = PID, **write) -> None:
    with run.write("ehr", **write) as s:
        s.add(EhrTask(pid=pid, assigned_to=to, created_by=12, subject=subject, body=body,
                      status="Open", priority="Normal", created=NOW))


def reassign(run: Run, *, to: int = 26, note: str | None = "Home assessment missing from "
             "the chart: please have it done before we submit.", **write) -> None:
    """The EHR's task form on the seeded task: reassigned, a line added to its details."""
    with run.write("ehr", **write) as s:
        row = s.get(EhrTask, 1001)
        row.assigned_to, row.status, row.updated = to, "Pending info", NOW
        if note is not None:
            row.body = f"{row.body}\n{note}"


def dme(run: Run, *, docs=(1001, 1002, 1006), status: str = "in_review", member: int = KIM,
        order: dict | None = None, **write) -> None:
    """The DME portal's order + CMN form, submitted (or saved as a draft)."""
    contents = [run.seeded("ehr", Document, d) for d in docs]
    with run.write("acme", actor="riverside.pa", **write) as s:
        case = PaCase(reference_number=None if status == "draft" else "PA26-042900",
                      case_type="dme", status=status, member_id=member, plan_id=1,
                      requesting_npi="1728394051", requesting_name="Dr. Caroline Ames",
                      service_code_type="HCPCS", service_code="K0823", units=1,
                      icd10_codes="I69.351", place_of_service="12", created_at=NOW,
                      submitted_at=None if status == "draft" else NOW)
        s.add(case)
        s.flush()
        s.add(DmeOrder(case_id=case.id, **{**CMN, **(order or {})}))
        for doc in contents:
            s.add(Attachment(case_id=case.id, filename=doc.name, content=doc.document_data,
                             document_type="face_to_face_note", uploaded_at=NOW))


# -- default fixture: the home assessment is missing --------------------------------------
@pytest.mark.parametrize("made_by", ["a new task", "the seeded task reassigned"])
def test_hold_with_task_scores_one(hold_run, made_by):
    """The seeded task 1001 handed to Dr. Ames with the missing document named does what
    the seed asks, like a new task."""
    view(hold_run, 1001, 1002)
    (task if made_by == "a new task" else reassign)(hold_run)
    assert hold_run.fractions() == [1.0, 1.0, 1.0]


def test_hold_with_a_partly_filled_draft_is_allowed(hold_run):
    view(hold_run, 1001, 1002)
    dme(hold_run, docs=(1001,), status="draft")
    task(hold_run)
    assert hold_run.score() == pytest.approx(1.0)


def test_untouched_scores_zero(hold_run):
    assert hold_run.score() == 0.0


def test_one_document_not_opened_costs_half_the_check(hold_run):
    view(hold_run, 1001, 1005, pid=PID)      # the look-alike's home assessment is not 1002
    task(hold_run)
    assert hold_run.score() == pytest.approx(CHECKED / 2 + DECISION + FIELDS)


def test_submitting_anyway_is_the_wrong_decision(hold_run):
    view(hold_run, 1001, 1002)
    dme(hold_run, docs=(1001, 1002))
    task(hold_run)
    assert hold_run.fractions() == [1.0, 0.0, 1.0]


@pytest.mark.parametrize("kwargs", [{"to": 10}, {"body": "Please review the wheelchair order."}])
def test_each_task_part_is_half(hold_run, kwargs):
    view(hold_run, 1001, 1002)
    task(hold_run, **kwargs)
    assert hold_run.score() == pytest.approx(CHECKED + DECISION + FIELDS / 2)


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}])
def test_rows_of_another_channel_or_episode_do_not_count(hold_run, write):
    view(hold_run, 1001, 1002, **write)
    task(hold_run, **write)
    report = hold_run.grade()
    assert report.score == 0.0
    assert {e["table"] for e in report.channel["exclusions"]} == {"log", "ehr_tasks"}


def test_task_for_the_lookalike_earns_nothing(hold_run):
    task(hold_run, pid=LOOKALIKE_PID)
    report = hold_run.grade()
    assert report.score == 0.0
    assert report.footprint["other_patient"]


# -- complete-docs twin: submit ------------------------------------------------------------
def test_complete_docs_submission_scores_one(submit_run):
    view(submit_run, 1001, 1002, 1006)
    dme(submit_run)
    assert submit_run.fractions() == [1.0, 1.0, 1.0]


def test_complete_docs_untouched_scores_zero(submit_run):
    assert submit_run.score() == 0.0


def test_complete_docs_holding_is_the_wrong_decision(submit_run):
    view(submit_run, 1001, 1002, 1006)
    task(submit_run)
    assert submit_run.fractions() == [1.0, 0.0, 0.0]


@pytest.mark.parametrize("order", [{"home_assessment_date": None},
                                   {"cane_walker_sufficient": True}, {"weight_lb": 128.0}])
def test_complete_docs_each_cmn_value_is_an_eighteenth_of_half(submit_run, order):
    view(submit_run, 1001, 1002, 1006)
    dme(submit_run, order=order)
    assert submit_run.score() == pytest.approx(
        CHECKED + DECISION + FIELDS * (0.5 * 17 / 18 + 0.5))


def test_complete_docs_home_assessment_not_attached(submit_run):
    view(submit_run, 1001, 1002)
    dme(submit_run, docs=(1001, 1002, 1003))
    assert submit_run.score() == pytest.approx(
        CHECKED * 2 / 3 + DECISION + FIELDS * (0.5 + 0.5 * 2 / 3))


def test_complete_docs_lookalike_submission_earns_nothing(submit_run):
    dme(submit_run, member=5)
    assert submit_run.score() == 0.0


# -- the seeded task 1001 (the PA desk's to-do from Dr. Ames) handed back to the provider -----
def test_a_reassigned_task_names_only_what_this_run_wrote(hold_run):
    """The seeded details already list the home assessment among the documents to check."""
    view(hold_run, 1001, 1002)
    reassign(hold_run, note=None)
    assert hold_run.score() == pytest.approx(CHECKED + DECISION + FIELDS / 2)


def test_reassigning_to_another_provider_loses_the_recipient_half(hold_run):
    view(hold_run, 1001, 1002)
    reassign(hold_run, to=25)
    assert hold_run.score() == pytest.approx(CHECKED + DECISION + FIELDS / 2)


def test_the_seeded_task_only_updated_is_no_hold(hold_run):
    """Still the PA desk's own to-do (not handed to anyone): nothing was asked of Dr. Ames."""
    view(hold_run, 1001, 1002)
    reassign(hold_run, to=12)
    assert hold_run.fractions() == [1.0, 0.0, 0.0]


def test_a_reassignment_through_another_channel_does_not_count(hold_run):
    view(hold_run, 1001, 1002)
    reassign(hold_run, channel="api")
    assert hold_run.fractions() == [1.0, 0.0, 0.0]


def test_complete_docs_reassigning_the_task_is_a_hold_like_a_new_task(submit_run):
    view(submit_run, 1001, 1002, 1006)
    dme(submit_run)
    reassign(submit_run)
    assert submit_run.fractions() == [1.0, 0.0, 1.0]
