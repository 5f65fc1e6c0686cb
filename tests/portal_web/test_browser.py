"""Real Chromium against the served web EHR: log-in, vitals, allergies and a lab order,
each checked in the store with the browser channel."""

from __future__ import annotations

import shutil

import pytest

from tests.portal_web.browser import CHROMIUM, ORIGIN, chromium, login, serve
from tests.portal_web.support import PASSWORDS, make_client
from tests.requirements import requires

pytestmark = [
    pytest.mark.slow,
    requires(shutil.which(CHROMIUM) is not None, "chromium is not installed"),
]


def test_login_page_and_wrong_password(seeds):
    run = seeds.run("ord-01")
    with serve(run) as port, chromium(port) as page:
        page.goto(f"{ORIGIN}/patient/1")
        assert "/login" in page.url
        page.fill("#authUser", "nurse.kelly")
        page.fill("#clearPass", "not-the-password")
        page.click("#login-button")
        assert page.locator(".alert-danger").inner_text().startswith("Invalid username")
        page.fill("#clearPass", PASSWORDS["nurse.kelly"])
        page.click("#login-button")
        page.wait_for_url(f"{ORIGIN}/patient/1")
        assert "Medical Record Dashboard" in page.inner_text("h2")


def test_vitals_entered_in_metric_through_the_browser(seeds):
    run = seeds.run("ord-01")
    with serve(run) as port, chromium(port) as page:
        login(page, "nurse.kelly", PASSWORDS["nurse.kelly"])
        page.goto(f"{ORIGIN}/patient/1")
        page.click("text=Today's Encounter")
        page.click("summary:has-text('Clinical')")
        page.click(".enc-toolbar >> text=Vitals")
        page.fill("#weight_kg", "81.4")
        assert page.input_value("#weight_lb") == "179.46"  # the page mirrors units
        page.fill("#height_cm", "176")
        page.fill("#bps", "128")
        page.fill("#bpd", "82")
        page.fill("#pulse", "76")
        page.fill("#temperature_c", "37.1")
        page.fill("#oxygen_saturation", "97")
        assert page.input_value("#bmi_preview") == "26.3"
        page.click("#vitals-save")
        page.wait_for_url(f"{ORIGIN}/patient/1/encounter/1001")
        assert "Vitals saved." in page.inner_text(".alert-success")
    ehr = make_client(run)
    assert ehr.query("select weight, height, temperature, BMI, bps, bpd from form_vitals "
                     "where user = 'nurse.kelly' and pid = 1 order by id desc limit 1") == [
        (179.46, 69.29, 98.78, 26.3, "128", "82")]
    channels = ehr.query("select distinct channel, episode_id from audit_log where "
                         "table_name = 'form_vitals' and channel != 'seed'")
    assert channels == [("browser", "ep-browser")]


def test_allergy_added_and_sulfa_inactivated(seeds):
    run = seeds.run("ord-04")
    with serve(run) as port, chromium(port) as page:
        login(page, "nurse.kelly", PASSWORDS["nurse.kelly"])
        page.goto(f"{ORIGIN}/main/finder")
        page.fill("input[name=q]", "402301")
        page.press("input[name=q]", "Enter")
        page.click("#finder-results >> text=Raman, Priya")
        page.click("#card-allergies >> text=Edit")
        page.click("#add-allergy")
        page.fill("#title", "Penicillin")
        page.select_option("#reaction", "hives")
        page.select_option("#severity_al", "moderate")
        page.fill("#begdate", "2026-09-30")
        page.click("#issue-save")
        page.click("#issues-allergy >> text=Sulfa")
        page.fill("#enddate", "2026-10-19")
        page.fill("#comments", "Tolerated TMP-SMX 2025 per pharmacy")
        page.click("#issue-save")
        page.wait_for_url("**/issues?type=allergy")
        assert "Inactive" in page.inner_text("#issues-allergy")
    ehr = make_client(run)
    rows = ehr.query("select title, reaction, severity_al, begdate, enddate, activity, comments "
                     "from lists where pid = 7 and type = 'allergy' order by id")
    assert ("Penicillin", "hives", "moderate", "2026-09-30", None, 1, None) in rows
    assert ("Sulfa", "rash", "moderate", "2014-06-01", "2026-10-19", 1,
            "Tolerated TMP-SMX 2025 per pharmacy") in rows


def test_lab_order_with_diagnoses_through_the_browser(seeds):
    run = seeds.run("ord-09")
    with serve(run) as port, chromium(port) as page:
        login(page, "dr.osei", PASSWORDS["dr.osei"])
        page.goto(f"{ORIGIN}/patient/10")
        page.click("summary:has-text('Procedures')")
        page.click(".mainnav >> text=Order")
        page.select_option("#lab_id", "1")
        page.fill("#date_collected", "2026-10-28")
        page.select_option("#specimen_fasting", "YES")
        page.fill("#patient_instructions", "12-hour fast")
        page.select_option("#test_1", "110")
        page.fill("#dx_1", "E11.9, E99.99")
        page.click("#order-save")
        assert "not a valid ICD-10-CM code" in page.inner_text("#order-form")
        page.fill("#dx_1", "E11.9, E78.5")
        page.select_option("#test_2", "120")
        page.fill("#dx_2", "E11.9, E78.5")
        page.click("#order-save")
        page.wait_for_url("**/patient/10/orders#order-*")
        assert "Hemoglobin A1c" in page.inner_text("#orders-table")
    ehr = make_client(run)
    order = ehr.query("select procedure_order_id, lab_id, specimen_fasting, "
                      "patient_instructions from procedure_order where patient_id = 10 "
                      "order by procedure_order_id desc limit 1")[0]
    assert order[1:] == (1, "YES", "12-hour fast")
    assert ehr.query("select procedure_code, diagnoses from procedure_order_code where "
                     "procedure_order_id = ? order by procedure_order_seq", order[0]) == [
        ("80061", "ICD10:E11.9;ICD10:E78.5"), ("83036", "ICD10:E11.9;ICD10:E78.5")]
