"""The ePA portal's pages on the seeded pa-20 run: log-in, Dashboard, Enter Key, the request
page, question-by-question answers with follow-ups, hidden answers, attachments, Send to
Plan, and the plan's replies arriving in sandbox time."""

from __future__ import annotations

import hashlib
import re

import pytest

from tests.portal_web.epa.support import (
    GOLD_ANSWERS,
    JOY,
    JOY_ARCHIVED,
    JOYCE,
    PASSWORD,
    feedback,
    tokens,
)

VANCE, IBARRA, OBRIEN = "PT6C-2MXD", "HN4R-8WQZ", "LM3V-9JRE"
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n" + bytes(range(256))


def rows_of(html: str) -> list[str]:
    return re.findall(r'<tr id="row-([A-Z0-9-]+)">', html)


# -- log-in ------------------------------------------------------------------------------
def test_pages_need_a_log_in_and_a_wrong_password_is_explained(epa_for):
    epa = epa_for(login=False)
    response = epa.client.get(f"/request/{JOY}", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == f"/login?next=/request/{JOY}"
    page = epa.page("/login")
    refused = epa.client.post("/login", data={**tokens(page), "username": "dwhitfield",
                                              "password": "wrong"})
    assert "The username or password is incorrect" in refused.text
    empty = epa.client.post("/login", data={**tokens(page), "username": "", "password": ""})
    assert "Enter your username and your password." in empty.text
    page = epa.page(f"/login?next=/request/{JOY}")
    done = epa.client.post("/login", data={**tokens(page), "username": "dwhitfield",
                                           "password": PASSWORD, "next": f"/request/{JOY}"},
                           follow_redirects=False)
    assert done.headers["location"] == f"/request/{JOY}"
    assert "Riverside Family Medicine" in epa.page("/dashboard")
    out = epa.post_form("/dashboard", "/logout", {})
    assert out.headers["location"] == "/login?logged_out=1"
    assert epa.client.get("/dashboard", follow_redirects=False).status_code == 303


# -- dashboard ---------------------------------------------------------------------------
def test_dashboard_groups_requests_as_covermymeds_does(epa_for):
    epa = epa_for()
    html = epa.page("/dashboard")
    assert sorted(rows_of(html)) == sorted([IBARRA, JOYCE, VANCE, JOY, OBRIEN])
    for label, count in (("All Requests", 5), ("New", 1), ("Follow Up", 2),
                         ("Sent to Plan", 1), ("Determination", 1), ("Archived", 1)):
        assert re.search(rf"<span>{label}</span><span class=\"count\">{count}</span>", html)
    assert rows_of(epa.page("/dashboard?show=follow_up")) == [JOYCE, JOY]  # newest first
    assert rows_of(epa.page("/dashboard?show=new")) == [IBARRA]
    assert rows_of(epa.page("/dashboard?show=sent")) == [VANCE]
    assert rows_of(epa.page("/dashboard?show=determination")) == [OBRIEN]
    archived = epa.page("/dashboard?show=archived")
    assert rows_of(archived) == [JOY_ARCHIVED]
    assert "Determination: Denied" in archived


def test_dashboard_search_and_sorting(epa_for):
    epa = epa_for()
    assert rows_of(epa.page("/dashboard?q=turner+joyce")) == [JOYCE]
    assert rows_of(epa.page("/dashboard?q=BX7Q")) == [JOYCE, JOY]
    assert rows_of(epa.page("/dashboard?q=02/22/1977")) == [JOYCE, JOY]
    assert "No requests match" in epa.page("/dashboard?q=nobody")
    by_patient = rows_of(epa.page("/dashboard?sort=patient&dir=asc"))
    assert by_patient == [IBARRA, OBRIEN, JOY, JOYCE, VANCE]
    assert rows_of(epa.page("/dashboard?sort=patient&dir=desc")) == by_patient[::-1]
    assert rows_of(epa.page("/dashboard?sort=status&dir=asc"))[0] == IBARRA
    assert epa.client.get("/dashboard?show=%00&sort=x&dir=y&q=" + "z" * 500).status_code == 200


def test_enter_key_opens_the_request_only_with_the_patients_details(epa_for):
    epa = epa_for()
    ok = epa.post_form("/dashboard", "/key", {"key": "bx7q 4ktm", "last_name": "turner",
                                              "dob": "2/22/1977"})
    assert ok.headers["location"] == f"/request/{JOY}"
    wrong_dob = epa.post_form("/dashboard", "/key", {"key": JOY, "last_name": "Turner",
                                                     "dob": "02/23/1977"})
    assert wrong_dob.status_code == 200
    assert f"No request matches Key {JOY}" in wrong_dob.text
    bad = epa.post_form("/dashboard", "/key", {"key": "BX7Q", "last_name": "",
                                               "dob": "1977-13-40"})
    messages = feedback(bad.text)
    assert any("is not a Key" in m for m in messages)
    assert "Enter the patient's last name." in messages
    assert any("MM/DD/YYYY" in m for m in messages)


# -- the request page --------------------------------------------------------------------
def test_request_is_prefilled_from_the_e_prescription(epa_for):
    epa = epa_for()
    html = epa.page(f"/request/{JOY}")
    for text in ("semaglutide", "1 mg/dose (4 mg/3 mL) pen-injector", "3 mL",
                 "28 days supply", "5 refills", "Turner, Joy", "02/22/1977",
                 "ACM458802731", "019876 / ACMERX", "ACMRX01", "Dr. Kwame Osei",
                 "1234567893", "Lakeview Pharmacy #2211", "Inject 1 mg under the skin once "
                 "weekly.", "E11.65", "BX7Q-4KTM"):
        assert text in html, text
    assert "Follow Up" in html


def test_unknown_key_and_foreign_attachment_are_404_pages(epa_for):
    epa = epa_for()
    missing = epa.client.get("/request/ZZZZ-9999")
    assert missing.status_code == 404
    assert "There is no request with Key ZZZZ-9999" in missing.text
    assert epa.client.get("/request/not-a-key").status_code == 404
    assert epa.client.get(f"/request/{JOY}/attachments/424242").status_code == 404


def test_follow_ups_are_hidden_until_an_answer_unlocks_them(epa_for):
    epa = epa_for()
    html = epa.page(f"/request/{JOY}")
    assert re.search(r'id="q-diagnosis"[^>]*>', html) and 'id="q-diagnosis" ' in html
    assert re.search(r'id="q-a1c_recent" data-key="a1c_recent" data-type="decimal" hidden',
                     html)
    assert 'What is the diagnosis for this request? <span class="req"' in html  # required
    reply = epa.autosave(JOY, "diagnosis", "t2dm").json()
    assert reply["shown"][:7] == ["diagnosis", "icd10_code", "a1c_recent", "a1c_recent_date",
                                  "a1c_prior", "a1c_prior_date", "metformin_trial"]
    assert reply["numbers"]["bmi"] == 8
    html = epa.page(f"/request/{JOY}")
    assert 'data-type="decimal">' in html.split('id="q-a1c_recent"')[1][:80]
    assert "Asked because &#39;What is the diagnosis for this request&#39; is" in html


def test_autosave_checks_each_entry_and_writes_only_changes(epa_for):
    epa = epa_for()
    epa.autosave(JOY, "diagnosis", "t2dm")
    mark = epa.audit_mark()
    for value, message in (("eight", "enter a number"), ("8.456", "at most 2 decimal"),
                           ("184", "between 0 and 100 %")):
        reply = epa.autosave(JOY, "a1c_recent", value)
        assert reply.status_code == 422 and message in reply.json()["error"], value
    future = epa.autosave(JOY, "a1c_recent_date", "12/01/2026")
    assert "is in the future" in future.json()["error"]
    assert epa.autosave(JOY, "a1c_recent_date", "02/30/2026").status_code == 422
    assert epa.autosave(JOY, "metformin_trial", "maybe").json()["error"].endswith(
        "choose Yes or No.")
    assert epa.autosave(JOY, "pancreatitis_date", "01/01/2020").status_code == 422  # hidden
    assert epa.audit_since(mark) == []
    assert epa.autosave(JOY, "a1c_recent", "8.40").json()["display"] == "8.4 %"
    first = epa.audit_mark()
    assert epa.autosave(JOY, "a1c_recent", "8.4").json()["changed"] is False
    assert epa.audit_mark() == first
    assert epa.answers() == {"diagnosis": "t2dm", "a1c_recent": "8.4"}
    assert epa.request_row(JOY)["status"] == "in_progress"
    entries = epa.audit_since(mark)
    assert {(e["channel"], e["actor"]) for e in entries} == {("browser", "dwhitfield")}


def test_multi_choice_and_any_behaviour(epa_for):
    epa = epa_for()
    epa.autosave(JOY, "diagnosis", "weight")
    both = epa.autosave(JOY, "weight_comorbidity", ["osa", "hypertension"])
    assert both.json()["display"] == "Hypertension, Obstructive sleep apnea"
    assert epa.answers()["weight_comorbidity"] == "hypertension|osa"
    none_and_other = epa.autosave(JOY, "weight_comorbidity", ["none", "osa"])
    assert "'None' cannot be ticked together" in none_and_other.json()["error"]


def test_question_form_without_script_saves_unlocked_follow_ups_in_one_post(epa_for):
    epa = epa_for()
    response = epa.save_answers(JOY, {"diagnosis": "t2dm", "a1c_recent": "8.4",
                                      "a1c_recent_date": "2026-09-15",
                                      "pancreatitis_date": "01/01/2020"})
    assert response.status_code == 303
    # a1c unlocked by the diagnosis in the same post is saved; pancreatitis_date is not asked
    assert epa.answers() == {"diagnosis": "t2dm", "a1c_recent": "8.4",
                             "a1c_recent_date": "2026-09-15"}
    mark = epa.audit_mark()
    refused = epa.save_answers(JOY, {"bmi": "big", "a1c_prior": "9.2"})
    assert refused.status_code == 200
    assert "Nothing was saved: 1 answer needs attention" in refused.text
    assert any("Current body mass index: enter a number" in m for m in feedback(refused.text))
    assert 'value="9.2"' in refused.text  # what was typed is kept
    assert epa.audit_since(mark) == []
    cleared = epa.save_answers(JOY, {"a1c_recent_date": ""})
    assert cleared.status_code == 303 and "a1c_recent_date" not in epa.answers()


def test_double_submit_and_replayed_forms_write_once(epa_for):
    epa = epa_for()
    html = epa.page(f"/request/{JOY}")
    data = {**tokens(html[html.find('id="questions-form"') - 200:]), "action": "save",
            "asked": "diagnosis", "a_diagnosis": "t2dm"}
    first = epa.client.post(f"/request/{JOY}", data=data, follow_redirects=False)
    mark = epa.audit_mark()
    again = epa.client.post(f"/request/{JOY}", data={**data, "a_diagnosis": "weight"},
                            follow_redirects=False)
    assert again.status_code == 303 and again.headers["location"] == first.headers["location"]
    assert epa.audit_since(mark) == [] and epa.answers() == {"diagnosis": "t2dm"}
    solve_rest = {k: v for k, v in GOLD_ANSWERS.items() if k != "diagnosis"}
    epa.save_answers(JOY, solve_rest)
    page = epa.page(f"/request/{JOY}/send")
    send = {**tokens(page[page.find('id="send-form"') - 200:]), "attest": "1"}
    assert epa.client.post(f"/request/{JOY}/send", data=send,
                           follow_redirects=False).status_code == 303
    mark = epa.audit_mark()
    replay = epa.client.post(f"/request/{JOY}/send", data=send, follow_redirects=False)
    assert replay.status_code == 303 and epa.audit_since(mark) == []
    assert epa.request_row(JOY)["send_count"] == 1
    locked = epa.page(f"/request/{JOY}/send")
    assert 'id="send-form"' not in locked and "was sent to the plan" in locked
    refused = epa.client.post(f"/request/{JOY}", data={**tokens(epa.page("/dashboard")),
                                                       "asked": "bmi", "a_bmi": "30"})
    assert refused.status_code == 200 and "can no longer be changed" in refused.text
    assert epa.answers()["bmi"] == "34.2"


def test_hidden_answer_can_only_be_cleared_while_hidden(epa_for):
    epa = epa_for()
    epa.autosave(JOY, "mtc_men2", "yes")
    epa.autosave(JOY, "mtc_men2_details", "mother, papillary")
    page = epa.page(f"/request/{JOY}")
    assert f"/request/{JOY}/answers/mtc_men2_details/clear" not in page  # no button: shown
    shown = epa.client.post(f"/request/{JOY}/answers/mtc_men2_details/clear",
                            data=tokens(page))
    assert shown.status_code == 200 and "asked under your current answers" in shown.text
    panel = epa.autosave(JOY, "mtc_men2", "no").json()["hidden_html"]
    html = epa.page(f"/request/{JOY}")
    assert "Hidden answers (1)" in html and "mother, papillary" in html
    cleared = epa.client.post(f"/request/{JOY}/answers/mtc_men2_details/clear",
                              data=tokens(panel), follow_redirects=False)  # the page's panel
    assert cleared.status_code == 303
    assert epa.answers() == {"mtc_men2": "no"}


# -- attachments -------------------------------------------------------------------------
def test_attachment_is_stored_byte_exact_and_checked(epa_for):
    epa = epa_for()
    page = f"/request/{JOY}"
    action = f"/request/{JOY}/attachments"
    done = epa.post_form(page, action, {}, files={"file": ("office visit.pdf", PDF,
                                                          "application/pdf")})
    assert done.status_code == 303
    (row_id, name, size, digest, kind), = epa.query(
        "select id, filename, size_bytes, sha256, content_type from epa_attachments "
        "where request_id = 1000")
    assert (name, size, digest, kind) == ("office visit.pdf", len(PDF),
                                          hashlib.sha256(PDF).hexdigest(), "application/pdf")
    download = epa.client.get(f"/request/{JOY}/attachments/{row_id}")
    assert download.content == PDF and download.headers["content-type"] == "application/pdf"
    mark = epa.audit_mark()
    for files, message in (
            ({"file": ("again.pdf", PDF, "application/pdf")}, "already attached"),
            ({"file": ("tool.exe", b"MZ", "application/octet-stream")}, "cannot be attached"),
            ({"file": ("empty.pdf", b"", "application/pdf")}, "is empty"),
            (None, "Choose a file to attach first")):
        refused = epa.post_form(page, action, {}, files=files)
        assert refused.status_code == 200 and message in refused.text, message
    assert epa.audit_since(mark) == []
    removed = epa.post_form(page, f"/request/{JOY}/attachments/{row_id}/remove", {})
    assert removed.status_code == 303
    assert epa.query("select count(*) from epa_attachments") == [(0,)]


def test_attachments_are_closed_once_sent(epa_for):
    epa = epa_for()
    epa.save_answers(JOY, GOLD_ANSWERS)
    html = epa.page(f"/request/{JOY}")
    epa.send(JOY)
    refused = epa.client.post(f"/request/{JOY}/attachments",
                              data=tokens(html[html.find('id="upload-form"') - 300:]),
                              files={"file": ("late.pdf", PDF, "application/pdf")})
    assert "attachments can no longer be added" in refused.text
    assert epa.query("select count(*) from epa_attachments") == [(0,)]


# -- the plan's replies in sandbox time ---------------------------------------------------
def test_determination_arrives_later_without_changing_what_the_office_stored(epa_for):
    epa = epa_for()
    epa.save_answers(JOY, GOLD_ANSWERS)
    epa.send(JOY)
    assert "Waiting for the plan" in epa.page(f"/request/{JOY}")
    epa.advance_clock(hours=23)  # the reply comes 24 hours after the send
    timed_out = epa.client.get("/dashboard", follow_redirects=True)
    assert "Your session timed out" in timed_out.text  # idle longer than 8 hours
    epa.login()
    assert JOY in rows_of(epa.page("/dashboard?show=sent"))
    epa.advance_clock(hours=1)
    html = epa.page(f"/request/{JOY}")
    assert "Determination: Approved" in html
    assert "Approved for 12 months: semaglutide up to 2 mg weekly" in html
    assert JOY in rows_of(epa.page("/dashboard?show=determination"))
    assert epa.request_row(JOY)["status"] == "sent_to_plan"


def test_second_question_set_arrives_and_is_answered_with_any_behaviour(epa_for):
    epa = epa_for()
    assert "Waiting for the plan" in epa.page(f"/request/{VANCE}")
    epa.advance_clock(minutes=80)  # 10:20, after the reply at 10:15
    assert VANCE in rows_of(epa.page("/dashboard?show=follow_up"))
    html = epa.page(f"/request/{VANCE}")
    assert "needs more information" in html
    assert "Questions sent earlier: Acme Rx: GLP-1 receptor agonists (semaglutide)" in html
    assert 'id="q-weight_program"' in html and 'id="q-diagnosis"' not in html
    assert 'Most recent eGFR</label>' in html  # optional: no required mark
    reply = epa.autosave(VANCE, "uses_sulfonylurea", "no").json()
    assert "hypoglycemia_plan" not in reply["shown"]
    reply = epa.autosave(VANCE, "uses_insulin", "yes").json()
    assert "hypoglycemia_plan" in reply["shown"]  # any: one condition is enough
    reply = epa.autosave(VANCE, "renal_egfr", "72").json()
    assert "renal_egfr_date" in reply["shown"]  # exists
    assert epa.request_row(VANCE)["status"] == "in_progress"
    refused = epa.send(VANCE)
    assert "Answer the required questions" in refused.text
    answers = {"weight_program": "no", "titration_plan": "standard",
               "renal_egfr_date": "09/30/2026", "hypoglycemia_plan": "Basal insulin reduced "
               "by 20%; glucose checks twice daily"}
    assert epa.save_answers(VANCE, answers).status_code == 303
    assert epa.send(VANCE).status_code == 303
    row = epa.request_row(VANCE)
    assert (row["status"], row["send_count"]) == ("sent_to_plan", 2)
    epa.advance_clock(hours=4)
    assert "Approved for 12 months at up to 1 mg weekly." in epa.page(f"/request/{VANCE}")


def test_new_request_is_started_with_send_to_plan(epa_for):
    epa = epa_for()
    html = epa.page(f"/request/{IBARRA}")
    assert "has not been sent to the plan yet" in html and 'id="questions-form"' not in html
    assert epa.send(IBARRA).status_code == 303
    assert epa.request_row(IBARRA)["attested_by"] == "Dana Whitfield"
    epa.advance_clock(minutes=15)
    assert "Determination: Approved" in epa.page(f"/request/{IBARRA}")


def test_archive_and_unarchive(epa_for):
    epa = epa_for()
    assert epa.post_form(f"/request/{JOYCE}", f"/request/{JOYCE}/archive",
                         {"archive": "1"}).status_code == 303
    assert JOYCE in rows_of(epa.page("/dashboard?show=archived"))
    assert JOYCE not in rows_of(epa.page("/dashboard"))
    archived = epa.page(f"/request/{JOYCE}")
    assert "This request is archived" in archived and 'id="questions-form"' not in archived
    refused = epa.autosave(JOYCE, "diagnosis", "t2dm")
    assert refused.status_code == 409 and "archived" in refused.json()["error"]
    bad = epa.post_form(f"/request/{JOYCE}", f"/request/{JOYCE}/archive", {"archive": "x"})
    assert bad.status_code == 200
    assert epa.post_form(f"/request/{JOYCE}", f"/request/{JOYCE}/archive",
                         {"archive": "0"}).status_code == 303
    assert JOYCE in rows_of(epa.page("/dashboard"))


@pytest.mark.parametrize("url", ["/static/epa.css", "/static/epa.js"])
def test_static_files_are_served(epa_for, url):
    assert epa_for(login=False).client.get(url).status_code == 200
