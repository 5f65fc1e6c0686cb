"""The workstation's tabs (no browser: a stand-in context records what was asked): the task's
tabs in order, every other page closed, loads side by side, and the pages the browser opened
for them as it started — already on their sites — waited for rather than loaded again."""

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
    """A CDP session of the stand-in context: what was sent, in the context's log."""

    def __init__(self, context):
        self.context = context

    async def send(self, method, params=None):
        self.context.log.append((method, (params or {}).get("origin")))
        return {}

    async def detach(self):
        pass


class _ResetContext(_Context):
    """A stand-in context that follows the sites' redirects and logs every step in order."""

    def __init__(self, urls):
        super().__init__(urls)
        self.log = []
        for page in self.pages:
            self._watch(page)

    def _watch(self, page):
        goto, close = page.goto, page.close

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
        return _Session(self)


def test_a_reset_clears_after_the_attempt_stopped_and_loads_where_the_start_landed(tmp_path):
    context = _ResetContext(["http://workspace.local/folder/documents",
                             "http://emr.clinic.test/login?next=/main/calendar"])
    station = _station(tmp_path, context)
    station.tabs = task_tabs(["workspace", "ehr"])
    station.sites = ["workspace", "ehr"]
    asyncio.run(station.open_tabs())
    first = context.pages[0]
    # the attempt: the first tab elsewhere, a tab of its own, a download
    first.url = "http://emr.clinic.test/patient/7"
    agent = asyncio.run(context.new_page())
    agent.url = "http://workspace.local/folder/output"
    station.downloads.mkdir(parents=True)
    (station.downloads / "letter.pdf").write_bytes(b"%PDF")
    context.log.clear()

    asyncio.run(station.reset())
    log = context.log
    cleared = [i for i, step in enumerate(log)
               if step[0] in ("cookies cleared", "Network.clearBrowserCache",
                              "Storage.clearDataForOrigin")]
    stopped = [log.index(("goto", 0, "about:blank"))] + [
        i for i, step in enumerate(log) if step[0] == "close"]
    # nothing of the attempt runs while its state is cleared: the first tab is blank and
    # the others closed first; every origin cleared
    assert len(stopped) == 3 and max(stopped) < min(cleared)
    # the new tab is made once the others are closed, as a start makes it after one tab
    assert [step for step in log if step[0] == "new page"] == [("new page", 1)]
    assert log.index(("new page", 1)) > max(stopped)
    assert {step[1] for step in log if step[0] == "Storage.clearDataForOrigin"} == {
        "http://workspace.local", "http://emr.clinic.test"}
    # the tabs go straight to where the start's redirects ended, the first one reused
    assert context.pages[0] is first and len(context.pages) == 2
    loads = [step for step in log if step[0] == "goto" and step[2] != "about:blank"]
    assert sorted(loads) == [("goto", 0, "http://workspace.local/folder/documents"),
                             ("goto", 1, "http://emr.clinic.test/login?next=/main/calendar")]
    # the first tab's history is dropped once its page is in
    assert log.index(("Page.resetNavigationHistory", None)) > log.index(
        ("goto", 0, "http://workspace.local/folder/documents"))
    assert station.page_for("ehr") is context.pages[1]
    assert list(station.downloads.iterdir()) == []
