"""The oracle driver: runs a task's ``gold.py`` through the GUI, like an agent would.

A gold solution gets an :class:`Oracle` and may only

* **locate**, through privileged read-only channels: the workstation browser's pages over
  Playwright (connected by ``--remote-debugging-pipe``, never a TCP port), the desktop EHR's
  inspector socket (widget geometry by ``objectName`` or accessible name), the taskbar's
  button map and the active window; and
* **act**, through the workstation's agent API only (the same WebSocket an agent uses), so
  the oracle's run is recorded as a normal trace and can be replayed by coordinates.

What gold code may call is enforced by :mod:`episodes.oracle.guard`.

A ``gold.py`` defines ``solve(o: Oracle) -> None``::

    def solve(o):
        o.show_tab("workspace")
        o.click(o.tab("workspace").get_by_role("link", name="New file"))
        o.enter_text(o.tab("workspace").get_by_label("File name"), "summary")
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from episodes.inspector import InspectorClient, InspectorError
from episodes.oracle.errors import OracleError, OracleViolation
from episodes.oracle.guard import DRIVER_KEY, ReadOnly, load_gold
from episodes.oracle.locators import (
    Box,
    content_origin,
    has_focus,
    is_front,
    screen_box,
)
from episodes.settle import QUIET_MS, app_shown, wait_for_still
from episodes.taskbar import BROWSER_CLASS, RECEIVER_CLASS, taskbar_state

if TYPE_CHECKING:
    from episodes.episode import Episode
    from episodes.workstation import Workstation

log = logging.getLogger(__name__)

LOCATE_TIMEOUT_S = 10.0
# the oracle locates by the page and the inspector, not by the picture it gets back: a small
# JPEG costs a few milliseconds where a full PNG costs tens on a busy core
SETTLE = {"quiet_ms": 120, "timeout_ms": 4000, "format": "jpeg", "quality": 20}


@dataclass(frozen=True)
class ApiReply:
    """What an API request of an API-channel oracle got back."""

    status: int
    headers: dict[str, str]
    text: str

    def json(self) -> Any:
        return json.loads(self.text)


class Oracle:
    """What ``solve(o)`` gets. Runs in its own thread; the episode's loop keeps serving."""

    def __init__(self, episode: Episode, loop: asyncio.AbstractEventLoop, agent: Any):
        self.episode = episode
        self.loop = loop
        self.agent = agent  # pixel_stream.client.AgentClient on the workstation
        self.actions = 0
        self._patient = True  # desktop locators wait for their widget (not in wait_until)
        self.api_calls = 0

    @property
    def _workstation(self) -> Workstation:
        workstation = self.episode.workstation
        if workstation is None:
            raise OracleError("the episode has no workstation (it is not running)")
        return workstation

    @property
    def variant(self) -> str:
        """The episode's variant: gold solutions branch on it like verify.py does."""
        return self.episode.variant

    def input_text(self, name: str) -> str:
        """A file of the task's Documents (``input/``), read like the agent could."""
        return (self.episode.run_dir / "input" / name).read_text(encoding="utf-8")

    def api_request(self, method: str, url: str, *, form: dict[str, str] | None = None,
                    body: Any = None, content: str | bytes | None = None,
                    params: dict[str, str] | None = None,
                    headers: dict[str, str] | None = None) -> ApiReply:
        """One HTTP request to a sandbox system's API, for an API-channel task only (the
        control pairs, whose agent has code execution and the credentials in ``input/``).

        The request goes to the episode's web server under the URL's host name, as the
        agent's own client would send it (``form`` url-encoded, ``body`` as JSON,
        ``content`` as it is, e.g. an X12 interchange). It is not an input of the
        workstation, so it is not in the pixel trace.
        """
        import httpx

        self._api_channel_only()
        target = httpx.URL(url)
        if target.host not in self._workstation.hosts:
            raise OracleError(f"{target.host} is not a system of this episode")
        self.api_calls += 1
        with httpx.Client(timeout=LOCATE_TIMEOUT_S) as client:
            reply = client.request(
                method, target.copy_with(scheme="http", host="127.0.0.1",
                                         port=self.episode.portal_port),
                data=form, json=body, content=content, params=params,
                headers={**(headers or {}), "Host": target.host})
        return ApiReply(reply.status_code, dict(reply.headers), reply.text)

    def write_output(self, name: str, text: str) -> None:
        """Write ``text`` to ``output/<name>``, one of the files the task declares
        (``outputs:``), for an API-channel task only: its agent has code execution and
        writes its result files itself. A screen task's oracle makes its files through the
        Workspace's pages, like its agent."""
        self._api_channel_only()
        if name not in self.episode.spec.outputs:
            raise OracleError(f"{name!r} is not an output of {self.episode.spec.alias} "
                              f"(outputs: {self.episode.spec.outputs})")
        (self.episode.run_dir / "output" / name).write_text(text, encoding="utf-8")

    @staticmethod
    def pdf_text(data: bytes) -> str:
        """The text of a PDF the oracle holds (e.g. a note downloaded from an API), page by
        page, as a client's PDF library reads it; gold code opens no streams of its own."""
        import pypdf

        reader = pypdf.PdfReader(io.BytesIO(data))
        return "\n".join(page.extract_text() or "" for page in reader.pages)

    def _api_channel_only(self) -> None:
        if self.episode.spec.channel != "api":
            raise OracleViolation(f"{self.episode.spec.alias} is a {self.episode.spec.channel}"
                                  "-channel task: its oracle acts through the agent API only")

    # -- plumbing --------------------------------------------------------------------------
    def _run(self, coro: Any, timeout: float = LOCATE_TIMEOUT_S + 5) -> Any:
        name = getattr(coro, "__qualname__", type(coro).__name__)
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(timeout)
        except TimeoutError as exc:  # a bare TimeoutError said nothing of what hung
            future.cancel()
            raise OracleError(f"the episode's event loop did not finish {name} within "
                              f"{timeout:g} s") from exc

    def act(self, action: dict[str, Any], settle: bool = True) -> Any:
        """One computer-use action through the agent API (and wait for the screen)."""
        self.actions += 1
        if settle:
            return self.agent.act_and_observe(action, **SETTLE)
        return self.agent.act(action)

    # -- locating --------------------------------------------------------------------------
    def tab(self, site: str) -> ReadOnly:
        """The browser tab opened for ``site`` (``workspace``, ``ehr``, ``acme`` ...)."""
        page = self._workstation.page_for(site)
        return ReadOnly(page, self._run, f"tab({site!r})")

    def widget(self, name: str, system: str | None = None) -> Box:
        """A desktop EHR widget by objectName or accessible name, in workstation pixels
        (waits until one is shown)."""
        found = self._inspect(system, lambda c: c.locate(name), f"widget {name!r}")
        return self._on_workstation(system, found)

    def widget_info(self, name: str, system: str | None = None) -> dict[str, Any]:
        """What the inspector says about a shown widget (text, enabled, checked ...)."""
        return self._inspect(system, lambda c: c.locate(name), f"widget {name!r}")

    def item(self, name: str, text: str, system: str | None = None) -> Box:
        """A row, tab, combo entry or menu action of widget ``name`` showing ``text``."""
        def find(client: InspectorClient) -> dict[str, Any]:
            for entry in client.items(name):
                if entry.get("text") == text and entry.get("visible", True) and "x" in entry:
                    return entry
            raise InspectorError(f"{name!r} shows no item {text!r}")

        return self._on_workstation(system, self._inspect(system, find,
                                                          f"item {text!r} of {name!r}"))

    def items(self, name: str, system: str | None = None) -> list[dict[str, Any]]:
        """Every row, tab, combo entry or menu action of widget ``name`` (inspector
        ``items``), with ``box`` (and each cell's ``box``) in workstation pixels where the
        inspector gave a rectangle — for rows whose cells must be told apart."""
        entries = self._inspect(system, lambda c: c.items(name), f"items of {name!r}")
        origin = self._run(self._receiver_origin(self._app(system)))

        def mapped(entry: dict[str, Any]) -> dict[str, Any]:
            out = dict(entry)
            if "x" in entry:
                out["box"] = Box(origin[0] + entry["x"], origin[1] + entry["y"], entry["w"],
                                 entry["h"])
            if "cells" in entry:
                out["cells"] = [mapped(cell) for cell in entry["cells"]]
            return out

        return [mapped(entry) for entry in entries]

    def app_state(self, system: str | None = None) -> dict[str, Any]:
        """The desktop app's ``ping``: ``screen``, ``user``, ``modal`` and ``active`` (the
        window with keyboard focus — wait for a dialog to be active before using its rects)."""
        return self._inspect(system, lambda c: c.request("ping"), "state")

    def wait_shown(self, system: str | None = None, timeout: float = LOCATE_TIMEOUT_S) -> None:
        """Until the workstation's screen shows what the desktop app has drawn: its display
        quiet, the Citrix window showing that picture exactly, and the workstation's screen
        still after it (nothing to wait for while the Citrix window is not in front).

        The inspector knows of a new dialog before its first paint has come through the
        stream; an input made then is recorded with a screen that lacks the dialog, so a
        replay waiting for that screen could inject it before the dialog is there, into
        the window the dialog blocks, where it is lost."""
        app = self._app(system)
        session = getattr(app, "session", None)
        if session is None or session.capture is None:
            raise OracleError(f"the {app.system} app is not being streamed")
        if self.active_window()[0] != RECEIVER_CLASS:
            return

        async def shown() -> None:
            deadline = time.monotonic() + timeout
            missed = await app_shown(self._workstation, session.capture, deadline)
            screen = self.episode.session.capture
            _, still_timed_out = await wait_for_still(screen, QUIET_MS / 1000, deadline)
            if missed or still_timed_out:
                raise OracleError(f"the Citrix window did not come to show the {app.system} "
                                  f"app's picture within {timeout:g} s")

        self._run(shown(), timeout + 5)

    def wait_until(self, condition: Callable[[], Any], what: str,
                   timeout: float = LOCATE_TIMEOUT_S) -> Any:
        """Poll ``condition`` (locator reads only) until it returns something truthy;
        the screen is not touched and nothing is recorded. Inside it, a desktop locator
        that finds nothing fails at once instead of waiting (the poll is the wait)."""
        deadline = time.monotonic() + timeout
        while True:
            self._patient = False
            try:
                value = condition()
            except OracleError:
                value = None
            finally:
                self._patient = True
            if value:
                return value
            if time.monotonic() > deadline:
                raise OracleError(f"waited {timeout:g} s for {what}")
            time.sleep(0.05)

    def _inspect(self, system: str | None, ask: Callable[[InspectorClient], Any],
                 what: str) -> Any:
        app = self._app(system)
        deadline = time.monotonic() + (LOCATE_TIMEOUT_S if self._patient else 0.0)
        while True:
            try:
                return ask(InspectorClient(app.inspector))
            except InspectorError as exc:
                if time.monotonic() > deadline:
                    raise OracleError(f"{what} of the {app.system} app: {exc}") from exc
            time.sleep(0.05)

    def _on_workstation(self, system: str | None, found: dict[str, Any]) -> Box:
        origin = self._run(self._receiver_origin(self._app(system)))
        return Box(origin[0] + found["x"], origin[1] + found["y"], found["w"], found["h"])

    def _app(self, system: str | None):
        apps = self.episode.apps
        if not apps:
            raise OracleError("this task has no desktop app")
        app = apps[system] if system else next(iter(apps.values()))
        if app.inspector is None:
            raise OracleError(f"the {app.system} app has no inspector socket")
        return app

    async def _receiver_origin(self, app) -> tuple[float, float]:
        page = self._workstation.receiver_page
        box = await page.locator("#screen").bounding_box()
        if box is None:
            raise OracleError("the Citrix Workspace window shows no session")
        x0, y0 = await content_origin(page)
        return x0 + box["x"], y0 + box["y"]

    def box(self, target: ReadOnly | Box | tuple[int, int]) -> Box:
        """Where ``target`` is on the workstation screen (scrolling it into view first)."""
        if isinstance(target, Box):
            return target
        if isinstance(target, tuple):
            return Box(target[0], target[1], 1, 1)
        locator = target.unwrap_for_driver(DRIVER_KEY)
        for _ in range(40):
            found = self._run(screen_box(locator, LOCATE_TIMEOUT_S))
            if found is None:
                raise OracleError(f"{locator} has no box on the page")
            box, viewport, covered = found
            if 0 <= box.y and box.y + min(box.height, 40) <= viewport[1] and not covered:
                return Box(box.x + viewport[2], box.y + viewport[3], box.width, box.height)
            # out of view, or under a bar that stays put (a sticky footer: to the middle)
            direction = "down" if box.y > viewport[1] / 3 else "up"
            distance = abs(box.y - viewport[1] / 3)
            self.act({"action": "scroll", "coordinate": [int(viewport[2] + viewport[0] / 2),
                                                          int(viewport[3] + viewport[1] / 2)],
                      "scroll_direction": direction,
                      "scroll_amount": max(1, min(10, int(distance // 100)))})
        raise OracleError(f"could not scroll {target!r} into view")

    # -- acting ----------------------------------------------------------------------------
    def click(self, target: Any, button: str = "left", count: int = 1) -> None:
        x, y = self.box(target).center
        name = {1: f"{button}_click", 2: "double_click", 3: "triple_click"}[count]
        self.act({"action": name, "coordinate": [x, y]})

    def double_click(self, target: Any) -> None:
        self.click(target, count=2)

    def type(self, text: str) -> None:
        self.act({"action": "type", "text": text})

    def key(self, combo: str) -> None:
        self.act({"action": "key", "text": combo})

    def enter_text(self, target: Any, text: str, replace: bool = True) -> None:
        """Click a field, select what is in it (when replacing) and type. A field of a page
        must have the focus before a key goes: on a loaded machine a suggestion list still
        open under the field before took the click once, and the keys went into that field."""
        self.click_into(target)
        if replace:
            self.key("ctrl+a")
        self.type(text)

    def click_into(self, target: Any, tries: int = 3, via: Any = None) -> None:
        """Click ``target`` (or ``via``, e.g. its label); for a page's element, wait until
        ``target`` has the keyboard focus (glances, in the trace as waits) and, when the
        click did not give it, close what took it (Escape) and click again."""
        for attempt in range(tries):
            self.click(target if via is None else via)
            if not isinstance(target, ReadOnly):
                return  # a desktop target or a point: the inspector's own checks
            locator = target.unwrap_for_driver(DRIVER_KEY)
            for _ in range(10):
                if self._run(has_focus(locator)):
                    return
                self.wait(0.1)
            log.warning("%s did not take the focus (click %d)", locator, attempt + 1)
            if attempt + 1 < tries:
                self.key("Escape")
                self.wait(0.2)

    def wait(self, seconds: float) -> None:
        self.act({"action": "wait", "duration": seconds}, settle=False)

    def wait_for(self, target: ReadOnly, state: str = "visible",
                 timeout: float = LOCATE_TIMEOUT_S) -> None:
        target.wait_for(state=state, timeout=timeout * 1000)

    def active_window(self) -> tuple[str | None, str | None]:
        """(WM_CLASS, title) of the window that has the keyboard focus, read from X like a
        screen reader would: the browser, the Citrix window, or a dialog of theirs (the
        file chooser is titled 'Open File', a save dialog 'Save File')."""
        state = self._run(asyncio.to_thread(taskbar_state, self._display_name))
        return state.active_class, state.active_title

    def downloads(self) -> list[str]:
        """Names of the files in the workstation's Downloads folder (what the browser's
        downloads list and the Workspace's Downloads folder show), finished ones only."""
        folder = self.episode.run_dir / "downloads"
        # Chromium writes a download into a hidden '.org.chromium.Chromium.XXXXXX' first
        # (then '….crdownload', then the name): what the Workspace lists is neither
        return sorted(p.name for p in folder.iterdir() if p.is_file() and not p.name.endswith(
            (".crdownload", ".part")) and not p.name.startswith(".")) if folder.is_dir() else []

    @property
    def _display_name(self) -> str:
        if self.episode.display is None:
            raise OracleError("the episode has no workstation display (it is not running)")
        return self.episode.display.name

    def screenshot(self) -> bytes:
        return self.agent.screenshot().data

    # -- windows and tabs ------------------------------------------------------------------
    def show_window(self, which: str, click: bool = False) -> None:
        """Bring ``browser`` or ``citrix`` to the front with a click on its taskbar button
        and wait until it has the focus. ``click``: click even when it is in front already,
        so that a replay of the recorded trace does not depend on which window had it."""
        wanted = {"browser": BROWSER_CLASS, "citrix": RECEIVER_CLASS}[which]
        state = self._run(asyncio.to_thread(taskbar_state, self._display_name))
        if state.active_class == wanted and not click:
            return
        button = state.buttons.get(wanted)
        if button is None:
            raise OracleError(f"no {which} window on the taskbar")
        self.click(Box(*button))
        deadline = time.monotonic() + LOCATE_TIMEOUT_S
        while self._run(asyncio.to_thread(taskbar_state, self._display_name)
                        ).active_class != wanted:
            if time.monotonic() > deadline:
                raise OracleError(f"the {which} window did not come to the front")
            time.sleep(0.05)

    def show_tab(self, site: str) -> None:
        """Bring the browser forward and switch to the tab of ``site`` (Ctrl+N)."""
        self.show_window("browser")
        index = [t.site for t in self._workstation.tabs].index(site) + 1
        page = self._workstation.page_for(site)
        if index <= 8:
            self.key(f"ctrl+{index}")
        deadline = time.monotonic() + LOCATE_TIMEOUT_S
        while not self._run(is_front(page)):
            if time.monotonic() > deadline:
                raise OracleError(f"the {site} tab did not come to the front")
            time.sleep(0.03)

    def show_desktop_app(self, click: bool = False) -> None:
        """The Citrix receiver window in front (see ``show_window``)."""
        self.show_window("citrix", click)


# -- running a gold solution -----------------------------------------------------------------
@dataclass(frozen=True)
class OracleRun:
    actions: int
    seconds: float


async def run_oracle(episode: Episode, solve: Callable[[Oracle], None] | None = None
                     ) -> OracleRun:
    """Run ``solve`` (default: the task's ``gold.py``) against a running episode.

    The solution runs in a worker thread with its own agent connection (client id
    ``oracle``, taking control); locator reads hop back onto this event loop.
    """
    from pixel_stream.client import AgentClient

    episode.check_running()
    if solve is None:
        if episode.spec.folder is None:
            raise OracleError(f"{episode.spec.alias} was not loaded from a task folder")
        solve = load_gold(episode.spec.folder)
    loop = asyncio.get_running_loop()
    connection = episode.connection()
    started = time.monotonic()

    def work() -> int:
        with AgentClient(connection["agent_url"], connection["token"], client_id="oracle",
                         control="take") as agent:
            oracle = Oracle(episode, loop, agent)
            solve(oracle)
            return oracle.actions

    actions = await asyncio.to_thread(work)
    return OracleRun(actions, time.monotonic() - started)
