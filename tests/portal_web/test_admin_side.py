"""The PA desk and office screens: worklists, authorizations, tasks, messages, calendar,
documents and the provider directory."""

from __future__ import annotations

from tests.portal_web.support import PA_DESK, changes, feedback, form_tokens_for
from tests.portal_web.test_clinical import assert_browser


def test_worklist_item_outcome_reference_and_status(ehr_for):
    ehr = ehr_for("pa-02", user="pa.coord", extra=PA_DESK)
    mark = ehr.audit_mark()
    page = ehr.client.get("/pa/worklist/2").text
    assert "Hughes" in page and "Knee arthroscopy" in page
    action = "/pa/worklist/item/9002"
    bad = ehr.client.post(action, data={**form_tokens_for(page, action), "status": "Sleeping"})
    assert bad.status_code == 200 and "not one of the offered choices" in bad.text
    page = ehr.client.get("/pa/worklist/2").text
    done = ehr.client.post(action, data={**form_tokens_for(page, action),
                                         "status": "Pending info", "outcome": "held",
                                         "reference": "TASK-12", "note": "MRI missing"},
                           follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"].endswith("#item-9002")
    entries = ehr.audit_since(mark)
    assert changes(entries) == [("update", "pa_worklist_items")]
    assert_browser(entries, "pa.coord")
    assert ehr.query("select status, outcome, reference, note, updated_by from "
                     "pa_worklist_items where id = 9002") == [
        ("Pending info", "held", "TASK-12", "MRI missing", 12)]


def test_authorization_record_decision(ehr_for):
    ehr = ehr_for("pa-02", user="pa.coord", extra=PA_DESK)
    url = "/patient/120/authorizations/9001"
    base = {"payer_id": "1", "service": "MRI lumbar spine w/o contrast", "cpt": "72148",
            "diagnosis": "M54.16", "status": "Approved", "portal_reference": "ACM-PA-118204",
            "start_date": "2026-10-20", "end_date": "2026-10-10", "units_approved": "1"}
    bad = ehr.submit(url, base)
    messages = " ".join(feedback(bad.text))
    assert "cannot be before the start date" in messages
    assert "needs its auth number" not in messages  # one problem at a time is enough
    good = ehr.submit(url, {**base, "end_date": "2027-01-18", "auth_num": "A1-778812",
                            "decision_date": "2026-10-16", "remaining_units": "1"})
    assert good.status_code == 303
    assert ehr.query("select status, auth_num, start_date, end_date, units_approved, "
                     "diagnosis from prior_authorizations where id = 9001") == [
        ("Approved", "A1-778812", "2026-10-20", "2027-01-18", 1, "ICD10:M54.16")]


def test_message_to_the_provider_and_task_pending_info(ehr_for):
    ehr = ehr_for("pa-02", user="pa.coord", extra=PA_DESK)
    mark = ehr.audit_mark()
    sent = ehr.submit("/messages/new?pid=115", {
        "title": "Prior Auth", "assigned_to": "dr.grant", "message_status": "New",
        "mrn": "510399", "body": "Missing: 3 months conservative care; MRI report."},
        action="/messages/new")
    assert sent.status_code == 303
    unknown = ehr.submit("/tasks/new", {"assigned_to": "20", "subject": "x", "status": "Open",
                                        "priority": "Normal", "mrn": "000000"})
    assert "No patient has MRN 000000" in unknown.text
    task = ehr.submit("/tasks/9001", {"assigned_to": "20", "mrn": "510399",
                                      "subject": "Sign knee arthroscopy order",
                                      "status": "Pending info", "priority": "Normal"})
    assert task.status_code == 303
    entries = ehr.audit_since(mark)
    assert changes(entries) == [("insert", "pnotes"), ("update", "ehr_tasks")]
    assert_browser(entries, "pa.coord")
    assert ehr.query("select assigned_to, title, pid, message_status, user from pnotes "
                     "order by id desc limit 1") == [("dr.grant", "Prior Auth", 115, "New",
                                                      "pa.coord")]
    assert "dr.grant" in ehr.client.get("/messages?show=all").text


def test_calendar_event_refuses_an_overlap_unless_asked(ehr_for):
    ehr = ehr_for("ord-01", user="dr.osei")
    event = {"pc_catid": "17", "pc_aid": "10", "pc_title": "Peer-to-peer review",
             "pc_eventDate": "2026-10-19", "pc_startTime": "09:05", "duration": "15",
             "pc_hometext": "P2P confirmation ACM-P2P-5521"}
    clash = ehr.submit("/calendar/event/new", event)
    assert clash.status_code == 200 and "overlaps" in clash.text
    saved = ehr.submit("/calendar/event/new", {**event, "pc_startTime": "13:00"})
    assert saved.status_code == 303
    assert ehr.query("select pc_aid, pc_startTime, pc_endTime, pc_hometext from "
                     "openemr_postcalendar_events order by pc_eid desc limit 1") == [
        (10, "13:00:00.000000", "13:15:00.000000", "P2P confirmation ACM-P2P-5521")]
    assert "Peer-to-peer review" in ehr.client.get("/main/calendar?date=2026-10-19").text


def test_document_download_is_a_pdf_and_is_logged(ehr_for):
    ehr = ehr_for("ord-02", user="dr.osei")
    mark = ehr.audit_mark()
    response = ehr.client.get("/patient/3/documents/1001/download")
    assert response.status_code == 200
    assert response.content.startswith(b"%PDF")
    assert response.headers["content-disposition"].startswith("attachment;")
    entries = ehr.audit_since(mark)
    assert changes(entries) == [("insert", "log")]
    assert entries[0]["after"]["event"] == "document-download"
    assert entries[0]["after"]["document_id"] == 1001


def test_a_document_page_picture_is_revalidated_by_its_content(ehr_for):
    # the browser's HTTP cache outlives an episode's reset, and after it a document id can
    # name another file: the picture is never reused without asking
    ehr = ehr_for("ord-02", user="dr.osei")
    first = ehr.client.get("/patient/3/documents/1001/page/1.png")
    assert first.status_code == 200 and first.content.startswith(b"\x89PNG")
    assert first.headers["cache-control"] == "private, no-cache"
    etag = first.headers["etag"]
    same = ehr.client.get("/patient/3/documents/1001/page/1.png",
                          headers={"If-None-Match": etag})
    assert same.status_code == 304 and same.content == b""
    other = ehr.client.get("/patient/3/documents/1001/page/1.png",
                           headers={"If-None-Match": '"another-file-1"'})
    assert other.status_code == 200 and other.content == first.content


def test_document_upload_checks_the_file(ehr_for):
    ehr = ehr_for("ord-02", user="dr.osei")
    page = ehr.client.get("/patient/3/documents").text
    action = "/patient/3/documents/upload"
    bad = ehr.client.post(action, data={**form_tokens_for(page, action), "category_id": "6",
                                        "docdate": "2026-10-19"},
                          files={"file": ("x.exe", b"MZ\x90\x00", "application/octet-stream")})
    assert bad.status_code == 200 and "Only PDF, PNG and JPEG" in bad.text
    page = ehr.client.get("/patient/3/documents").text
    good = ehr.client.post(action, data={**form_tokens_for(page, action), "category_id": "6",
                                         "docdate": "2026-10-19"},
                           files={"file": ("fax.pdf", b"%PDF-1.4\n%%EOF", "application/pdf")},
                           follow_redirects=False)
    assert good.status_code == 303
    assert ehr.query("select name, mimetype, size from documents order by id desc limit 1") == [
        ("fax.pdf", "application/pdf", 14)]


def test_directory_shows_npi_taxonomy_and_tin(ehr_for):
    ehr = ehr_for("ord-02", user="pa.coord")
    page = ehr.client.get("/directory?q=lindgren").text
    assert "1938475625" in page and "2085R0202X" in page and "36-4829175" in page
    assert "1049583721" in page  # the look-alike is listed too


def test_directory_names_an_organization_entry_by_its_organization(ehr_for):
    """An address-book entry of an organization (no person's name) is listed and shown under
    the organization's name, as OpenEMR's address book does, not as 'None, None'."""
    ehr = ehr_for("pa-07", user="pa.coord")
    page = ehr.client.get("/directory?q=Springfield+Imaging").text
    assert "None" not in page
    assert '<a href="/directory/51">Springfield Imaging Center</a>' in page
    entry = ehr.client.get("/directory/51").text
    assert "<h2>Springfield Imaging Center</h2>" in entry and "None" not in entry
