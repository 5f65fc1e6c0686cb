"""Real Chromium on the served Acme portal: log-in, the request wizard with a questionnaire
follow-up and uploads through the file input, the idle warning, and the recovery after the
portal ends the session at the attachment step (pa-19)."""

from __future__ import annotations

import shutil

import pytest

from tests.portal_web.acme.browser import ORIGIN, chromium, login, serve
from tests.portal_web.acme.support import make_portal
from tests.portal_web.browser import CHROMIUM
from tests.portal_web.support import run_store
from tests.requirements import requires

pytestmark = [
    pytest.mark.slow,
    requires(shutil.which(CHROMIUM) is not None, "chromium is not installed"),
]
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def choose_member(page, case_type: str, member_number: str) -> None:  # noqa: ANN001
    page.goto(f"{ORIGIN}/auth/requests/new")
    page.check(f"input[name=type][value={case_type}]")  # the page reloads with the type
    page.wait_for_url(f"**type={case_type}*")
    page.fill("#member_id", member_number)
    page.click("#member-search-button")
    page.click(f"#member-results button[aria-label*='{member_number}']")
    page.wait_for_url("**/provider")


def providers(page, requesting: str, rendering: str) -> None:  # noqa: ANN001
    page.fill("#requesting_npi", requesting)
    page.click("button[value=find_requesting]")
    page.wait_for_load_state()
    page.fill("#rendering_npi", rendering)
    page.click("button[value=find_rendering]")
    page.wait_for_load_state()
    page.click("#continue-button")
    page.wait_for_url("**/service")


def service(page, code: str, icd10: str) -> None:  # noqa: ANN001
    page.fill("#service_code", code)
    page.fill("#units", "1")
    page.fill("#service_from", "2026-10-26")
    page.fill("#service_to", "2026-12-24")
    page.select_option("#place_of_service", "22")
    page.fill("#icd10_codes", icd10)
    page.click("#continue-button")
    page.wait_for_url("**/questionnaire")


def upload(page, name: str, document_type: str, tmp_path) -> None:  # noqa: ANN001
    path = tmp_path / name
    path.write_bytes(PDF)
    page.set_input_files("input#file", str(path))
    page.select_option("#document_type", document_type)
    page.click("#upload-button")
    page.wait_for_load_state()


def test_login_wrong_password_then_menu_by_role(seeds):
    run = seeds.run("pa-01")
    with serve(run) as port, chromium(port) as page:
        page.goto(f"{ORIGIN}/auth/cases")
        assert "/login" in page.url
        page.fill("#username", "riverside.billing")
        page.fill("#password", "wrong")
        page.click("#login-button")
        assert "incorrect" in page.inner_text(".alert-danger")
        page.fill("#password", "AcmeBilling#2026")
        page.click("#login-button")
        page.wait_for_load_state()
        assert "does not have access to Authorizations" in page.inner_text("main")
        page.goto(f"{ORIGIN}/home")
        menu = page.inner_text("nav.mainnav")
        assert "Claims & Payments" in menu and "Authorizations" not in menu


def test_wizard_with_follow_up_questions_and_uploads(seeds, tmp_path):
    run = seeds.run("pa-01")
    with serve(run) as port, chromium(port) as page:
        login(page)
        choose_member(page, "outpatient", "ACM402918331")
        providers(page, "1546827399", "1938475625")
        service(page, "72148", "M51.16")
        follow_up = page.locator("#question-physical_therapy")
        assert not follow_up.is_visible()
        page.check("input[name=q_conservative_therapy_6wk][value=yes]")
        assert follow_up.is_visible()  # shown as soon as the answer enables it
        page.check("input[name=q_physical_therapy][value=yes]")
        page.fill("#q_pt_weeks", "6")
        page.check("input[name=q_nsaid_trial][value=yes]")
        page.fill("#q_nsaid_name", "naproxen 500 mg twice daily")
        page.fill("#q_primary_diagnosis", "M51.16")
        page.fill("#q_symptom_duration_weeks", "10")
        page.check("input[name=q_red_flags][value=none]")
        page.check("input[name=q_prior_imaging][value=xray]")
        page.click("#continue-button")
        page.wait_for_url("**/attachments")
        upload(page, "pt-discharge.pdf", "therapy_note", tmp_path)
        upload(page, "ortho-consult.pdf", "clinical_note", tmp_path)
        assert "ortho-consult.pdf" in page.inner_text("#attached-documents")
        page.click("#continue-button")
        page.wait_for_url("**/review")
        page.check("#attest")
        page.click("#submit-button")
        page.wait_for_url("**/confirmation")
        reference = page.inner_text("#tracking-reference")
    portal = make_portal(run)
    assert portal.query("select status, service_code from pa_cases where reference_number = ?",
                        reference) == [("in_review", "72148")]
    assert portal.query("select answer from pa_answers where question_key = 'pt_weeks'") == [
        ("6",)]
    assert portal.query("select count(*) from attachments") == [(2,)]
    assert portal.query("select distinct channel, episode_id from audit_log "
                        "where channel != 'seed'") == [("browser", "ep-browser")]


def test_idle_warning_and_stay_logged_in(seeds):
    from sandbox.stores.acme import PortalSetting

    run = seeds.run("pa-01")
    with run_store(run, "acme") as store, store.writer() as db:
        db.get(PortalSetting, 1).value = "1"  # one idle minute: the warning shows at once
    with serve(run) as port, chromium(port) as page:
        login(page)
        page.wait_for_selector("#idle-warning", state="visible")
        assert "about to expire" in page.inner_text("#idle-warning")
        page.click("#idle-stay")
        page.wait_for_selector("#idle-warning", state="hidden")


def test_deleting_a_draft_asks_in_the_page_first(seeds):
    run = seeds.run("pa-01")
    with serve(run) as port, chromium(port) as page:
        login(page)
        choose_member(page, "outpatient", "ACM610283559")
        page.goto(f"{ORIGIN}/auth/drafts")
        assert "Becker, Tom" in page.inner_text("#my-drafts")
        page.click("#my-drafts button[aria-label='Delete draft for Becker, Tom']")
        dialog = page.get_by_role("alertdialog", name="Delete draft")
        dialog.wait_for()  # the browser's confirm() box was dismissed unseen
        assert "Becker, Tom? This cannot be undone." in dialog.inner_text()
        dialog.get_by_role("button", name="Cancel").click()
        assert dialog.count() == 0 and "Becker, Tom" in page.inner_text("#my-drafts")
        page.click("#my-drafts button[aria-label='Delete draft for Becker, Tom']")
        page.keyboard.press("Escape")
        assert dialog.count() == 0
        page.click("#my-drafts button[aria-label='Delete draft for Becker, Tom']")
        dialog.get_by_role("button", name="Delete draft").click()
        page.wait_for_url("**/auth/drafts")
        page.wait_for_selector("text=Draft deleted.")
        assert "You have no drafts." in page.inner_text("#my-drafts")
    assert make_portal(run).query("select count(*) from pa_cases") == [(0,)]


def test_session_expiry_at_the_attachment_step_and_recovery(seeds, tmp_path):
    run = seeds.run("pa-19")
    with serve(run) as port, chromium(port) as page:
        login(page)
        choose_member(page, "outpatient", "ACM610283559")
        providers(page, "1673492017", "1938475625")
        service(page, "75561", "I42.0")
        page.fill("#q_primary_diagnosis", "I42.0")
        page.check("input[name=q_indication][value=cardiomyopathy_eval]")
        page.check("input[name=q_echo_done][value=yes]")
        page.fill("#q_echo_date", "2026-09-28")
        page.fill("#q_echo_lvef", "35")
        page.check("input[name=q_echo_inconclusive][value=no]")
        page.fill("#q_egfr", "78")
        page.check("input[name=q_implanted_device][value=no]")
        page.click("#continue-button")
        page.wait_for_url("**/attachments")
        upload(page, "consult.pdf", "clinical_note", tmp_path)
        assert "/login" in page.url
        assert "session has expired" in page.inner_text(".alert-info")
        page.fill("#username", "riverside.pa")
        page.fill("#password", "AcmePortal#2026")
        page.click("#login-button")
        page.wait_for_url("**/auth/drafts*")
        drafts = page.inner_text("#my-drafts")
        assert "Becker, Tom" in drafts and "Session expired" in drafts
        assert "Nothing submitted yet" in page.inner_text("#recently-submitted")
        page.click("#my-drafts a:has-text('Resume')")
        page.wait_for_url("**/attachments")
        upload(page, "consult.pdf", "clinical_note", tmp_path)
        upload(page, "echo.pdf", "imaging_report", tmp_path)
        page.click("#continue-button")
        page.wait_for_url("**/review")
        page.check("#attest")
        page.click("#submit-button")
        page.wait_for_url("**/confirmation")
    portal = make_portal(run)
    assert portal.query("select status, service_code from pa_cases") == [("in_review", "75561")]
    assert portal.query("select session_expired from pa_drafts") == [(1,)]
