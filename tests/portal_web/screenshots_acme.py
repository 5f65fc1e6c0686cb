"""Takes the README screenshots of the Acme provider portal (1280x800, real Chromium).

``python -m tests.portal_web.screenshots_acme [OUT_DIR]`` (default ``docs/screenshots``).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from sandbox.catalog import load_catalog
from sandbox.seeding import seed_task
from tests.portal_web.acme.browser import ORIGIN, chromium, login, serve
from tests.portal_web.screenshots import shoot

REPO = Path(__file__).resolve().parents[2]
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def run(alias: str, work: Path) -> Path:
    return seed_task(load_catalog().get(alias), None, work / alias)


def wizard_pages(page, out: Path, work: Path) -> None:  # noqa: ANN001 - playwright Page
    page.goto(f"{ORIGIN}/auth/requests/new?type=outpatient&member_id=ACM402918331")
    page.click("#member-results button")
    page.wait_for_url("**/provider")
    for role, npi in (("requesting", "1546827399"), ("rendering", "1938475625")):
        page.fill(f"#{role}_npi", npi)
        page.click(f"button[value=find_{role}]")
        page.wait_for_load_state()
    page.click("#continue-button")
    page.wait_for_url("**/service")
    page.fill("#service_code", "72148")
    page.fill("#units", "1")
    page.fill("#service_from", "2026-10-26")
    page.fill("#service_to", "2026-12-24")
    page.select_option("#place_of_service", "22")
    page.fill("#icd10_codes", "M51.16\nM54.16")
    page.click("#continue-button")
    page.wait_for_url("**/questionnaire")
    page.fill("#q_primary_diagnosis", "M51.16")
    page.fill("#q_symptom_duration_weeks", "10")
    page.check("input[name=q_conservative_therapy_6wk][value=yes]")
    page.check("input[name=q_physical_therapy][value=yes]")
    page.fill("#q_pt_weeks", "6")
    page.check("input[name=q_nsaid_trial][value=yes]")
    page.fill("#q_nsaid_name", "naproxen 500 mg twice daily")
    page.evaluate("window.scrollTo(0, 150)")
    shoot(page, out / "acme-wizard-questionnaire.png")
    page.check("input[name=q_red_flags][value=none]")
    page.check("input[name=q_prior_imaging][value=xray]")
    page.click("#continue-button")
    page.wait_for_url("**/attachments")
    note = work / "PT discharge summary 2026-09-30.pdf"
    note.write_bytes(PDF)
    page.set_input_files("input#file", str(note))
    page.select_option("#document_type", "therapy_note")
    page.fill("#description", "PT discharge summary 09/30")
    page.click("#upload-button")
    page.wait_for_load_state()
    page.select_option("#document_type", "clinical_note")
    page.fill("#description", "Orthopedic consultation 10/14")
    shoot(page, out / "acme-wizard-attachments.png")


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        with serve(run("pa-02", work)) as port, chromium(port) as page:
            login(page)
            page.goto(f"{ORIGIN}/home")
            shoot(page, out / "acme-home.png")
            page.goto(f"{ORIGIN}/eligibility?last_name=Diaz&dob=1954-05-17")
            shoot(page, out / "acme-eligibility.png")
            page.goto(f"{ORIGIN}/auth/cases")
            shoot(page, out / "acme-case-list.png")
            page.goto(f"{ORIGIN}/auth/cases/1004")
            shoot(page, out / "acme-case-detail.png")
        with serve(run("pa-06", work)) as port, chromium(port) as page:
            login(page)
            for code, place in (("72148", "22"), ("J1745", "11"), ("29881", "24")):
                page.goto(f"{ORIGIN}/auth/lookup")
                page.fill("#code", code)
                page.select_option("#place_of_service", place)
                page.click("#lookup-button")
                page.wait_for_url("**/auth/lookup/*")
            shoot(page, out / "acme-lookup.png")
        with serve(run("pa-01", work)) as port, chromium(port) as page:
            login(page)
            wizard_pages(page, out, work)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "screenshots")
