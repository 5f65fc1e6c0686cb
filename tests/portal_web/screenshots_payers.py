"""Takes the README screenshots of the Beta Care fax service and the state's external review
portal (1280x800, real Chromium, seeded tasks).

``python -m tests.portal_web.screenshots_payers [OUT_DIR]`` (default ``docs/screenshots``).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from sandbox.seeding import seed_task
from tests.portal_web.browser import browser_login, serve_sites
from tests.portal_web.fax_regulator_support import (
    CATALOG,
    EHR,
    EPISODE,
    FAX,
    FAX_LOGIN,
    REGULATOR,
    REGULATOR_LOGIN,
    ROSS_PA_FORM,
    advance_clock,
    chromium_page,
)
from tests.portal_web.screenshots import shoot
from tests.portal_web.support import PASSWORDS
from tests.verifier.tasks.pa_support import fill_pdf

REPO = Path(__file__).resolve().parents[2]


def seeded(alias: str, work: Path) -> Path:
    return seed_task(CATALOG.get(alias), None, work / alias, episode_id=EPISODE)


def send(page, number: str, subject: str, message: str,  # noqa: ANN001 - playwright Page
         files: list[Path]) -> None:
    page.goto(f"{FAX}/compose")
    page.fill("#to_number", number)
    page.fill("#cover_subject", subject)
    page.fill("#cover_message", message)
    if files:
        page.set_input_files("#files", [str(f) for f in files])
    page.click("#send-fax")
    page.wait_for_url("**/jobs/*")


def fax_screens(work: Path, out: Path) -> None:
    run = seeded("pa-07", work)
    form = work / "beta_pa_form_Ross_Hannah.pdf"
    form.write_bytes(fill_pdf((run / "input" / "beta_pa_form.pdf").read_bytes(), ROSS_PA_FORM))
    with serve_sites(run, ["fax", "ehr"], EPISODE) as port, chromium_page(port) as page:
        page.goto(f"{EHR}/login")
        page.fill("#authUser", "pa.coord")
        page.fill("#clearPass", PASSWORDS["pa.coord"])
        page.click("#login-button")
        page.wait_for_url(lambda url: "/login" not in url)
        page.goto(f"{EHR}/patient/107/documents/1001")
        with page.expect_download() as download:
            page.click("#document-download")
        note = work / download.value.suggested_filename
        download.value.save_as(str(note))

        browser_login(page, FAX, *FAX_LOGIN)
        send(page, "217-555-0188", "Records request: Ross, Hannah",
             "Please send the abdominal ultrasound images of 2026-10-02.", [])
        advance_clock(run, 420)
        page.goto(f"{FAX}/compose")
        page.select_option("#directory_entry", "1")
        page.fill("#cover_subject", "Prior authorization request: Ross, Hannah BTC55120987")
        page.fill("#cover_message", "Attached: Beta Care PA request form BC-PA-100 and the "
                  "office visit note of 2026-10-14 for CT abdomen with contrast (74160), "
                  "planned 2026-10-27 at Springfield Imaging Center. Please fax the "
                  "decision to 217-555-0199.")
        page.set_input_files("#files", [str(form), str(note)])
        page.click("#attach")
        page.wait_for_url("**/compose/*")
        shoot(page, out / "fax-compose.png")
        page.click("#send-fax")
        page.wait_for_url("**/jobs/*")
        advance_clock(run, 25)
        send(page, "1-888-555-0124", "Member letter: Ross, Hannah", "Copy of the member's "
             "request for an ID card replacement.", [])
        advance_clock(run, 30)
        page.goto(f"{FAX}/sent")
        shoot(page, out / "fax-sent-log.png")
        advance_clock(run, 120)
        page.goto(f"{FAX}/jobs/2")
        shoot(page, out / "fax-delivery-report.png")
    run = seeded("pa-17", work)
    with serve_sites(run, ["fax"], EPISODE) as port, chromium_page(port) as page:
        browser_login(page, FAX, *FAX_LOGIN)
        page.goto(f"{FAX}/resources")
        shoot(page, out / "fax-payer-resources.png")


def regulator_screens(work: Path, out: Path) -> None:
    run = seeded("pa-12", work)
    with serve_sites(run, ["regulator"], EPISODE) as port, chromium_page(port) as page:
        browser_login(page, REGULATOR, *REGULATOR_LOGIN)
        page.goto(f"{REGULATOR}/requests/new")
        page.check("#applicant_type-provider")
        page.fill("#applicant_name", "Dana Whitfield")
        page.fill("#applicant_relationship", "Treating physician's office")
        page.fill("#applicant_phone", "217-555-0100")
        page.fill("#enrollee_name", "Fischer, Anna")
        page.fill("#enrollee_dob", "1961-01-29")
        page.fill("#member_id", "ACM360118275")
        page.fill("#final_denial_date", "2026-09-03")
        page.evaluate("window.scrollTo(0, 0)")
        shoot(page, out / "regulator-request-form.png")
        page.click("#submit-request")  # the page comes back with what is still missing
        page.wait_for_selector("#error-summary")
        page.evaluate("document.getElementById('part3').scrollIntoView()")
        shoot(page, out / "regulator-validation.png")
        values = {"plan_name": "Acme Gold PPO", "insurer_reference": "AP26-009815",
                  "service_requested": "Proton beam therapy", "service_code": "77525",
                  "diagnosis_code": "C50.412", "treating_provider_name": "Rafael Ortiz, MD",
                  "treating_provider_npi": "1617283944", "signature_name": "Dana Whitfield",
                  "reason_for_request": "The comparative plan shows a mean heart dose of "
                                        "0.8 Gy(RBE) with protons against 5.1 Gy with IMRT."}
        for field, value in values.items():
            page.fill(f"#{field}", value)
        page.select_option("#insurer_name", "Acme Health")
        page.select_option("#plan_type", "group_insured")
        page.select_option("#denial_type", "medical_necessity")
        page.check("#release_authorized")
        page.check("#attest_true")
        page.select_option("#document_type", "medical_records")
        page.set_input_files("#documents-input", str(run / "input" / "dosimetry_plan.pdf"))
        page.click("#submit-request")
        page.wait_for_url("**/requests/*?submitted=1")
        shoot(page, out / "regulator-status.png")


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        fax_screens(Path(tmp), out)
        regulator_screens(Path(tmp), out)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "screenshots")
