"""pa-07: the Beta Care PA form faxed (50% form fields, fourteen proportional; 20%
attachments and cover, two parts; 15% correct destination; 15% EHR log)."""

from __future__ import annotations

import pytest

from sandbox.stores.ehr import Document, Pnote, PriorAuthorization
from sandbox.stores.fax import FaxDocument, FaxJob, ReceivedFax, fax_digits
from tests.verifier.tasks.pa_support import NOW, Run, fill_pdf, seed_once, spec_of

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
        status: str = "delivered", **write) -> None:
    """The web fax service sends a job; the sink records what it received (channel fax)."""
    form = fill_pdf(run.input_bytes("beta_pa_form.pdf"), values or VALUES)
    docs = [("beta_pa_form_filled.pdf", form)]
    if note is not None:
        doc = run.seeded("ehr", Document, note)
        docs.append((doc.name, doc.document_data))
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
        with run.write("fax", channel="fax", actor="fax-sink",
                       episode=write.get("episode")) as s:
            s.add(ReceivedFax(job_id=job_id, to_digits=fax_digits(to), from_digits="12175550199",
                              filename=f"{confirmation}.pdf", page_count=len(docs) + cover,
                              content=form, received_at=NOW))


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
