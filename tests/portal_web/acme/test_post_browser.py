"""Real Chromium on the Acme portal: a corrected claim from the claim search to the
confirmation, as a billing specialist does it, graded with pa-11's verifier."""

from __future__ import annotations

import json
import re

import pytest

from sandbox.catalog import load_catalog
from tests.portal_web.acme.browser import chromium, login, serve
from tests.portal_web.support import store_rows
from verifier import grade

pytestmark = pytest.mark.slow


def test_corrected_claim_in_chromium(seeds):
    run = seeds.run("pa-11")
    episode = json.loads((run / "run.json").read_text())["episode_id"]
    with serve(run, episode_id=episode) as port, chromium(port) as page:
        login(page, "riverside.billing", "AcmeBilling#2026")
        page.click("summary:has-text('Claims & Payments')")
        page.click("a:has-text('Claim Status Inquiry')")
        page.click("#mode-claim")
        page.fill("#claim_number", "26249001873")
        page.click("#search-claims")
        page.wait_for_url("**/claims/status/results/**")
        page.click("#claim-results a:has-text('26249001873')")
        page.wait_for_url("**/claims/1000")
        assert page.locator("#claim-lines tbody tr").count() == 3
        page.click("#correct-claim")
        page.wait_for_url("**/claims/1000/correct")
        page.check("#frequency-7")
        assert page.input_value("#line-3-code") == "J0897"
        page.fill("#line-3-units", "60")
        page.fill("#correction_reason", "J0897 billed as 6 units; 60 mg administered, "
                                        "1 mg per unit: 60 units.")
        page.click("#submit-correction")
        page.wait_for_url("**/claims/corrections/**")
        reference = page.inner_text("#correction-reference")
        assert re.fullmatch(r"CC26-\d{6}", reference)
        # Back to the form: the page is not cached, so it is a fresh form; sending the
        # same correction again is held back by the duplicate warning, nothing written.
        page.go_back()
        page.wait_for_url("**/claims/1000/correct")
        page.check("#frequency-7")
        page.fill("#line-3-units", "60")
        page.fill("#correction_reason", "Same correction again.")
        page.click("#submit-correction")
        page.wait_for_selector("#duplicate-warning")
        assert "/claims/1000/correct" in page.url
    assert store_rows(run, "acme", "select count(*) from claim_corrections") == [(1,)]
    report = grade(load_catalog().get("pa-11"), run, judge="rubric")
    assert [c.fraction for c in report.checks] == [1.0, 1.0, 1.0, 1.0]
