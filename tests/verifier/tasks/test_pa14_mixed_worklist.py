"""pa-14: the ten-case 'PA Today' worklist (30% cases 1-3; 30% cases 4-6; 40% cases 7-10;
each the mean of its cases). A case's score is the equal share of its parts: submit —
channel, fields (values and documents halves), worklist item; no PA — nothing submitted,
worklist item; hold — held, task (recipient and content), worklist item."""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox.stores.acme import Attachment, DmeOrder, PaAnswer, PaCase
from sandbox.stores.ehr import Document, EhrTask, PaWorklistItem
from sandbox.stores.fax import FaxDocument, FaxJob, fax_digits
from tests.verifier.tasks.pa_support import (
    NOW,
    Run,
    blank_form,
    fill_pdf,
    seed_once,
    sink_receives,
    spec_of,
)

SPEC = spec_of("pa-14")
PIDS = {n: 124 + n for n in range(1, 11)}          # items 1001-1010 -> pids 125-134
MEMBERS = {1: 24, 3: 25, 4: 26, 6: 27, 7: 28, 8: 29, 10: 30}   # Acme members.id
FORMS = {
    2: {"patient_name": "Baxter, Noel", "patient_dob": "1962-07-04", "member_id": "BTC60220302",
        "ordering_provider": "Kwame Osei, MD", "ordering_npi": "1234567893",
        "provider_phone": "217-555-0100", "provider_fax": "217-555-0199", "cpt_code": "71250",
        "icd10_code": "R91.1", "service_date": "2026-10-26",
        "facility_name": "Springfield Imaging Center", "facility_npi": "1468205731",
        "symptom_onset": "2026-09-28", "prior_imaging_date": "2026-10-05"},
    9: {"patient_name": "Ives, Clara", "patient_dob": "1982-04-14", "member_id": "BTC60220309",
        "ordering_provider": "Test Grant, MD", "ordering_npi": "1546827399",
        "provider_phone": "217-555-0100", "provider_fax": "217-555-0199", "cpt_code": "72148",
        "icd10_code": "M54.16", "service_date": "2026-10-29",
        "facility_name": "Springfield Imaging Center", "facility_npi": "1468205731",
        "symptom_onset": "2026-08-03", "prior_imaging_date": "2026-08-20"},
}
FAX_DOCS = {2: (1003,), 9: (1009, 1010)}
ACME = {
    1: {"case": {"case_type": "outpatient", "service_code": "73721", "icd10_codes": "M23.221",
                 "requesting_npi": "1973628419", "questionnaire_id": 4},
        "answers": {"primary_diagnosis": "M23.221", "symptom_duration_weeks": "8",
                    "prior_imaging": "xray", "conservative_care": "yes",
                    "clinical_indication": "Medial joint line pain, catching"},
        "docs": (1001, 1002)},
    6: {"case": {"case_type": "pharmacy", "drug_name": "secukinumab",
                 "drug_strength": "150 mg/mL pen", "icd10_codes": "L40.0",
                 "requesting_npi": "1234567893", "questionnaire_id": 7, "plan_id": 3},
        "answers": {"primary_diagnosis": "L40.0",
                    "prior_therapies": "Methotrexate 15 mg weekly 2025-11-03..2026-05-04, "
                                       "inadequate response; narrowband UVB 2026-05-18.."
                                       "2026-08-28, inadequate response",
                    "severity": "BSA 12%, PASI 15", "prescriber_specialist": "no"},
        "docs": (1007,)},
    10: {"case": {"case_type": "dme", "service_code_type": "HCPCS", "service_code": "E0260",
                  "icd10_codes": "I50.22", "requesting_npi": "1234567893"},
         "dme": {"order_date": dt.date(2026, 10, 12), "f2f_exam_date": dt.date(2026, 10, 6),
                 "f2f_provider_npi": "1234567893", "height_in": 71.0, "weight_lb": 198.0,
                 "length_of_need_months": 99, "supplier_npi": "1309485724",
                 "supplier_name": "Prairie Mobility & Home Medical"},
         "docs": (1011, 1012)},
}
HOLDS = {4: (24, "CPAP on hold: the diagnostic sleep study report with the AHI is missing"),
         8: (27, "Shoulder MRI on hold: no shoulder radiographs and no conservative care "
                 "(6 weeks) documented")}
NO_PA = {3: "R-GP-1014", 7: "R-GP-3006",
         5: "Beta Care provider bulletin: services that need prior authorization (97161)"}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return seed_once(SPEC, tmp_path_factory.mktemp("pa14"))


@pytest.fixture
def run(seeded, tmp_path):
    return Run(SPEC, seeded, tmp_path / "run")


def expected(cases: dict[int, float]) -> float:
    """The task score for per-case scores (missing cases: 1.0)."""
    s = {n: cases.get(n, 1.0) for n in range(1, 11)}
    return (0.3 * sum(s[n] for n in (1, 2, 3)) / 3 + 0.3 * sum(s[n] for n in (4, 5, 6)) / 3
            + 0.4 * sum(s[n] for n in (7, 8, 9, 10)) / 4)


def acme(run: Run, number: int, *, member: int | None = None, answers: dict | None = None,
         **case) -> str:
    gold = ACME[number]
    reference = f"PA26-0430{number:02d}"
    docs = [run.seeded("ehr", Document, d) for d in gold["docs"]]
    with run.write("acme", actor="riverside.pa") as s:
        row = PaCase(**{"reference_number": reference, "status": "in_review",
                        "member_id": member or MEMBERS[number], "plan_id": 1,
                        "service_code_type": "CPT", "submitted_via": "portal",
                        "created_at": NOW, "submitted_at": NOW, **gold["case"], **case})
        s.add(row)
        s.flush()
        for key, value in (answers or gold.get("answers", {})).items():
            s.add(PaAnswer(case_id=row.id, question_key=key, answer=value, answered_at=NOW))
        if "dme" in gold:
            s.add(DmeOrder(case_id=row.id, **gold["dme"]))
        for doc in docs:
            s.add(Attachment(case_id=row.id, filename=doc.name, content=doc.document_data))
    return reference


def fax(run: Run, number: int, *, to: str = "1-888-555-0142", form: dict | None = None,
        cover: bool = True, before: tuple[tuple[str, bytes], ...] = ()) -> str:
    """The fax service sends the case's form and notes (after any ``before`` files); the
    sink receives it."""
    confirmation = f"FX-1019-0{number:05d}"
    filled = fill_pdf(run.input_bytes("beta_pa_form.pdf"), form or FORMS[number])
    docs = [*before, ("beta_pa_form.pdf", filled)] + [
        (d.name, d.document_data) for d in (run.seeded("ehr", Document, i)
                                            for i in FAX_DOCS[number])]
    with run.write("fax", actor="riverside.fax") as s:
        job = FaxJob(confirmation_id=confirmation, account_id=1, from_number="217-555-0199",
                     to_number=to, to_digits=fax_digits(to), include_cover=cover,
                     cover_subject="Prior authorization request",
                     page_count=len(docs) + cover, status="delivered", created_at=NOW,
                     sent_at=NOW, delivered_at=NOW)
        s.add(job)
        s.flush()
        for position, (name, data) in enumerate(docs, 1):
            s.add(FaxDocument(job_id=job.id, position=position, filename=name, page_count=1,
                              content=data))
        job_id = job.id
    sink_receives(run, job_id)
    return confirmation


def hold(run: Run, number: int, *, to: int | None = None, subject: str | None = None) -> str:
    provider, text = HOLDS[number]
    with run.write("ehr") as s:
        task = EhrTask(pid=PIDS[number], assigned_to=to or provider, created_by=12,
                       subject=subject or text, body=None, status="Open", created=NOW)
        s.add(task)
        s.flush()
        return f"EHR task {task.id}"


def item(run: Run, number: int, outcome: str, reference: str | None, **write) -> None:
    with run.write("ehr", **write) as s:
        row = s.get(PaWorklistItem, 1000 + number)
        row.status, row.outcome, row.reference, row.updated = "Done", outcome, reference, NOW


def solve(run: Run, skip: tuple[int, ...] = ()) -> None:
    for number in range(1, 11):
        if number in skip:
            continue
        if number in ACME:
            item(run, number, "submitted", acme(run, number))
        elif number in FORMS:
            item(run, number, "submitted", fax(run, number))
        elif number in HOLDS:
            item(run, number, "held", hold(run, number))
        else:
            item(run, number, "no_pa_required", NO_PA[number])


def test_gold_worklist_scores_one(run):
    solve(run)
    assert run.fractions() == [1.0, 1.0, 1.0]


def test_untouched_keeps_only_the_no_pa_cases_left_alone(run):
    report = run.grade()
    assert report.score == pytest.approx(expected({n: 0.5 if n in NO_PA else 0.0
                                                   for n in range(1, 11)}))
    assert report.score == pytest.approx(0.15)


def test_submit_case_one_wrong_answer(run):
    solve(run, skip=(1,))
    answers = {**ACME[1]["answers"], "prior_imaging": "none"}
    item(run, 1, "submitted", acme(run, 1, answers=answers))
    values = 7  # code, ICD-10, requesting NPI, four answers
    assert run.score() == pytest.approx(expected({1: (1 + (0.5 * 6 / values + 0.5) + 1) / 3}))


def test_fax_to_the_wrong_line_loses_the_channel(run):
    solve(run, skip=(2,))
    item(run, 2, "submitted", fax(run, 2, to="1-888-555-0177"))
    assert run.score() == pytest.approx(expected({2: 2 / 3}))


def test_no_pa_case_submitted_anyway_scores_zero(run):
    solve(run, skip=(3,))
    with run.write("acme") as s:
        s.add(PaCase(reference_number="PA26-043099", case_type="outpatient",
                     status="in_review", member_id=25, service_code="72100", submitted_at=NOW))
    item(run, 3, "submitted", "PA26-043099")
    assert run.score() == pytest.approx(expected({3: 0.0}))


def test_hold_task_to_the_wrong_provider(run):
    solve(run, skip=(4,))
    item(run, 4, "held", hold(run, 4, to=10))
    assert run.score() == pytest.approx(expected({4: (1 + 0.5 + 1) / 3}))


def test_hold_task_naming_only_one_missing_element(run):
    solve(run, skip=(8,))
    item(run, 8, "held", hold(run, 8, subject="MRI shoulder on hold: no radiographs"))
    assert run.score() == pytest.approx(expected({8: (1 + 0.5 + 1) / 3}))


def test_no_pa_item_without_its_reference(run):
    solve(run, skip=(5,))
    item(run, 5, "No PA required", None)
    assert run.score() == pytest.approx(expected({5: (1 + 0.5) / 2}))


def test_dme_filed_as_an_outpatient_case(run):
    solve(run, skip=(10,))
    item(run, 10, "submitted", acme(run, 10, case_type="outpatient"))
    assert run.score() == pytest.approx(expected({10: 2 / 3}))


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}])
def test_worklist_updates_of_another_channel_or_episode_do_not_count(run, write):
    for number in range(1, 11):
        item(run, number, "no_pa_required", "R-GP-1014", **write)
    report = run.grade()
    assert report.score == pytest.approx(0.15)
    assert report.channel["exclusions"][0]["table"] == "pa_worklist_items"


def test_submission_for_the_wrong_member_earns_nothing(run):
    solve(run, skip=(1,))
    item(run, 1, "submitted", acme(run, 1, member=25))   # filed under Castillo, Iris
    # case 1 keeps only the worklist outcome (its reference is no case of Abbott's);
    # Castillo's no-PA case loses "nothing submitted"
    assert run.score() == pytest.approx(expected({1: 0.5 / 3, 3: 0.5}))


@pytest.mark.parametrize("reference", [
    "beta-prior-authorization",
    "No PA per Beta-Prior-Authorization bulletin",
    "Beta Care provider bulletin: services that need prior authorization",
    "per Beta bulletin 'Services that need prior authorization' (PT evaluation)",
])
def test_case5_any_reference_identifying_the_bulletin(run, reference):
    solve(run, skip=(5,))
    item(run, 5, "No PA required", reference)
    assert run.score() == pytest.approx(1.0)


@pytest.mark.parametrize("reference", [
    "Beta Care bulletin",                                          # which one?
    "Beta Care provider bulletin: claim and authorization appeals",  # the other bulletin
    "R-GP-5002",                                                   # Acme's rule, not Beta's
])
def test_case5_a_reference_not_identifying_the_bulletin_loses_it(run, reference):
    solve(run, skip=(5,))
    item(run, 5, "No PA required", reference)
    assert run.score() == pytest.approx(expected({5: (1 + 0.5) / 2}))


def test_fax_without_a_cover_sheet_loses_its_share_of_the_documents(run):
    solve(run, skip=(9,))
    item(run, 9, "submitted", fax(run, 9, cover=False))
    # case 9: channel 1, fields (form 1, documents: cover 0 of 3 parts), worklist 1
    assert run.score() == pytest.approx(expected({9: (1 + (0.5 + 0.5 * 2 / 3) + 1) / 3}))


def test_the_form_is_the_upload_with_the_beta_forms_fields(run):
    """Another fillable PDF with more fields faxed first is not the form (the pa-07 rule)."""
    other = blank_form([f"question_{n}" for n in range(20)])
    solve(run, skip=(2,))
    item(run, 2, "submitted", fax(run, 2, before=(("questionnaire.pdf", other),)))
    assert run.score() == pytest.approx(1.0)


def test_credentials_in_a_name_are_ignored_as_in_pa07(run):
    solve(run, skip=(2,))
    item(run, 2, "submitted", fax(run, 2, form={**FORMS[2],
                                                "ordering_provider": "Kwame Osei, NP"}))
    assert run.score() == pytest.approx(1.0)
