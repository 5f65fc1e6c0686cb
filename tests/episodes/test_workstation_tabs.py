"""The workstation's tabs (no browser: a stand-in context records what was asked): the task's
tabs in order, every other page closed, loads side by side, and the browser's start page —
already on the first tab's site — waited for rather than loaded a second time."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

from episodes.workstation import Workstation, task_tabs


class _Page:
    def __init__(self, context, url="about:blank"):
        self.context, self.url, self.calls = context, url, []

    async def goto(self, url, **_kwargs):
        self.calls.append(("goto", url))
        self.context.loading += 1
        self.context.most_at_once = max(self.context.most_at_once, self.context.loading)
        await asyncio.sleep(0.01)
        self.context.loading -= 1
        self.url = url

    async def wait_for_load_state(self, state, **_kwargs):
        self.calls.append(("waited", state))

    async def close(self, **_kwargs):
        self.calls.append(("closed",))
        self.context.pages.remove(self)

    async def bring_to_front(self):
        self.calls.append(("front",))


class _Context:
    def __init__(self, urls):
        self.loading = self.most_at_once = 0
        self.pages = [_Page(self, url) for url in urls]

    async def new_page(self):
        page = _Page(self)
        self.pages.append(page)
        return page


def _station(tmp_path: Path, context) -> Workstation:
    tabs = task_tabs(["workspace", "ehr", "acme"])
    station = Workstation(display=SimpleNamespace(name=":99", width=1280, height=800),
                          home=tmp_path / "home", documents=tmp_path / "input",
                          downloads=tmp_path / "downloads", portal_port=1,
                          sites=["workspace", "ehr", "acme"], tabs=tabs,
                          clock_path=tmp_path / "clock", logs_dir=tmp_path / "logs")
    station.context = context
    return station


def test_the_start_page_is_kept_and_the_other_tabs_load_side_by_side(tmp_path):
    # the browser opened its start page (the Workspace, redirected) and a stray page
    context = _Context(["http://workspace.local/folder/documents", "http://example.test/"])
    start, stray = context.pages
    station = _station(tmp_path, context)
    asyncio.run(station.open_tabs())
    assert context.pages[0] is start and stray not in context.pages
    assert [p.url for p in context.pages] == [
        "http://workspace.local/folder/documents", "http://emr.clinic.test/",
        "http://portal.acmehealth.test/"]
    assert start.calls == [("waited", "domcontentloaded"), ("front",)]
    assert context.most_at_once == 2
    assert station.page_for("ehr") is context.pages[1]


def test_a_first_page_elsewhere_is_loaded(tmp_path):
    context = _Context(["about:blank"])
    asyncio.run(_station(tmp_path, context).open_tabs())
    assert context.pages[0].calls[0] == ("goto", "http://workspace.local/")
