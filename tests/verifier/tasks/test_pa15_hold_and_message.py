"""pa-15: hold and message (40% no submission; 40% message content and recipient, three
parts; 20% status)."""

from __future__ import annotations

import pytest

from sandbox.stores.acme import Attachment, PaCase
from sandbox.stores.ehr import Document, PaWorklistItem, Pnote
from tests.verifier.tasks.pa_support import NOW, Run, seed_once, spec_of

SPEC = spec_of("pa-15")
HELD, MESSAGE, STATUS = 0.40, 0.40, 0.20
PID, HUGHES = 115, 14
BODY = ("Knee arthroscopy PA for Ben Hughes is on hold. Acme requires 3 months of failed "
        "conservative care (chart shows only 5 weeks of PT, 2026-09-08 to 2026-10-13) and an "
        "MRI report of the knee (none on file). Please document both.")


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return seed_once(SPEC, tmp_path_factory.mktemp("pa15"))


@pytest.fixture
def run(seeded, tmp_path):
    return Run(SPEC, seeded, tmp_path / "run")


def hold(run: Run, *, body: str = BODY, to: str = "dr.fenwick", pid: int = PID,
         status: str = "Pending info", **write) -> None:
    """The EHR: a message to the surgeon and the work item set to 'Pending info'."""
    with run.write("ehr", **write) as s:
        s.add(Pnote(date=NOW, body=body, pid=pid, user="pa.coord", title="Prior Auth",
                    assigned_to=to, message_status="New"))
        item = s.get(PaWorklistItem, 1001)
        item.status = status
        item.outcome = "held"
        item.updated = NOW


def submit(run: Run, *, status: str = "in_review", attach: bool = False,
           sent: bool | None = None, **write) -> None:
    doc = run.seeded("ehr", Document, 1002)
    sent = status != "draft" if sent is None else sent
    with run.write("acme", actor="riverside.pa", **write) as s:
        case = PaCase(reference_number="PA26-042700" if sent else None,
                      case_type="outpatient", status=status,
                      member_id=HUGHES, plan_id=1, service_code_type="CPT",
                      service_code="29881", icd10_codes="S83.241A", created_at=NOW,
                      submitted_at=NOW if sent else None)
        s.add(case)
        s.flush()
        if attach:
            s.add(Attachment(case_id=case.id, filename=doc.name, content=doc.document_data))


def test_gold_hold_scores_one(run):
    hold(run)
    assert run.fractions() == [1.0, 1.0, 1.0]


def test_untouched_keeps_only_no_submission(run):
    assert run.fractions() == [1.0, 0.0, 0.0]
    assert run.score() == pytest.approx(HELD)


@pytest.mark.parametrize("kwargs", [{"status": "in_review"}, {"status": "draft", "attach": True}])
def test_submission_or_attachment_loses_no_submission(run, kwargs):
    hold(run)
    submit(run, **kwargs)
    assert run.score() == pytest.approx(MESSAGE + STATUS)


def test_bare_draft_is_allowed(run):
    hold(run)
    submit(run, status="draft")
    assert run.score() == pytest.approx(1.0)


def test_a_draft_cancelled_before_it_was_sent_is_no_submission(run):
    hold(run)
    submit(run, status="cancelled", sent=False)
    assert run.score() == pytest.approx(1.0)


@pytest.mark.parametrize("write", [{"episode": "ep-other"}, {"channel": "api"}])
def test_only_cases_created_in_this_episodes_browser_count(run, write):
    hold(run)
    submit(run, **write)
    report = run.grade()
    assert report.score == pytest.approx(1.0)
    assert report.channel["exclusions"][0]["table"] == "pa_cases"


@pytest.mark.parametrize("kwargs", [
    {"to": "dr.osei"},
    {"body": "PA on hold: please send the knee MRI report."},
    {"body": "PA on hold: conservative care of 3 months is not documented."},
])
def test_each_message_part_is_a_third(run, kwargs):
    hold(run, **kwargs)
    assert run.score() == pytest.approx(HELD + MESSAGE * 2 / 3 + STATUS)


def test_wrong_status_loses_status(run):
    hold(run, status="Done")
    assert run.fractions() == [1.0, 1.0, 0.0]


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}])
def test_rows_of_another_channel_or_episode_do_not_count(run, write):
    hold(run, **write)
    report = run.grade()
    assert report.score == pytest.approx(HELD)
    assert {e["table"] for e in report.channel["exclusions"]} == {"pnotes",
                                                                  "pa_worklist_items"}


def test_message_about_another_patient_earns_nothing(run):
    hold(run, pid=127, status="In progress")
    assert run.score() == pytest.approx(HELD)
