"""The hub in a real browser: an annotator records ord-01 through the scaled live view, the
recording passes its replay check, a reviewer accepts it, and after a restart of the hub
the task's board shows it. One episode at a time: the live one is stopped before the
replay check starts its own.

``EHR_HUB_SHOTS=DIR`` keeps screenshots of the pages at 1400x1000 in DIR (the README's).
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import socket
import threading
import time
from pathlib import Path

import pytest

from sandbox.catalog import TASKS_DIR

pytestmark = pytest.mark.slow

GOLD = TASKS_DIR / "R09.03.01.02-T01" / "gold.trace.jsonl"
KEYS = {"ctrl": "Control", "shift": "Shift", "alt": "Alt", "enter": "Enter", "tab": "Tab"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class HubServer:
    """The hub in a thread, stopped (its lifespan stops every episode) and started again."""

    def __init__(self, settings: dict):
        self.settings = settings
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = self.thread = None

    def start(self, accounts: dict[str, str] | None = None) -> None:
        import uvicorn

        from episodes.hub.app import create_hub

        app = create_hub(self.settings)
        for name, role in (accounts or {}).items():
            app.state.accounts.add(name, role, f"{name}-password")
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port,
                                                    log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "the hub did not start"
            time.sleep(0.02)

    def stop(self) -> None:
        if self.server is not None:
            self.server.should_exit = True
            self.thread.join(60)
            self.server = None


@pytest.fixture
def hub(tmp_path, no_leaks):
    server = HubServer({"runs_dir": tmp_path / "runs", "human_dir": tmp_path / "human",
                        "max_episodes": 1})
    server.start({"dana": "annotator", "lee": "reviewer"})
    yield server
    server.stop()


def _gold_inputs() -> list[tuple[float, dict]]:
    lines = [json.loads(x) for x in GOLD.read_text().splitlines()]
    return [(e["t"], e["event"]) for e in lines if e.get("kind") == "action"]


async def _sign_in(page, url: str, name: str) -> None:
    await page.goto(url)
    await page.fill("input[name=name]", name)
    await page.fill("input[name=password]", f"{name}-password")
    await page.click("button[type=submit]")
    await page.wait_for_selector("#who")


async def _shot(page, name: str) -> None:
    folder = os.environ.get("EHR_HUB_SHOTS")
    if folder:
        await page.screenshot(path=str(Path(folder) / name))


async def _settle(page, clip: dict, quiet: float = 0.5, limit: float = 30) -> None:
    """Wait until the live view has not changed (beyond a blinking caret) for ``quiet`` s."""
    from PIL import Image, ImageChops

    previous, since = None, time.monotonic()
    deadline = since + limit
    while time.monotonic() < deadline:
        shot = Image.open(io.BytesIO(await page.screenshot(clip=clip))).convert("L")
        if previous is not None:
            box = ImageChops.difference(shot, previous).point(
                lambda v: 255 if v > 24 else 0).getbbox()
            if box is not None and (box[2] - box[0]) * (box[3] - box[1]) > 400:
                since = time.monotonic()
            elif time.monotonic() - since >= quiet:
                return
        previous = shot
        await asyncio.sleep(0.15)


async def _solve_through_the_live_view(page) -> tuple[float, list[tuple[int, int]]]:
    """Do ord-01's gold inputs with the mouse and keyboard on the scaled live view, each
    after the recorded gap and once the view has settled (the machine may be loaded)."""
    video = page.frame_locator("#workstation").locator("video#screen")
    box = await video.bounding_box()
    scale = box["width"] / 1280
    await video.focus()
    clicks = []
    previous = 0.0
    for t, event in _gold_inputs():
        await asyncio.sleep(max(0.3, t - previous))
        await _settle(page, box)
        previous = t
        kind = event["action"]
        if "coordinate" in event:
            x, y = event["coordinate"]
            px, py = box["x"] + (x + 0.5) * scale, box["y"] + (y + 0.5) * box["height"] / 800
        if kind == "left_click":
            await page.mouse.click(px, py)
            clicks.append((x, y))
        elif kind == "mouse_move":
            await page.mouse.move(px, py)
        elif kind == "scroll":
            await page.mouse.move(px, py)
            await page.mouse.wheel(0, 100 * event["scroll_amount"])
        elif kind == "type":
            await page.keyboard.type(event["text"], delay=30)
        elif kind == "key":
            await page.keyboard.press("+".join(KEYS.get(k, k) for k in
                                               event["text"].split("+")))
        else:
            raise AssertionError(f"the test does not do {kind}")
    await _settle(page, box, quiet=1.0)
    return scale, clicks


@pytest.mark.timeout(900)  # two episodes one after the other: about 3 minutes
def test_annotator_records_reviewer_accepts_the_board_remembers(hub, tmp_path):
    from playwright.async_api import async_playwright

    from episodes.workstation import find_chromium

    async def scenario():
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(
                executable_path=find_chromium(),
                args=["--autoplay-policy=no-user-gesture-required"])
            page = await browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))
            await _sign_in(page, hub.url + "/tasks/ord-01", "dana")
            await page.click("text=Start an episode")
            await page.wait_for_url("**/episodes/ep-*")
            await page.wait_for_function(
                "document.getElementById('status').textContent === 'running'",
                timeout=90_000)
            video = page.frame_locator("#workstation").locator("video#screen")
            frames = await video.evaluate("""v => new Promise((done, fail) => {
                let seen = 0;
                const timer = setTimeout(() => fail(new Error('no frames')), 30000);
                const next = () => v.requestVideoFrameCallback(() => {
                    if (++seen >= 2) { clearTimeout(timer); done([v.videoWidth,
                                                                 v.videoHeight]); }
                    else next();
                });
                next();
            })""")
            assert frames == [1280, 800]
            assert (await page.text_content("#connection")).startswith("ws://127.0.0.1:")
            scale = float(await page.get_attribute("#session", "data-scale"))
            assert scale < 1 and await page.is_visible("#scale-note")
            box = await page.locator("#fit").bounding_box()
            assert box["x"] + box["width"] <= 1400 and box["y"] + box["height"] <= 1000
            await page.click("#collapse")  # without the side panel it fits at 1:1
            assert await page.get_attribute("#session", "data-scale") == "1.0000"
            assert not await page.is_visible("#scale-note") and not await page.is_visible(
                "#side")
            await page.click("#collapse")
            assert float(await page.get_attribute("#session", "data-scale")) == scale

            await page.click("#record")
            await page.wait_for_selector("#rec", state="visible", timeout=60_000)
            await page.wait_for_function("!document.getElementById('record-stop').disabled")
            assert await page.is_disabled("#oracle")
            await _shot(page, "hub-episode.png")
            shown, clicks = await _solve_through_the_live_view(page)
            assert abs(shown - scale) < 0.01
            await _shot(page, "hub-recording.png")
            assert int(await page.text_content("#rec-inputs")) >= 40
            await page.click("#finish")  # stops the recording, then grades
            await page.wait_for_function(
                "document.getElementById('score').textContent !== ''", timeout=90_000)
            assert await page.text_content("#score") == "1.000", await page.text_content(
                "#result")
            link = page.locator("#recordings a").first
            href = await link.get_attribute("href")
            await page.click("#stop")
            await page.wait_for_function(
                "document.getElementById('status').textContent === 'stopped'",
                timeout=60_000)

            await page.goto(hub.url + href)
            assert "1.000" in await page.text_content(".compare")  # the live grade
            await page.click("#check")
            await page.wait_for_selector("#replay-score", timeout=240_000)
            assert await page.text_content("#replay-score") == "1.000"
            trace_path = json.loads(await (await page.request.get(
                hub.url + "/api" + href)).text())["path"]
            await _shot(page, "hub-recording-checked.png")

            await page.click("text=Sign out")
            await _sign_in(page, hub.url + href, "lee")
            await page.fill("textarea[name=note]", "replays to 1.0")
            await page.click("button[value=accept]")
            await page.wait_for_selector("text=accepted by lee")
            await browser.close()
        return trace_path, clicks

    trace_path, clicks = asyncio.run(scenario())
    recorded = [json.loads(x) for x in Path(trace_path).read_text().splitlines()[1:]]
    downs = [(e["event"]["x"], e["event"]["y"]) for e in recorded
             if e.get("kind") == "input" and e["event"].get("t") == "button"
             and e["event"].get("down")]
    assert len(downs) == len(clicks)
    for (x, y), (gx, gy) in zip(downs, clicks, strict=True):  # the pointer mapping is exact
        assert abs(x - gx) <= 1 and abs(y - gy) <= 1, (downs, clicks)
    human = sorted((tmp_path / "human" / "R09.03.01.02-T01" / "human").iterdir())
    assert [p.suffix for p in human] == [".json", ".jsonl"]
    meta = json.loads(human[0].read_text())
    assert (meta["annotator"], meta["reviewer"], meta["live_score"], meta["replay_score"]) \
        == ("dana", "lee", 1.0, 1.0)

    hub.stop()
    hub.start()

    async def board():
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=find_chromium())
            page = await browser.new_page(viewport={"width": 1400, "height": 1000})
            await _sign_in(page, hub.url + "/?gold=human+accepted", "lee")
            cell = page.locator("table.board tr", has_text="ord-01").locator(
                "[data-variant=default]")
            text = await cell.text_content()
            await _shot(page, "hub-board.png")
            await browser.close()
            return text

    assert "human accepted" in asyncio.run(board())
