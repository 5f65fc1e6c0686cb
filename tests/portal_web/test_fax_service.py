"""The Beta Care fax service: log-in, compose, transmission on the sandbox clock, the sink,
the sent log, payer resources, validation and duplicate protection (TestClient)."""

from __future__ import annotations

import io
import re
import time

import pytest
from pypdf import PdfReader

from tests.portal_web.fax_regulator_support import (  # noqa: F401 - payer_seeds is a fixture
    EPISODE,
    FAX_LOGIN,
    ROSS_PA_FORM,
    advance_clock,
    deliver,
    fax_client,
    feedback,
    form_tokens,
    payer_seeds,
    send_fax,
)
from tests.portal_web.support import tokens
from tests.verifier.tasks.pa_support import fill_pdf


@pytest.fixture
def fax(payer_seeds):  # noqa: F811
    return fax_client(payer_seeds.run("pa-07"), EPISODE)


def filled_form(fax) -> bytes:  # noqa: ANN001
    return fill_pdf((fax.run_dir / "input" / "beta_pa_form.pdf").read_bytes(), ROSS_PA_FORM)


def jobs(fax) -> list[tuple]:  # noqa: ANN001
    return fax.query("select id, status, to_digits, confirmation_id, page_count from fax_jobs "
                     "order by id")


def test_log_in_with_the_creds_file_and_refuse_a_wrong_password(payer_seeds):  # noqa: F811
    fax = fax_client(payer_seeds.run("pa-07"), EPISODE, login=False)
    assert fax.client.get("/sent", follow_redirects=False).headers["location"].startswith(
        "/login")
    page = fax.client.get("/login")
    wrong = fax.client.post("/login", data={**tokens(page.text),
                                            "username": FAX_LOGIN[0], "password": "nope"})
    assert "user name or password is incorrect" in wrong.text
    fax.login(*FAX_LOGIN)
    assert "Riverside PA Desk" in fax.client.get("/sent").text


def test_a_sent_fax_is_queued_then_delivered_on_the_sandbox_clock(fax):
    response = send_fax(fax, files=[("beta_pa_form_filled.pdf", filled_form(fax))],
                        subject="PA request: Ross, Hannah")
    assert response.status_code == 303 and response.headers["location"] == "/jobs/1"
    assert jobs(fax) == [(1, "queued", "18885550142", "FX-1019-004201", 2)]
    page = fax.client.get("/jobs/1").text
    assert 'id="confirmation-id">FX-1019-004201<' in page and "Queued" in page
    advance_clock(fax.run_dir, 20)     # dialled and connected: sending the pages
    assert "Sending p. 1/2" in fax.client.get("/sent").text
    assert jobs(fax)[0][1] == "sending"
    advance_clock(fax.run_dir, 60)
    page = fax.client.get("/jobs/1").text
    assert jobs(fax)[0][1] == "delivered"
    assert "Delivered: 2 pages confirmed by BETACARE UM PA" in page
    assert fax.query("select to_digits, from_digits, filename, page_count from "
                     "received_faxes") == [("18885550142", "12175550199",
                                            "FX-1019-004201.pdf", 2)]


def test_the_sink_keeps_cover_then_documents_with_the_typed_form_values(fax):
    note = b"Clinical note\nRight upper quadrant pain since 2026-09-07.\n"
    send_fax(fax, files=[("form.pdf", filled_form(fax)), ("note.txt", note)],
             subject="PA request: Ross, Hannah", message="CT abdomen with contrast, 74160.")
    deliver(fax)
    data = (fax.run_dir / "fax_sink" / "FX-1019-004201.pdf").read_bytes()
    assert fax.query("select content from received_faxes")[0][0] == data
    reader = PdfReader(io.BytesIO(data))
    assert len(reader.pages) == 3
    cover, form, text = (page.extract_text() for page in reader.pages)
    assert "FAX" in cover and "PA request: Ross, Hannah" in cover and "Pages:" in cover
    assert "3 (including cover)" in cover and "CT abdomen with contrast" in cover
    assert "Beta Care - Prior Authorization Request" in form
    assert "Right upper quadrant pain" in text
    assert "P. 2/3" in form  # the transmit header line on every page
    fields = {k: v.get("/V") for k, v in reader.get_fields().items()}
    assert fields == ROSS_PA_FORM


def test_without_a_cover_sheet_the_sink_starts_with_the_form(fax):
    send_fax(fax, files=[("form.pdf", filled_form(fax))], cover=False)
    deliver(fax)
    reader = PdfReader(io.BytesIO((fax.run_dir / "fax_sink" / "FX-1019-004201.pdf")
                                  .read_bytes()))
    assert len(reader.pages) == 1
    assert "Prior Authorization Request" in reader.pages[0].extract_text()
    assert fax.query("select include_cover, page_count from fax_jobs") == [(0, 1)]


def test_writes_are_the_browser_sessions_and_the_sinks_own(fax):
    mark = fax.audit_mark()
    send_fax(fax, files=[("form.pdf", filled_form(fax))])
    deliver(fax)
    entries = fax.audit_since(mark)
    assert {(c, e, a, t) for c, e, a, _, t in entries} == {
        ("browser", EPISODE, "riverside.fax", "fax_jobs"),
        ("browser", EPISODE, "riverside.fax", "fax_documents"),
        ("fax", EPISODE, "fax-server", "fax_jobs"),
        ("fax", EPISODE, "fax-server", "received_faxes")}


def test_uploads_are_stored_byte_exact_with_their_pages(fax):
    form = filled_form(fax)
    image = _png()
    send_fax(fax, files=[("form.pdf", form), ("scan.png", image)])
    rows = fax.query("select filename, content_type, page_count, content from fax_documents "
                     "order by position")
    assert [(n, t, p) for n, t, p, _ in rows] == [("form.pdf", "application/pdf", 1),
                                                  ("scan.png", "image/png", 1)]
    assert rows[0][3] == form and rows[1][3] == image


def _png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (300, 200), "white").save(out, "PNG")
    return out.getvalue()


def test_busy_once_line_is_retried_and_delivered(fax):
    send_fax(fax, to="1-888-555-0124", files=[("form.pdf", filled_form(fax))])
    advance_clock(fax.run_dir, 30)
    page = fax.client.get("/jobs/1").text
    assert "Line busy. Retry 2 of 3 at 09:01:16." in page and "Retry pending" in page
    deliver(fax)
    assert jobs(fax)[0][1] == "delivered"
    assert "Dialling 1-888-555-0124 (attempt 2 of 3)" in fax.client.get("/jobs/1").text


@pytest.mark.parametrize(("number", "reason"), [
    ("217-555-0188", "Line busy. Not delivered after 3 attempts."),
    ("1-888-555-0412", "No fax answer tone"),  # not in the directory
])
def test_lines_that_never_answer_fail_after_three_attempts(fax, number, reason):
    send_fax(fax, to=number, files=[("form.pdf", filled_form(fax))])
    deliver(fax, 900)
    assert jobs(fax)[0][1] == "failed"
    assert reason in fax.query("select failure_reason from fax_jobs")[0][0]
    assert fax.query("select count(*) from received_faxes") == [(0,)]
    assert not list((fax.run_dir / "fax_sink").iterdir())
    assert "badge-failed" in fax.client.get("/sent?show=failed").text


@pytest.mark.parametrize(("data", "field", "message"), [
    ({"to": ""}, "to_number", "Enter the recipient's fax number"),
    ({"to": "555-0142"}, "to_number", "10 digits with the area code"),
    ({"to": "1-888-555-01AB"}, "to_number", "digits only"),
    ({"to": "1-088-555-0142"}, "to_number", "not a valid US fax number"),
    ({"message": "x" * 1501}, "cover_message", "Put longer text in an attached letter"),
])
def test_bad_input_is_refused_with_a_message_and_writes_nothing(fax, data, field, message):
    mark = fax.audit_mark()
    response = send_fax(fax, files=[("form.pdf", filled_form(fax))], **data)
    assert response.status_code == 200
    assert any(message in m for m in feedback(response.text)), feedback(response.text)
    assert f'id="{field}"' in response.text and 'aria-invalid="true"' in response.text
    assert fax.audit_since(mark) == []


@pytest.mark.parametrize(("name", "content", "message"), [
    ("letter.docx", b"PK\x03\x04 word", "cannot be faxed"),
    ("broken.pdf", b"%PDF-1.7 not really", "not a readable PDF"),
    ("empty.pdf", b"", "is empty"),
])
def test_files_that_cannot_be_faxed_are_named(fax, name, content, message):
    mark = fax.audit_mark()
    response = send_fax(fax, files=[(name, content)])
    assert response.status_code == 200
    assert any(message in m and (name in m or not content) for m in feedback(response.text))
    assert fax.audit_since(mark) == []


def test_a_fax_needs_a_document_or_a_cover_message(fax):
    response = send_fax(fax, cover=False)
    assert "Attach at least one document, or send a cover sheet with a message." in \
        feedback(response.text)
    response = send_fax(fax, message="Please call our office about claim BC-26071583.")
    assert response.status_code == 303
    assert jobs(fax)[0][4] == 1  # the cover sheet alone


def test_double_submit_and_back_button_never_queue_a_second_job(fax):
    page = fax.client.get("/compose").text
    data = {**form_tokens(page, "compose-form"), "action": "send",
            "to_number": "1-888-555-0142", "include_cover": "1", "cover_message": "PA"}
    first = fax.client.post("/compose", data=data, follow_redirects=False)
    again = fax.client.post("/compose", data=data, follow_redirects=False)
    assert first.headers["location"] == again.headers["location"] == "/jobs/1"
    assert len(jobs(fax)) == 1
    # the draft page of a sent job shows its delivery report instead of the form
    assert fax.client.get("/compose/1", follow_redirects=False).headers["location"] == \
        "/jobs/1"


def test_attach_builds_a_draft_that_lists_pages_and_can_be_sent(fax):
    response = send_fax(fax, action="attach", files=[("form.pdf", filled_form(fax)),
                                                     ("note.txt", b"note")])
    assert response.headers["location"] == "/compose/1"
    page = fax.client.get("/compose/1").text
    assert "2 files attached." in page
    assert re.search(r'id="total-pages">3<', page)
    doc = fax.query("select id from fax_documents where filename = 'note.txt'")[0][0]
    response = send_fax(fax, page="/compose/1", action=f"remove:{doc}")
    assert response.headers["location"] == "/compose/1"
    assert fax.query("select filename from fax_documents") == [("form.pdf",)]
    response = send_fax(fax, page="/compose/1")
    assert response.headers["location"] == "/jobs/1"
    assert jobs(fax) == [(1, "queued", "18885550142", "FX-1019-004201", 2)]


def test_directory_pick_fills_the_number_and_recipient(fax):
    response = send_fax(fax, to="", action="use_directory", directory_entry="2")
    page = fax.client.get(response.headers["location"]).text
    assert 'value="1-888-555-0177"' in page
    assert 'value="Beta Care - Provider Appeals"' in page
    page = fax.client.get("/directory?q=0142").text
    assert "Utilization Management" in page and "Provider Services" in page
    assert "Pharmacy Prior Authorization" not in page


def test_discarding_a_draft_deletes_it_and_its_files(fax):
    send_fax(fax, action="attach", files=[("form.pdf", filled_form(fax))])
    response = send_fax(fax, page="/compose/1", action="discard")
    assert response.headers["location"] == "/compose"
    assert jobs(fax) == [] and fax.query("select count(*) from fax_documents") == [(0,)]


def test_sent_log_sorts_filters_and_searches(fax):
    send_fax(fax, to="1-888-555-0142", files=[("a.pdf", filled_form(fax))], subject="Ross")
    send_fax(fax, to="217-555-0188", files=[("b.pdf", filled_form(fax))], subject="Records")
    deliver(fax, 900)
    log = fax.client.get("/sent?sort=recipient&dir=asc").text
    assert log.index("Beta Care - Utilization") < log.index("Riverside Memorial")
    assert "FX-1019-004201" in fax.client.get("/sent?show=delivered").text
    assert "FX-1019-004202" not in fax.client.get("/sent?show=delivered").text
    assert "FX-1019-004202" in fax.client.get("/sent?q=Records").text
    assert "FX-1019-004201" not in fax.client.get("/sent?q=Records").text


def test_payer_resources_show_the_bulletins_numbers_and_claims(payer_seeds):  # noqa: F811
    fax = fax_client(payer_seeds.run("pa-17"), EPISODE)
    page = fax.client.get("/resources").text
    assert "within 90 calendar days of the date of the denial" in page
    assert "by fax only, at 1-888-555-0177" in page
    assert "Bulletin beta-prior-authorization" in page
    assert "BC-26071583" in page and "08/05/2026" in page


@pytest.mark.parametrize(("claim", "late"), [("BC-26071583", False), ("BC-26064410", True)])
def test_appeals_by_fax_are_acknowledged_and_late_ones_accepted_with_a_warning(
        payer_seeds, claim, late):  # noqa: F811
    fax = fax_client(payer_seeds.run("pa-17"), EPISODE)
    response = send_fax(fax, to="1-888-555-0177", subject=f"Appeal: claim {claim}",
                        message="Riverside requests reconsideration of this claim denial.")
    assert response.status_code == 303
    deliver(fax)
    page = fax.client.get("/jobs/1").text
    assert f'id="ack-{claim}"' in page
    assert ("untimely" in page) is late
    assert ("alert-warning" in page) is late
    assert fax.query("select status from fax_jobs") == [("delivered",)]


def test_unknown_pages_are_not_found_pages(fax):
    assert fax.client.get("/jobs/99").status_code == 404
    assert fax.client.get("/compose/99").status_code == 404
    assert fax.client.get("/resources/bulletins/none").status_code == 404
    assert fax.client.get("/nowhere").status_code == 404


def test_while_the_clock_runs_a_fax_is_delivered_without_anyone_looking(fax):
    """In an episode the clock runs: the service's transmitter delivers on its own."""
    from sandbox.clock import SandboxClock

    SandboxClock.load(fax.run_dir / "clock.json").run().save(fax.run_dir / "clock.json")
    send_fax(fax, files=[("form.pdf", filled_form(fax))])
    advance_clock(fax.run_dir, 600)  # time passes; no page of the service is requested
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not fax.query("select id from received_faxes"):
        time.sleep(0.05)
    assert fax.query("select job_id from received_faxes") == [(1,)]
    assert (fax.run_dir / "fax_sink" / "FX-1019-004201.pdf").is_file()
