"""pa-08: the inpatient admission notification (25% request type; 35% clinical fields,
three equal parts; 20% the H&P attached; 20% case number in the EHR)."""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox.stores.acme import AdmissionNotification, Attachment, PaCase
from sandbox.stores.ehr import Document, Pnote, PriorAuthorization
from tests.verifier.tasks.pa_support import NOW, Run, seed_once, spec_of

SPEC = spec_of("pa-08")
TYPE, FIELDS, ATTACH, RECORD = 0.25, 0.35, 0.20, 0.20
MORENO, PID = 7, 108
REFERENCE = "PA26-042355"
ADMIT = dt.datetime(2026, 10, 17, 22, 47)


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return seed_once(SPEC, tmp_path_factory.mktemp("pa08"))


@pytest.fixture
def run(seeded, tmp_path):
    return Run(SPEC, seeded, tmp_path / "run")


def notify(run: Run, *, case_type: str = "inpatient_notification", docs=(1002,),
           member: int = MORENO, admit_at: dt.datetime = ADMIT, detail: bool = True,
           attending_npi: str = "1765234988", write: dict | None = None, **case) -> None:
    """The portal's admission-notification wizard, submitted."""
    contents = [run.seeded("ehr", Document, d) for d in docs]
    with run.write("acme", actor="riverside.pa", **(write or {})) as s:
        row = PaCase(**{"reference_number": REFERENCE, "case_type": case_type,
                        "status": "in_review", "member_id": member, "plan_id": 1,
                        "facility_npi": "1659378461",
                        "facility_name": "Riverside Memorial Hospital",
                        "icd10_codes": "A41.9,N39.0,R65.20", "place_of_service": "21",
                        "submitted_via": "portal", "created_by": "riverside.pa",
                        "created_at": NOW, "submitted_at": NOW, **case})
        s.add(row)
        s.flush()
        if detail:
            s.add(AdmissionNotification(case_id=row.id, admit_at=admit_at,
                                        admission_type="emergency",
                                        admission_source="emergency_department",
                                        attending_npi=attending_npi,
                                        attending_name="Dr. Omar Haddad",
                                        notification_due=dt.date(2026, 10, 20)))
        for doc in contents:
            s.add(Attachment(case_id=row.id, filename=doc.name, content=doc.document_data,
                             document_type="history_and_physical", uploaded_at=NOW))


def record(run: Run, where: str = "authorization", text: str = REFERENCE, **write) -> None:
    with run.write("ehr", **write) as s:
        if where == "authorization":
            auth = s.get(PriorAuthorization, 1001)
            auth.portal_reference = text
            auth.status = "Submitted"
            auth.updated = NOW
        else:
            s.add(Pnote(date=NOW, body=f"Acme admission notification filed, case {text}",
                        pid=PID if where == "note" else 101, user="pa.coord",
                        title="Prior Auth"))


@pytest.mark.parametrize("where", ["authorization", "note"])
def test_gold_notification_scores_one(run, where):
    notify(run)
    record(run, where)
    assert run.fractions() == [1.0, 1.0, 1.0, 1.0]


def test_untouched_scores_zero(run):
    assert run.score() == 0.0


def test_outpatient_case_loses_only_the_request_type(run):
    notify(run, case_type="outpatient", detail=False, rendering_npi="1765234988")
    record(run)
    assert run.score() == pytest.approx(FIELDS * 2 / 3 + ATTACH + RECORD)  # no admit time


@pytest.mark.parametrize("change", [
    {"admit_at": dt.datetime(2026, 10, 17, 19, 5)},       # the ED arrival
    {"icd10_codes": "A41.9,N39.0,R65.20,I10"},           # chronic I10 is not admitting
    {"attending_npi": "1234567893"},
])
def test_each_clinical_field_is_a_third(run, change):
    notify(run, **change)
    record(run)
    assert run.score() == pytest.approx(TYPE + FIELDS * 2 / 3 + ATTACH + RECORD)


@pytest.mark.parametrize("other", ["outpatient", "network_exception"])
def test_another_type_of_request_filed_beside_it_loses_the_request_type(run, other):
    notify(run)
    notify(run, case_type=other, reference_number="PA26-042356", detail=False, docs=())
    record(run)
    assert run.fractions() == [0.0, 1.0, 1.0, 1.0]


def test_a_second_notification_or_a_draft_of_another_type_keeps_it(run):
    notify(run, reference_number="PA26-042356")
    notify(run, case_type="outpatient", status="draft", submitted_at=None, detail=False,
           docs=(), reference_number=None)
    notify(run)
    record(run)
    assert run.fractions() == [1.0, 1.0, 1.0, 1.0]


def test_late_submission_loses_the_request_type(run):
    notify(run, submitted_at=dt.datetime(2026, 10, 21, 8, 0))
    record(run)
    assert run.score() == pytest.approx(FIELDS + ATTACH + RECORD)


def test_ed_note_is_not_the_hp(run):
    notify(run, docs=(1001,))
    record(run)
    assert run.fractions() == [1.0, 1.0, 0.0, 1.0]


@pytest.mark.parametrize("where, text", [("authorization", "PA26-042533"),
                                         ("other patient", REFERENCE)])
def test_case_number_missing_from_the_chart(run, where, text):
    notify(run)
    record(run, where, text)
    assert run.fractions() == [1.0, 1.0, 1.0, 0.0]


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}])
def test_rows_of_another_channel_or_episode_do_not_count(run, write):
    notify(run, write=write)
    record(run, **write)
    report = run.grade()
    assert report.score == 0.0
    assert report.channel["exclusions"]


def test_notification_for_another_member_earns_nothing(run):
    notify(run, member=1)
    assert run.score() == 0.0
