"""A real browser task's reset and settle (``episodes.settle``): nothing of the attempt is
left in the browser, and the first observation waits for a page's animation to end, however
long it pauses between two of its frames (marked slow: one ord-01 episode)."""

from __future__ import annotations

import asyncio
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
RUNNING = "document.getAnimations().filter(a => a.playState === 'running').length"


def test_a_reset_leaves_nothing_of_the_attempt_and_the_settle_waits_for_an_animation(
        tmp_path: Path):
    spec = load_catalog().get("ord-01")  # the Workspace and the web EHR's log-in page

    async def scenario() -> None:
        episode = Episode(spec, run_dir=tmp_path / "run")
        await episode.start()
        try:
            context = episode.workstation.context
            landed = [page.url for page in context.pages]
            first = context.pages[0]
            # the attempt: the first tab elsewhere with history and site storage, a cookie,
            # a tab of its own
            await first.goto("http://emr.clinic.test/")
            await first.evaluate("sessionStorage.setItem('s', 'x'); localStorage.setItem("
                                 "'l', 'x'); document.cookie = 'c=x; max-age=999'")
            await (await context.new_page()).goto("http://workspace.local/folder/output")
            await episode.reset()
            assert episode.settled["timed_out"] == []
            assert [page.url for page in context.pages] == landed
            assert context.pages[0] is first
            left = await first.evaluate("[history.length, sessionStorage.length, "
                                        "localStorage.length, document.cookie]")
            assert left == [1, 0, 0, ""]

            # an animation on the visible tab: the settle returns once it has ended
            await first.evaluate(ANIMATE)
            report = await settle_workstation(episode)
            assert report["timed_out"] == []
            assert await first.evaluate(RUNNING) == 0
        finally:
            await episode.stop()

    asyncio.run(scenario())
