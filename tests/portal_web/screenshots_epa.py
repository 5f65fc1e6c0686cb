"""Takes the README screenshots of the ePA portal (1280x800, real Chromium, pa-20 seeded).

``python -m tests.portal_web.screenshots_epa [OUT_DIR]`` (default ``docs/screenshots``):
the Dashboard, the plan's question set with follow-ups unlocked, and Send to Plan.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from sandbox.seeding import seed_task
from tests.portal_web.epa.browser import ORIGIN, chromium_epa, login_epa, serve_epa
from tests.portal_web.epa.support import JOY, PA20
from tests.portal_web.screenshots import REPO, shoot


def answer_first_questions(page) -> None:  # noqa: ANN001 - playwright Page
    """Diagnosis and metformin answers, so the follow-ups show (saved as entered)."""
    page.select_option("#a_diagnosis", "t2dm")
    page.wait_for_selector("#q-a1c_recent:not([hidden])")
    page.fill("#a_icd10_code", "E11.65")
    page.fill("#a_a1c_recent", "8.4")
    page.fill("#a_a1c_recent_date", "09/15/2026")
    page.fill("#a_a1c_prior", "9.2")
    page.fill("#a_a1c_prior_date", "08/04/2025")
    page.check("#a_metformin_trial-yes")
    page.wait_for_selector("#q-metformin_dose:not([hidden])")
    page.fill("#a_metformin_dose", "1000 mg twice daily")
    page.press("#a_metformin_dose", "Tab")
    page.wait_for_function("document.getElementById('save-status').textContent"
                           ".startsWith('All changes saved')")


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        run = seed_task(PA20, None, Path(tmp) / "pa-20", episode_id="ep-screens")
        with serve_epa(run) as port, chromium_epa(port) as page:
            login_epa(page)
            page.goto(f"{ORIGIN}/dashboard")
            shoot(page, out / "epa-dashboard.png")
            page.goto(f"{ORIGIN}/request/{JOY}")
            answer_first_questions(page)
            page.locator("#questions").scroll_into_view_if_needed()
            page.evaluate("window.scrollTo(0, document.getElementById('questions')"
                          ".getBoundingClientRect().top + window.scrollY - 10)")
            shoot(page, out / "epa-questions.png")
            for key, value in (("metformin_current", "yes"), ("mtc_men2", "no"),
                               ("pancreatitis", "no"), ("other_glp1", "no")):
                page.check(f"#a_{key}-{value}")
            page.fill("#a_metformin_months", "14")
            page.fill("#a_bmi", "34.2")
            page.click("#continue-send")
            page.wait_for_url(f"**/request/{JOY}/send")
            shoot(page, out / "epa-send-to-plan.png")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "screenshots")
