"""The tab browser's reset: back to the tabs the agent saw at start, at the least cost.

Opening, closing and navigating tabs is what a reset costs Chromium (its browser process
paints the tab strip in software and starts a renderer per new tab), so a reset keeps the
task's own tabs and navigates them in place:

1. the task's tabs that are still open in their order, in one window, are kept (the
   agent's own tabs and windows are closed) and sent to about:blank: once that commits,
   the attempt's documents are gone, their scripts stopped and their loads cancelled, so
   nothing of the attempt runs or lands while the state is cleared (freezing a page or
   disabling its scripts instead is cheaper, but a page's timer then still writes storage
   or cookies: freezing does not apply to a page Playwright keeps visible, and scripts
   must run again before the next page commits);
2. cookies, site storage and the downloads are cleared. The HTTP cache is kept: it holds
   only what is the same in every attempt (the sites' static files; their pages carry no
   validator or are ``no-store``, documents are ``no-store``, a document page's picture is
   revalidated by its content), and fetching those again was a third of the reset;
3. every kept tab goes straight to where it landed at start and its back/forward history
   is dropped; a tab the agent closed is made again after the kept ones. The pointer goes
   back to the middle of the screen, where a display starts it, and a site the agent
   zoomed is put back to 100 % (Ctrl+0 in one of its tabs: the browser keeps zoom per
   site, and neither a page nor CDP can set it).

What the browser keeps of a tab that no page can tell — pinned, grouped, moved in the tab
strip — shows in the tab strip and toolbar. The first settled screen of the episode gives
their picture (:func:`strip_band`); when a reset's settled screen does not show the same,
``Episode.reset`` resets the browser once more with every tab made anew (``fresh``).
Tabs made anew cannot be pinned, grouped or moved, so what still differs after that is the
browser's own (its toolbar's download button after a download): the settled screen after
a fresh reset becomes the picture later resets are compared with. Without that picture (the Citrix window in front at start), a reset keeps only the first
tab and makes the others anew, as a start does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

import numpy as np

from episodes.lockdown import WorkstationError
from episodes.phases import Phases

if TYPE_CHECKING:
    from episodes.workstation import Workstation

log = logging.getLogger(__name__)

# what reset clears of each sandbox origin (CDP Storage.clearDataForOrigin): every kind a
# page can write; "all" also clears caches no page of ours fills (shader cache, interest
# groups...) and took 5-10 times as long. Cookies are cleared for the whole context.
CLEARED_STORAGE = ("cookies,file_systems,indexeddb,local_storage,websql,service_workers,"
                   "cache_storage,shared_storage,storage_buckets")
# a pixel of the tab strip and toolbar counts as changed when one of its channels moved by
# more than this (two settled pictures of one tab strip differ by 2-4 levels now and then,
# on the active tab's rounded corners; a tab's title, pin or group colour by far more)
STRIP_LEVELS = 24


def strip_band(frame: Any, rows: int) -> np.ndarray:
    """The top ``rows`` of a captured frame (the maximized browser's tab strip and
    toolbar), as a rows x width x 3 array."""
    pixels = np.frombuffer(bytes(frame.pixels[:rows * frame.stride]), dtype=np.uint8)
    return pixels.reshape(rows, frame.width, 4)[:, :, :3].copy()


def strips_differ(reference: np.ndarray, band: np.ndarray) -> int:
    """How many pixels of ``band`` differ from ``reference`` by more than ``STRIP_LEVELS``."""
    if reference.shape != band.shape:
        return reference.size
    gap = np.abs(reference.astype(np.int16) - band.astype(np.int16)).max(axis=2)
    return int(np.count_nonzero(gap > STRIP_LEVELS))


class BrowserReset:
    """The module docstring's reset of ``station``'s tab browser in three steps — ``stop``
    (the attempt's tabs closed or stopped), ``clear`` (cookies, storage, downloads;
    the episode restores its stores beside it) and ``load`` (the task's tabs at their
    landing pages) — then ``close``. ``fresh``: every tab made anew (a start's tab strip)."""

    def __init__(self, station: Workstation, phases: Phases | None = None,
                 fresh: bool = False) -> None:
        self.station, self.fresh = station, fresh
        self.phases = phases or Phases()
        self.kept: list[Any] = []
        self.sessions: list[Any] = []
        self._made: asyncio.Future | None = None

    async def stop(self) -> None:
        station, context = self.station, self.station.context
        station.tabs_resetting()
        pages = list(context.pages)
        if self.fresh or not pages:
            # a new first tab before the others close: the window keeps a tab
            self.kept = [await station.new_page()]
            self.sessions = [await context.new_cdp_session(self.kept[0])]
        else:
            self.kept, self.sessions = await _kept_tabs(station, pages)
        with self.phases.span("browser: other pages closed, ours stopped"):
            await asyncio.gather(*(_stop(page) for page in self.kept),
                                 asyncio.to_thread(pointer_home, station.display),
                                 *(station.close_page(page) for page in pages
                                   if page not in self.kept))
        if any(page.is_closed() for page in self.kept):
            await self._without_closed_tabs()

    async def _without_closed_tabs(self) -> None:
        """A kept tab closed under the reset (by the browser or its page): the reset goes
        on with the others, or with a new first tab; a browser that is gone is said so."""
        station, context = self.station, self.station.context
        if not station.tab_browser_running():
            raise WorkstationError("the tab browser exited during the reset (its log: "
                                   f"{station.logs_dir / 'chromium.log'})")
        gone = [page for page in self.kept if page.is_closed()]
        log.warning("%d kept tab(s) closed during the reset (%s); the reset goes on without "
                    "them", len(gone), ", ".join(page.url for page in gone))
        pairs = []
        for page, session in zip(self.kept, self.sessions, strict=True):
            if page.is_closed():
                asyncio.ensure_future(_detach(session))
            else:
                pairs.append((page, session))
        if not pairs:
            page = await station.new_page()
            pairs = [(page, await context.new_cdp_session(page))]
        self.kept = [page for page, _ in pairs]
        self.sessions = [session for _, session in pairs]

    async def clear(self) -> None:
        station, context = self.station, self.station.context

        async def new_pages() -> list[Any]:
            # one after the other: the tab strip keeps the order they were asked in
            with self.phases.span("browser: new pages made (beside the clearing)"):
                return [await station.new_page()
                        for _ in range(len(station.tabs) - len(self.kept))]

        self._made = asyncio.ensure_future(new_pages())
        with self.phases.span("browser: cookies and storage cleared"):
            session = self.sessions[0]
            await asyncio.gather(
                context.clear_cookies(),
                *(session.send("Storage.clearDataForOrigin", {
                    "origin": f"http://{host}", "storageTypes": CLEARED_STORAGE})
                  for host in station.hosts))
            for path in station.downloads.glob("*"):
                if path.is_file():
                    path.unlink()

    async def load(self) -> None:
        station = self.station
        assert self._made is not None, "clear() first"
        tabs = [*self.kept, *await self._made]
        station.set_tab_pages(tabs)

        async def load(index: int, page: Any) -> bool:
            """Loaded, its history dropped; whether its site is zoomed."""
            await station.load_page(page, station.landing(station.tabs[index]))
            # a kept tab's history of the attempt goes, beside the zoom's question
            kept = index < len(self.sessions)
            _, zoomed = await asyncio.gather(
                self.sessions[index].send("Page.resetNavigationHistory") if kept
                else asyncio.sleep(0), _zoomed(page))
            return zoomed

        with self.phases.span("browser: tabs loaded"):
            zoomed = await asyncio.gather(*(load(i, page) for i, page in
                                            enumerate(tabs[:len(station.tabs)])))
            if not station.tabs:  # no tab: one blank page stays
                await station.load_page(tabs[0], "about:blank")
        if any(zoomed):
            with self.phases.span("browser: zoom put back"):
                await _unzoom(station, [p for p, z in zip(tabs, zoomed, strict=False) if z])
        await tabs[0].bring_to_front()
        await station.tabs_reset(self.fresh)

    async def close(self) -> None:
        made = self._made
        if made is not None and not made.done():
            made.cancel()
        if made is not None:
            with contextlib.suppress(BaseException):
                await made
        for session in self.sessions:  # not waited for: of no further use
            asyncio.ensure_future(_detach(session))


async def reset_browser(station: Workstation, phases: Phases | None = None,
                        fresh: bool = False) -> None:
    """A whole :class:`BrowserReset` of ``station``, one step after the other."""
    steps = BrowserReset(station, phases, fresh)
    try:
        await steps.stop()
        await steps.clear()
        await steps.load()
    finally:
        await steps.close()


async def _kept_tabs(station: Workstation, pages: list[Any]) -> tuple[list[Any], list[Any]]:
    """The task's tabs still open, in order and in the first one's window, with a CDP
    session each (only the first tab when the tab strip cannot be checked after)."""
    context = station.context
    wanted = station.tab_pages() if station.can_check_strip() else []
    kept, sessions, window = [], [], None
    for page in wanted:
        if page not in pages or page.is_closed():
            break
        session = await context.new_cdp_session(page)
        try:
            found = (await session.send("Browser.getWindowForTarget"))["windowId"]
        except Exception:  # noqa: BLE001 - closed meanwhile
            found = None
        if found is None or (window is not None and found != window):
            asyncio.ensure_future(_detach(session))
            break
        window = found
        kept.append(page)
        sessions.append(session)
    if not kept:  # the first page there is becomes the first tab, as at start
        first = next((page for page in pages if not page.is_closed()), None)
        if first is None:
            first = await station.new_page()
        kept = [first]
        sessions = [await context.new_cdp_session(first)]
    return kept, sessions


async def _zoomed(page: Any) -> bool:
    """Whether the browser shows ``page``'s site zoomed (the agent pressed Ctrl+plus: the
    browser keeps it per site, and no page or CDP call can set it back)."""
    try:
        return bool(await page.evaluate("devicePixelRatio !== 1"))
    except Exception:  # noqa: BLE001 - a page that did not load: nothing to say
        return False


async def _unzoom(station: Workstation, pages: list[Any]) -> None:
    """Each zoomed site back to 100 % as a user does it: its tab in front, Ctrl+0 (the
    attempt's trace is closed meanwhile)."""
    from episodes.taskbar import BROWSER_CLASS, activate_window

    await asyncio.to_thread(activate_window, station.display.name, BROWSER_CLASS)
    for page in pages:
        if not await _zoomed(page):  # another tab of its site put it back
            continue
        await page.bring_to_front()
        await asyncio.to_thread(_press, station.display.name, ("Control_L", "0"))
        with contextlib.suppress(Exception):
            await page.wait_for_function("devicePixelRatio === 1", timeout=2000)


def _press(display_name: str, keys: tuple[str, ...]) -> None:
    """``keys`` pressed together (XTest), then released in reverse order."""
    from Xlib import XK, X
    from Xlib import display as xdisplay
    from Xlib.ext import xtest

    conn = xdisplay.Display(display_name)
    try:
        codes = [conn.keysym_to_keycode(XK.string_to_keysym(key)) for key in keys]
        for code in codes:
            xtest.fake_input(conn, X.KeyPress, code)
        for code in reversed(codes):
            xtest.fake_input(conn, X.KeyRelease, code)
        conn.sync()
    finally:
        conn.close()


def pointer_home(display: Any) -> None:
    """The pointer back where a display starts it, the middle of the screen: what it hovers
    (a tab's highlight and its card, a toolbar button, a link) is part of the first screen."""
    from Xlib import display as xdisplay

    try:
        conn = xdisplay.Display(display.name)
    except Exception as exc:  # noqa: BLE001 - the display went away: the watchdog says so
        log.warning("the pointer was not moved back: %s", exc)
        return
    try:
        conn.screen().root.warp_pointer(display.width // 2, display.height // 2)
        conn.sync()
    finally:
        conn.close()


async def _stop(page: Any) -> None:
    """The page's document gone: once its navigation to about:blank commits, no script of
    it runs any more and its loads are cancelled."""
    try:
        await page.goto("about:blank", wait_until="commit", timeout=15_000)
    except Exception as exc:  # noqa: BLE001 - a page that went away meanwhile
        log.warning("a tab did not go blank: %s", exc)


async def _detach(session: Any) -> None:
    with contextlib.suppress(Exception):
        await session.detach()
