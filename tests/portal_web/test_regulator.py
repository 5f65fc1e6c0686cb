"""The state's external review portal: the request form, validation, documents, the
fillable PDF form (download, fill, upload), reference numbers and duplicate protection."""

from __future__ import annotations

import io
import re

import pytest
from pypdf import PdfReader

from portal_web.regulator.requestform import filing_deadline
from sandbox.stores.regulator import FORM_FIELDS
from tests.portal_web.fax_regulator_support import (  # noqa: F401 - payer_seeds is a fixture
    EPISODE,
    feedback,
    form_tokens,
    payer_seeds,
    regulator_client,
)
from tests.verifier.tasks.pa_support import fill_pdf

GOLD = {
    "enrollee_name": "Fischer, Anna", "enrollee_dob": "1961-01-29",
    "member_id": "ACM360118275", "insurer_name": "Acme Health", "plan_name": "Acme Gold PPO",
    "insurer_reference": "AP26-009815", "treating_provider_name": "Rafael Ortiz, MD",
    "treating_provider_npi": "1617283944", "service_requested": "Proton beam therapy",
    "service_code": "77525", "diagnosis_code": "C50.412", "final_denial_date": "2026-09-03",
}
REST = {
    "applicant_type": "provider", "applicant_name": "Dana Whitfield",
    "applicant_relationship": "Treating physician's office", "applicant_phone": "217-555-0100",
    "patient_is_enrollee": "1", "plan_type": "group_insured", "denial_type": "medical_necessity",
    "reason_for_request": "Protons cut the mean heart dose from 5.1 Gy to 0.8 Gy.",
    "release_authorized": "1", "attest_true": "1", "signature_name": "Dana Whitfield",
}
PDF = "application/pdf"


@pytest.fixture
def portal(payer_seeds):  # noqa: F811
    return regulator_client(payer_seeds.run("pa-12"), EPISODE)


def submit(portal, data: dict, files=None, page: str = "/requests/new"):  # noqa: ANN001, ANN201
    return portal.post_form(page, "request-form", data, files=files)


def reviews(portal) -> list[tuple]:  # noqa: ANN001
    return portal.query("select id, status, reference_number, insurer_name, member_id "
                        "from external_reviews order by id")


def test_a_complete_request_gets_a_reference_and_a_status_page(portal):
    response = submit(portal, {**GOLD, **REST, "action": "submit"})
    assert response.status_code == 303 and response.headers["location"] == \
        "/requests/1?submitted=1"
    assert reviews(portal) == [(1, "submitted", "ER-2026-004401", "Acme Health",
                                "ACM360118275")]
    row = portal.query("select enrollee_dob, final_denial_date, treating_provider_npi, "
                       "service_code, diagnosis_code, signature_date, submitted_at "
                       "from external_reviews")[0]
    assert row[:6] == ("1961-01-29", "2026-09-03", "1617283944", "77525", "C50.412",
                       "2026-10-19")
    page = portal.client.get(response.headers["location"]).text
    assert 'id="reference-number">ER-2026-004401<' in page
    assert "Filed within the filing window (last day 01/03/2027)" in page
    assert "preliminary review by 10/26/2026" in page
    assert "ER-2026-004401" in portal.client.get("/").text


def test_a_received_request_can_be_withdrawn_after_a_confirmation_page(portal):
    location = submit(portal, {**GOLD, **REST, "action": "submit"}).headers["location"]
    page = portal.client.get(location).text
    assert 'href="/requests/1/withdraw" id="withdraw-link"' in page
    confirm = portal.client.get("/requests/1/withdraw").text
    assert "Withdraw request <span class=\"mono\">ER-2026-004401</span>?" in confirm
    assert "must still be filed by 01/03/2027" in confirm and 'id="keep-button"' in confirm
    assert reviews(portal)[0][1] == "submitted"  # looking is not withdrawing
    done = portal.post_form("/requests/1/withdraw", "withdraw-form", {})
    assert done.status_code == 303 and done.headers["location"] == "/requests/1"
    assert reviews(portal)[0][1] == "withdrawn"
    page = portal.client.get("/requests/1").text
    assert "Request ER-2026-004401 was withdrawn." in page and 'id="withdrawn-notice"' in page
    assert 'id="withdraw-link"' not in page
    again = portal.client.get("/requests/1/withdraw", follow_redirects=False)
    assert again.status_code == 303 and again.headers["location"] == "/requests/1"
    assert portal.client.get("/requests/99/withdraw").status_code == 404


def test_the_filing_window_is_four_months_from_the_final_denial():
    import datetime as dt

    assert filing_deadline(dt.date(2026, 9, 3)) == dt.date(2027, 1, 3)
    assert filing_deadline(dt.date(2026, 10, 31)) == dt.date(2027, 2, 28)


def test_the_form_shows_the_deadline_of_a_saved_denial_date(portal):
    response = submit(portal, {"final_denial_date": "2026-09-03", "action": "save"})
    page = portal.client.get(response.headers["location"]).text
    assert re.search(r'id="deadline">2027-01-03<', page)
    assert "Draft saved." in page


def test_a_late_request_is_accepted_with_a_warning(portal):
    response = submit(portal, {**GOLD, **REST, "final_denial_date": "2026-05-20",
                               "action": "submit"})
    page = portal.client.get(response.headers["location"]).text
    assert 'id="late-notice"' in page and "ended on 09/20/2026" in page
    assert reviews(portal)[0][1] == "submitted"


@pytest.mark.parametrize(("change", "field", "message"), [
    ({"member_id": ""}, "member_id", "Member ID is required."),
    ({"insurer_name": "Acme"}, "insurer_name", "not one of the offered choices"),
    ({"treating_provider_npi": "1617283945"}, "treating_provider_npi", "not a valid NPI"),
    ({"diagnosis_code": "C50.99"}, "diagnosis_code", "not a valid ICD-10-CM code"),
    ({"diagnosis_code": "C50"}, "diagnosis_code", "a category, not a billable code"),
    ({"final_denial_date": "2026-11-01"}, "final_denial_date", "cannot be after 2026-10-19"),
    ({"enrollee_dob": "29/01/1961"}, "enrollee_dob", "YYYY-MM-DD"),
    ({"service_code": "7752"}, "service_code", "five characters"),
    ({"applicant_phone": "555-0100"}, "applicant_phone", "10-digit US phone number"),
    ({"signature_name": "Anna Fischer"}, "signature_name", "must match 'Dana Whitfield'"),
    ({"release_authorized": ""}, "release_authorized", "release of medical records"),
    ({"applicant_relationship": ""}, "applicant_relationship", "how you are related"),
    ({"expedited": "1"}, "expedited_certified", "physician's certification"),
    ({"patient_is_enrollee": ""}, "patient_name", "enter the patient's name"),
])
def test_every_answer_is_checked_and_a_refused_request_writes_nothing(portal, change, field,
                                                                      message):
    mark = portal.audit_mark()
    response = submit(portal, {**GOLD, **REST, **change, "action": "submit"})
    assert response.status_code == 200
    messages = feedback(response.text)
    assert any(message in m for m in messages), messages
    assert f'id="{field}-error"' in response.text
    assert "Your request was not filed." in response.text
    assert portal.audit_since(mark) == []


def test_us_style_dates_are_read_as_dates(portal):
    submit(portal, {**GOLD, **REST, "enrollee_dob": "01/29/1961",
                    "final_denial_date": "9/3/2026", "action": "submit"})
    assert portal.query("select enrollee_dob, final_denial_date from external_reviews") == [
        ("1961-01-29", "2026-09-03")]


def test_the_decoy_insurer_is_a_choice_like_any_other(portal):
    page = portal.client.get("/requests/new").text
    assert ">Acme Health (NAIC 60418)<" in page
    assert ">Acme Health Insurance Company of Illinois (NAIC 60419)<" in page
    submit(portal, {**GOLD, **REST, "insurer_name": "Acme Health Insurance Company of "
                    "Illinois", "action": "submit"})
    assert reviews(portal)[0][3] == "Acme Health Insurance Company of Illinois"


def test_documents_are_attached_byte_exact_and_can_be_removed(portal):
    letter = (portal.run_dir / "input" / "dosimetry_plan.pdf").read_bytes()
    response = submit(portal, {"document_type": "medical_records", "action": "attach"},
                      files=[("documents", ("dosimetry_plan.pdf", letter, PDF))])
    assert response.headers["location"] == "/requests/1/edit"
    assert portal.query("select filename, document_type, content from review_documents") \
        == [("dosimetry_plan.pdf", "medical_records", letter)]
    response = submit(portal, {"action": "remove:1"}, page="/requests/1/edit")
    assert portal.query("select count(*) from review_documents") == [(0,)]


def test_a_document_needs_its_type_and_a_readable_file(portal):
    response = submit(portal, {"action": "attach"},
                      files=[("documents", ("letter.docx", b"PK\x03\x04", PDF))])
    assert any("not a PDF, PNG, JPEG or TIFF" in m for m in feedback(response.text))
    response = submit(portal, {"action": "attach"}, files=[
        ("documents", ("a.pdf", (portal.run_dir / "input" / "dosimetry_plan.pdf")
                       .read_bytes(), PDF))])
    assert "Choose a type of document." in feedback(response.text)
    assert reviews(portal) == []


def test_double_submit_files_one_request(portal):
    page = portal.client.get("/requests/new").text
    data = {**form_tokens(page, "request-form"), **GOLD, **REST, "action": "submit"}
    first = portal.client.post("/requests/new", data=data, follow_redirects=False)
    again = portal.client.post("/requests/new", data=data, follow_redirects=False)
    assert first.headers["location"] == again.headers["location"]
    assert len(reviews(portal)) == 1
    assert portal.client.get("/requests/1/edit", follow_redirects=False).headers[
        "location"] == "/requests/1"


def test_the_downloadable_form_is_fillable_with_the_portals_field_names(portal):
    response = portal.client.get("/forms/external-review-request-form.pdf")
    assert response.headers["content-type"] == "application/pdf"
    assert "attachment" in response.headers["content-disposition"]
    fields = PdfReader(io.BytesIO(response.content)).get_fields()
    assert set(FORM_FIELDS) <= set(fields)
    assert {"applicant_type", "release_authorized", "signature_name"} <= set(fields)
    assert response.content == portal.client.get(
        "/forms/external-review-request-form.pdf").content


def _filled_form(portal, values: dict) -> bytes:  # noqa: ANN001
    blank = portal.client.get("/forms/external-review-request-form.pdf").content
    return fill_pdf(blank, values)


def test_an_uploaded_filled_form_becomes_a_draft_to_check_and_submit(portal):
    form = _filled_form(portal, {**GOLD, "applicant_name": "Dana Whitfield",
                                 "insurer_name": "acme health", "enrollee_dob": "01/29/1961"})
    response = portal.post_form("/requests/import", "import-form", {},
                                files=[("documents", ("er_form.pdf", form, PDF))])
    assert response.headers["location"] == "/requests/1/edit"
    page = portal.client.get("/requests/1/edit").text
    assert "Your form was read: 13 answers filled in below." in page
    row = portal.query(f"select {', '.join(FORM_FIELDS)} from external_reviews")[0]
    assert row == ("Fischer, Anna", "1961-01-29", "ACM360118275", "Acme Health",
                   "Acme Gold PPO", "AP26-009815", "Rafael Ortiz, MD", "1617283944",
                   "Proton beam therapy", "77525", "C50.412", "2026-09-03")
    assert portal.query("select document_type, content from review_documents") == [
        ("form", form)]
    rest = {k: v for k, v in REST.items() if k != "applicant_name"}
    response = submit(portal, {**GOLD, "applicant_name": "Dana Whitfield", **rest,
                               "action": "submit"}, page="/requests/1/edit")
    assert reviews(portal)[0][1:3] == ("submitted", "ER-2026-004401")


def test_attaching_a_filled_form_fills_only_the_empty_answers(portal):
    form = _filled_form(portal, {**GOLD, "member_id": "ACM999999999"})
    response = submit(portal, {"member_id": "ACM360118275", "document_type": "form",
                               "action": "attach"},
                      files=[("documents", ("er_form.pdf", form, PDF))])
    page = portal.client.get(response.headers["location"]).text
    assert "answers filled from er_form.pdf" in page
    assert portal.query("select member_id, enrollee_name from external_reviews") == [
        ("ACM360118275", "Fischer, Anna")]


def test_an_upload_that_is_not_the_form_is_refused(portal):
    other = (portal.run_dir / "input" / "dosimetry_plan.pdf").read_bytes()
    response = portal.post_form("/requests/import", "import-form", {},
                                files=[("documents", ("plan.pdf", other, PDF))])
    assert response.status_code == 200
    assert any("is not the Department's request form" in m for m in feedback(response.text))
    assert reviews(portal) == []


def test_log_in_is_required_and_other_pages_are_not_found(payer_seeds):  # noqa: F811
    portal = regulator_client(payer_seeds.run("pa-12"), EPISODE, login=False)
    assert portal.client.get("/requests/new", follow_redirects=False).headers[
        "location"].startswith("/login")
    portal.login("dwhitfield.rfm", "StateReview#2026")
    assert portal.client.get("/requests/77").status_code == 404
    assert portal.client.get("/requests/77/documents/1").status_code == 404
