"""The workstation: the agent's desktop inside an episode.

One display with a window manager, a taskbar (window buttons and the sandbox clock), a
locked-down Chromium with the task's tabs and, for desktop-EHR tasks, a "Citrix Workspace"
receiver window: a Chromium app window showing the published app's pixel session 1:1.

The browser's lock-down (policies, profile, switches) is :mod:`episodes.lockdown`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from episodes import confine
from episodes.confine import BrowserFolders, Confinement
from episodes.lockdown import (
    IGNORED_PLAYWRIGHT_ARGS,
    WorkstationError,
    browser_preferences,
    chromium_switches,
    find_chromium,
    host_resolver_rules,
    prepare_profile,
)
from episodes.phases import Phases
from episodes.tab_reset import BrowserReset, reset_browser, strip_band, strips_differ
from episodes.taskbar import (
    BROWSER_CLASS,
    RECEIVER_CLASS,
    TASKBAR_HEIGHT,
    activate_window,
    file_dialog_seen,
)
from portal_web.settings import DEFAULT_HOSTS
from sandbox.clock import ClockError, SandboxClock

log = logging.getLogger(__name__)

RECEIVER_HOST = "citrix.workspace.local"

# web site (a portal_web.sites module) -> the host name it answers to
SITE_HOSTS: dict[str, str] = {site: host for host, site in DEFAULT_HOSTS.items()}
# task system -> the web sites it brings (desktop systems bring a published app instead)
SYSTEM_SITES: dict[str, tuple[str, ...]] = {
    "workspace": ("workspace",),
    "ehr": ("ehr",),
    "acme": ("acme", "dme", "acme_api"),
    "epa": ("epa",),
    "fax": ("fax",),
    "regulator": ("regulator",),
}
# sites that open as a browser tab at start, in tab order (APIs and the DME portal do not)
TAB_SITES = ("workspace", "ehr", "acme", "epa", "fax", "regulator")
# what the taskbar imports before it shows (a fork server imports them ahead)
TASKBAR_WARM_IMPORTS = ("PySide6.QtWidgets", "Xlib.display", "Xlib.protocol.event",
                        "sandbox.clock", "episodes.taskbar")
# how long the tab browser's start waits for the pages it opened for the tabs to commit
STARTUP_PAGES_S = 10.0
# how long one call to the tab browser as it starts (a page made, closed or brought to the
# front) may take: past it, the browser is taken for stuck and started once more
BROWSER_CALL_S = 10.0
TAB_TITLES = {"workspace": "Workspace", "ehr": "EHR", "acme": "Acme Health",
              "dme": "Acme DME", "epa": "ePA", "fax": "Beta Care fax",
              "regulator": "External review"}


class BrowserStuck(WorkstationError):
    """A call to the tab browser did not answer in time while it started."""


class ConfinementRefused(WorkstationError):
    """The browser cannot be confined on this machine (the message names the switch)."""


@dataclass(frozen=True)
class BrowserTab:
    """One tab the workstation opens at start (and again on reset)."""

    site: str
    url: str

    @property
    def title(self) -> str:
        return TAB_TITLES.get(self.site, self.site)


def task_sites(systems: Iterable[str]) -> list[str]:
    """The web sites a task's systems need, in a stable order."""
    wanted = {site for system in systems for site in SYSTEM_SITES.get(system, ())}
    return [site for site in SITE_HOSTS if site in wanted]


def task_tabs(systems: Iterable[str], instruction: str = "") -> list[BrowserTab]:
    """Workspace first, then each system's main site; a site the instruction names by host
    (e.g. the DME portal) also gets a tab."""
    sites = task_sites(systems)
    tabs = [s for s in TAB_SITES if s in sites]
    tabs += [s for s in sites if s not in tabs and SITE_HOSTS[s] in instruction
             and not s.endswith("_api")]
    return [BrowserTab(s, f"http://{SITE_HOSTS[s]}/") for s in tabs]


@dataclass
class Workstation:
    """The browser side of the workstation (the display and its session belong to the
    episode). ``start`` launches the taskbar, the tab browser and, when ``receiver_url``
    is set, the Citrix Workspace window."""

    display: Any  # pixel_stream.display.Display
    home: Path
    documents: Path
    downloads: Path
    portal_port: int
    sites: list[str]
    tabs: list[BrowserTab]
    clock_path: Path
    logs_dir: Path
    receiver_port: int | None = None
    receiver_token: str | None = None
    receiver_title: str = "Citrix Workspace"
    chromium: str | None = None
    on_crash: Callable[[str], None] | None = None
    # see episodes.confine: False (or EHR_SANDBOX_CONFINE=0) is the only way to run the
    # browser unconfined; a browser that cannot be confined is refused
    confine: bool = True
    phases: Phases | None = None  # where the start spends its time (episodes.phases)
    context: Any = None  # playwright BrowserContext of the tab browser
    receiver: Any = None  # playwright BrowserContext of the receiver window
    _taskbar: Any = None
    _closing: bool = False
    _starting_browser: bool = False
    _browser_exited: bool = False
    _receiver_started: bool = False  # the Citrix window is up and was brought to front
    _cdp: Any = None
    _pages_by_site: dict[str, Any] = field(default_factory=dict)
    # when a tab last opened or closed after the window first showed (monotonic): the tab
    # strip animates after it (the tabs the browser opened as it started do not slide)
    tabs_changed_at: float = 0.0
    # where each tab's site landed at start (its redirects followed): a reset loads it
    _landing: dict[str, str] = field(default_factory=dict)
    _launchers: dict[str, str] = field(default_factory=dict)
    # rows of the tab strip and toolbar at the top of the maximized browser (a reset
    # checks them against the start's picture, episodes.tab_reset)
    strip_rows: int = 0
    _strip: Any = None
    _last_settled: Any = None
    _strip_check_due: bool = False
    _strip_renewed: bool = False
    _launchers_lock: threading.Lock = field(default_factory=threading.Lock)
    _downloaded: bool = False  # a download began since the browser started

    # -- geometry ------------------------------------------------------------------------
    @property
    def work_area(self) -> tuple[int, int]:
        """Screen size left to windows above the taskbar."""
        return self.display.width, self.display.height - TASKBAR_HEIGHT

    @property
    def hosts(self) -> list[str]:
        return [SITE_HOSTS[s] for s in self.sites]

    @property
    def receiver_url(self) -> str | None:
        if self.receiver_port is None:
            return None
        # stats=0: no live round-trip figure in the window (it would make two screenshots of
        # one settled screen differ); title: the window's title from the first paint on
        query = urlencode({"token": self.receiver_token, "stats": "0",
                           "title": self.receiver_title})
        return f"http://{RECEIVER_HOST}/?{query}"

    def environment(self) -> dict[str, str]:
        env = self.display.env()
        env.update({
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_DOWNLOAD_DIR": str(self.downloads),
            "XDG_DOCUMENTS_DIR": str(self.documents),
            "TZ": "America/New_York",
            "LANG": "en_US.UTF-8",
        })
        for key in ("DBUS_SESSION_BUS_ADDRESS", "SESSION_MANAGER"):
            env.pop(key, None)
        return env

    @property
    def browser_folders(self) -> BrowserFolders:
        """HOME, Documents, Downloads and Output as the browser sees them: the clinic's
        fixed folders when it is confined (episodes.confine), else the run's own."""
        return confine.browser_folders(
            confined=self._confining(), home=self.home, documents=self.documents,
            downloads=self.downloads, output=self.documents.parent / "output")

    def browser_environment(self) -> dict[str, str]:
        """The browser's whole environment: none of the launcher's (episodes.confine)."""
        seen = self.browser_folders
        return confine.browser_environment(home=seen.home, display=self.display.name,
                                           documents=seen.documents,
                                           downloads=seen.downloads)

    # -- lifecycle -----------------------------------------------------------------------
    async def start(self, playwright: Any) -> Workstation:
        """Taskbar, then the tab browser with the task's tabs (and the receiver window when
        ``receiver_port`` is already known)."""
        self.start_taskbar()
        await self.start_browser(playwright)
        if self.receiver_port is not None and self.receiver_token is not None:
            await self.start_receiver(playwright, self.receiver_port, self.receiver_token)
        return self

    def start_taskbar(self) -> None:
        self._prepare_home()
        self._taskbar = self._start_taskbar()

    async def start_browser(self, playwright: Any) -> None:
        """The tab browser with the task's tabs. A Chromium that exits while it starts (it
        happens, rarely, on a loaded machine) or does not answer (``BrowserStuck``) is
        started once more; a second failure is the episode's."""
        chromium = find_chromium(self.chromium)
        self._starting_browser = True  # till it is up: its exit or close is not a crash
        try:
            for attempt in (1, 2):
                failure: Exception | None = None
                try:
                    await self._launch_tab_browser(playwright, chromium)
                    with self._span("tab browser: tabs loaded"):
                        await self.open_tabs()
                except ConfinementRefused:
                    raise  # starting it again would not help
                except Exception as exc:  # noqa: BLE001 - decided below: retried or raised
                    failure = exc
                stuck = isinstance(failure, BrowserStuck)
                if self.context is not None and not self._browser_exited and not stuck:
                    if failure is not None:
                        raise failure
                    return
                what = (f"did not answer while starting: {failure}" if stuck
                        else "exited while starting")
                if attempt == 2:
                    raise WorkstationError(f"Chromium (the tab browser) {what}"
                                           + self.chromium_log_tail()) from failure
                log.warning("Chromium (the tab browser) %s; starting it again (%s)%s", what,
                            failure, self.chromium_log_tail())
                if self.context is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(self.context.close(), 10)
                    self.context = None
        finally:
            self._starting_browser = False

    def chromium_log_tail(self, limit: int = 800) -> str:
        """The end of Chromium's standard error (for failure messages), or ''."""
        try:
            text = (self.logs_dir / "chromium.log").read_text(errors="replace").strip()
        except OSError:
            return ""
        return f"; its last output: {text[-limit:]}" if text else ""

    async def start_receiver(self, playwright: Any, port: int, token: str) -> None:
        """The Citrix Workspace window on a published app's session, in front."""
        self.receiver_port, self.receiver_token = port, token
        await self._launch_receiver(playwright, find_chromium(self.chromium))
        await self._receiver_to_front()
        self._receiver_started = True

    async def _receiver_to_front(self) -> None:
        """The Citrix window's page in front and its window active. While the window
        starts, Chromium may close a blank page it opened beside the session's page: the
        page is looked up again then."""
        for attempt in range(3):
            try:
                await self._answer(self.receiver_page.bring_to_front(),
                                   "bringing the Citrix window's page to the front")
                break
            except Exception:  # noqa: BLE001 - that page closed meanwhile
                if attempt == 2:
                    raise
                await asyncio.sleep(0.05)
        await asyncio.to_thread(activate_window, self.display.name, RECEIVER_CLASS)

    def _prepare_home(self) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        for name, target in (("Documents", self.documents), ("Downloads", self.downloads)):
            link = self.home / name
            if not link.exists() and not link.is_symlink():
                link.symlink_to(os.path.relpath(target, self.home))
        (self.home / ".config" / "gtk-3.0").mkdir(parents=True, exist_ok=True)
        for piece in confine.HOME_PIECES:  # bound into the confined browser's home
            (self.home / piece).mkdir(exist_ok=True)
        # the file chooser's side bar: the episode's folders only
        seen = self.browser_folders
        bookmarks = [f"file://{seen.documents} Documents", f"file://{seen.downloads} Downloads",
                     f"file://{seen.output} Output"]
        (self.home / ".config" / "gtk-3.0" / "bookmarks").write_text("\n".join(bookmarks) + "\n")
        # the desktop is the home (no side-bar entry for a Desktop folder that is not there)
        (self.home / ".config" / "user-dirs.dirs").write_text(
            'XDG_DESKTOP_DIR="$HOME"\nXDG_DOCUMENTS_DIR="$HOME/Documents"\n'
            'XDG_DOWNLOAD_DIR="$HOME/Downloads"\n')
        # no list of recently used files: it would carry an attempt's files over a reset
        (self.home / ".config" / "gtk-3.0" / "settings.ini").write_text(
            "[Settings]\ngtk-recent-files-enabled = false\ngtk-recent-files-max-age = 0\n")

    def _start_taskbar(self):
        """``python -m episodes.taskbar``, told to go at once (through ``prestart``: with a
        fork server in use, it is forked from there with Qt imported already)."""
        from episodes import prestart

        process, go = prestart.spawn(
            [sys.executable, "-m", "episodes.taskbar",
             "--clock", str(self.clock_path), "--height", str(TASKBAR_HEIGHT)],
            TASKBAR_WARM_IMPORTS, name="taskbar", env=self.environment(),
            log_path=self.logs_dir / "taskbar.log")
        prestart.go(go)
        return process

    def _span(self, name: str) -> contextlib.AbstractContextManager[None]:
        return self.phases.span(name) if self.phases is not None else contextlib.nullcontext()

    async def _launch(self, playwright: Any, chromium: str, profile: Path, rules: str,
                      extra: list[str], allowed_hosts: list[str], homepage: str,
                      label: str = "tab browser", startup_urls: Iterable[str] = ()):
        seen = self.browser_folders
        prepare_profile(profile, browser_preferences(
            allowed_hosts=allowed_hosts, documents=seen.documents, downloads=seen.downloads,
            homepage=homepage, startup_urls=startup_urls))
        width, height = self.work_area
        with self._span(f"{label}: confinement launcher"):
            executable = await asyncio.to_thread(self._confined, chromium, False)
        with self._span(f"{label}: Chromium launch"):
            launch = asyncio.ensure_future(playwright.chromium.launch_persistent_context(
                str(profile), executable_path=executable, headless=False,
                env=self.browser_environment(),
                no_viewport=True, accept_downloads=True,
                downloads_path=str(self.downloads),
                ignore_default_args=IGNORED_PLAYWRIGHT_ARGS, timeout=30_000,
                args=[*chromium_switches(rules, width=width, height=height), *extra],
            ))
            try:
                return await asyncio.shield(launch)
            except asyncio.CancelledError:
                # the driver is shared and goes on launching: the browser is closed as
                # soon as it is up (a stopped episode leaves no Chromium behind)
                launch.add_done_callback(_close_when_launched)
                raise
            except Exception:
                # a browser that cannot be confined never starts (unshare fails first):
                # only then is the confinement checked, to say why
                await asyncio.to_thread(self.check_confinement, chromium)
                raise

    def _confined(self, chromium: str, check: bool = True) -> str:
        """The launcher that runs ``chromium`` in the episode's confined view (written once
        per workstation; with ``check``, the view is made once with ``/bin/true`` first),
        or a plain one when confinement is switched off (noted in ``logs/confinement.log``).
        Either appends Chromium's standard error to ``logs/chromium.log``.
        ConfinementRefused when it cannot be confined here."""
        with self._launchers_lock:
            if chromium not in self._launchers:
                self._launchers[chromium] = (
                    self._launcher(chromium, check) if self._confining()
                    else self._plain_launcher(chromium))
            return self._launchers[chromium]

    def _confining(self) -> bool:
        return self.confine and confine.enabled()

    def check_confinement(self, chromium: str) -> None:
        """ConfinementRefused (naming the switch) when the browser cannot be confined here;
        nothing when it can or when confinement is switched off."""
        if self._confining():
            try:
                self._view(chromium).check()
            except (confine.ConfinementError, OSError) as exc:
                raise ConfinementRefused(confine.refusal(exc)) from exc

    def _plain_launcher(self, chromium: str) -> str:
        log.warning("the browser runs unconfined (%s=0): its file chooser can browse the "
                    "machine", confine.SWITCH)
        self.logs_dir.mkdir(parents=True, exist_ok=True)
        with open(self.logs_dir / "confinement.log", "a", encoding="utf-8") as out:
            out.write("browser not confined: switched off\n")
        path = self.logs_dir / "chromium-launch.sh"
        log_path = shlex.quote(str(self.logs_dir / "chromium.log"))
        path.parent.mkdir(parents=True, exist_ok=True)
        argv = " ".join(shlex.quote(a) for a in (*confine.PARENT_DEATH, chromium))
        path.write_text(f'#!/bin/sh\nexec {argv} "$@" 2>>{log_path}\n')
        path.chmod(0o755)
        return str(path)

    def _view(self, chromium: str) -> Confinement:
        return Confinement.for_browser(
            home=self.home, documents=self.documents, downloads=self.downloads,
            output=self.documents.parent / "output", program=chromium,
            stage=self.logs_dir / "browser-root")

    def _launcher(self, chromium: str, check: bool = True) -> str:
        try:
            view = self._view(chromium)
            if check:
                view.check()
            return str(view.launcher(self.logs_dir / "chromium-confined.sh", chromium,
                                     stderr_log=self.logs_dir / "chromium.log"))
        except (confine.ConfinementError, OSError) as exc:
            raise ConfinementRefused(confine.refusal(exc)) from exc

    async def _launch_tab_browser(self, playwright: Any, chromium: str) -> None:
        rules = host_resolver_rules(self.hosts, self.portal_port)
        homepage = self.tabs[0].url if self.tabs else "about:blank"
        self.context = await self._launch(
            playwright, chromium, self.home / ".config" / "chromium", rules,
            ["--start-maximized", f"--class={BROWSER_CLASS}"], self.hosts, homepage,
            startup_urls=[tab.url for tab in self.tabs])
        self._browser_exited = False
        self.context.on("close", lambda _ctx: self._tab_browser_closed())
        # Downloads keep their own names in the episode's Downloads (Playwright's default
        # would store them under random names in a temporary folder), dated by the sandbox
        # clock once done (``_download_progress``).
        self._cdp = await self.context.browser.new_browser_cdp_session()
        self._cdp.on("Browser.downloadProgress", self._download_progress)
        await self._cdp.send("Browser.setDownloadBehavior", {
            "behavior": "allow", "downloadPath": str(self.browser_folders.downloads),
            "eventsEnabled": True})

    def _download_progress(self, event: dict[str, Any]) -> None:
        """A finished download's modification time becomes the sandbox clock's now, so the
        file chooser lists it at the time the taskbar shows (not the machine's). The file is
        found by its name: the browser gives its path as it sees it (episodes.confine)."""
        self._downloaded = True  # the toolbar shows its download button from now on
        if event.get("state") != "completed" or not event.get("filePath"):
            return
        path = self.downloads / Path(str(event["filePath"])).name
        try:
            stamp = SandboxClock.load(self.clock_path).now().timestamp()
            os.utime(path, (stamp, stamp))
        except (OSError, ClockError) as exc:
            log.warning("could not date the download %s by the sandbox clock: %s", path, exc)

    async def _launch_receiver(self, playwright: Any, chromium: str) -> None:
        if self.receiver_port is None:
            raise WorkstationError("the receiver window needs the published app's port")
        rules = host_resolver_rules([RECEIVER_HOST], self.receiver_port)
        self.receiver = await self._launch(
            playwright, chromium, self.home / ".config" / "citrix-workspace", rules,
            [f"--app={self.receiver_url}", "--start-maximized",
             f"--class={RECEIVER_CLASS}", "--autoplay-policy=no-user-gesture-required"],
            [RECEIVER_HOST], "about:blank", label="citrix window")
        self.receiver.on("close", lambda _ctx: self._crashed("the Citrix Workspace window"))
        with self._span("citrix window: page loaded"):
            await self.receiver_page.wait_for_load_state("domcontentloaded")

    def _tab_browser_closed(self) -> None:
        self._browser_exited = True
        if not self._starting_browser:  # while starting, start_browser decides
            self._crashed("Chromium (the tab browser)")

    def _crashed(self, what: str) -> None:
        if not self._closing and self.on_crash is not None:
            self.on_crash(f"{what} exited")

    async def open_tabs(self) -> None:
        """The task's tabs in order, the first one active, nothing else: the pages the
        browser opened as it started become the tabs (``_startup_pages``); the tabs load
        side by side, and where each landed is kept for the reset (``landing``)."""
        pages = await self._startup_pages()
        kept = set(pages)
        opened = list(zip(self.tabs, pages, strict=False))  # no tab: one blank page stays
        self._pages_by_site = {tab.site: page for tab, page in opened}

        async def load(tab: BrowserTab, page: Any) -> None:
            await self._load(page, tab.url, reuse=page in kept)
            if _origin(page.url) == _origin(tab.url):
                self._landing[tab.site] = page.url

        await asyncio.gather(*(load(tab, page) for tab, page in opened))
        if self.tabs:
            await self._answer(pages[0].bring_to_front(), "bringing the first tab to the front")
        if self._receiver_started:
            # a desktop task starts with its published app in front and focused (at the
            # first start, the Citrix window's own start does this once it is up)
            await self._receiver_to_front()

    async def _startup_pages(self) -> list[Any]:
        """One page per tab, in the tabs' order. The browser opens the tabs' pages itself
        as it starts (its startup pages, ``_launch_tab_browser``), in that order; each is
        known by its site once its first navigation committed (Playwright lists them in
        no particular order). Should they not all be there within ``STARTUP_PAGES_S``, one
        page is kept, the others are closed, and a page is made for each further tab."""
        wanted = [_origin(tab.url) for tab in self.tabs]
        deadline = time.monotonic() + STARTUP_PAGES_S
        waited = False
        while True:
            old = [page for page in self.context.pages if not page.is_closed()]
            by_origin: dict[str, Any] = {}
            for page in old:
                by_origin.setdefault(_origin(page.url), page)
            if all(origin in by_origin for origin in wanted):
                pages = [by_origin[origin] for origin in wanted] or old[:1]
                if waited:  # a tab came after the window showed: the strip animates
                    self.tabs_changed_at = time.monotonic()
                break
            if time.monotonic() >= deadline:
                log.warning("the browser did not open the task's tabs itself; opening them")
                pages = old[:1]
                break
            waited = True
            await asyncio.sleep(0.01)
        while len(pages) < max(1, len(self.tabs)):
            pages.append(await self._new_page())
        await asyncio.gather(*(self._close(page) for page in old if page not in pages))
        return pages

    async def _answer(self, call: Awaitable[Any], what: str) -> Any:
        """``call``'s result, or BrowserStuck (naming ``what``) when the browser does not
        answer within ``BROWSER_CALL_S``: a call to a stuck browser would wait for ever."""
        try:
            return await asyncio.wait_for(call, BROWSER_CALL_S)
        except TimeoutError as exc:
            raise BrowserStuck(f"{what} took more than {BROWSER_CALL_S:g} s") from exc

    async def _new_page(self) -> Any:
        page = await self._answer(self.context.new_page(), "making a tab")
        self.tabs_changed_at = time.monotonic()
        return page

    async def _close(self, page: Any) -> None:
        with contextlib.suppress(Exception):  # gone already
            await self._answer(page.close(run_before_unload=False), "closing a tab")
        self.tabs_changed_at = time.monotonic()

    @staticmethod
    async def _load(page: Any, url: str, reuse: bool = False) -> None:
        """``url`` in ``page``; with ``reuse``, a page already on that site (the browser's
        start page is the first tab's) is waited for rather than loaded again."""
        try:
            if reuse and _origin(page.url) == _origin(url):
                await page.wait_for_load_state("domcontentloaded", timeout=15_000)
                return
            await page.goto(url, wait_until="domcontentloaded", timeout=15_000)
        except Exception as exc:  # noqa: BLE001 - a site that is not built yet
            log.warning("tab %s did not load: %s", url, exc)

    async def state_kept_by_the_browser(self) -> str | None:
        """What of the attempt Chromium keeps for as long as it runs, which no reset of its
        tabs, cookies and storage takes away (None: nothing): the folder a file chooser was
        left in (the next attempt's chooser opens there) and the toolbar's download button
        once something was downloaded. Asking clears the file chooser's mark."""
        kept = []
        if self.display is not None and await asyncio.to_thread(
                file_dialog_seen, self.display.name):
            kept.append("a file chooser's last folder")
        if self._downloaded:
            kept.append("the download button")
        return " and ".join(kept) or None

    async def restart_browser(self, playwright: Any) -> None:
        """The tab browser closed and started again with the task's tabs, on a new profile
        (``start_browser``): a reset after an attempt that left state in Chromium itself
        (``state_kept_by_the_browser``)."""
        self._starting_browser = True  # its close is not a crash
        if self.context is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.context.close(), 10)
        self.context = None
        self._pages_by_site, self._landing, self._downloaded = {}, {}, False
        await self.start_browser(playwright)
        # the new browser's strip is the start's: its settled screen gives the picture
        self._strip_check_due, self._strip_renewed = False, self._strip is not None

    async def reset(self, phases: Phases | None = None, fresh: bool = False) -> None:
        """Back to the start's tabs, nothing of the attempt left in the browser
        (:mod:`episodes.tab_reset`); ``fresh``: every tab made anew."""
        await reset_browser(self, phases, fresh=fresh)

    def reset_steps(self, phases: Phases | None = None) -> BrowserReset:
        """The same reset in steps, for the episode to restore its stores beside them."""
        return BrowserReset(self, phases)

    # -- what the reset (episodes.tab_reset) works with ----------------------------------
    def tab_pages(self) -> list[Any]:
        """The pages opened for the task's tabs, in tab order (closed ones too)."""
        return [self._pages_by_site[t.site] for t in self.tabs if t.site in self._pages_by_site]

    def set_tab_pages(self, pages: list[Any]) -> None:
        self._pages_by_site = {tab.site: page
                               for tab, page in zip(self.tabs, pages, strict=False)}

    def landing(self, tab: BrowserTab) -> str:
        """Where ``tab`` landed at start (its redirects followed): a reset goes straight
        there (the same page: the state it depends on was just put back)."""
        return self._landing.get(tab.site, tab.url)

    async def new_page(self) -> Any:
        return await self._new_page()

    async def close_page(self, page: Any) -> None:
        await self._close(page)

    async def load_page(self, page: Any, url: str) -> None:
        await self._load(page, url)

    def tab_browser_running(self) -> bool:
        """Whether the tab browser is up (not exited or crashed since its start)."""
        return (self.context is not None and not self._browser_exited
                and self.context.browser is not None and self.context.browser.is_connected())

    def tabs_resetting(self) -> None:
        self._last_settled = None

    async def tabs_reset(self, fresh: bool) -> None:
        self._strip_check_due = not fresh and self.can_check_strip()
        # tabs made anew cannot be pinned, grouped or moved: what still differs then is the
        # browser's own (its download button...), and later resets compare with that
        self._strip_renewed = fresh and self._strip is not None
        if self._receiver_started:
            # a desktop task starts with its published app in front and focused
            await self._receiver_to_front()

    def can_check_strip(self) -> bool:
        """Whether a reset's tab strip can be checked against the start's picture (the
        browser is the window in front and that picture was taken)."""
        return self._strip is not None and not self._receiver_started

    async def note_settled(self, frame: Any) -> None:
        """A settled screen (episodes.settle): the first one with the browser in front
        gives the picture of the start's tab strip and toolbar, a reset's is checked
        against it."""
        if self._receiver_started or self.context is None or not self.tabs:
            return
        if self._strip is None:
            try:  # the browser's own rows above its pages
                rows = await self.tab_pages()[0].evaluate("outerHeight - innerHeight")
            except Exception:  # noqa: BLE001 - no page to ask: no picture, no check
                return
            if not 0 < rows < frame.height:
                return
            self.strip_rows = rows
            self._strip = strip_band(frame, rows)
        elif self._strip_renewed:
            self._strip = strip_band(frame, self.strip_rows)
        self._strip_renewed = False
        self._last_settled = frame

    def strip_as_at_start(self) -> bool:
        """False when the last reset kept the tabs and its settled screen's tab strip and
        toolbar differ from the start's (a tab pinned, grouped or moved...)."""
        if not self._strip_check_due or self._last_settled is None or self._strip is None:
            return True
        self._strip_check_due = False
        changed = strips_differ(self._strip, strip_band(self._last_settled, self.strip_rows))
        if changed:
            log.info("the tab strip after a reset differs from the start's in %d pixels: "
                     "the tabs are made anew", changed)
        return changed == 0

    def page_for(self, site: str):
        """The tab opened for ``site`` at start (it may have navigated since)."""
        try:
            return self._pages_by_site[site]
        except KeyError:
            raise WorkstationError(
                f"no tab for {site!r}; tabs: {', '.join(self._pages_by_site) or 'none'}"
            ) from None

    @property
    def receiver_page(self):
        """The Citrix Workspace window's page (the session's page, not a blank start page
        Chromium may have opened and closed beside it)."""
        pages = [p for p in (self.receiver.pages if self.receiver is not None else [])
                 if not p.is_closed()]
        if not pages:
            raise WorkstationError("this workstation has no Citrix Workspace window")
        return next((p for p in pages if RECEIVER_HOST in p.url), pages[0])

    async def stop(self) -> None:
        self._closing = True
        for ctx in (self.receiver, self.context):
            if ctx is not None:
                try:
                    await asyncio.wait_for(ctx.close(), 10)
                except Exception:  # noqa: BLE001 - the browser may be gone already
                    pass
        self.context = self.receiver = None
        if self._taskbar is not None:
            self._taskbar.stop()
            self._taskbar = None

    def processes(self) -> list[Any]:
        return [p for p in (self._taskbar,) if p is not None]


_CLOSING: set[asyncio.Future] = set()  # closes of browsers launched for a stopped start


def _close_when_launched(launch: asyncio.Future) -> None:
    if launch.cancelled() or launch.exception() is not None:
        return
    with contextlib.suppress(RuntimeError):  # the loop is closing: the driver stops it
        closing = asyncio.ensure_future(_close_quietly(launch.result()))
        _CLOSING.add(closing)
        closing.add_done_callback(_CLOSING.discard)


async def _close_quietly(context: Any) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(context.close(), 10)


def _origin(url: str) -> str:
    """``scheme://host`` of a URL ('' for about:blank and the like)."""
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}" if rest else ""
