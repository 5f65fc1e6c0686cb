"""Takes the README screenshots of the web EHR (1280x800, real Chromium, seeded tasks).

``python -m tests.portal_web.screenshots [OUT_DIR]`` (default ``docs/screenshots``).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from PIL import Image

from sandbox.catalog import load_catalog
from sandbox.seeding import seed_task
from tests.portal_web.browser import ORIGIN, chromium, login, serve
from tests.portal_web.support import PASSWORDS

REPO = Path(__file__).resolve().parents[2]


def shoot(page, path: Path) -> None:  # noqa: ANN001 - playwright Page
    page.screenshot(path=str(path))
    # palette PNG keeps the committed files small (the UI has few colours)
    Image.open(path).convert("RGB").quantize(colors=128, dither=Image.Dither.NONE).save(
        path, optimize=True)
    print(f"{path} ({path.stat().st_size // 1024} KB)")


def run(alias: str, work: Path) -> Path:
    return seed_task(load_catalog().get(alias), None, work / alias)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        with serve(run("ord-01", work)) as port, chromium(port) as page:
            login(page, "nurse.kelly", PASSWORDS["nurse.kelly"])
            page.goto(f"{ORIGIN}/main/calendar")
            shoot(page, out / "ehr-calendar.png")
            page.goto(f"{ORIGIN}/patient/1")
            shoot(page, out / "ehr-dashboard.png")
            page.goto(f"{ORIGIN}/patient/1/encounter/1001/vitals/new")
            page.fill("#weight_kg", "81.4")
            page.fill("#height_cm", "176")
            page.fill("#bps", "128")
            page.fill("#bpd", "82")
            page.fill("#pulse", "76")
            page.fill("#temperature_c", "37.1")
            page.fill("#oxygen_saturation", "97")
            shoot(page, out / "ehr-vitals.png")
        with serve(run("ord-08", work)) as port, chromium(port) as page:
            login(page, "dr.osei", PASSWORDS["dr.osei"])
            page.goto(f"{ORIGIN}/patient/9/rx/new")
            page.fill("#drug", "clarithromycin 500 mg tablet")
            page.fill("#dosage", "500")
            page.select_option("#unit", "mg")
            page.select_option("#route", "PO")
            page.select_option("#interval", "1")
            page.fill("#drug_dosage_instructions", "500 mg by mouth twice daily for 7 days")
            page.fill("#quantity", "14")
            page.click("#rx-save")
            page.wait_for_url("**/rx/alert/**")
            shoot(page, out / "ehr-interaction-alert.png")
        with serve(run("ord-19", work)) as port, chromium(port) as page:
            login(page, "nurse.kelly", PASSWORDS["nurse.kelly"])
            page.goto(f"{ORIGIN}/patient/17/encounter/1001/lbf/LBFio/new")
            shoot(page, out / "ehr-io-flowsheet.png")
        with serve(run("pa-02", work)) as port, chromium(port) as page:
            login(page, "pa.coord", PASSWORDS["pa.coord"])
            page.goto(f"{ORIGIN}/pa/worklist/1")
            shoot(page, out / "ehr-pa-worklist.png")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "screenshots")
