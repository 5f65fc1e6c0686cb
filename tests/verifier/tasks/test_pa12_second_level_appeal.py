"""pa-12: second-level appeal and external review (35% second-level appeal, three parts;
35% external review form fields, twelve proportional; 15% attachments; 15% EHR log, two
parts). The level-2 appeal must link to the level-1 appeal itself; the graded external
review is one filed (not withdrawn) for Fischer, Anna."""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox.stores.acme import Appeal, Attachment
from sandbox.stores.ehr import Pnote, PriorAuthorization
from sandbox.stores.regulator import FORM_FIELDS, ExternalReview, ReviewDocument
from tests.verifier.tasks.pa_support import NOW, Run, blank_form, fill_pdf, seed_once, spec_of

SPEC = spec_of("pa-12")
APPEAL, FORM, ATTACH, LOG = 0.35, 0.35, 0.15, 0.15
FISCHER, PID = 12, 113
APPEAL_REF, REVIEW_REF = "AP26-011530", "ER-2026-004417"
FIELDS = {
    "enrollee_name": "Fischer, Anna", "enrollee_dob": dt.date(1961, 1, 29),
    "member_id": "ACM360118275", "insurer_name": "Acme Health", "plan_name": "Acme Gold PPO",
    "insurer_reference": "AP26-009815", "treating_provider_name": "Dr. Rafael Ortiz, MD",
    "treating_provider_npi": "1617283944", "service_requested": "Proton beam radiation therapy",
    "service_code": "77525", "diagnosis_code": "C50.412",
    "final_denial_date": dt.date(2026, 9, 3),
}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return seed_once(SPEC, tmp_path_factory.mktemp("pa12"))


@pytest.fixture
def run(seeded, tmp_path):
    return Run(SPEC, seeded, tmp_path / "run")


def appeal(run: Run, *, files=("dosimetry_plan.pdf", "proton_literature.pdf"),
           member: int = FISCHER, write: dict | None = None, **fields) -> None:
    """The portal's 'file a level-2 appeal' form, opened from the upheld level-1 appeal."""
    contents = {name: run.input_bytes(name) for name in files}
    with run.write("acme", actor="riverside.pa", **(write or {})) as s:
        row = Appeal(**{"reference_number": APPEAL_REF, "level": 2, "case_id": 1000,
                        "parent_appeal_id": 1000, "member_id": member,
                        "appeal_type": "pre_service", "reason_category": "medical_necessity",
                        "letter_text": "Comparative dosimetry plan attached.",
                        "status": "submitted", "filing_deadline": dt.date(2026, 11, 2),
                        "created_by": "riverside.pa", "created_at": NOW,
                        "submitted_at": NOW, **fields})
        s.add(row)
        s.flush()
        for name, data in contents.items():
            s.add(Attachment(appeal_id=row.id, filename=name, content=data,
                             document_type="dosimetry_plan", uploaded_at=NOW))


def review(run: Run, *, web: dict | None = None, pdf: dict | None = None,
           write: dict | None = None, reference: str = REVIEW_REF,
           status: str = "submitted") -> None:
    """The state portal's request: the web form's fields and/or an uploaded filled PDF."""
    with run.write("regulator", actor="dwhitfield.rfm", **(write or {})) as s:
        row = ExternalReview(reference_number=reference, user_id=1, status=status,
                             denial_type="medical_necessity", applicant_name="Dana Whitfield",
                             applicant_relationship="provider office", created_at=NOW,
                             submitted_at=NOW, **(FIELDS if web is None else web))
        s.add(row)
        s.flush()
        if pdf is not None:
            values = {k: v.isoformat() if isinstance(v, dt.date) else v for k, v in pdf.items()}
            s.add(ReviewDocument(review_id=row.id, filename="external_review_form.pdf",
                                 document_type="form", uploaded_at=NOW,
                                 content=fill_pdf(blank_form(list(FORM_FIELDS)), values)))


def log(run: Run, text: str = f"L2 appeal {APPEAL_REF}; state review {REVIEW_REF}",
        where: str = "note", **write) -> None:
    with run.write("ehr", **write) as s:
        if where == "note":
            s.add(Pnote(date=NOW, body=text, pid=PID, user="pa.coord", title="Prior Auth"))
        else:
            s.get(PriorAuthorization, 1001).notes = text


def solve(run: Run) -> None:
    appeal(run)
    review(run)
    log(run)


def test_gold_solution_scores_one(run):
    solve(run)
    assert run.fractions() == [1.0, 1.0, 1.0, 1.0]


def test_external_review_by_filled_pdf_upload_counts_alike(run):
    appeal(run)
    review(run, web={}, pdf=FIELDS)
    log(run, where="authorization")
    assert run.score() == pytest.approx(1.0)


def test_untouched_scores_zero(run):
    assert run.score() == 0.0


@pytest.mark.parametrize("change", [{"level": 1}, {"parent_appeal_id": None, "case_id": None},
                                    {"submitted_at": dt.datetime(2026, 11, 3, 9)}])
def test_each_appeal_part_is_a_third(run, change):
    appeal(run, **change)
    review(run)
    log(run)
    assert run.score() == pytest.approx(APPEAL * 2 / 3 + FORM + ATTACH + LOG)


@pytest.mark.parametrize("field, wrong", [
    ("insurer_name", "Acme Health Insurance Company of Illinois"),
    ("insurer_reference", "PA26-036402"),          # the case, not the final determination
    ("final_denial_date", dt.date(2026, 8, 7)),    # the first denial, not the final one
])
def test_each_form_field_is_a_twelfth(run, field, wrong):
    appeal(run)
    review(run, web={**FIELDS, field: wrong})
    log(run)
    assert run.score() == pytest.approx(APPEAL + FORM * 11 / 12 + ATTACH + LOG)


def test_one_attachment_missing_costs_half(run):
    appeal(run, files=("dosimetry_plan.pdf",))
    review(run)
    log(run)
    assert run.score() == pytest.approx(APPEAL + FORM + ATTACH / 2 + LOG)


def test_only_one_reference_logged(run):
    appeal(run)
    review(run)
    log(run, text=f"L2 appeal {APPEAL_REF} filed")
    assert run.score() == pytest.approx(APPEAL + FORM + ATTACH + LOG / 2)


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}])
def test_rows_of_another_channel_or_episode_do_not_count(run, write):
    appeal(run, write=write)
    review(run, write=write)
    log(run, **write)
    report = run.grade()
    assert report.score == 0.0
    assert {e["table"] for e in report.channel["exclusions"]} == {
        "appeals", "attachments", "external_reviews", "pnotes"}


def test_appeal_for_another_member_earns_nothing(run):
    appeal(run, member=13, parent_appeal_id=None, case_id=None)
    assert run.score() == 0.0


def test_an_appeal_naming_only_the_denied_case_is_not_linked(run):
    """A new appeal of case PA26-036402 without the link to AP26-009815 is not level 2's."""
    appeal(run, parent_appeal_id=None)
    review(run)
    log(run)
    assert run.score() == pytest.approx(APPEAL * 2 / 3 + FORM + ATTACH + LOG)




def test_a_review_withdrawn_and_filed_again_grades_the_filed_one(run):
    appeal(run)
    review(run, web={**FIELDS, "service_code": "77520"}, reference="ER-2026-004418")
    with run.write("regulator") as s:
        s.get(ExternalReview, 1).status = "withdrawn"
    review(run)
    log(run)
    assert run.score() == pytest.approx(1.0)


OTHER = {**FIELDS, "enrollee_name": "Fisher, Anne", "enrollee_dob": dt.date(1958, 5, 2),
         "member_id": "ACM360118257"}


@pytest.mark.parametrize("filed", [{"status": "withdrawn"}, {"web": OTHER}],
                         ids=["withdrawn", "another member's"])
def test_a_withdrawn_review_or_another_members_is_never_graded(run, filed):
    appeal(run)
    review(run, **filed)
    log(run)
    report = run.grade()
    assert report.checks[1].fraction == 0.0
    assert report.score == pytest.approx(APPEAL + ATTACH + LOG / 2)


def test_a_later_review_for_another_member_does_not_hide_fischers(run):
    appeal(run)
    review(run, web={**FIELDS, "plan_name": "Acme Silver HMO"})
    review(run, web=OTHER, reference="ER-2026-004418")
    log(run)
    assert run.score() == pytest.approx(APPEAL + FORM * 11 / 12 + ATTACH + LOG)


def test_a_mistyped_member_id_is_still_fischers_review(run):
    """Her name and date of birth say whose request it is; the member ID field is wrong."""
    appeal(run)
    review(run, web={**FIELDS, "member_id": "ACM360118257"})
    log(run)
    assert run.score() == pytest.approx(APPEAL + FORM * 11 / 12 + ATTACH + LOG)
