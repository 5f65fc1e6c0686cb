"""A real browser task's reset and settle (``episodes.settle``): nothing of the attempt is
left in the browser (the task's tabs are kept, and made anew when the agent moved one), and
the first observation waits for a page's animation to end, however long it pauses between
two of its frames (marked slow: one ord-01 episode)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from episodes.episode import Episode
from episodes.settle import settle_workstation
from sandbox.catalog import load_catalog

pytestmark = pytest.mark.slow

# a box that moves in 4 steps, 400 ms apart: the screen is still for longer than any quiet
# window between two of them, yet the page is not done
ANIMATE = """() => {
  const box = document.createElement('div');
  box.id = 'moving';
  box.style.cssText = 'position:fixed;left:0;top:0;width:40px;height:40px;background:#c00';
  document.body.append(box);
  box.animate([{transform: 'translateX(0)'}, {transform: 'translateX(400px)'}],
              {duration: 1600, easing: 'steps(4)', fill: 'forwards'});
}"""
WRITING = """() => setInterval(() => {
  localStorage.setItem('t', Date.now()); document.cookie = 't=' + Date.now();
}, 5)"""
RUNNING = "document.getAnimations().filter(a => a.playState === 'running').length"


def _xdotool(episode: Episode, *args: str) -> str:
    """xdotool on the episode's display: keys pressed, the pointer moved as an agent does."""
    return subprocess.run(["xdotool", *args], check=True, timeout=10, capture_output=True,
                          text=True, env={**os.environ, "DISPLAY": episode.display.name}
                          ).stdout


def _keys(episode: Episode, keys: str) -> None:
    _xdotool(episode, "key", keys)


def _pointer(episode: Episode) -> tuple[int, int]:
    found = dict(part.split(":") for part in _xdotool(episode, "getmouselocation").split())
    return int(found["x"]), int(found["y"])


def test_a_reset_leaves_nothing_of_the_attempt_and_the_settle_waits_for_an_animation(
        tmp_path: Path):
    spec = load_catalog().get("ord-01")  # the Workspace and the web EHR's log-in page

    async def scenario() -> None:
        episode = Episode(spec, run_dir=tmp_path / "run")
        await episode.start()
        try:
            context = episode.workstation.context
            # the tabs in tab order (Playwright lists the pages the browser opened as it
            # started in no particular order)
            first, second = episode.workstation.tab_pages()
            landed = [first.url, second.url]
            # the attempt: the first tab elsewhere with history and site storage, a cookie,
            # a tab of its own
            await first.goto("http://emr.clinic.test/")
            await first.evaluate("sessionStorage.setItem('s', 'x'); localStorage.setItem("
                                 "'l', 'x'); document.cookie = 'c=x; max-age=999'")
            # a page of the attempt that goes on writing: nothing of it may outlive the
            # clearing (the tab is kept, its document is not)
            await second.evaluate(WRITING)
            await (await context.new_page()).goto("http://workspace.local/folder/output")
            # the pointer left on the second tab (its highlight and its card show)
            await asyncio.to_thread(_xdotool, episode, "mousemove", "380", "15")
            await asyncio.sleep(1.0)
            await episode.reset()
            # back where the display started it; the tab strip as at start
            middle = (episode.display.width // 2, episode.display.height // 2)
            assert await asyncio.to_thread(_pointer, episode) == middle
            assert not [p for p in episode.reset_phases.as_dict() if "anew" in p]
            assert episode.settled["timed_out"] == []
            assert [page.url for page in episode.workstation.tab_pages()] == landed
            # the task's tabs kept, navigated in place
            assert len(context.pages) == 2 and set(context.pages) == {first, second}
            assert episode.workstation.tab_pages() == [first, second]
            for page in (first, second):
                left = await page.evaluate("[history.length, sessionStorage.length, "
                                           "localStorage.length, document.cookie]")
                assert left == [1, 0, 0, ""]

            # the agent zooms the Workspace (the browser keeps that per site) and moves its
            # tab after the EHR's (Ctrl+Shift+PageDown): what no page tells, the tab strip
            # shows, and the tabs are made anew
            await asyncio.to_thread(_keys, episode, "ctrl+plus")
            await first.wait_for_function("devicePixelRatio > 1", timeout=5000)
            await asyncio.to_thread(_keys, episode, "ctrl+shift+Next")
            await episode.reset()
            assert "browser: tabs made anew (the tab strip was not the start's)" in (
                episode.reset_phases.as_dict())
            assert [page.url for page in context.pages] == landed
            for page in context.pages:
                assert await page.evaluate("devicePixelRatio") == 1
            await asyncio.to_thread(_keys, episode, "ctrl+2")
            shown = episode.workstation.page_for("ehr")
            await shown.wait_for_function("document.visibilityState === 'visible'",
                                          timeout=5000)
            await asyncio.to_thread(_keys, episode, "ctrl+1")
            first = episode.workstation.page_for("workspace")
            assert context.pages[0] is first

            # an animation on the visible tab: the settle returns once it has ended
            await first.evaluate(ANIMATE)
            report = await settle_workstation(episode)
            assert report["timed_out"] == []
            assert await first.evaluate(RUNNING) == 0
        finally:
            await episode.stop()

    asyncio.run(scenario())
    # no browsing history was kept (the omnibox would offer the attempt's pages after a
    # reset): the browser writes what it keeps when it closes
    history = tmp_path / "run" / "home" / ".config" / "chromium" / "Default" / "History"
    if history.exists():
        with contextlib.closing(sqlite3.connect(history)) as db:
            assert db.execute("select url from urls").fetchall() == []
