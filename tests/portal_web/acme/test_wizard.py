"""The request wizard's behaviour: drafts, refusals that write nothing, uploads, one
submission whatever the user does with Back, refresh or double clicks, and the one-time
confirmation page."""

from __future__ import annotations

import re

import pytest

from tests.portal_web.acme.support import feedback, form_tokens_for
from tests.portal_web.acme.test_pa19_session_timeout import ANSWERS, PROVIDERS, SERVICE, SHOWN

MEMBER = "ACM610283559"  # pa-19's member, on a pa-01 run: no forced expiry there
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


@pytest.fixture
def portal(portal_for):
    return portal_for("pa-01")


def ready_for_review(portal) -> int:  # noqa: ANN001
    case_id = portal.start_request("outpatient", MEMBER)
    portal.step(case_id, "provider", PROVIDERS)
    portal.step(case_id, "service", SERVICE)
    portal.step(case_id, "questionnaire", [*ANSWERS.items(), *SHOWN])
    portal.upload(case_id, "echo.pdf", PDF, "imaging_report")
    portal.finish_attachments(case_id)
    return case_id


def test_each_step_saves_the_draft_with_browser_channel(portal):
    mark = portal.audit_mark()
    case_id = portal.start_request("outpatient", MEMBER)
    portal.step(case_id, "provider", PROVIDERS)
    entries = portal.audit_since(mark)
    assert {(e["channel"], e["actor"], e["episode_id"]) for e in entries} == {
        ("browser", "riverside.pa", "ep-test")}
    assert portal.query("select status, wizard_step, requesting_npi from pa_cases "
                        "where id = ?", case_id) == [("draft", "service", "1673492017")]
    assert portal.query("select wizard_step from pa_drafts where case_id = ?",
                        case_id) == [("service",)]
    drafts = portal.client.get("/auth/drafts").text
    assert f"/auth/requests/{case_id}/service" in drafts and "Becker, Tom" in drafts


def test_a_refused_step_writes_nothing_and_says_why(portal):
    case_id = portal.start_request("outpatient", MEMBER)
    mark = portal.audit_mark()
    response = portal.step(case_id, "provider", {**PROVIDERS, "requesting_npi": "1673492018",
                                                 "rendering_taxonomy": "radiology"},
                           expect=200)
    messages = " ".join(feedback(response.text))
    assert "check digit does not match" in messages
    assert "10-character provider taxonomy code" in messages
    assert 'value="1673492018"' in response.text  # what was typed is kept
    assert portal.audit_since(mark) == []


def test_service_step_checks_codes_dates_and_diagnoses(portal):
    case_id = portal.start_request("outpatient", MEMBER)
    portal.step(case_id, "provider", PROVIDERS)
    response = portal.step(case_id, "service", {
        **SERVICE, "service_code": "7556", "service_from": "2026-12-24",
        "service_to": "2026-10-26", "icd10_codes": "I42.0\nI42"}, expect=200)
    messages = " ".join(feedback(response.text))
    assert "not a CPT or HCPCS code" in messages
    assert "cannot be before the start date" in messages
    assert "I42 is a category, not a billable code" in messages


def test_save_draft_and_exit_keeps_partial_work(portal):
    case_id = portal.start_request("outpatient", MEMBER)
    response = portal.step(case_id, "provider", {"requesting_npi": "1673492017"},
                           action="save_exit")
    assert response.headers["location"] == "/auth/drafts"
    assert portal.query("select requesting_npi, requesting_name, wizard_step from pa_cases "
                        "where id = ?", case_id) == [("1673492017", None, "provider")]


def test_find_fills_provider_from_the_directory_without_saving(portal):
    case_id = portal.start_request("outpatient", MEMBER)
    mark = portal.audit_mark()
    response = portal.step(case_id, "provider", {"requesting_npi": "1673492017"},
                           action="find_requesting", expect=200)
    assert 'value="207RC0000X"' in response.text and 'value="Dr. Test Cardio"' in response.text
    assert portal.audit_since(mark) == []


@pytest.mark.parametrize("name,content,document_type,message", [
    ("virus.exe", b"MZ\x90\x00", "clinical_note", "is not a PDF, PNG or JPEG"),
    ("empty.pdf", b"", "clinical_note", "is empty"),
    ("big.pdf", b"%PDF-" + b"0" * (10 * 1024 * 1024 + 1), "clinical_note", "the limit is 10 MB"),
    ("note.pdf", PDF, "", "Choose the document type"),
])
def test_bad_uploads_are_refused_and_store_nothing(portal, name, content, document_type,
                                                   message):
    case_id = portal.start_request("outpatient", MEMBER)
    response = portal.upload(case_id, name, content, document_type, expect=200)
    assert message in response.text
    assert portal.count("attachments") == 0


def test_upload_is_stored_byte_exact_and_can_be_removed(portal):
    import hashlib

    case_id = portal.start_request("outpatient", MEMBER)
    portal.upload(case_id, "C:\\fakepath\\echo report.pdf", PDF, "imaging_report", "Echo")
    assert portal.query("select filename, sha256, size_bytes, content_type, document_type "
                        "from attachments") == [
        ("echo report.pdf", hashlib.sha256(PDF).hexdigest(), len(PDF), "application/pdf",
         "imaging_report")]
    page = portal.client.get(f"/auth/requests/{case_id}/attachments").text
    attachment_id = portal.query("select id from attachments")[0][0]
    action = f"/auth/requests/{case_id}/attachments/{attachment_id}/remove"
    assert portal.post_with(page, action, {}).status_code == 303
    assert portal.count("attachments") == 0


def test_review_lists_what_is_missing_and_refuses_to_submit(portal):
    case_id = portal.start_request("outpatient", MEMBER)
    portal.step(case_id, "provider", PROVIDERS)
    review = portal.client.get(f"/auth/requests/{case_id}/review").text
    assert "Complete these before submitting" in review
    portal.submit_request(case_id, expect=200)
    assert portal.query("select status, reference_number from pa_cases where id = ?",
                        case_id) == [("draft", None)]


def test_submit_once_whatever_the_user_does(portal):
    case_id = ready_for_review(portal)
    review = portal.client.get(f"/auth/requests/{case_id}/review").text
    action = f"/auth/requests/{case_id}/submit"
    data = {**form_tokens_for(review, action), "attest": "1"}
    first = portal.client.post(action, data=data, follow_redirects=False)
    double = portal.client.post(action, data=data, follow_redirects=False)  # double click
    assert first.status_code == double.status_code == 303
    assert double.headers["location"] == first.headers["location"]
    # Back to the review page, then submit its (stale) form again
    back = portal.client.get(f"/auth/requests/{case_id}/review", follow_redirects=False)
    assert back.status_code == 303 and back.headers["location"] == f"/auth/cases/{case_id}"
    again = portal.client.post(action, data={**form_tokens_for(review, action), "attest": "1"},
                               follow_redirects=False)
    assert again.status_code == 303
    assert portal.count("pa_cases", "member_id = 16") == 1
    assert portal.query("select status, revision, submitted_via from pa_cases where id = ?",
                        case_id) == [("in_review", 0, "portal")]


def test_confirmation_page_is_shown_once(portal):
    case_id = ready_for_review(portal)
    reference = portal.submit_request(case_id)
    assert re.fullmatch(r"PA26-\d{6}", reference)
    again = portal.client.get(f"/auth/requests/{case_id}/confirmation", follow_redirects=True)
    assert 'id="tracking-reference"' not in again.text
    assert "can only be viewed once" in again.text and reference in again.text
    assert reference in portal.client.get("/auth/cases").text


def test_references_follow_the_seeded_numbers(portal):
    first = portal.submit_request(ready_for_review(portal))
    portal_second = ready_for_review(portal)
    second = portal.submit_request(portal_second, acknowledge_similar=True)
    assert int(second[5:]) == int(first[5:]) + 1


def test_delete_draft_removes_everything_saved_with_it(portal):
    case_id = portal.start_request("outpatient", MEMBER)
    portal.step(case_id, "provider", PROVIDERS)
    portal.step(case_id, "service", SERVICE)
    portal.step(case_id, "questionnaire", [*ANSWERS.items(), *SHOWN])
    portal.upload(case_id, "echo.pdf", PDF, "imaging_report")
    drafts = portal.client.get("/auth/drafts").text
    assert portal.post_with(drafts, f"/auth/requests/{case_id}/delete", {}).status_code == 303
    for table in ("pa_cases", "pa_answers", "attachments", "pa_drafts"):
        assert portal.count(table) == 0, table
    assert portal.client.get(f"/auth/requests/{case_id}/provider").status_code == 404


def test_billing_office_cannot_open_authorizations(portal_for):
    billing = portal_for("pa-01", user="riverside.billing")
    for url in ("/auth/requests/new", "/auth/cases", "/auth/lookup", "/auth/drafts"):
        response = billing.client.get(url)
        assert response.status_code == 403
        assert "does not have access to Authorizations &amp; Referrals" in response.text


def test_a_large_file_gets_a_message_not_an_error_page(portal):
    case_id = portal.start_request("outpatient", MEMBER)
    response = portal.upload(case_id, "scan.pdf", b"%PDF-" + b"0" * (33 * 1024 * 1024),
                             "clinical_note", expect=200)
    assert "scan.pdf is 33.0 MB; the limit is 10 MB per file" in response.text
    assert portal.count("attachments") == 0
