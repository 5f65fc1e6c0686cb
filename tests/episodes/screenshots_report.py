"""Retake ``docs/screenshots/report-trajectory-viewer.png``: report.html of a synthetic bench
of three tasks whose step screenshots are the apps' own documentation screenshots, with the
trajectory viewer on step 4 of pa-02, at 1280×800.

    .venv/bin/python -m tests.episodes.screenshots_report
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from pathlib import Path

from episodes.result_files import write_tables
from tests.episodes.synthetic_bench import make_bench

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
TARGET = DOCS / "report-trajectory-viewer.png"

# (documentation screenshot, model text, actions) of pa-02's steps
STEPS = [
    ("ehr-pa-worklist.png", "The PA Pending worklist has five submitted requests. I will look "
     "up each decision in the Acme Health portal, starting with the Recent authorization "
     "requests table on its home page.", [{"action": "key", "text": "ctrl+2"}]),
    ("acme-home.png", "Vance, Helen (78815) shows Approved with reference PA26-041802; the "
     "message of 10/17 gives authorization A260420113. Back to the EHR worklist.",
     [{"action": "key", "text": "ctrl+1"}]),
    ("ehr-pa-worklist.png", "Row 5 is Vance, Helen, PET-CT. I set its status to Decision "
     "received.", [{"action": "left_click", "coordinate": [720, 380]},
                   {"action": "key", "text": "Down Down Return"}]),
    ("ehr-pa-worklist.png", "Now the reference: the payer's case number PA26-041802 goes in "
     "the Reference field of row 5, then I save the row.",
     [{"action": "triple_click", "coordinate": [1008, 380]},
      {"action": "type", "text": "PA26-041802"},
      {"action": "left_click", "coordinate": [1226, 380]}]),
    ("acme-home.png", "Next: Quinn, Martha is Pended – information requested. I scroll to "
     "read the message about the plan of care.",
     [{"action": "scroll", "coordinate": [1000, 420], "scroll_direction": "down",
       "scroll_amount": 3}]),
    ("acme-home.png", "The message asks for a plan of care signed by the referring physician; "
     "I open it.", [{"action": "left_click", "coordinate": [990, 436]}]),
]

# what pa-02's verifier report could say of that run (evidence as verifier checks write it)
CHECKS = [
    {"name": "cases 1-2 fully recorded", "percent": 40, "status": "graded", "fraction": 0.5,
     "evidence": {"share": "equal, 2 parts", "parts": [
         {"part": "PA26-041187 Garner", "fraction": 1.0, "status": "graded",
          "expected": {"status": "Approved", "reference": "A260418832"},
          "found": {"status": "Approved", "reference": "A260418832"}},
         {"part": "PA26-041352 Ibarra", "fraction": 0.0, "status": "graded",
          "expected": {"status": "Denied", "reason": "no prior abdominal ultrasound"},
          "found": {"status": "In progress", "reason": None}}]}},
    {"name": "cases 3-4", "percent": 40, "status": "graded", "fraction": 1.0,
     "evidence": {"expected": {"PA26-041690": "Pended", "PA26-041775": "Approved"},
                  "found": {"PA26-041690": "Pended", "PA26-041775": "Approved"},
                  "rows": ["ehr.pa_request:3", "ehr.pa_request:4"]}},
    {"name": "case 5 (equal share per case)", "percent": 20, "status": "graded",
     "fraction": 0.0, "evidence": {"expected": {"reference": "PA26-041802",
                                                "auth": "A260420113"},
                                   "found": {"reference": None, "auth": None},
                                   "reason": "row 5 was not saved"}},
]


def build(out: Path) -> Path:
    make_bench(out, "anthropic:fake-model", {"ord-01": 1.0, "pa-01": 0.75, "pa-02": 0.4})
    run_dir = out / "runs" / "pa-02__default"
    (run_dir / "trace").exists() and shutil.rmtree(run_dir / "trace")
    lines = []
    for index, (image, text, actions) in enumerate(STEPS, start=1):
        (run_dir / "steps").mkdir(exist_ok=True)
        shutil.copy(DOCS / image, run_dir / "steps" / f"{index:04d}.png")
        lines.append({"step": index, "t": round(3.4 * (index - 1), 1), "text": text,
                      "actions": actions, "screenshot": f"steps/{index:04d}.png",
                      "tokens_in": 1480 + 1210 * index, "tokens_out": 60 + 9 * index,
                      "model_s": round(2.1 + 0.3 * (index % 3), 2), "action_s": 0.42,
                      "error": None})
    (run_dir / "steps.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    shutil.copy(DOCS / "acme-home.png", run_dir / "final.png")
    report = json.loads((run_dir / "report.json").read_text())
    report["checks"] = CHECKS
    (run_dir / "report.json").write_text(json.dumps(report))
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    for row in rows:
        if row["alias"] == "pa-02":
            row.update(files={"steps": "steps.jsonl"}, steps=len(STEPS), ended_by="max_steps",
                       tokens_in=sum(x["tokens_in"] for x in lines),
                       tokens_out=sum(x["tokens_out"] for x in lines), cost_usd=0.0921,
                       model_s=14.9, env_s=3.1)
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    write_tables(out)
    return out / "report.html"


async def shoot(report: Path, target: Path) -> None:
    from playwright.async_api import async_playwright

    from episodes.workstation import find_chromium

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=find_chromium())
        page = await browser.new_page(viewport={"width": 1280, "height": 800})
        await page.goto(report.as_uri())
        await page.select_option("#episode-select", label="pa-02 · default · "
                                 "anthropic:fake-model · 0.400")
        for _ in range(3):
            await page.keyboard.press("ArrowRight")
        await page.locator("#checks details").first.evaluate("d => d.open = true")
        await page.evaluate("window.scrollTo(0, document.getElementById('viewer').offsetTop"
                            " - document.querySelector('.top').offsetHeight)")
        await page.screenshot(path=str(target))
        await browser.close()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        report = build(Path(tmp) / "bench")
        asyncio.run(shoot(report, TARGET))
    print(TARGET)


if __name__ == "__main__":
    main()
