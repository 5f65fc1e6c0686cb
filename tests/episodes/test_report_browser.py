"""report.html of a bench of three tasks, opened from disk in Chromium: the trajectory
viewer steps through screenshots with their actions drawn, and shows the checks' evidence."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from episodes.result_files import write_tables
from tests.episodes.synthetic_bench import make_bench

pytestmark = pytest.mark.slow


def test_trajectory_viewer_in_chromium(tmp_path: Path):
    from playwright.async_api import async_playwright

    from episodes.workstation import find_chromium

    out = make_bench(tmp_path / "bench", "anthropic:fake-model",
                     {"ord-01": 0.8, "pa-01": 1.0, "pa-02": 0.5}, missing_step=3)
    write_tables(out)

    async def scenario() -> None:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=find_chromium())
            page = await browser.new_page(viewport={"width": 1280, "height": 800})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            await page.goto((out / "report.html").as_uri())

            async def frame() -> dict:
                await page.wait_for_function(
                    "(() => { const i = document.getElementById('shot');"
                    " return i.hidden || (i.complete && i.naturalWidth > 0); })()")
                return await page.evaluate("""() => ({
                    src: document.getElementById('shot').getAttribute('src'),
                    width: document.getElementById('shot').naturalWidth,
                    actions: [...document.querySelectorAll('#overlay g.action')]
                        .map(g => g.dataset.action),
                    drawn: document.getElementById('overlay').textContent,
                    circle: (document.querySelector('#overlay circle') || {}).getAttribute
                        ? document.querySelector('#overlay circle').getAttribute('cx') : null,
                    position: document.getElementById('position').textContent,
                    text: document.getElementById('model-text').textContent,
                    missing: document.getElementById('missing').hidden ? null
                        : document.getElementById('missing').textContent})""")

            first = await frame()
            assert first["src"] == "runs/ord-01__default/steps/0001.png"
            assert first["width"] == 1280  # the file next to report.html was loaded
            assert first["actions"] == ["left_click"] and first["circle"] == "640"
            assert first["position"] == "step 1 / 4" and "Step 1:" in first["text"]

            await page.keyboard.press("ArrowRight")
            second = await frame()
            assert second["src"].endswith("steps/0002.png")
            assert second["actions"] == ["type", "key"]
            assert 'type "Hernandez"' in second["drawn"] and "key Return" in second["drawn"]
            assert second["position"] == "step 2 / 4" and "Step 2:" in second["text"]
            assert await page.evaluate("location.hash") == "#episode-1-step-2"

            await page.click("#next")
            third = await frame()  # its screenshot is missing: said so, action still drawn
            assert third["missing"].startswith("screenshot missing:")
            assert third["missing"].endswith("steps/0003.png")
            assert third["actions"] == ["scroll"] and "scroll down ×5" in third["drawn"]

            await page.click("#prev")
            assert (await frame())["src"].endswith("steps/0002.png")
            await page.click("#step-list li[data-step='3']")
            fourth = await frame()
            assert fourth["actions"] == ["left_click_drag"]
            assert await page.text_content("#step-error") == "error: could not parse the reply"
            assert await page.is_disabled("#next")

            checks = page.locator("#checks tbody tr")
            assert await checks.count() == 3
            assert "correct encounter" in await checks.nth(0).text_content()
            await checks.nth(0).locator("summary").click()
            evidence = checks.nth(0).locator("pre.evidence")
            assert await evidence.is_visible()
            assert "correct encounter as ordered" in await evidence.text_content()

            await page.keyboard.press("]")
            await page.keyboard.press("]")  # pa-02: no steps.jsonl
            last = await frame()
            assert last["src"] == "runs/pa-02__default/final.png" and last["width"] == 1280
            assert last["position"] == "final screen" and last["actions"] == []
            assert (await page.text_content("#list-title")).startswith("trace inputs (3)")
            assert await page.locator("#step-list li").all_text_contents() == [
                "   1    0.1s replay: left_click (940, 292)",
                '   3    0.6s replay: type "riverside.pa"',
                "   4    0.9s viewer: press Enter"]

            await page.click("tr[data-episode='1']")  # a row of the episodes table
            assert (await frame())["src"] == "runs/pa-01__default/steps/0001.png"
            assert await page.locator("tr[data-episode='1']").get_attribute("class") \
                == "graded perfect selected"
            await page.goto((out / "report.html").as_uri() + "#episode-1-step-3")
            assert (await frame())["position"] == "step 3 / 4"  # a link to a step
            assert errors == []
            await browser.close()

    asyncio.run(scenario())
