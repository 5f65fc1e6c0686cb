"""Takes the README screenshots of the Acme portal's appeal, peer-to-peer, claim and
correction pages and of the DME portal (1280x800, real Chromium, seeded tasks).

``python -m tests.portal_web.screenshots_acme_post [OUT_DIR]`` (default ``docs/screenshots``).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from sandbox.catalog import load_catalog
from sandbox.seeding import seed_task
from tests.portal_web.browser import browser_login, headless_page, serve_sites
from tests.portal_web.screenshots import shoot

REPO = Path(__file__).resolve().parents[2]
PORTAL = "http://portal.acmehealth.test"
DME = "http://dme.acmehealth.test"
HOSTS = ("portal.acmehealth.test", "dme.acmehealth.test")
LETTER = """Re: Lena Brooks (DOB 04/12/1969), member ACM517200846, authorization PA26-040215,
attended in-lab polysomnography (CPT 95810).

We appeal the denial for insufficient documentation of OSA symptoms. The attached records
document her symptoms of obstructive sleep apnea: an Epworth Sleepiness Scale score of 14
(sleep medicine consultation, 09/18/2026), BMI 36.8 (office visit, 09/02/2026), apneas
witnessed by her bed partner most nights (attached questionnaire), and hypertension with
type 2 diabetes. Please approve the in-lab study.

Lisa Brandt, MD, Sleep Medicine"""


def run(alias: str, work: Path, variant: str | None = None) -> Path:
    return seed_task(load_catalog().get(alias), variant, work / f"{alias}-{variant}")


def appeal_form(page, out: Path) -> None:  # noqa: ANN001
    page.goto(f"{PORTAL}/appeals/new/case/1000")
    page.select_option("#reason_category", "medical_necessity")
    page.fill("#requested_outcome", "Approve the attended in-lab polysomnography (CPT 95810) "
                                    "as requested.")
    page.fill("#letter_text", LETTER)
    page.fill("#contact_phone", "217-555-0100")
    shoot(page, out / "acme-appeal-form.png")


def p2p_slots(page, out: Path) -> None:  # noqa: ANN001
    page.goto(f"{PORTAL}/p2p/case/1000")
    page.check("#slot-1004")
    page.fill("#callback_phone", "217-555-0100")
    page.fill("#notes", "Dr. Grant will take the call between clinic sessions.")
    shoot(page, out / "acme-p2p-slots.png")


def claim_pages(page, out: Path) -> None:  # noqa: ANN001
    page.goto(f"{PORTAL}/claims/1000")
    shoot(page, out / "acme-claim-detail.png")
    page.goto(f"{PORTAL}/claims/1000/correct")
    page.check("#frequency-7")
    page.fill("#line-3-units", "60")
    page.fill("#line-3-charge", "1860.00")
    page.fill("#correction_reason", "J0897 billed as 6 units; 60 mg of denosumab were "
                                    "administered (1 mg per unit), so 60 units.")
    shoot(page, out / "acme-claim-correction.png")


def dme_order(page, out: Path) -> None:  # noqa: ANN001
    page.goto(f"{DME}/orders/new?member=4")
    for selector, value in (
            ("#order_date", "10/13/2026"), ("#ordering_name", "Caroline Ames, MD"),
            ("#ordering_npi", "1728394051"), ("#length_of_need", "99"),
            ("#product_description", "Group 2 standard power wheelchair, captain's chair 18 x "
                                     "18 in, swing-away joystick, elevating leg rests."),
            ("#icd10_primary", "I69.351"), ("#f2f_exam_date", "09/29/2026"),
            ("#f2f_provider_npi", "1728394051"), ("#supplier_npi", "1309485724"),
            ("#mobility_assessment_date", "10/06/2026"), ("#height_in", "70"),
            ("#weight_lb", "182"), ("#cmn_signed_by_npi", "1728394051"),
            ("#cmn_signed_date", "10/13/2026")):
        page.fill(selector, value)
    page.select_option("#hcpcs", "K0823")
    for key, answer in (("mobility_limits_adls", "yes"), ("cane_walker_sufficient", "no"),
                        ("manual_wheelchair_sufficient", "no"), ("scooter_sufficient", "no"),
                        ("can_operate_safely", "yes")):
        page.check(f"#mn_{key}-{answer}")
    page.evaluate("window.scrollTo(0, 150)")
    shoot(page, out / "dme-order.png")


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for alias, variant, user, password, origin, scenes in (
                ("pa-03", None, "riverside.pa", "AcmePortal#2026", PORTAL, [appeal_form]),
                ("pa-05", None, "riverside.pa", "AcmePortal#2026", PORTAL, [p2p_slots]),
                ("pa-11", None, "riverside.billing", "AcmeBilling#2026", PORTAL,
                 [claim_pages]),
                ("pa-04", "complete-docs", "riverside.pa", "AcmePortal#2026", DME,
                 [dme_order])):
            with serve_sites(run(alias, work, variant), ["acme", "dme"],
                             "ep-screenshots") as port, \
                    headless_page(port, HOSTS, downloads=False) as page:
                browser_login(page, origin, user, password)
                for scene in scenes:
                    scene(page, out)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "screenshots")
