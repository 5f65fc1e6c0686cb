"""Real Chromium against the served ePA portal: an answer unlocks its follow-up on the page
(saved as entered, no Save pressed), and a file goes through the browser's own file chooser
(``<input type="file">``) into the store byte for byte."""

from __future__ import annotations

import hashlib
import shutil

import pytest

from tests.portal_web.browser import CHROMIUM
from tests.portal_web.epa.browser import ORIGIN, chromium_epa, login_epa, serve_epa
from tests.portal_web.epa.support import JOY, make_epa
from tests.requirements import requires

pytestmark = [
    pytest.mark.slow,
    requires(shutil.which(CHROMIUM) is not None, "chromium is not installed"),
]


def test_answer_unlocks_follow_up_and_file_uploads_through_the_chooser(pa20_runs, tmp_path):
    run = pa20_runs.run("pa-20")
    note = tmp_path / "office-visit-2026-10-16.pdf"
    note.write_bytes(b"%PDF-1.4\n% office visit\n" + bytes(range(256)) * 40 + b"\n%%EOF\n")
    with serve_epa(run) as port, chromium_epa(port) as page:
        login_epa(page)
        page.fill("#key", "BX7Q-4KTM")
        page.fill("#last_name", "Turner")
        page.fill("#dob", "02/22/1977")
        page.click("#open-key")
        page.wait_for_url(f"{ORIGIN}/request/{JOY}")
        assert page.locator("#q-metformin_trial").is_hidden()
        page.select_option("#a_diagnosis", "t2dm")
        page.wait_for_selector("#q-metformin_trial", state="visible")
        assert page.locator("#q-metformin_dose").is_hidden()
        page.check("#a_metformin_trial-yes")
        page.wait_for_selector("#q-metformin_dose", state="visible")
        assert page.locator("#q-metformin_contraindication").is_hidden()
        assert page.inner_text("#q-metformin_dose .q-num") == "9"
        page.fill("#a_metformin_dose", "1000 mg twice daily")
        page.press("#a_metformin_dose", "Tab")
        page.wait_for_function("document.getElementById('save-status').textContent"
                               ".startsWith('All changes saved')")
        page.fill("#a_bmi", "3x")
        page.press("#a_bmi", "Tab")
        page.wait_for_selector("#a_bmi-error:not([hidden])")
        assert "enter a number" in page.inner_text("#a_bmi-error")
        page.set_input_files("#file", str(note))
        page.click("#attach")
        page.wait_for_selector("#attachment-list")
        assert "Attached office-visit-2026-10-16.pdf." in page.inner_text("#flash")
        page.reload()  # saved on the server, not only on the page
        assert page.is_checked("#a_metformin_trial-yes")
        assert page.input_value("#a_metformin_dose") == "1000 mg twice daily"
    epa = make_epa(run)
    assert epa.answers() == {"diagnosis": "t2dm", "metformin_trial": "yes",
                             "metformin_dose": "1000 mg twice daily"}
    (name, digest, size), = epa.query("select filename, sha256, size_bytes from "
                                      "epa_attachments where request_id = 1000")
    assert (name, digest, size) == (note.name, hashlib.sha256(note.read_bytes()).hexdigest(),
                                    note.stat().st_size)
    channels = epa.query("select distinct channel, actor from audit_log where channel != 'seed'")
    assert channels == [("browser", "dwhitfield")]
