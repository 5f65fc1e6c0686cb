"""The DME portal through its HTTP forms, graded with pa-04's verifier: in the complete-docs
twin the gold order scores 1.0; in the default fixture a draft plus the EHR task is the gold
hold, and submitting without the home assessment (the form lets you) scores what the seed
says. Also: the one log-in across both portals, and refused forms writing nothing."""

from __future__ import annotations

import html
import re
from urllib.parse import urlencode

import pytest
from starlette.testclient import TestClient

from tests.portal_web.acme.post_tasks import (
    DME_HOST,
    TaskRun,
    ehr_document,
    location_id,
    post_form,
    task_run,
)
from tests.portal_web.acme.support import feedback

CHECKED, DECISION, FIELDS = 0.30, 0.40, 0.30
KIM = 4  # Acme members.id
KIM_PID = 104
AMES_USER = "26"
ORDER = {
    "order_date": "10/13/2026", "ordering_name": "Caroline Ames, MD",
    "ordering_npi": "1728394051", "hcpcs": "K0823", "modifier": "NU", "quantity": "1",
    "length_of_need": "99", "product_description": (
        "Group 2 standard power wheelchair, captain's chair seat 18 x 18 in, swing-away "
        "joystick, elevating leg rests, seat belt."),
    "icd10_primary": "I69.351", "f2f_exam_date": "09/29/2026",
    "f2f_provider_npi": "1728394051", "supplier_npi": "1309485724",
    "mobility_assessment_date": "10/06/2026", "home_assessment_date": "10/09/2026",
    "height_in": "70", "weight_lb": "182", "mn_mobility_limits_adls": "yes",
    "mn_cane_walker_sufficient": "no", "mn_manual_wheelchair_sufficient": "no",
    "mn_scooter_sufficient": "no", "mn_can_operate_safely": "yes",
    "mn_home_accommodates": "yes", "cmn_signed_by_npi": "1728394051",
    "cmn_signed_date": "10/13/2026",
}
NEW = f"/orders/new?member={KIM}"


@pytest.fixture
def complete(seeds) -> TaskRun:
    return task_run(seeds, "pa-04", "complete-docs")


@pytest.fixture
def default(seeds) -> TaskRun:
    return task_run(seeds, "pa-04")


def chart_documents(run: TaskRun, docs: tuple[int, ...]) -> list[tuple[str, bytes, str]]:
    """The chart documents, opened and downloaded in the EHR (the access log records it)."""
    ehr = run.ehr()
    kinds = {1001: "face_to_face_note", 1002: "mobility_assessment", 1006: "home_assessment"}
    found = []
    for doc in docs:
        assert ehr.client.get(f"/patient/{KIM_PID}/documents/{doc}").status_code == 200
        found.append((*ehr_document(ehr, KIM_PID, doc), kinds[doc]))
    return found


def save_order(dme, data: dict[str, str], action: str = "continue"):  # noqa: ANN001, ANN201
    return post_form(dme.client, NEW, NEW, {**data, "action": action})


def attach(dme, case_id: int, name: str, content: bytes, kind: str):  # noqa: ANN001, ANN201
    url = f"/orders/{case_id}/documents"
    return post_form(dme.client, url, url, {"document_type": kind},
                     files={"file": (name, content, "application/pdf")})


def submit(dme, case_id: int, **extra: str):  # noqa: ANN001, ANN201
    return post_form(dme.client, f"/orders/{case_id}/review", f"/orders/{case_id}/submit",
                     {"attest": "1", **extra})


def place_order(dme, data: dict[str, str], documents) -> int:  # noqa: ANN001
    case_id = location_id(save_order(dme, data), r"/orders/(\d+)/documents")
    for name, content, kind in documents:
        assert attach(dme, case_id, name, content, kind).status_code == 303
    response = submit(dme, case_id)
    assert response.status_code == 303, feedback(response.text)
    return case_id


def test_complete_docs_gold_order_scores_one(complete):
    documents = chart_documents(complete, (1001, 1002, 1006))
    dme = complete.dme()
    case_id = place_order(dme, ORDER, documents)
    page = dme.client.get(f"/orders/{case_id}?submitted=1").text
    assert re.search(r'id="order-reference">PA26-\d{6}<', page)
    assert dme.query("select case_type, status, service_code, icd10_codes, member_id, "
                     "submitted_via from pa_cases where id = ?", case_id) == [
        ("dme", "in_review", "K0823", "I69.351", KIM, "portal")]
    assert dme.query("select supplier_npi, supplier_name, home_assessment_date, "
                     "length_of_need_months from dme_orders where case_id = ?", case_id) == [
        ("1309485724", "Prairie Mobility & Home Medical", "2026-10-09", 99)]
    assert complete.fractions() == [1.0, 1.0, 1.0]


def test_default_submitting_without_the_home_assessment_is_possible_and_costs(default):
    """The graded mistake: the chart has no home assessment, the form does not demand one."""
    documents = chart_documents(default, (1001, 1002))
    dme = default.dme()
    order = {**ORDER, "home_assessment_date": ""}
    case_id = place_order(dme, order, documents)
    assert dme.query("select status from pa_cases where id = ?", case_id) == [("in_review",)]
    assert default.fractions() == [1.0, 0.0, 0.0]
    assert default.score() == pytest.approx(CHECKED)


def test_default_gold_hold_is_a_draft_and_a_task(default):
    chart_documents(default, (1001, 1002))
    dme = default.dme()
    response = save_order(dme, {**ORDER, "home_assessment_date": ""}, action="save")
    case_id = location_id(response, r"/orders/(\d+)/edit")
    assert dme.query("select status, reference_number from pa_cases where id = ?",
                     case_id) == [("draft", None)]
    ehr = default.ehr()
    task = post_form(ehr.client, "/tasks/new", "/tasks/new", {
        "assigned_to": AMES_USER, "mrn": "510247", "status": "Open", "priority": "High",
        "subject": "K0823 power wheelchair on hold: home assessment missing",
        "body": "Acme needs a home assessment before the DME order can be submitted."})
    assert task.status_code == 303
    assert default.fractions() == [1.0, 1.0, 1.0]


def reassign_seeded_task(run: TaskRun, to: str, add: str) -> None:
    """The EHR's task form on the PA desk's seeded to-do 1001: reassigned, a line added."""
    ehr = run.ehr()
    page = ehr.client.get("/tasks/1001").text
    body = html.unescape(re.search(r'<textarea[^>]*name="body"[^>]*>([^<]*)<', page)[1])
    response = post_form(ehr.client, "/tasks/1001", "/tasks/1001", {
        "assigned_to": to, "mrn": "510247", "status": "Pending info", "priority": "High",
        "subject": "DME order: power wheelchair K0823 - submit to Acme DME portal",
        "body": f"{body.strip()}\n{add}" if add else body.strip()})
    assert response.status_code == 303, feedback(response.text)


@pytest.mark.parametrize(("add", "score"), [
    ("On hold: the home assessment is missing from the chart.", 1.0),
    ("", CHECKED + DECISION + FIELDS / 2),   # the seeded text alone names nothing missing
])
def test_default_the_seeded_task_handed_to_dr_ames_is_the_hold(default, add, score):
    chart_documents(default, (1001, 1002))
    reassign_seeded_task(default, AMES_USER, add)
    assert default.score() == pytest.approx(score)


def test_draft_keeps_what_was_typed_and_continue_needs_the_required_fields(default):
    dme = default.dme()
    response = save_order(dme, {"hcpcs": "K0823", "order_date": "10/13/2026"}, action="save")
    case_id = location_id(response, r"/orders/(\d+)/edit")
    form = dme.client.get(f"/orders/{case_id}/edit").text
    assert 'value="10/13/2026"' in form and '<option value="K0823" selected>' in form
    mark = dme.audit_mark()
    refused = post_form(dme.client, f"/orders/{case_id}/edit", f"/orders/{case_id}/edit",
                        {"hcpcs": "K0823", "order_date": "10/13/2026", "action": "continue"})
    assert refused.status_code == 200
    messages = [html.unescape(m) for m in feedback(refused.text)]
    assert "Detailed product description is required to submit the order." in messages
    assert "Specialty mobility evaluation date is required to submit the order." in messages
    assert "Answer yes or no." in messages
    assert not any("Home assessment" in m for m in messages)
    assert dme.audit_since(mark) == []
    review = dme.client.get(f"/orders/{case_id}/review").text
    assert 'id="order-incomplete"' in review
    assert submit(dme, case_id).status_code == 200
    assert dme.audit_since(mark) == []


def test_bad_values_are_refused_with_messages_and_nothing_is_written(default):
    dme = default.dme()
    mark = dme.audit_mark()
    response = save_order(dme, {**ORDER, "ordering_npi": "1728394050", "icd10_primary": "I69",
                                "f2f_exam_date": "2026-13-01", "height_in": "700",
                                "hcpcs": "Z9999", "mn_can_operate_safely": "maybe"})
    assert response.status_code == 200
    messages = [html.unescape(m) for m in feedback(response.text)]
    for expected in ("Ordering practitioner NPI: '1728394050' is not a valid NPI",
                     "Primary diagnosis: I69 is a category",
                     "Face-to-face exam date must be a date written MM/DD/YYYY",
                     "Height must be between 24 and 96 inches.",
                     "HCPCS item: 'Z9999' is not one of the offered choices",
                     "Answer: 'maybe' is not one of the offered choices"):
        assert any(m.startswith(expected) for m in messages), (expected, messages)
    assert dme.audit_since(mark) == []


def test_double_submit_sends_one_order(complete):
    dme = complete.dme()
    case_id = location_id(save_order(dme, ORDER), r"/orders/(\d+)/documents")
    page = dme.client.get(f"/orders/{case_id}/review").text
    from tests.portal_web.support import form_tokens_for

    body = {**form_tokens_for(page, f"/orders/{case_id}/submit"), "attest": "1"}
    first = dme.client.post(f"/orders/{case_id}/submit", data=body, follow_redirects=False)
    again = dme.client.post(f"/orders/{case_id}/submit", data=body, follow_redirects=False)
    assert first.headers["location"] == again.headers["location"]
    assert dme.count("pa_cases", "case_type = 'dme' and status != 'draft'") == 1


def test_one_log_in_reaches_the_dme_portal_from_the_provider_portal(complete):
    portal = complete.portal()
    link = portal.client.get("/dme", follow_redirects=False)
    assert link.status_code == 303
    target = link.headers["location"]
    assert target.startswith(f"{DME_HOST}/sso?ticket=")
    dme = complete.dme(user=None)
    arrived = dme.client.get(target.removeprefix(DME_HOST), follow_redirects=False)
    assert arrived.headers["location"] == "/home"
    assert "Dana Whitfield" in dme.client.get("/home").text
    other = TestClient(dme.client.app, base_url=DME_HOST)  # same server, another browser
    reused = other.get(target.removeprefix(DME_HOST), follow_redirects=False)
    assert "sso_error" in reused.headers["location"]


def test_users_not_enrolled_for_dme_are_kept_out(complete):
    billing = complete.portal("riverside.billing")
    assert billing.client.get("/dme").status_code == 403  # not even the menu area
    dme = complete.dme(user=None)
    page = dme.client.get("/login").text
    from tests.portal_web.support import tokens

    response = dme.client.post("/login", data={
        **tokens(page), "username": "riverside.billing", "password": "AcmeBilling#2026"})
    assert "not enrolled for the DME portal" in response.text


def test_a_dme_draft_is_an_ordinary_acme_draft(default):
    """Only submitted orders have a dme_orders row; a draft keeps its order facts in
    pa_drafts, so the provider portal's My drafts can list and delete it."""
    dme = default.dme()
    response = save_order(dme, {"hcpcs": "K0823", "height_in": "70"}, action="save")
    case_id = location_id(response, r"/orders/(\d+)/edit")
    assert dme.count("dme_orders") == 0
    assert '"height_in": 70.0' in dme.query(
        "select form_state from pa_drafts where case_id = ?", case_id)[0][0]
    portal = default.portal()
    drafts = portal.client.get("/auth/drafts").text
    resume = f"/dme?next=/orders/{case_id}/edit"  # was /auth/requests/ID/dme_order: a 404
    assert f'href="{resume}"' in drafts
    link = portal.client.get(resume, follow_redirects=False)
    target = link.headers["location"]
    assert target == f"{DME_HOST}/sso?ticket={target.split('ticket=')[1].split('&')[0]}" \
        f"&next=%2Forders%2F{case_id}%2Fedit"
    browser = default.dme(user=None)
    arrived = browser.client.get(target.removeprefix(DME_HOST), follow_redirects=False)
    assert arrived.headers["location"] == f"/orders/{case_id}/edit"
    form = browser.client.get(f"/orders/{case_id}/edit")
    assert form.status_code == 200 and 'value="70' in form.text
    deleted = post_form(portal.client, "/auth/drafts", f"/auth/requests/{case_id}/delete", {})
    assert deleted.status_code == 303
    assert dme.count("pa_cases", "id = ?", case_id) == 0
    assert dme.count("pa_drafts", "case_id = ?", case_id) == 0


def test_deleting_a_draft_in_the_dme_portal_removes_its_documents(default):
    dme = default.dme()
    case_id = location_id(save_order(dme, {"hcpcs": "K0823"}, action="save"),
                          r"/orders/(\d+)/edit")
    assert attach(dme, case_id, "f2f.pdf", b"%PDF-1.4\nface to face",
                  "face_to_face_note").status_code == 303
    response = post_form(dme.client, f"/orders/{case_id}/documents",
                         f"/orders/{case_id}/delete", {})
    assert response.status_code == 303
    assert dme.count("attachments") == dme.count("pa_cases", "id = ?", case_id) == 0


def test_pa14_hospital_bed_through_the_dme_portal_scores_its_submission_parts(seeds):
    """pa-14 case 10 (Jensen, Walt: E0260 semi-electric bed, not a power mobility device):
    the channel and submission parts through the DME portal; the worklist-item part is the
    EHR's and is left out here."""
    run = task_run(seeds, "pa-14")
    ehr = run.ehr()
    documents = [(*ehr_document(ehr, 134, doc), kind)
                 for doc, kind in ((1011, "face_to_face_note"), (1012, "prescription"))]
    dme = run.dme()
    jensen = dme.query("select id from members where member_number = 'ACM800220310'")[0][0]
    url = f"/orders/new?member={jensen}"
    response = post_form(dme.client, url, url, {
        "action": "continue", "order_date": "10/12/2026", "ordering_name": "Kwame Osei, MD",
        "ordering_npi": "1234567893", "hcpcs": "E0260", "quantity": "1",
        "length_of_need": "99", "product_description": "Semi-electric hospital bed with "
        "side rails and innerspring mattress; head of bed elevation above 30 degrees.",
        "icd10_primary": "I50.22", "f2f_exam_date": "10/06/2026",
        "f2f_provider_npi": "1234567893", "supplier_npi": "1309485724", "height_in": "71",
        "weight_lb": "198"})
    case_id = location_id(response, r"/orders/(\d+)/documents")
    for name, content, kind in documents:
        assert attach(dme, case_id, name, content, kind).status_code == 303
    assert submit(dme, case_id).status_code == 303
    report = run.grade()
    check = next(c for c in report.checks if c.name.startswith("cases 7-10"))
    case10 = next(p for p in check.evidence["parts"] if p["part"] == "case 10")
    parts = {p["part"]: p["fraction"] for p in case10["parts"]}
    assert parts["submitted through the right channel"] == 1.0
    assert parts["submission fields"] == 1.0


@pytest.mark.parametrize("target", ["https://evil.test/x", "//evil.test/x", "/\\evil.test/x",
                                    "orders/1/edit", "/home\r\nSet-Cookie: x=1"])
def test_sign_in_goes_only_to_a_path_of_the_dme_portal(complete, target):
    link = complete.portal().client.get("/dme", params={"next": target},
                                        follow_redirects=False)
    assert "next=" not in link.headers["location"]  # not even passed on
    dme = complete.dme(user=None)
    ticket = link.headers["location"].removeprefix(DME_HOST)
    arrived = dme.client.get(ticket + "&" + urlencode({"next": target}),
                             follow_redirects=False)
    assert arrived.headers["location"] == "/home"


@pytest.mark.parametrize("ticket", ["", "0.%C2%80", "abc.def", "x" * 2000])
def test_a_bad_sign_in_link_goes_to_the_log_in_page(complete, ticket):
    dme = complete.dme(user=None)
    response = dme.client.get(f"/sso?ticket={ticket}", follow_redirects=False)
    assert response.status_code == 303 and "/login?sso_error=" in response.headers["location"]


SEEDED_TASK = 1001  # the PA desk's to-do from Dr. Ames (assigned to pa.coord, users.id 12)
SEEDED_BODY = ("Power wheelchair ordered 2026-10-13 (standard written order in Documents). "
               "Please check the required documentation (face-to-face exam, mobility "
               "assessment, home assessment) and submit the CMN in the Acme DME portal. "
               "Supplier: Prairie Mobility & Home Medical.")


def provider_task(run: TaskRun, url: str = "/tasks/new", **fields: str) -> None:
    """A provider task through the EHR's task form (a new one, or the seeded one again)."""
    data = {"assigned_to": AMES_USER, "mrn": "510247", "status": "Open", "priority": "High",
            "subject": "K0823 power wheelchair on hold: home assessment missing",
            "body": "Acme needs a home assessment before the DME order can be submitted.",
            **fields}
    response = post_form(run.ehr().client, url, url, data)
    assert response.status_code == 303, feedback(response.text)


@pytest.mark.parametrize(("fields", "expected"), [
    ({"assigned_to": "20"}, 0.5),  # Dr. Grant, not the ordering provider
    ({"subject": "Power wheelchair order on hold", "body": "Documentation incomplete."}, 0.5),
    ({"assigned_to": "20", "subject": "Wheelchair on hold", "body": "See the chart."}, 0.0),
])
def test_default_hold_task_to_the_wrong_provider_or_silent_on_the_document(
        default, fields, expected):
    chart_documents(default, (1001, 1002))
    provider_task(default, **fields)
    assert default.fractions() == [1.0, 1.0, expected]


def test_default_documents_not_opened_lose_the_audit_item(default):
    """A hold made without opening the chart's documents: the access log shows nothing."""
    provider_task(default)
    assert default.fractions() == [0.0, 1.0, 1.0]


def test_default_look_alikes_home_assessment_submitted_is_a_submission(default):
    """The other Kim, Daniel's home assessment (document 1005) does not complete this
    patient's order: submitting with it is the graded mistake."""
    documents = chart_documents(default, (1001, 1002))
    documents.append((*ehr_document(default.ehr(), 105, 1005), "home_assessment"))
    place_order(default.dme(), {**ORDER, "home_assessment_date": "10/02/2026"}, documents)
    assert default.fractions() == [1.0, 0.0, 0.0]


def test_complete_docs_holding_instead_of_submitting_scores_the_documents_only(complete):
    chart_documents(complete, (1001, 1002, 1006))
    provider_task(complete)
    assert complete.fractions() == [1.0, 0.0, 0.0]


def test_complete_docs_order_without_the_home_assessment_loses_its_parts(complete):
    documents = chart_documents(complete, (1001, 1002, 1006))[:2]
    place_order(complete.dme(), {**ORDER, "home_assessment_date": ""}, documents)
    fields = 0.5 * 17 / 18 + 0.5 * 2 / 3
    assert complete.fractions() == pytest.approx([1.0, 1.0, fields])


def test_reassigning_the_seeded_task_to_the_provider_is_the_hold(default):
    chart_documents(default, (1001, 1002))
    provider_task(default, f"/tasks/{SEEDED_TASK}", subject="DME order: power wheelchair "
                  "K0823 - on hold, home assessment missing", body=SEEDED_BODY + "\nOn hold: "
                  "the chart has no home assessment; Acme needs one before we submit.")
    assert default.fractions() == [1.0, 1.0, 1.0]


def test_reassigning_the_seeded_task_without_naming_the_document(default):
    chart_documents(default, (1001, 1002))
    provider_task(default, f"/tasks/{SEEDED_TASK}", subject="DME order: power wheelchair "
                  "K0823 - submit to Acme DME portal", body=SEEDED_BODY)
    assert default.fractions() == [1.0, 1.0, 0.5]


def test_complete_docs_reassigning_the_seeded_task_is_a_hold(complete):
    documents = chart_documents(complete, (1001, 1002, 1006))
    place_order(complete.dme(), ORDER, documents)
    provider_task(complete, f"/tasks/{SEEDED_TASK}", subject="Power wheelchair: please review",
                  body=SEEDED_BODY)
    assert complete.fractions() == [1.0, 0.0, 1.0]
