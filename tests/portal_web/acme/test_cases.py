"""Case list and case page, decisions arriving later, letters, documents added to a case,
eligibility search with look-alikes, policy pages and the code search."""

from __future__ import annotations

import datetime as dt
import io
import json

from tests.portal_web.acme.test_wizard import PDF, ready_for_review
from tests.portal_web.support import tokens


def advance(run_dir, **delta) -> None:  # noqa: ANN001, ANN003
    from sandbox.clock import SandboxClock

    path = run_dir / "clock.json"
    clock = SandboxClock.from_json(json.loads(path.read_text()))
    clock.advance(dt.timedelta(**delta))
    clock.save(path)


def test_case_list_filters_and_sorts(portal_for):
    portal = portal_for("pa-02")
    page = portal.client.get("/auth/cases?status=approved").text
    assert "PA26-041187" in page and "PA26-041352" not in page
    assert "A260418832" in page  # the authorization number beside the tracking reference
    by_member = portal.client.get("/auth/cases?sort=member&dir=asc").text
    assert by_member.index("Garner") < by_member.index("Vance")
    search = portal.client.get("/auth/cases?q=Quinn").text
    assert "PA26-041690" in search and "PA26-041187" not in search


def test_case_page_shows_requested_and_approved(portal_for):
    portal = portal_for("pa-02")
    page = portal.client.get("/auth/cases/1005").text
    assert "12/31/2026" in page and 'id="approved-to">11/15/2026<' in page
    denied = portal.client.get("/auth/cases/1002").text
    assert "MN-201" in denied and "Appeal this decision" in denied
    assert "/appeals/new?case=1002" in denied and "/p2p/new?case=1002" in denied
    pended = portal.client.get("/auth/cases/1003").text
    assert "plan of care signed by the referring physician" in pended
    used = portal.client.get("/auth/cases/1000").text
    assert "0 remaining" in used  # 12 approved, 12 used


def test_decision_letter_is_a_pdf_and_the_same_each_time(portal_for):
    from pypdf import PdfReader

    portal = portal_for("pa-02")
    first = portal.client.get("/auth/cases/1002/letter.pdf")
    second = portal.client.get("/auth/cases/1002/letter.pdf")
    assert first.headers["content-type"] == "application/pdf"
    assert first.content == second.content
    text = PdfReader(io.BytesIO(first.content)).pages[0].extract_text()
    assert "Notice of Adverse Determination" in text and "PA26-041352" in text
    assert "180" in text  # the appeal deadline from the policy page
    assert portal.client.get("/auth/cases/9999/letter.pdf").status_code == 404


def test_documents_can_be_added_to_a_pended_case(portal_for):
    portal = portal_for("pa-02")
    page = portal.client.get("/auth/cases/1003").text
    response = portal.post_with(page, "/auth/cases/1003/documents",
                                {"document_type": "plan_of_care", "description": "Signed POC"},
                                files={"file": ("poc.pdf", PDF, "application/pdf")})
    assert response.status_code == 303
    assert portal.query("select case_id, filename, document_type from attachments "
                        "where case_id = 1003") == [(1003, "poc.pdf", "plan_of_care")]
    assert "poc.pdf" in portal.client.get("/auth/cases/1003").text


def test_a_decision_arrives_later_without_changing_the_stored_case(portal_for):
    portal = portal_for("pa-01")
    case_id = ready_for_review(portal)
    reference = portal.submit_request(case_id)
    assert "In review" in portal.client.get(f"/auth/cases/{case_id}").text
    advance(portal.run_dir, hours=49)
    portal.login()  # the idle time-out ended the session meanwhile
    page = portal.client.get(f"/auth/cases/{case_id}").text
    assert 'id="decision-status">Approved<' in page
    assert "Request extension" in page
    home = portal.client.get("/home").text
    assert f"Approved: {reference}" in home
    assert portal.query("select status, auth_number, decision_at from pa_cases where id = ?",
                        case_id) == [("in_review", None, None)]


def test_an_undecided_request_can_be_cancelled_and_a_decided_one_cannot(portal_for):
    portal = portal_for("pa-01")
    case_id = ready_for_review(portal)
    reference = portal.submit_request(case_id)
    page = portal.client.get(f"/auth/cases/{case_id}").text
    assert 'id="cancel-request"' in page and f"Cancel request {reference}" in page
    done = portal.post_with(page, f"/auth/cases/{case_id}/cancel", {})
    assert done.status_code == 303 and done.headers["location"] == f"/auth/cases/{case_id}"
    page = portal.client.get(f"/auth/cases/{case_id}").text
    assert "was cancelled. Acme will not review it." in page
    assert 'id="decision-status">Cancelled<' in page and 'id="cancel-request"' not in page
    advance(portal.run_dir, hours=49)  # the decision that was due does not come
    portal.login()
    page = portal.client.get(f"/auth/cases/{case_id}").text
    assert 'id="decision-status">Cancelled<' in page and "Request extension" not in page
    assert portal.query("select status from pa_cases where id = ?", case_id) == [("cancelled",)]
    again = portal.client.post(f"/auth/cases/{case_id}/cancel", data=tokens(page),
                               follow_redirects=False)  # a cancel posted from a stale page
    assert again.status_code == 409


def test_a_decided_request_has_no_cancel(portal_for):
    portal = portal_for("pa-02")
    denied = portal.client.get("/auth/cases/1002").text  # denied: appealed, not cancelled
    assert 'id="cancel-request"' not in denied
    refused = portal.client.post("/auth/cases/1002/cancel", data=tokens(denied),
                                 follow_redirects=False)
    assert refused.status_code == 409 and "only a request Acme has not decided" in refused.text
    assert portal.query("select status from pa_cases where id = 1002") == [("denied",)]


def test_eligibility_shows_lookalikes_apart(portal_for):
    portal = portal_for("pa-11")
    page = portal.client.get("/eligibility?last_name=Diaz&dob=1954-05-17").text
    assert "ACM892003416" in page and "ACM892003461" in page
    assert "Diaz, Marco</b>" in page and "Diaz, Marcos</b>" in page
    bad = portal.client.get("/eligibility?member_id=12345").text
    assert "ACM followed by 9 digits" in bad
    none = portal.client.get("/eligibility?member_id=ACM000000000").text
    assert "No Acme member matches" in none


def test_policy_page_is_rendered_from_the_policies_table(portal_for):
    portal = portal_for("pa-01")
    page = portal.client.get("/resources/inpatient-notification").text
    assert "<strong>within 2 business days of the admission</strong>" in page
    assert "Time limit:</b> 2 business days" in page
    assert portal.client.get("/resources/no-such-policy").status_code == 404


def test_code_search(portal_for):
    portal = portal_for("pa-01")
    rows = portal.client.get("/auth/codes/icd10?q=M51.16").json()
    assert rows[0] == {"code": "M51.16", "description":
                       "Intervertebral disc disorders with radiculopathy, lumbar region"}
    assert portal.client.get("/auth/codes/icd10?q=ab").json() == []
    procedures = portal.client.get("/auth/codes/procedures?q=arthroscopy").json()
    assert {"code": "29881", "description": "Knee arthroscopy with meniscectomy"} in procedures
