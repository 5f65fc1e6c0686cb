"""Real Chromium on the fax service and the external review portal.

Headless Chromium sends a fax with attachments chosen through the page's file input and
files an external review with a document. Then the workstation's own browser (headful, on
its own Xvfb, with the episode's preferences, switches and confinement) fills Beta Care's
PDF form in Chromium's PDF viewer, driven only by xdotool keys and clicks on pixels, and
saves the filled copy into Downloads; that copy is faxed and read back from the sink.
"""

from __future__ import annotations

import asyncio
import io
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from pypdf import PdfReader

from tests.portal_web.browser import CHROMIUM, browser_login, serve_sites
from tests.portal_web.fax_regulator_support import (  # noqa: F401 - payer_seeds is a fixture
    EPISODE,
    FAX,
    FAX_LOGIN,
    REGULATOR,
    REGULATOR_LOGIN,
    ROSS_PA_FORM,
    advance_clock,
    chromium_page,
    payer_seeds,
)
from tests.portal_web.support import store_rows
from tests.requirements import requires
from tests.verifier.tasks.pa_support import fill_pdf

pytestmark = [
    pytest.mark.slow,
    requires(shutil.which(CHROMIUM) is not None, "chromium is not installed"),
]


def sink_fields(run: Path) -> tuple[int, dict]:
    (path,) = sorted((run / "fax_sink").glob("*.pdf"))
    reader = PdfReader(io.BytesIO(path.read_bytes()))
    return len(reader.pages), {k: v.get("/V") for k, v in reader.get_fields().items()}


def fax_through_browser(page, run: Path, files: list[Path]) -> str:  # noqa: ANN001
    """Compose and send in the page; returns the confirmation ID shown."""
    browser_login(page, FAX, *FAX_LOGIN)
    page.click("#nav-new-fax")
    page.select_option("#directory_entry", label="Beta Care – Utilization Management - "
                       "Medical Prior Authorization – 1-888-555-0142")
    assert page.input_value("#to_number") == "1-888-555-0142"
    page.fill("#cover_subject", "Prior authorization request: Ross, Hannah BTC55120987")
    page.fill("#cover_message", "CT abdomen with contrast (74160), planned 2026-10-27.")
    page.set_input_files("#files", [str(f) for f in files])
    page.click("#send-fax")
    page.wait_for_url("**/jobs/1")
    confirmation = page.inner_text("#confirmation-id")
    advance_clock(run, 120)
    page.reload()
    assert page.inner_text("#job-status") == "Delivered"
    return confirmation


def test_a_fax_with_attachments_chosen_in_the_file_input(payer_seeds, tmp_path):  # noqa: F811
    run = payer_seeds.run("pa-07")
    form = tmp_path / "beta_pa_form_filled.pdf"
    form.write_bytes(fill_pdf((run / "input" / "beta_pa_form.pdf").read_bytes(),
                              ROSS_PA_FORM))
    note = tmp_path / "visit-note.txt"
    note.write_text("Office visit 2026-10-14: indeterminate liver lesion, CT ordered.\n")
    with serve_sites(run, ["fax"], EPISODE) as port, chromium_page(port) as page:
        confirmation = fax_through_browser(page, run, [form, note])
        assert confirmation == "FX-1019-004201"
        assert page.locator("#job-documents tbody tr").count() == 2
    pages, fields = sink_fields(run)
    assert pages == 3 and fields == ROSS_PA_FORM


def test_an_external_review_filed_with_a_document(payer_seeds):  # noqa: F811
    run = payer_seeds.run("pa-12")
    letter = run / "input" / "dosimetry_plan.pdf"
    with serve_sites(run, ["regulator"], EPISODE) as port, chromium_page(port) as page:
        browser_login(page, REGULATOR, *REGULATOR_LOGIN)
        page.click("#start-request")
        page.check("#applicant_type-provider")
        for field, value in {
                "applicant_name": "Dana Whitfield",
                "applicant_relationship": "Treating physician's office",
                "applicant_phone": "217-555-0100", "enrollee_name": "Fischer, Anna",
                "enrollee_dob": "1961-01-29", "member_id": "ACM360118275",
                "plan_name": "Acme Gold PPO", "insurer_reference": "AP26-009815",
                "service_requested": "Proton beam therapy", "service_code": "77525",
                "diagnosis_code": "C50.412", "treating_provider_name": "Rafael Ortiz, MD",
                "treating_provider_npi": "1617283944",
                "reason_for_request": "Protons cut the mean heart dose to 0.8 Gy.",
                "signature_name": "Dana Whitfield"}.items():
            page.fill(f"#{field}", value)
        page.fill("#final_denial_date", "2026-09-03")
        assert page.inner_text("#deadline") == "2027-01-03"  # shown as you type
        assert page.is_checked("#patient_is_enrollee")
        page.select_option("#insurer_name", "Acme Health")
        page.select_option("#plan_type", "group_insured")
        page.select_option("#denial_type", "medical_necessity")
        page.check("#release_authorized")
        page.check("#attest_true")
        page.select_option("#document_type", "medical_records")
        page.set_input_files("#documents-input", str(letter))
        page.click("#attach")
        page.wait_for_url("**/requests/1/edit")
        assert page.locator("#documents tbody tr").count() == 1
        page.click("#submit-request")
        page.wait_for_url("**/requests/1?submitted=1")
        assert page.inner_text("#reference-number") == "ER-2026-004401"
    assert store_rows(run, "regulator", "select status, insurer_name, service_code from "
                                        "external_reviews") == [
        ("submitted", "Acme Health", "77525")]
    assert store_rows(run, "regulator", "select content from review_documents") == [
        (letter.read_bytes(),)]


# -- the PDF viewer of the locked-down workstation browser ----------------------------------
FIELD_BLUE = (210, 220, 255)  # the viewer's fill of an editable form field


def xdotool(display: str, *args: str) -> str:
    done = subprocess.run(["xdotool", *args], env={"DISPLAY": display, "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=30)
    return done.stdout.strip()


def wait_for(condition, timeout: float = 20.0, what: str = "condition"):  # noqa: ANN001, ANN201
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def first_form_field(display: str) -> tuple[int, int] | None:
    """The centre of the top-most form field on screen: a box of the fill colour at least
    300 pixels wide and 10 high, inside the page (right of the viewer's side bar)."""
    from PIL import Image, ImageChops, ImageGrab

    screen = ImageGrab.grab(xdisplay=display).convert("RGB")
    left = 320
    page = screen.crop((left, 0, screen.width, screen.height))
    diff = ImageChops.difference(page, Image.new("RGB", page.size, FIELD_BLUE))
    red, green, blue = diff.split()
    mask = ImageChops.lighter(ImageChops.lighter(red, green), blue).point(
        lambda v: 255 if v <= 12 else 0)
    share = mask.resize((1, mask.height), Image.Resampling.BOX)
    rows = [share.getpixel((0, y)) * mask.width / 255 >= 300 for y in range(mask.height)]
    top = None
    for y in range(120, len(rows)):
        if rows[y] and top is None:
            top = y
        elif not rows[y] and top is not None:
            if y - top >= 10:
                middle = (top + y) // 2
                box = mask.crop((0, middle, mask.width, middle + 1)).getbbox()
                return left + (box[0] + box[2]) // 2, middle
            top = None
    return None


@pytest.mark.display
@requires(shutil.which("xdotool") is not None, "xdotool is not installed")
def test_the_pdf_viewer_fills_and_saves_the_form_under_the_lockdown(payer_seeds,  # noqa: F811
                                                                    tmp_path):
    from episodes.workstation import BrowserTab, Workstation
    from pixel_stream.display import Display

    run = payer_seeds.run("pa-07")
    (run / "logs").mkdir()
    with serve_sites(run, ["workspace", "fax"], EPISODE) as port, \
            Display(1280, 800) as display:
        station = Workstation(
            display=display, home=run / "home", documents=run / "input",
            downloads=run / "downloads", portal_port=port, sites=["workspace", "fax"],
            tabs=[BrowserTab("workspace", "http://workspace.local/folder/documents")],
            clock_path=run / "clock.json", logs_dir=run / "logs")

        async def session() -> None:
            from playwright.async_api import async_playwright

            async with async_playwright() as pw:
                await station.start(pw)
                try:
                    await asyncio.to_thread(fill_and_save, display.name, run / "downloads")
                finally:
                    await station.stop()

        asyncio.run(session())
    # the browser ran confined, as in an episode (its launcher is the confined one)
    assert (run / "logs" / "chromium-confined.sh").is_file()
    assert not (run / "logs" / "confinement.log").exists()
    saved = wait_for(lambda: next(iter((run / "downloads").glob("ross_pa_form_filled.pdf")),
                                  None), what="the saved copy in Downloads")
    fields = {k: v.get("/V") for k, v in PdfReader(saved).get_fields().items()}
    assert fields == ROSS_PA_FORM

    # the saved copy, faxed from Downloads, reaches the sink with the typed values
    with serve_sites(run, ["fax"], EPISODE) as port, chromium_page(port) as page:
        fax_through_browser(page, run, [saved])
    pages, fields = sink_fields(run)
    assert pages == 2 and fields == ROSS_PA_FORM


def fill_and_save(display: str, downloads: Path) -> None:
    """What a user does: open the form from the address bar, click the first field, type
    each value and Tab to the next, press Ctrl+S, name the copy, and save it (Alt+S: the
    GTK dialog's Save button; Enter in its name box does not save)."""
    xdotool(display, "search", "--sync", "--onlyvisible", "--class", "Chromium")
    xdotool(display, "key", "ctrl+l")
    xdotool(display, "type", "--delay", "15",
            "workspace.local/view/documents/beta_pa_form.pdf")
    xdotool(display, "key", "Return")
    x, y = wait_for(lambda: first_form_field(display), what="the PDF viewer's form fields")
    xdotool(display, "mousemove", str(x), str(y), "click", "1")
    for value in ROSS_PA_FORM.values():
        xdotool(display, "type", "--delay", "15", value)
        xdotool(display, "key", "Tab")
    xdotool(display, "key", "ctrl+s")
    dialog = wait_for(lambda: xdotool(display, "search", "--onlyvisible", "--name",
                                      "^Save File$"), what="the Save File dialog")
    xdotool(display, "windowactivate", "--sync", dialog.split()[0])
    xdotool(display, "key", "ctrl+a")
    xdotool(display, "type", "--delay", "15", "ross_pa_form_filled.pdf")
    xdotool(display, "key", "alt+s")
    wait_for(lambda: not xdotool(display, "search", "--onlyvisible", "--name",
                                 "^Save File$"), what="the dialog to close")
    # the dialog closes before the copy is written: the browser must not stop before that
    # (a browser stopped at once once left an empty file)
    wait_for(lambda: _complete_pdf(downloads / "ross_pa_form_filled.pdf"),
             what="the saved copy written out")


def _complete_pdf(path: Path) -> bool:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return False
    return data.startswith(b"%PDF") and b"%%EOF" in data[-1024:]
