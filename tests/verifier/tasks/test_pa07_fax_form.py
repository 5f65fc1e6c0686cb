"""pa-07: the Beta Care PA form faxed (50% form fields, fourteen proportional; 20%
attachments and cover, two parts read from the pages the sink received; 15% correct
destination; 15% EHR log)."""

from __future__ import annotations

import pytest

from sandbox.stores.ehr import Document, Pnote, PriorAuthorization
from sandbox.stores.fax import FaxDocument, FaxJob, fax_digits
from tests.verifier.tasks.pa_support import NOW, Run, fill_pdf, seed_once, sink_receives, spec_of

SPEC = spec_of("pa-07")
FORM, ATTACH, DEST, LOG = 0.50, 0.20, 0.15, 0.15
PID = 107
CONFIRMATION = "FX-1019-004211"
VALUES = {
    "patient_name": "Ross, Hannah", "patient_dob": "1983-06-25", "member_id": "BTC55120987",
    "ordering_provider": "Kwame Osei, MD", "ordering_npi": "1234567893",
    "provider_phone": "(217) 555-0100", "provider_fax": "217-555-0199", "cpt_code": "74160",
    "icd10_code": "R93.2", "service_date": "10/27/2026",
    "facility_name": "Springfield Imaging Center", "facility_npi": "1468205731",
    "symptom_onset": "2026-09-07", "prior_imaging_date": "2026-10-02",
}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return seed_once(SPEC, tmp_path_factory.mktemp("pa07"))


@pytest.fixture
def run(seeded, tmp_path):
    return Run(SPEC, seeded, tmp_path / "run")


def fax(run: Run, *, to: str = "1-888-555-0142", values: dict | None = None,
        note: int | None = 1001, cover: bool = True, confirmation: str = CONFIRMATION,
        status: str = "delivered", note_first: bool = False,
        own_cover: bytes | None = None, **write) -> None:
    """The web fax service sends a job; the sink records what it received (channel fax)."""
    form = fill_pdf(run.input_bytes("beta_pa_form.pdf"), values or VALUES)
    docs = [("beta_pa_form_filled.pdf", form)]
    if note is not None:
        doc = run.seeded("ehr", Document, note)
        docs.insert(0 if note_first else 1, (doc.name, doc.document_data))
    if own_cover is not None:
        docs.insert(0, ("cover.pdf", own_cover))
    with run.write("fax", actor="riverside.fax", **write) as s:
        job = FaxJob(confirmation_id=confirmation, account_id=1, from_number="217-555-0199",
                     to_number=to, to_digits=fax_digits(to), recipient_name="Beta Care UM",
                     include_cover=cover, cover_to="Beta Care Utilization Management",
                     cover_from="Dana Whitfield", cover_subject="PA request: Ross, Hannah",
                     page_count=len(docs) + cover, status=status, created_at=NOW,
                     sent_at=NOW, delivered_at=NOW if status == "delivered" else None)
        s.add(job)
        s.flush()
        for position, (name, data) in enumerate(docs, 1):
            s.add(FaxDocument(job_id=job.id, position=position, filename=name, page_count=1,
                              content=data, uploaded_at=NOW))
        job_id = job.id
    if status == "delivered":
        sink_receives(run, job_id, episode=write.get("episode"))


def own_cover_sheet() -> bytes:
    """A cover sheet the office drew itself and uploaded as the first file."""
    from portal_web.fax.coverpage import CoverSheet, render_cover

    return render_cover(CoverSheet(
        to="Beta Care Utilization Management", to_fax="1-888-555-0142",
        sender="Dana Whitfield", organization="Riverside Family Medicine", from_fax="217-555-0199",
        from_phone="217-555-0100", sent_at=NOW, pages=3, subject="PA request: Ross, Hannah",
        message="", urgent=False))


def log(run: Run, text: str = CONFIRMATION, where: str = "note", **write) -> None:
    with run.write("ehr", **write) as s:
        if where == "note":
            s.add(Pnote(date=NOW, body=f"Faxed Beta Care PA request, confirmation {text}",
                        pid=PID, user="pa.coord", title="Prior Auth"))
        else:
            record = s.get(PriorAuthorization, 1001)
            record.portal_reference = text
            record.status = "Submitted"


@pytest.mark.parametrize("where", ["note", "authorization"])
def test_gold_fax_scores_one(run, where):
    fax(run)
    log(run, where=where)
    assert run.fractions() == [1.0, 1.0, 1.0, 1.0]


def test_untouched_scores_zero(run):
    assert run.score() == 0.0


@pytest.mark.parametrize("field, wrong", [
    ("icd10_code", "R10.11"),                # the secondary diagnosis
    ("prior_imaging_date", "2026-10-14"),    # the visit, not the ultrasound
    ("ordering_provider", "Test Grant, MD"),
])
def test_each_form_field_is_a_fourteenth(run, field, wrong):
    fax(run, values={**VALUES, field: wrong})
    log(run)
    assert run.score() == pytest.approx(FORM * 13 / 14 + ATTACH + DEST + LOG)


def test_unfilled_form_earns_no_form_fields(run):
    fax(run, values={k: "" for k in VALUES})
    log(run)
    assert run.fractions() == [0.0, 1.0, 1.0, 1.0]


@pytest.mark.parametrize("change", [{"cover": False}, {"note": 1002}])
def test_cover_and_note_are_half_each(run, change):
    fax(run, **change)
    log(run)
    assert run.score() == pytest.approx(FORM + ATTACH / 2 + DEST + LOG)


def test_wrong_number_loses_the_destination(run):
    fax(run, to="1-888-555-0143")              # Beta's pharmacy line
    log(run)
    assert run.fractions() == [1.0, 1.0, 0.0, 1.0]


def test_sent_twice_is_not_exactly_one(run):
    fax(run)
    fax(run, confirmation="FX-1019-004212")
    log(run, text="FX-1019-004212")
    assert run.fractions() == [1.0, 1.0, 0.0, 1.0]


def test_failed_fax_is_not_a_transmission(run):
    fax(run, status="failed")
    log(run)
    assert run.score() == 0.0


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}])
def test_rows_of_another_channel_or_episode_do_not_count(run, write):
    fax(run, **write)
    log(run, **write)
    report = run.grade()
    assert report.score == 0.0
    assert {"fax_jobs", "pnotes"} <= {e["table"] for e in report.channel["exclusions"]}


def test_confirmation_logged_for_another_patient_does_not_count(run):
    fax(run)
    with run.write("ehr") as s:
        s.add(Pnote(date=NOW, body=f"confirmation {CONFIRMATION}", pid=101, user="pa.coord"))
    assert run.fractions() == [1.0, 1.0, 1.0, 0.0]


def test_the_pages_received_are_graded_not_the_cover_flag(run):
    """The job says it had a cover sheet, but the sink received nothing for it."""
    fax(run, status="sent")
    with run.write("fax") as s:
        s.get(FaxJob, 1).status = "delivered"   # the service's word, no received pages
    log(run)
    report = run.grade()
    assert report.checks[1].fraction == 0.0
    assert report.score == pytest.approx(FORM + DEST + LOG)


def test_the_note_before_the_form_loses_the_note_half(run):
    fax(run, note_first=True)
    log(run)
    assert run.score() == pytest.approx(FORM + ATTACH / 2 + DEST + LOG)


def test_a_cover_sheet_the_office_uploaded_first_is_a_cover_sheet(run):
    fax(run, cover=False, own_cover=own_cover_sheet())
    log(run)
    assert run.fractions() == [1.0, 1.0, 1.0, 1.0]


def test_the_received_fax_is_read_from_the_sink(run):
    fax(run)
    log(run)
    report = run.grade()
    parts = report.checks[1].evidence["parts"]
    assert [p["part"] for p in parts] == ["cover sheet first",
                                          "visit note 2026-10-14 after the form"]
    assert parts[0]["received"] == f"{CONFIRMATION}.pdf" and parts[0]["pages"] == 3
    assert parts[0]["form starts at page"] == 2 and parts[1]["found"] == "from page 3"


def test_credentials_in_the_provider_name_are_ignored_like_pa14(run):
    fax(run, values={**VALUES, "ordering_provider": "Dr. Kwame Osei, NP"})
    log(run)
    assert run.score() == pytest.approx(1.0)
