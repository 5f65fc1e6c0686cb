"""The workstation's tabs (no browser: a stand-in context records what was asked): the task's
tabs in order, every other page closed, loads side by side, and the pages the browser opened
for them as it started — already on their sites — waited for rather than loaded again."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from episodes import tab_reset
from episodes.lockdown import WorkstationError
from episodes.tab_reset import strips_differ
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

    def is_closed(self):
        return self not in self.context.pages


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


def test_the_pages_the_browser_opened_for_the_tabs_are_kept_in_the_tabs_order(tmp_path):
    # the browser opened the tabs' pages as it started (listed in no particular order, one
    # not yet on its site) and a stray page
    context = _Context(["http://emr.clinic.test/login?next=/main/calendar",
                        "http://example.test/", "http://workspace.local/folder/documents",
                        "about:blank"])
    ehr, stray, start, acme = context.pages
    station = _station(tmp_path, context)

    async def scenario():
        opening = asyncio.ensure_future(station.open_tabs())
        await asyncio.sleep(0.05)
        assert not opening.done()  # the Acme page has not committed yet
        acme.url = "http://portal.acmehealth.test/login"
        await opening

    asyncio.run(scenario())
    assert context.pages == [ehr, start, acme] and stray.calls == [("closed",)]
    assert [station.page_for(site) for site in ("workspace", "ehr", "acme")] == [
        start, ehr, acme]
    assert start.calls == [("waited", "domcontentloaded"), ("front",)]
    for page in (ehr, acme):  # none loaded a second time
        assert page.calls == [("waited", "domcontentloaded")]


def test_only_a_tab_that_came_or_went_after_the_window_showed_is_an_animation_to_wait_for(
        tmp_path):
    """The pages the browser opened as it started are in its tab strip when its window first
    shows: nothing slides, and the settle does not wait for the strip (``tabs_changed_at``
    stays unset). A page that commits later, a stray page closed or a page made are."""
    context = _Context(["http://workspace.local/", "http://emr.clinic.test/login",
                        "http://portal.acmehealth.test/login"])
    station = _station(tmp_path, context)
    asyncio.run(station.open_tabs())
    assert station.tabs_changed_at == 0.0

    context = _Context(["http://workspace.local/", "http://emr.clinic.test/login",
                        "about:blank"])
    station = _station(tmp_path, context)

    async def late():
        opening = asyncio.ensure_future(station.open_tabs())
        await asyncio.sleep(0.05)
        context.pages[2].url = "http://portal.acmehealth.test/login"
        before = time.monotonic()
        await opening
        return before

    committed = asyncio.run(late())
    assert station.tabs_changed_at >= committed


def test_tabs_the_browser_did_not_open_are_opened_and_a_first_page_elsewhere_loaded(
        tmp_path, monkeypatch):
    import episodes.workstation

    monkeypatch.setattr(episodes.workstation, "STARTUP_PAGES_S", 0.05)
    context = _Context(["about:blank", "http://example.test/"])
    first, stray = context.pages
    asyncio.run(_station(tmp_path, context).open_tabs())
    assert context.pages[0] is first and stray not in context.pages
    assert first.calls[0] == ("goto", "http://workspace.local/")
    assert [p.url for p in context.pages] == [
        "http://workspace.local/", "http://emr.clinic.test/", "http://portal.acmehealth.test/"]
    assert context.most_at_once == 3  # side by side


def test_the_browser_is_asked_to_open_the_tabs_as_it_starts(tmp_path):
    from episodes.lockdown import browser_preferences

    def startup(urls):
        return browser_preferences(allowed_hosts=[], documents=tmp_path, downloads=tmp_path,
                                   homepage="http://a.test/", startup_urls=urls)["session"]

    assert startup(["http://a.test/", "http://b.test/"]) == {
        "restore_on_startup": 4, "startup_urls": ["http://a.test/", "http://b.test/"]}
    assert startup([])["startup_urls"] == ["http://a.test/"]


# -- reset ---------------------------------------------------------------------------------
REDIRECTS = {"http://workspace.local/": "http://workspace.local/folder/documents",
             "http://emr.clinic.test/": "http://emr.clinic.test/login?next=/main/calendar"}


class _Session:
    """A CDP session of the stand-in context: what was sent (and to which tab), in the
    context's log."""

    def __init__(self, context, page):
        self.context, self.page = context, page

    async def send(self, method, params=None):
        tab = self.context.pages.index(self.page) if self.page in self.context.pages else None
        self.context.log.append((method, (params or {}).get("origin", tab)))
        if method == "Browser.getWindowForTarget":
            return {"windowId": self.context.windows.get(self.page, 1)}
        return {}

    async def detach(self):
        pass


class _ResetContext(_Context):
    """A stand-in context that follows the sites' redirects and logs every step in order."""

    def __init__(self, urls):
        super().__init__(urls)
        self.log = []
        self.windows = {}  # page -> window id (1 unless said)
        self.connected = True
        self.browser = SimpleNamespace(is_connected=lambda: self.connected)
        for page in self.pages:
            self._watch(page)

    def _watch(self, page):
        goto, close = page.goto, page.close
        page.is_closed = lambda: page not in self.pages

        async def logged_goto(url, **kwargs):
            self.log.append(("goto", self.pages.index(page), url))
            await goto(url, **kwargs)
            page.url = REDIRECTS.get(url, url)

        async def logged_close(**kwargs):
            self.log.append(("close", self.pages.index(page)))
            await close(**kwargs)

        page.goto, page.close = logged_goto, logged_close

    async def new_page(self):
        page = await super().new_page()
        self._watch(page)
        self.log.append(("new page", len(self.pages) - 1))
        return page

    async def clear_cookies(self):
        self.log.append(("cookies cleared", None))

    async def new_cdp_session(self, page):
        return _Session(self, page)


@pytest.fixture(autouse=True)
def _no_display(monkeypatch):
    monkeypatch.setattr(tab_reset, "pointer_home", lambda display: None)


def _attempt(tmp_path, sites=("workspace", "ehr")):
    """A station whose tabs were opened, then an attempt: the first tab elsewhere, a tab of
    the agent's own, a download."""
    # the browser opened the tabs as it started (its startup pages), as it does
    context = _ResetContext([REDIRECTS.get(tab.url, tab.url) for tab in task_tabs(sites)])
    station = _station(tmp_path, context)
    station.tabs = task_tabs(sites)
    station.sites = list(sites)
    asyncio.run(station.open_tabs())
    context.pages[0].url = "http://emr.clinic.test/patient/7"
    agent = asyncio.run(context.new_page())
    agent.url = "http://workspace.local/folder/output"
    station.downloads.mkdir(parents=True)
    (station.downloads / "letter.pdf").write_bytes(b"%PDF")
    context.log.clear()
    return station, context, agent


def _index(log, step):
    return log.index(step)


def _cleared(log):
    return [i for i, step in enumerate(log)
            if step[0] in ("cookies cleared", "Storage.clearDataForOrigin")]


LANDED = [("goto", 0, "http://workspace.local/folder/documents"),
          ("goto", 1, "http://emr.clinic.test/login?next=/main/calendar")]


def test_a_reset_keeps_the_tasks_tabs_stops_them_clears_then_loads_where_they_landed(
        tmp_path):
    station, context, agent = _attempt(tmp_path)
    station._strip = object()  # the start's tab strip was pictured: it can be checked
    first, second = context.pages[:2]
    asyncio.run(station.reset())
    log = context.log
    # the task's tabs are kept (no tab made), the agent's closed
    assert context.pages == [first, second] and agent not in context.pages
    assert not [step for step in log if step[0] == "new page"]
    # nothing of the attempt runs while its state is cleared: our tabs blank (their
    # documents gone), the agent's tab closed, all before the clearing
    stopped = [i for i, step in enumerate(log) if step[0] == "close"
               or step[0] == "goto" and step[2] == "about:blank"]
    assert len(stopped) == 3 and max(stopped) < min(_cleared(log))
    assert {step[1] for step in log if step[0] == "Storage.clearDataForOrigin"} == {
        "http://workspace.local", "http://emr.clinic.test"}
    # each tab then goes straight to where it landed at start, and its back/forward
    # history is dropped
    loads = [step for step in log if step[0] == "goto" and step[2] != "about:blank"]
    assert sorted(loads) == LANDED
    for tab, load in enumerate(LANDED):
        assert _index(log, ("Page.resetNavigationHistory", tab)) > _index(log, load)
    assert station.page_for("ehr") is second
    assert list(station.downloads.iterdir()) == []


def test_a_tab_the_agent_closed_or_moved_to_another_window_is_made_again(tmp_path):
    station, context, _agent = _attempt(tmp_path, ("workspace", "ehr", "acme"))
    station._strip = object()
    first, second, third = context.pages[:3]
    asyncio.run(second.close())  # the agent closed the EHR's tab: the ones after go too
    context.log.clear()
    asyncio.run(station.reset())
    assert context.pages[0] is first and second not in context.pages
    assert third not in context.pages and len(context.pages) == 3
    assert [step for step in context.log if step[0] == "new page"] == [
        ("new page", 1), ("new page", 2)]
    assert station.page_for("acme") is context.pages[2]

    context.windows[context.pages[1]] = 2  # the EHR's tab dragged out into a window
    kept = context.pages[0]
    asyncio.run(station.reset())
    assert context.pages[0] is kept and len(context.pages) == 3
    assert [step for step in context.log if step[0] == "new page"][-2:] == [
        ("new page", 1), ("new page", 2)]


def test_without_a_picture_of_the_tab_strip_only_the_first_tab_is_kept(tmp_path):
    # a desktop task (the Citrix window in front at start): the tab strip cannot be checked
    station, context, agent = _attempt(tmp_path)
    first, second = context.pages[:2]
    asyncio.run(station.reset())
    log = context.log
    assert context.pages[0] is first and second not in context.pages
    assert [step for step in log if step[0] == "new page"] == [("new page", 1)]
    # the new tab is made once the others are closed, as a start makes it after one tab
    closes = [i for i, step in enumerate(log) if step[0] == "close"]
    assert len(closes) == 2 and log.index(("new page", 1)) > max(closes)
    assert sorted(step for step in log if step[0] == "goto" and step[2] != "about:blank"
                  ) == LANDED
    assert station.page_for("ehr") is context.pages[1]


def _closed_while_going_blank(context, page, browser_exits=False):
    """``page`` closes as the reset sends it to about:blank (the browser, or the browser's
    exit, closed it), as Playwright then says."""
    async def goto(url, **_kwargs):
        context.pages.remove(page)
        if browser_exits:
            context.connected = False
        raise RuntimeError("Page.goto: Target page, context or browser has been closed")

    page.goto = goto


@pytest.mark.parametrize("strip", [True, False])
def test_a_kept_tab_that_closes_during_the_reset_is_made_again(tmp_path, strip, caplog):
    station, context, _agent = _attempt(tmp_path)
    if strip:
        station._strip = object()
    first, second = context.pages[:2]
    _closed_while_going_blank(context, first)
    asyncio.run(station.reset())
    assert first not in context.pages and len(context.pages) == 2
    assert [page.url for page in context.pages] == [
        "http://workspace.local/folder/documents",
        "http://emr.clinic.test/login?next=/main/calendar"]
    assert station.page_for("workspace") is context.pages[0]
    assert "kept tab(s) closed during the reset" in caplog.text
    # the clearing went through a session of a tab that is open
    assert [step[1] for step in context.log if step[0] == "Storage.clearDataForOrigin"]


def test_a_tab_browser_that_exits_during_the_reset_fails_it_saying_so(tmp_path):
    station, context, _agent = _attempt(tmp_path)
    _closed_while_going_blank(context, context.pages[0], browser_exits=True)
    with pytest.raises(WorkstationError, match="the tab browser exited during the reset"):
        asyncio.run(station.reset())
    assert not [step for step in context.log if step[0] == "Storage.clearDataForOrigin"]


def test_a_fresh_reset_makes_every_tab_anew(tmp_path):
    station, context, agent = _attempt(tmp_path)
    station._strip = object()
    old = list(context.pages)
    asyncio.run(station.reset(fresh=True))
    assert len(context.pages) == 2 and not set(old) & set(context.pages)
    # the new first tab is made before the old ones close: the window keeps a tab
    assert context.log.index(("new page", 3)) < min(
        i for i, step in enumerate(context.log) if step[0] == "close")
    assert station.page_for("workspace") is context.pages[0]


def test_the_tab_strip_check_ignores_faint_corners_but_not_a_changed_tab():
    reference = np.full((4, 8, 3), 200, np.uint8)
    faint = reference.copy()
    faint[0, 0] = 196  # the active tab's rounded corner, a few levels off now and then
    assert strips_differ(reference, faint) == 0
    changed = reference.copy()
    changed[1:3, 2:6] = 40  # another title or a pin
    assert strips_differ(reference, changed) == 8
    assert strips_differ(reference, reference[:2]) > 0


def _frame(level: int):
    pixels = bytearray([level] * (8 * 4 * 4))
    return SimpleNamespace(width=8, height=4, stride=32, pixels=pixels)


def test_after_tabs_made_anew_the_tab_strip_is_compared_with_theirs(tmp_path):
    # the browser's own part of the strip (its download button) survives tabs made anew:
    # a reset after compares with that, not with the start's, and keeps its tabs
    station, context, _agent = _attempt(tmp_path)
    station.strip_rows = 2
    station._strip = tab_reset.strip_band(_frame(200), 2)
    asyncio.run(station.reset())
    asyncio.run(station.note_settled(_frame(100)))
    assert not station.strip_as_at_start()  # the Episode then makes the tabs anew
    asyncio.run(station.reset(fresh=True))
    asyncio.run(station.note_settled(_frame(100)))
    asyncio.run(station.reset())
    asyncio.run(station.note_settled(_frame(100)))
    assert station.strip_as_at_start()


# -- the episode's reset order -------------------------------------------------------------
class _Steps:
    def __init__(self, log):
        self.log = log

    async def stop(self):
        self.log.append("browser stopped")

    async def clear(self):
        self.log.append("browser clearing")
        await asyncio.sleep(0.05)
        self.log.append("browser cleared")

    async def load(self):
        self.log.append("browser loaded")

    async def close(self):
        self.log.append("browser closed")


def test_an_episode_stops_the_browser_before_it_restores_the_stores_and_resets_its_apps(tmp_path, monkeypatch):
    from episodes import episode as episode_module
    from sandbox.catalog import load_catalog

    log = []
    ep = episode_module.Episode(load_catalog().get("ord-01"), run_dir=tmp_path / "run")
    ep.status = "running"
    async def nothing_kept():
        return None

    ep.workstation = SimpleNamespace(reset_steps=lambda phases: _Steps(log),
                                     strip_as_at_start=lambda: True,
                                     state_kept_by_the_browser=nothing_kept)

    class _App:
        system = "hyperspace"

        async def reset(self, *_args):
            log.append("app reset")

    ep.apps = {"hyperspace": _App()}

    def restore(*_args):
        log.append("stores restored")

    async def settled(_episode):
        log.append("settled")
        return {"timed_out": []}

    monkeypatch.setattr(episode_module, "reset_files_and_stores", restore)
    monkeypatch.setattr(episode_module, "settle_workstation", settled)
    monkeypatch.setattr(ep, "_archive_attempt", lambda: None)
    asyncio.run(ep.reset())
    # nothing of the attempt reaches the stores once they are restored; the browser's
    # state is cleared beside the restoring, its tabs loaded after both
    assert log.index("browser stopped") < log.index("stores restored")
    assert log.index("stores restored") < log.index("browser cleared")
    assert log.index("browser loaded") > log.index("stores restored")
    # a published app resets once the stores are back, not after the browser's clearing
    assert log.index("stores restored") < log.index("app reset") < log.index("browser cleared")
    assert log[-2:] == ["browser closed", "settled"]


def test_a_browser_that_does_not_start_again_after_a_reset_fails_the_episode(tmp_path,
                                                                            monkeypatch):
    """A reset that starts the browser anew (the attempt left a file chooser's folder or
    the download button in it) and cannot fails the episode with the reason, rather than
    leaving it running with no browser."""
    from episodes import episode as episode_module
    from episodes.lockdown import WorkstationError
    from sandbox.catalog import load_catalog

    log: list[str] = []
    ep = episode_module.Episode(load_catalog().get("ord-01"), run_dir=tmp_path / "run")
    ep.status = "running"

    async def kept():
        return "the download button"

    async def restart(_playwright):
        log.append("restart")
        raise WorkstationError("Chromium (the tab browser) exited while starting")

    ep.workstation = SimpleNamespace(reset_steps=lambda phases: _Steps(log),
                                     strip_as_at_start=lambda: True,
                                     state_kept_by_the_browser=kept, restart_browser=restart)
    monkeypatch.setattr(episode_module, "reset_files_and_stores", lambda *_args: None)
    monkeypatch.setattr(ep, "_archive_attempt", lambda: None)
    monkeypatch.setattr(ep, "stop", lambda: asyncio.sleep(0))

    with pytest.raises(episode_module.EpisodeError, match="did not start again") as info:
        asyncio.run(ep.reset())
    assert "exited while starting" in str(info.value)
    assert log[-1] == "restart" and ep.status == "failed"
    assert "did not start again after the reset" in ep.failure
