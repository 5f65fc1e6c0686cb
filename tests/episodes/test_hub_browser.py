"""The hub in a real browser: start the demo episode from the task list and see frames."""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import pytest

from tests.episodes.conftest import DEMO_DIR

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def hub_url(tmp_path, no_leaks):
    import uvicorn

    from episodes.hub.app import create_hub

    app = create_hub({"runs_dir": tmp_path / "runs", "tasks_dirs": [DEMO_DIR]})
    app.state.accounts.add("dana", "annotator", "dana-password")
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the hub did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True  # its lifespan stops every episode
    thread.join(30)


def test_hub_starts_the_demo_episode_and_streams_it(hub_url):
    from playwright.async_api import async_playwright

    from episodes.workstation import find_chromium

    async def scenario():
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(
                executable_path=find_chromium(),
                args=["--autoplay-policy=no-user-gesture-required"])
            page = await browser.new_page(viewport={"width": 1700, "height": 950})
            await page.goto(hub_url + "/?family=demo")  # sends to the sign-in form
            await page.fill("input[name=name]", "dana")
            await page.fill("input[name=password]", "dana-password")
            await page.click("button[type=submit]")
            await page.wait_for_url("**/?family=demo")
            await page.get_by_role("button", name="Start demo-01").click()
            await page.wait_for_url("**/episodes/ep-*")
            await page.wait_for_function(
                "document.getElementById('status').textContent === 'running'",
                timeout=60_000)
            video = page.frame_locator("#workstation").locator("video#screen")
            await video.wait_for(timeout=20_000)
            frames = await video.evaluate("""v => new Promise((done, fail) => {
                let seen = 0;
                const timer = setTimeout(() => fail(new Error('no frames')), 20000);
                const next = () => v.requestVideoFrameCallback(() => {
                    if (++seen >= 2) { clearTimeout(timer); done([seen, v.videoWidth,
                                                                 v.videoHeight]); }
                    else next();
                });
                next();
            })""")
            assert frames == [2, 1280, 800]
            connection = await page.text_content("#connection")
            assert connection.startswith("ws://127.0.0.1:") and "?token=" in connection
            page.once("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))
            await page.click("#stop")
            await page.wait_for_function(
                "document.getElementById('status').textContent === 'stopped'",
                timeout=30_000)
            await browser.close()

    asyncio.run(scenario())
