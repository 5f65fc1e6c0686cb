"""The oracle driver: runs a task's ``gold.py`` through the GUI, like an agent would.

A gold solution gets an :class:`Oracle` and may only

* **locate**, through privileged read-only channels: the workstation browser's pages over
  Playwright (connected by ``--remote-debugging-pipe``, never a TCP port), the desktop EHR's
  inspector socket (widget geometry by ``objectName`` or accessible name), the taskbar's
  button map and the active window; and
* **act**, through the workstation's agent API only (the same WebSocket an agent uses), so
  the oracle's run is recorded as a normal trace and can be replayed by coordinates.

Locators handed to gold code are read-only proxies: building locators, reading boxes, text
and state is allowed; ``click``, ``fill``, ``evaluate`` and every other method that would act
through the DOM raises :class:`OracleViolation`. ``check_gold_source`` refuses gold code that
imports a store, Qt, Playwright, a socket or HTTP library, or opens files.

A ``gold.py`` defines ``solve(o: Oracle) -> None``::

    def solve(o):
        o.show_tab("workspace")
        o.click(o.tab("workspace").get_by_role("link", name="New file"))
        o.enter_text(o.tab("workspace").get_by_label("File name"), "summary")
"""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import json
import logging
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from episodes.episode import Episode

log = logging.getLogger(__name__)

GOLD_FILE = "gold.py"
LOCATE_TIMEOUT_S = 10.0
SETTLE = {"quiet_ms": 120, "timeout_ms": 4000}

# Locator/page methods a gold solution may call: they build locators or only read.
READ_ONLY_METHODS = frozenset({
    "locator", "get_by_role", "get_by_text", "get_by_label", "get_by_placeholder",
    "get_by_alt_text", "get_by_title", "get_by_test_id", "nth", "filter", "and_", "or_",
    "frame_locator", "content_frame", "owner",
    "bounding_box", "is_visible", "is_hidden", "is_enabled", "is_disabled", "is_checked",
    "is_editable", "count", "text_content", "inner_text", "input_value", "get_attribute",
    "all_text_contents", "all_inner_texts", "all", "wait_for", "title",
    "wait_for_load_state", "wait_for_url",
})
READ_ONLY_PROPERTIES = frozenset({"first", "last", "url"})
FORBIDDEN_IMPORTS = ("sqlite3", "sqlalchemy", "sandbox.stores", "sandbox.seeding",
                     "desktop_ehr", "PySide6", "PyQt5", "PyQt6", "playwright", "portal_web",
                     "socket", "subprocess", "os", "shutil", "pathlib", "httpx", "requests",
                     "urllib", "http", "websockets", "Xlib", "pixel_stream", "ctypes",
                     "importlib", "builtins", "io")
FORBIDDEN_CALLS = ("open", "exec", "eval", "compile", "__import__", "getattr", "setattr",
                   "globals", "vars")
# Playwright methods that act: gold code never calls them (the proxies also refuse them).
ACTING_METHODS = ("fill", "dblclick", "press", "press_sequentially", "check", "uncheck",
                  "set_checked", "select_option", "select_text", "set_input_files",
                  "evaluate", "evaluate_all", "evaluate_handle", "dispatch_event", "tap",
                  "hover", "focus", "blur", "drag_to", "clear", "goto", "reload", "go_back",
                  "go_forward", "add_init_script", "route", "expose_function", "set_content",
                  "keyboard", "mouse", "element_handle", "element_handles",
                  # files: gold code reads inputs (o.input_text) and never writes
                  "write_text", "write_bytes", "unlink", "touch", "mkdir", "rmdir",
                  "symlink_to", "chmod")


class OracleViolation(RuntimeError):
    """Gold code tried to act around the agent API (DOM, Qt, stores, files)."""


class OracleError(RuntimeError):
    """The oracle could not locate or reach what the gold solution asked for."""


class InspectorError(RuntimeError):
    """The desktop app's inspector answered with an error or not at all."""


# -- static guard ----------------------------------------------------------------------------
def check_gold_source(source: str, filename: str = GOLD_FILE) -> list[str]:
    """Problems that make gold code act around the agent API; empty when it is clean."""
    problems = []
    tree = ast.parse(source, filename)
    for node in ast.walk(tree):
        where = f"{filename}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [
                node.module or ""]
            for name in names:
                if any(name == f or name.startswith(f + ".") for f in FORBIDDEN_IMPORTS):
                    problems.append(f"{where}: imports {name} (gold code acts only through "
                                    "the Oracle it is given)")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in FORBIDDEN_CALLS:
            problems.append(f"{where}: calls {node.func.id}()")
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("_"):
                problems.append(f"{where}: reaches into the private attribute {node.attr}")
            elif node.attr in ("click", "type") and not isinstance(node.value, ast.Name):
                problems.append(f"{where}: .{node.attr} on a locator — use o.{node.attr}(locator)")
            elif node.attr in ACTING_METHODS:
                problems.append(f"{where}: uses .{node.attr} — act through the agent API "
                                "(o.click, o.type, o.key, o.enter_text ...)")
    return problems


def load_gold(task_folder: Path) -> Callable[[Oracle], None]:
    """The ``solve`` function of a task's ``gold.py``, after the static guard."""
    path = Path(task_folder) / GOLD_FILE
    if not path.is_file():
        raise OracleError(f"{path} does not exist: this task has no oracle yet")
    problems = check_gold_source(path.read_text(), str(path))
    if problems:
        raise OracleViolation("gold code acts around the agent API:\n" + "\n".join(problems))
    spec = importlib.util.spec_from_file_location(f"gold_{path.parent.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    solve = getattr(module, "solve", None)
    if not callable(solve):
        raise OracleError(f"{path} must define solve(o)")
    return solve


# -- read-only locators ----------------------------------------------------------------------
class ReadOnly:
    """A Playwright page or locator that only builds locators and reads.

    It lives in the gold solution's thread; every read runs on the episode's event loop.
    """

    __slots__ = ("__target", "__run", "__where")

    def __init__(self, target: Any, run: Callable[[Any], Any], where: str):
        self.__target = target
        self.__run = run
        self.__where = where

    def __getattr__(self, name: str) -> Any:
        if name in READ_ONLY_PROPERTIES:
            value = getattr(self.__target, name)
            return ReadOnly(value, self.__run, self.__where) if _is_locatorish(value) else value
        if name not in READ_ONLY_METHODS:
            raise OracleViolation(
                f"{self.__where}.{name} is not available to the oracle: it may locate and "
                "read, and must act through the agent API (o.click, o.type, o.key, ...)")
        method = getattr(self.__target, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            # locators given as arguments (filter(has=...), and_, or_) are proxies too
            args = tuple(_unwrap(a) for a in args)
            kwargs = {k: _unwrap(v) for k, v in kwargs.items()}
            value = method(*args, **kwargs)
            if asyncio.iscoroutine(value):
                value = self.__run(value)
            if isinstance(value, list):
                return [ReadOnly(v, self.__run, self.__where) if _is_locatorish(v) else v
                        for v in value]
            return ReadOnly(value, self.__run, self.__where) if _is_locatorish(value) else value

        return call

    def __repr__(self) -> str:
        return f"<read-only {self.__where}>"

    def unwrap_for_driver(self, key: object) -> Any:
        """The Playwright object, for the driver's own geometry code (not for gold code)."""
        if key is not _DRIVER_KEY:
            raise OracleViolation("only the oracle driver may unwrap a locator")
        return self.__target


_DRIVER_KEY = object()


def _unwrap(value: Any) -> Any:
    """The Playwright object behind a read-only proxy passed back into a locator method."""
    return value.unwrap_for_driver(_DRIVER_KEY) if isinstance(value, ReadOnly) else value


def _is_locatorish(value: Any) -> bool:
    return type(value).__name__ in ("Locator", "FrameLocator", "Page", "Frame")


# -- the desktop app's inspector ------------------------------------------------------------
@dataclass(frozen=True)
class Box:
    """A rectangle in some screen's pixels."""

    x: float
    y: float
    width: float
    height: float

    @property
    def center(self) -> tuple[int, int]:
        return int(self.x + self.width / 2), int(self.y + self.height / 2)


class InspectorClient:
    """The desktop EHR's locator socket (``desktop_ehr.inspector``; docs/desktop-ehr.md).

    One JSON request per line, one reply per line: ``ping``; ``find`` (widgets whose
    objectName or accessible name is ``name``, a ``*`` glob allowed — each with ``x, y, w,
    h`` in the app display's pixels, ``visible``, ``enabled``, ``text``); ``items`` (the
    rows, tabs, entries or menu actions of one widget, each with its rectangle and text);
    ``tree``; ``reset`` (back to the log-in screen, between episodes only). Replies carry
    ``"ok": true`` or ``"ok": false, "error": "..."``. Nothing in it clicks or types.
    """

    def __init__(self, path: Path, timeout: float = 10.0):
        self.path = Path(path)
        self.timeout = timeout

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(self.timeout)
            try:
                sock.connect(str(self.path))
                sock.sendall((json.dumps({"op": op, **fields}) + "\n").encode())
                data = b""
                while not data.endswith(b"\n"):
                    chunk = sock.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            except OSError as exc:
                raise InspectorError(f"no answer from the inspector at {self.path} ({exc})"
                                     ) from exc
        try:
            reply = json.loads(data or b"{}")
        except json.JSONDecodeError as exc:
            raise InspectorError(f"the inspector sent something that is not JSON: {exc}"
                                 ) from exc
        if not reply.get("ok"):
            raise InspectorError(reply.get("error") or f"the inspector refused {op!r}")
        return reply

    def find(self, name: str) -> list[dict[str, Any]]:
        return self.request("find", name=name)["widgets"]

    def locate(self, name: str) -> dict[str, Any]:
        """The first shown widget called ``name``."""
        for widget in self.find(name):
            if widget.get("visible", True):
                return widget
        raise InspectorError(f"no shown widget is called {name!r}")

    def items(self, name: str) -> list[dict[str, Any]]:
        return self.request("items", name=name)["items"]

    def reset(self) -> None:
        self.request("reset")


@dataclass(frozen=True)
class ApiReply:
    """What an API request of an API-channel oracle got back."""

    status: int
    headers: dict[str, str]
    text: str

    def json(self) -> Any:
        return json.loads(self.text)


# -- the oracle ------------------------------------------------------------------------------
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
    def variant(self) -> str:
        """The episode's variant: gold solutions branch on it like verify.py does."""
        return self.episode.variant

    def input_text(self, name: str) -> str:
        """A file of the task's Documents (``input/``), read like the agent could."""
        return (self.episode.run_dir / "input" / name).read_text(encoding="utf-8")

    def api_request(self, method: str, url: str, *, form: dict[str, str] | None = None,
                    body: Any = None, params: dict[str, str] | None = None,
                    headers: dict[str, str] | None = None) -> ApiReply:
        """One HTTP request to a sandbox system's API, for an API-channel task only (the
        control pairs, whose agent has code execution and the credentials in ``input/``).

        The request goes to the episode's web server under the URL's host name, as the
        agent's own client would send it (``form`` url-encoded, ``body`` as JSON). It is
        not an input of the workstation, so it is not in the pixel trace.
        """
        import httpx

        if self.episode.spec.channel != "api":
            raise OracleViolation(f"{self.episode.spec.alias} is a {self.episode.spec.channel}"
                                  "-channel task: its oracle acts through the agent API only")
        target = httpx.URL(url)
        if target.host not in self.episode.workstation.hosts:
            raise OracleError(f"{target.host} is not a system of this episode")
        self.api_calls += 1
        with httpx.Client(timeout=LOCATE_TIMEOUT_S) as client:
            reply = client.request(
                method, target.copy_with(scheme="http", host="127.0.0.1",
                                         port=self.episode.portal_port),
                data=form, json=body, params=params,
                headers={**(headers or {}), "Host": target.host})
        return ApiReply(reply.status_code, dict(reply.headers), reply.text)

    # -- plumbing --------------------------------------------------------------------------
    def _run(self, coro: Any, timeout: float = LOCATE_TIMEOUT_S + 5) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def act(self, action: dict[str, Any], settle: bool = True) -> Any:
        """One computer-use action through the agent API (and wait for the screen)."""
        self.actions += 1
        if settle:
            return self.agent.act_and_observe(action, **SETTLE)
        return self.agent.act(action)

    # -- locating --------------------------------------------------------------------------
    def tab(self, site: str) -> ReadOnly:
        """The browser tab opened for ``site`` (``workspace``, ``ehr``, ``acme`` ...)."""
        page = self.episode.workstation.page_for(site)
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
        page = self.episode.workstation.receiver_page
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
        locator = target.unwrap_for_driver(_DRIVER_KEY)
        for _ in range(40):
            found = self._run(_screen_box(locator, LOCATE_TIMEOUT_S))
            if found is None:
                raise OracleError(f"{locator} has no box on the page")
            box, viewport = found
            if 0 <= box.y and box.y + min(box.height, 40) <= viewport[1]:
                return Box(box.x + viewport[2], box.y + viewport[3], box.width, box.height)
            direction = "down" if box.y > 0 else "up"
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
        """Click a field, select what is in it (when replacing) and type."""
        self.click(target)
        if replace:
            self.key("ctrl+a")
        self.type(text)

    def wait(self, seconds: float) -> None:
        self.act({"action": "wait", "duration": seconds}, settle=False)

    def wait_for(self, target: ReadOnly, state: str = "visible",
                 timeout: float = LOCATE_TIMEOUT_S) -> None:
        target.wait_for(state=state, timeout=timeout * 1000)

    def screenshot(self) -> bytes:
        return self.agent.screenshot().data

    # -- windows and tabs ------------------------------------------------------------------
    def show_window(self, which: str, click: bool = False) -> None:
        """Bring ``browser`` or ``citrix`` to the front with a click on its taskbar button
        and wait until it has the focus. ``click``: click even when it is in front already,
        so that a replay of the recorded trace does not depend on which window had it."""
        from episodes.workstation import BROWSER_CLASS, RECEIVER_CLASS

        wanted = {"browser": BROWSER_CLASS, "citrix": RECEIVER_CLASS}[which]
        state = self._run(asyncio.to_thread(taskbar_state, self.episode.display.name))
        if state.active_class == wanted and not click:
            return
        button = state.buttons.get(wanted)
        if button is None:
            raise OracleError(f"no {which} window on the taskbar")
        self.click(Box(*button))
        deadline = time.monotonic() + LOCATE_TIMEOUT_S
        while self._run(asyncio.to_thread(taskbar_state, self.episode.display.name)
                        ).active_class != wanted:
            if time.monotonic() > deadline:
                raise OracleError(f"the {which} window did not come to the front")
            time.sleep(0.05)

    def show_tab(self, site: str) -> None:
        """Bring the browser forward and switch to the tab of ``site`` (Ctrl+N)."""
        self.show_window("browser")
        index = [t.site for t in self.episode.workstation.tabs].index(site) + 1
        page = self.episode.workstation.page_for(site)
        if index <= 8:
            self.key(f"ctrl+{index}")
        deadline = time.monotonic() + LOCATE_TIMEOUT_S
        while not self._run(_is_front(page)):
            if time.monotonic() > deadline:
                raise OracleError(f"the {site} tab did not come to the front")
            time.sleep(0.03)

    def show_desktop_app(self, click: bool = False) -> None:
        """The Citrix receiver window in front (see ``show_window``)."""
        self.show_window("citrix", click)


# -- geometry (driver side) ------------------------------------------------------------------
WINDOW_METRICS = "() => [screenX, screenY, outerWidth, outerHeight, innerWidth, innerHeight]"


async def content_origin(page: Any) -> tuple[float, float]:
    """Screen position of the page's viewport: window position plus the browser chrome
    above it (tab strip, toolbar, title bar), the side borders being equal."""
    sx, sy, ow, oh, iw, ih = await page.evaluate(WINDOW_METRICS)
    border = (ow - iw) / 2
    return sx + border, sy + (oh - ih) - border


async def _screen_box(locator: Any, timeout_s: float):
    """(box in viewport pixels, (viewport w, h, screen x0, y0)) or None."""
    try:
        await locator.wait_for(state="visible", timeout=timeout_s * 1000)
    except Exception as exc:  # noqa: BLE001 - Playwright's timeouts and strictness errors
        message = str(exc).split("Call log:")[0].strip()
        raise OracleError(f"cannot locate {locator}: {message}") from exc
    box = await locator.bounding_box()
    if box is None:
        return None
    page = locator.page
    x0, y0 = await content_origin(page)
    size = await page.evaluate("() => [innerWidth, innerHeight]")
    return Box(box["x"], box["y"], box["width"], box["height"]), (size[0], size[1], x0, y0)


async def _is_front(page: Any) -> bool:
    try:
        return await page.evaluate("() => document.visibilityState") == "visible"
    except Exception:  # noqa: BLE001 - navigating
        return False


@dataclass(frozen=True)
class TaskbarState:
    active_class: str | None
    buttons: dict[str, tuple[int, int, int, int]]  # WM_CLASS -> taskbar button box


def taskbar_state(display_name: str) -> TaskbarState:
    """The active window's class and the taskbar buttons (read from X, like a screen
    reader would); the taskbar publishes each button's window and box on the root window."""
    from Xlib import X
    from Xlib import display as xdisplay

    conn = xdisplay.Display(display_name)
    try:
        root = conn.screen().root
        active = root.get_full_property(conn.intern_atom("_NET_ACTIVE_WINDOW"),
                                        X.AnyPropertyType)
        active_class = None
        if active is not None and len(active.value) and active.value[0]:
            win = conn.create_resource_object("window", active.value[0])
            try:
                cls = win.get_wm_class()
                active_class = cls[1] if cls else None
            except Exception:  # noqa: BLE001
                active_class = None
        buttons: dict[str, tuple[int, int, int, int]] = {}
        prop = root.get_full_property(conn.intern_atom("_EHR_TASKBAR_BUTTONS"),
                                      X.AnyPropertyType)
        value = prop.value if prop is not None else b"[]"
        for entry in json.loads(value.decode() if isinstance(value, bytes) else str(value)):
            target = conn.create_resource_object("window", entry["window"])
            try:
                cls = target.get_wm_class()
            except Exception:  # noqa: BLE001 - the window is gone
                continue
            if cls:
                buttons.setdefault(cls[1], tuple(entry["box"]))
        return TaskbarState(active_class, buttons)
    finally:
        conn.close()


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
    solve = solve or load_gold(episode.spec.folder)
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
