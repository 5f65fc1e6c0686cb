"""Appeals through the portal's forms, graded with pa-03's verifier: the gold first-level
appeal scores 1.0, and the mistakes the portal lets through cost what the seed says."""

from __future__ import annotations

import pytest

from tests.portal_web.acme.post_tasks import ehr_document, post_form, task_run
from tests.portal_web.acme.steps import (
    appeal_details,
    attach,
    file_appeal,
    start_appeal,
    submit_appeal,
)
from tests.portal_web.acme.support import feedback

LINK, ATTACH, FACTS, ARGUMENT = 0.15, 0.25, 0.35, 0.25
BROOKS_PID = 103
LETTER = """Re: Lena Brooks (DOB 04/12/1969), member ACM517200846, authorization PA26-040215,
attended in-lab polysomnography (CPT 95810).

We appeal the denial for insufficient documentation of OSA symptoms. The attached records
document her symptoms of obstructive sleep apnea:
- Epworth Sleepiness Scale score 14 (sleep medicine consultation, Dr. Lisa Brandt,
  2026-09-18, attached).
- BMI 36.8 (primary-care visit note of 2026-09-02, attached).
- Witnessed apneas: her bed partner reports pauses in breathing most nights (attached
  questionnaire).
- Comorbidities: hypertension and type 2 diabetes.
Please approve the in-lab study.
Lisa Brandt, MD, Sleep Medicine"""
START = "/appeals/new/case/1000"


@pytest.fixture
def pa03(seeds):
    return task_run(seeds, "pa-03")


def gold_documents(run) -> list[tuple[str, bytes, str]]:  # noqa: ANN001
    """The three chart documents, downloaded from the EHR as the agent would."""
    ehr = run.ehr()
    return [(*ehr_document(ehr, BROOKS_PID, doc), "clinical_note")
            for doc in (1001, 1002, 1003)]


def test_gold_first_level_appeal_scores_one(pa03):
    documents = gold_documents(pa03)
    portal = pa03.portal()
    appeal_id, reference = file_appeal(
        portal, START, appeal_details(LETTER, "Approve CPT 95810 as requested."), documents)
    assert reference.startswith("AP26-")
    rows = portal.query("select level, case_id, status, appeal_type, filing_deadline, "
                        "created_by from appeals where id = ?", appeal_id)
    assert rows == [(1, 1000, "submitted", "pre_service", "2027-04-07", "riverside.pa")]
    stored = portal.query("select filename, sha256, size_bytes from attachments "
                          "where appeal_id = ? order by id", appeal_id)
    assert [len(s) for _, s, _ in stored] == [64, 64, 64]
    report = pa03.grade()
    assert [c.fraction for c in report.checks] == [1.0, 1.0, 1.0, 1.0]


def test_deadline_from_the_policy_is_on_every_step(pa03):
    portal = pa03.portal()
    page = portal.client.get(START)
    assert "04/07/2027" in page.text and "180 calendar days" in page.text
    appeal_id = start_appeal(portal, START, appeal_details(LETTER, "Approve CPT 95810."))
    for step in ("documents", "review"):
        assert "04/07/2027" in portal.client.get(f"/appeals/{appeal_id}/{step}").text


def test_a_draft_is_not_an_appeal(pa03):
    portal = pa03.portal()
    start_appeal(portal, START, appeal_details(LETTER, "Approve CPT 95810."))
    assert pa03.score() == 0.0


def test_refused_step_one_writes_nothing_and_says_why(pa03):
    portal = pa03.portal()
    mark = portal.audit_mark()
    response = post_form(portal.client, START, START, {
        "reason_category": "", "letter_text": "Too short.", "requested_outcome": "",
        "contact_name": "Dana Whitfield", "contact_phone": "555-1234"})
    assert response.status_code == 200
    messages = feedback(response.text)
    assert "Choose a reason for the appeal." in messages
    assert any("10 words or more" in m for m in messages)
    assert any("not a US phone number" in m for m in messages)
    assert portal.audit_since(mark) == []


def test_submit_needs_the_attestation(pa03):
    portal = pa03.portal()
    appeal_id = start_appeal(portal, START, appeal_details(LETTER, "Approve CPT 95810."))
    mark = portal.audit_mark()
    response = post_form(portal.client, f"/appeals/{appeal_id}/review",
                         f"/appeals/{appeal_id}/submit", {})
    assert response.status_code == 200
    assert "Confirm the attestation to submit the appeal." in feedback(response.text)
    assert portal.audit_since(mark) == []


def test_upload_keeps_the_bytes_and_refuses_other_files(pa03):
    portal = pa03.portal()
    appeal_id = start_appeal(portal, START, appeal_details(LETTER, "Approve CPT 95810."))
    content = b"%PDF-1.4\n" + bytes(range(256)) * 40
    assert attach(portal, appeal_id, "consult.pdf", content).status_code == 303
    (sha,) = portal.query("select sha256 from attachments where appeal_id = ?", appeal_id)[0]
    import hashlib

    assert sha == hashlib.sha256(content).hexdigest()
    mark = portal.audit_mark()
    response = attach(portal, appeal_id, "notes.txt", b"plain text")
    assert response.status_code == 200
    assert any("not a PDF, PNG or JPEG" in m for m in feedback(response.text))
    assert portal.audit_since(mark) == []


def test_double_submit_files_one_appeal(pa03):
    portal = pa03.portal()
    appeal_id = start_appeal(portal, START, appeal_details(LETTER, "Approve CPT 95810."))
    page = portal.client.get(f"/appeals/{appeal_id}/review").text
    from tests.portal_web.support import form_tokens_for

    body = {**form_tokens_for(page, f"/appeals/{appeal_id}/submit"), "attest": "1"}
    first = portal.client.post(f"/appeals/{appeal_id}/submit", data=body,
                               follow_redirects=False)
    again = portal.client.post(f"/appeals/{appeal_id}/submit", data=body,
                               follow_redirects=False)
    assert first.status_code == again.status_code == 303
    assert first.headers["location"] == again.headers["location"]
    assert portal.count("appeals", "status = 'submitted'") == 1


def test_duplicate_appeal_needs_acknowledging_and_the_latest_is_graded(pa03):
    """pa-03 grades the member's latest appeal: a second appeal without the documents,
    filed after the gold one, loses the attachments (the mistake stays possible)."""
    documents = gold_documents(pa03)
    portal = pa03.portal()
    file_appeal(portal, START, appeal_details(LETTER, "Approve CPT 95810."), documents)
    second = start_appeal(portal, START, appeal_details(LETTER, "Approve CPT 95810."))
    review = portal.client.get(f"/appeals/{second}/review").text
    assert 'id="duplicate-warning"' in review
    mark = portal.audit_mark()
    refused = submit_appeal(portal, second)
    assert refused.status_code == 200 and portal.audit_since(mark) == []
    assert submit_appeal(portal, second, acknowledge=True).status_code == 303
    assert pa03.score() == pytest.approx(LINK + FACTS + ARGUMENT)


def test_only_denied_decisions_can_be_appealed(seeds):
    run = task_run(seeds, "pa-12")
    portal = run.portal()
    page = portal.client.get("/appeals/1000/level2")
    assert page.status_code == 200 and "Second-level appeal" in page.text
    # a level-2 appeal of a level-2 appeal, or of an appeal still in review, is refused
    appeal_id, _ = file_appeal(portal, "/appeals/1000/level2", appeal_details(
        "We ask Acme to reverse the upheld denial of proton therapy for Ms. Fischer, "
        "based on the new comparative dosimetry plan.", "Approve CPT 77525."))
    refused = portal.client.get(f"/appeals/{appeal_id}/level2")
    assert 'id="not-appealable"' in refused.text


def test_the_case_pages_appeal_and_peer_to_peer_buttons_lead_here(pa03):
    portal = pa03.portal()
    case = portal.client.get("/auth/cases/1000").text
    assert "/appeals/new?case=1000" in case and "/p2p/new?case=1000" in case
    appeal = portal.client.get("/appeals/new?case=1000", follow_redirects=False)
    assert appeal.headers["location"] == "/appeals/new/case/1000"
    p2p = portal.client.get("/p2p/new?case=1000", follow_redirects=False)
    assert p2p.headers["location"] == "/p2p/case/1000"


STALE_LETTER = """Re: Lena Brooks, member ACM517200846, authorization PA26-040215 (CPT 95810).

We appeal the denial for insufficient documentation of OSA symptoms. Her Epworth score is 8
and her BMI is 35.6 (annual visit), her bed partner has witnessed apneas, and she has
hypertension and type 2 diabetes, as the attached sleep medicine consultation documents.
Please approve the in-lab study."""


def test_the_2025_values_cost_their_facts_and_the_argument(pa03):
    """Epworth 8 and BMI 35.6 are the 2025 annual visit's: neither fact is found, and the
    judge gives the argument nothing for presenting stale values as current."""
    portal = pa03.portal()
    file_appeal(portal, START, appeal_details(STALE_LETTER, "Approve CPT 95810."),
                gold_documents(pa03))
    assert pa03.fractions() == [1.0, 1.0, 0.5, 0.0]
    assert pa03.score() == pytest.approx(LINK + ATTACH + FACTS / 2)


def test_the_denial_letter_is_not_evidence(pa03):
    """Attaching Acme's own denial letter (EHR document 1004) instead of the chart's notes
    earns no attachment credit."""
    denial = ehr_document(pa03.ehr(), BROOKS_PID, 1004)
    portal = pa03.portal()
    file_appeal(portal, START, appeal_details(LETTER, "Approve CPT 95810."),
                [(*denial, "other")])
    assert pa03.fractions() == [1.0, 0.0, 1.0, 1.0]


def test_one_note_of_three_earns_a_third_of_the_attachments(pa03):
    portal = pa03.portal()
    file_appeal(portal, START, appeal_details(LETTER, "Approve CPT 95810."),
                gold_documents(pa03)[1:2])
    assert pa03.fractions() == pytest.approx([1.0, 1 / 3, 1.0, 1.0])
