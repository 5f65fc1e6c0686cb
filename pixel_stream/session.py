"""A pixel session: one display, captured once, served to viewers and agents on one port.

``PixelSession`` ties the parts together: the damage-driven capture and its latest-frame
slot, one XTEST input connection (driven from a single input thread so every client's
input is injected in order), the controller seat, the optional trace recorder, and an
HTTP/WebSocket server (Starlette on uvicorn) with

* ``GET /?token=..``       the receiver page (WebRTC video, input forwarding);
* ``WS  /rtc``             WebRTC signalling for the receiver page (``viewers.py``);
* ``WS  /agent``           the agent API (docs/agent-api.md);
* ``GET /status?token=..`` a JSON description of the session.

Every endpoint except the page's static assets needs the session token.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
import secrets
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from pixel_stream.agent_api import AgentConnection
from pixel_stream.capture import ScreenCapture
from pixel_stream.clients import ClientRegistry
from pixel_stream.control import ControlSeat
from pixel_stream.display import Display
from pixel_stream.frames import Frame, Rect
from pixel_stream.imaging import ScreenshotCache
from pixel_stream.lossless import LosslessFeed
from pixel_stream.policy import SessionPolicy
from pixel_stream.recording import TraceRecorder
from pixel_stream.xinput import InputInjector

if TYPE_CHECKING:
    from pixel_stream.video import EncodedFeed

# WebRTC and video (aiortc, PyAV: ~50 MB and ~0.2 s of imports) are loaded when the first
# viewer connects: an episode's agent-only sessions never need them.

log = logging.getLogger(__name__)

RECEIVER_DIR = Path(__file__).with_name("receiver")
# The receiver page may not touch the clipboard at all, whatever its script does.
PAGE_HEADERS = {
    "Permissions-Policy": "clipboard-read=(), clipboard-write=()",
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "media-src 'self' blob:; connect-src 'self'"
    ),
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
}


# Injector calls that never block (one XTEST request and a flush).
INLINE_INPUT = frozenset({"move", "button", "click", "scroll", "key_code", "cursor_position",
                          "apply_pointer", "apply_inline"})


MAX_TITLE = 200


def page_title(value: str | None) -> str:
    """The receiver page's ``<title>`` from ``?title=`` (unescaped; the caller escapes it).

    Set in the served HTML, so the window has its title from the first paint. Raises
    ``ValueError`` for a title that is too long or holds control characters.
    """
    if value is None or value == "":
        return "Pixel session"
    if len(value) > MAX_TITLE:
        raise ValueError(f"title is longer than {MAX_TITLE} characters")
    if any(ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 for ch in value):
        raise ValueError("title may not contain control characters")
    return value


class WallClock:
    """The default clock of a session with no sandbox clock: the machine's local time."""

    def now(self) -> datetime:
        return datetime.now().astimezone()


class SessionError(RuntimeError):
    """The session could not start or was used in a state that does not allow it."""


class _Server(uvicorn.Server):
    """uvicorn embedded in a session.

    No signal handling of its own (the session's owner handles signals), and no 10 Hz
    housekeeping tick: an idle session should not wake up for nothing.
    """

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.exit_requested = asyncio.Event()

    @contextlib.contextmanager
    def capture_signals(self):  # type: ignore[override]
        yield

    async def main_loop(self) -> None:
        await self.on_tick(0)  # sets the default response headers once
        await self.exit_requested.wait()

    def request_exit(self) -> None:
        self.should_exit = True
        self.exit_requested.set()


class PixelSession:
    """Serve one X display to human viewers (WebRTC) and agents (WebSocket API)."""

    def __init__(
        self,
        display: Display | str,
        host: str = "127.0.0.1",
        port: int = 0,
        token: str | None = None,
        mode: str = "desktop",
        record_dir: Path | str | None = None,
        record_screenshots: bool = False,
        policy: SessionPolicy | None = None,
        clock: Any = None,
        name: str | None = None,
        allowed_origins: tuple[str, ...] = (),
    ) -> None:
        self.display = display
        self.display_name = display if isinstance(display, str) else display.name
        if policy is None:
            policy = SessionPolicy(mode=mode)
        elif mode != "desktop" and policy.mode != mode:
            raise SessionError(f"mode={mode!r} contradicts policy.mode={policy.mode!r}")
        self.policy = policy
        self.host = host
        self.requested_port = port
        self.token = token or secrets.token_urlsafe(24)
        if not isinstance(self.token, str) or len(self.token) < 8:
            raise SessionError("a session token must be a string of at least 8 characters")
        self.record_dir = Path(record_dir) if record_dir is not None else None
        self.record_screenshots = record_screenshots
        # what stamps the trace's ``sandbox_time`` (an episode passes the sandbox clock)
        self.clock = clock if clock is not None else WallClock()
        self.name = name or f"pixel{self.display_name}"
        # origins (``scheme://host[:port]``) besides the session's own whose pages may open
        # its WebSockets (e.g. the address of a TLS terminator in front of it)
        self.allowed_origins = frozenset(o.rstrip("/") for o in allowed_origins)
        self.port: int | None = None
        self.width = 0
        self.height = 0
        self.ended = asyncio.Event()
        self.end_reason: str | None = None
        # set when an agent sends ``done`` (the episode layer grades on it)
        self.agent_done = asyncio.Event()
        self.agent_done_by: dict[str, Any] | None = None
        self.capture: ScreenCapture | None = None
        self.injector: InputInjector | None = None
        self.clients = ClientRegistry(ControlSeat(policy.disconnect_grace_s))
        self.recorder: TraceRecorder | None = None
        self.recording_failure: str | None = None
        self.screenshots = ScreenshotCache()
        self._feeds: dict[str, EncodedFeed] = {}
        self._lossless: LosslessFeed | None = None
        self._input_pool: ThreadPoolExecutor | None = None
        self._input_pending = 0
        self._server: _Server | None = None
        self._serve_task: asyncio.Task | None = None
        self._idle_task: asyncio.Task | None = None
        self._keeper = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.last_input_at = time.monotonic()
        self.started_at = 0.0

    # -- addresses ---------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        if self.port is None:
            raise SessionError("the session is not started")
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}"

    @property
    def url(self) -> str:
        """The receiver page, token included."""
        return f"{self.base_url}/?token={self.token}"

    @property
    def agent_url(self) -> str:
        """The agent API WebSocket (pass the token separately or as ``?token=``)."""
        return self.base_url.replace("http://", "ws://") + "/agent"

    @property
    def slot(self):
        return self.capture.slot

    @property
    def seat(self) -> ControlSeat:
        return self.clients.seat

    @property
    def accepts_input(self) -> bool:
        """The input connection is open (false once the session stops)."""
        return self._input_pool is not None

    # -- lifecycle ---------------------------------------------------------------------
    async def start(self) -> PixelSession:
        """Start capture, input, (recording,) and the server; returns when it accepts."""
        if self._serve_task is not None:
            raise SessionError("the session is already started")
        self._loop = asyncio.get_running_loop()
        self.started_at = time.monotonic()
        try:
            self.capture = ScreenCapture(
                self.display_name, max_fps=self.policy.max_fps,
                heartbeat_s=self.policy.heartbeat_s,
            )
            await asyncio.to_thread(self.capture.start)
            self.width, self.height = self.capture.width, self.capture.height
            self.injector = await asyncio.to_thread(InputInjector, self.display_name)
            self._input_pool = ThreadPoolExecutor(1, thread_name_prefix="pixel-input")
            if self.record_dir is not None:
                self.recorder = TraceRecorder(
                    self.record_dir, self.capture, self.clock.now,
                    screenshots=self.record_screenshots,
                    header={"mode": self.policy.mode, "display": self.display_name},
                    on_failure=self.recording_failed,
                )
                await self.recorder.start()
            if self.policy.mode == "published":
                from pixel_stream.published import PublishedWindowKeeper

                self._keeper = await asyncio.to_thread(
                    lambda: PublishedWindowKeeper(self.display_name).start()
                )
            await self._start_server()
            if self.policy.idle_timeout_s is not None:
                self._idle_task = asyncio.create_task(self._idle_watch(), name="idle-timeout")
        except BaseException:
            await self.stop()
            raise
        return self

    async def _start_server(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Inherited by accepted sockets: a reply and its image are two writes, and Nagle's
        # algorithm would hold the second one for the client's delayed ACK (40 ms).
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            sock.bind((self.host, self.requested_port))
        except OSError as exc:
            sock.close()
            raise SessionError(
                f"cannot listen on {self.host}:{self.requested_port} ({exc}); "
                "choose another port or port=0 for a free one"
            ) from exc
        sock.listen(64)
        sock.setblocking(False)
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self._app(), log_level="warning", lifespan="off", ws="websockets-sansio",
            ws_max_size=4 * 1024 * 1024, access_log=False,
        )
        self._server = _Server(config)
        self._serve_task = asyncio.create_task(self._server.serve(sockets=[sock]))
        while not self._server.started:
            if self._serve_task.done():
                self._serve_task.result()
                raise SessionError("the session server stopped during start-up")
            await asyncio.sleep(0.005)

    async def stop(self) -> None:
        """Close every client, stop the server, recording, encoders, input and capture.

        Each step runs even if an earlier one failed (a dead display must not leave the
        capture thread or the server behind); failures are logged.
        """
        if not self.ended.is_set():
            self._end("stopped")
        for step in (self._stop_clients, self._stop_server, self._stop_recorder,
                     self._stop_feeds, self._stop_keeper, self._stop_input,
                     self._stop_capture):
            try:
                await step()
            except Exception:  # noqa: BLE001 - keep stopping the rest
                log.exception("stopping session %s: %s failed", self.name, step.__name__)

    async def _stop_clients(self) -> None:
        await self.clients.close_all(1001)
        if self._idle_task is not None:
            self._idle_task.cancel()
            self._idle_task = None

    async def _stop_server(self) -> None:
        if self._server is not None:
            self._server.request_exit()
        if self._serve_task is not None:
            task, self._serve_task = self._serve_task, None
            try:
                await asyncio.wait_for(task, 5.0)
            except (TimeoutError, Exception):  # noqa: BLE001
                task.cancel()

    async def _stop_recorder(self) -> None:
        if self.recorder is not None:
            recorder, self.recorder = self.recorder, None
            await recorder.close()

    async def _stop_feeds(self) -> None:
        if self._lossless is not None:
            lossless, self._lossless = self._lossless, None
            await lossless.stop()
        feeds, self._feeds = list(self._feeds.values()), {}
        for feed in feeds:
            await asyncio.to_thread(feed.stop)

    async def _stop_keeper(self) -> None:
        if self._keeper is not None:
            keeper, self._keeper = self._keeper, None
            await asyncio.to_thread(keeper.stop)

    async def _stop_input(self) -> None:
        injector, self.injector = self.injector, None
        pool, self._input_pool = self._input_pool, None
        if injector is not None:
            if pool is not None:
                await self._loop.run_in_executor(pool, injector.close)
            else:
                injector.close()
        if pool is not None:
            pool.shutdown(wait=True)

    async def _stop_capture(self) -> None:
        if self.capture is not None:
            await asyncio.to_thread(self.capture.stop)

    async def __aenter__(self) -> PixelSession:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _end(self, reason: str) -> None:
        if self.ended.is_set():
            return
        self.end_reason = reason
        self.ended.set()
        log.info("session %s ended: %s", self.name, reason)
        for viewer in list(self.clients.viewers.values()):
            from pixel_stream.viewers import send_json

            asyncio.ensure_future(send_json(viewer.ws, {"type": "ended", "reason": reason}))
        for agent in list(self.clients.agents.values()):
            agent.tell({"type": "ended", "reason": reason})

    def recording_failed(self, reason: str) -> None:
        """The trace recorder failed: input is no longer recorded, so no more is taken.
        The session ends (clients are told why) and says so in ``recording_failure``."""
        self.recording_failure = reason
        self._end(reason)
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().create_task(self.clients.close_all(1011, reason[:100]))

    async def end(self, reason: str = "ended by the operator") -> None:
        """Log the session off: clients are told why and disconnected; input stops."""
        self._end(reason)
        await self.clients.close_all(1000, reason[:100])

    async def wait_ended(self) -> str:
        await self.ended.wait()
        return self.end_reason or ""

    # -- shared services ---------------------------------------------------------------
    async def run_input(self, fn, *args):
        """Run an injector call, in submission order across all clients.

        A pointer event is one non-blocking XTEST write: when nothing is queued on the
        input thread it is done right here, saving two thread hand-overs on the way from a
        click to the screen. Anything that may block (typing, remapping a keycode, key
        combinations) and anything behind queued work goes through the input thread.
        """
        if self._input_pool is None:
            raise SessionError("the session is stopped")
        name = getattr(fn, "__name__", "")
        # a double or triple click sleeps between its clicks: never on the event loop
        multi_click = name == "click" and len(args) > 1 and args[1] > 1
        if self._input_pending == 0 and name in INLINE_INPUT and not multi_click:
            return fn(*args)
        self._input_pending += 1
        try:
            return await self._loop.run_in_executor(self._input_pool, fn, *args)
        finally:
            self._input_pending -= 1

    def note_input(self, client_id: str, kind: str, event: dict | None, seq_before: int,
                   frame_before: Frame | None = None) -> None:
        """Every injected input passes here: idle timer and trace (``frame_before``: the
        frame on screen when it went in, for the trace's checkpoint)."""
        if event is None:  # accepted but nothing injected (a dead key)
            return
        self.last_input_at = time.monotonic()
        if self.recorder is not None:
            self.recorder.record(client_id, kind, event, seq_before, frame_before)

    def feed(self, codec: str) -> EncodedFeed:
        """The encoder of ``codec`` every viewer of that codec shares (made on first use)."""
        feed = self._feeds.get(codec)
        if feed is None:
            from pixel_stream.video import EncodedFeed

            feed = EncodedFeed(self.capture.slot, codec, quality=self.policy.video_quality)
            if self.policy.tile_changes_px is not None and self.policy.lossless_delay_s:
                feed.by_tiles = lambda dirty, f=feed: self._by_tiles(f, dirty)
                feed.on_tiles = self._tiles_from_encoder
            self._feeds[codec] = feed
        return feed

    def _by_tiles(self, feed: EncodedFeed, dirty: Rect) -> bool:
        """(Encoder or capture thread.) A change this small goes as tiles only when every
        viewer of ``feed`` shows tiles in order with its video."""
        limit = self.policy.tile_changes_px
        if limit is None or dirty.area > limit:
            return False
        return self._all_show_tiles(feed)

    def _all_show_tiles(self, feed: EncodedFeed) -> bool:
        """(Encoder or capture thread.) Every viewer of ``feed`` shows exact tiles in order
        with its video (and there is at least one)."""
        if self._lossless is None:
            return False
        watching = [v for v in list(self.clients.viewers.values())
                    if v.track is not None and v.track._feed is feed]
        return bool(watching) and all(v.shows_tiles for v in watching)

    def _tiles_from_encoder(self, seq: int) -> None:
        """(Encoder thread, or the capture thread when the encoder was not woken for it:
        ``EncodedFeed._divert``.) Frame ``seq`` was not encoded: the pages get it as tiles."""
        self._loop.call_soon_threadsafe(self._send_as_tiles, seq)

    def _send_as_tiles(self, seq: int) -> None:
        logs = {}
        for viewer in list(self.clients.viewers.values()):
            messages = viewer.sent_as_tiles(seq)
            if viewer.lossless is not None:
                logs[viewer.lossless] = messages
        if self._lossless is not None:
            self._lossless.send_change(seq, logs)

    def lossless_feed(self) -> LosslessFeed | None:
        """The exact-tile refresher all viewers share (None when the policy turns it off)."""
        delay = self.policy.lossless_delay_s
        if delay is None or self.capture is None:
            return None
        if self._lossless is None:
            self._lossless = LosslessFeed(self.capture.slot, self.width, self.height, delay)
        return self._lossless

    def describe(self) -> dict[str, Any]:
        latest = self.capture.slot.latest if self.capture else None
        return {
            "session": self.name,
            "display": self.display_name,
            "width": self.width,
            "height": self.height,
            "policy": self.policy.to_dict(),
            "ended": self.end_reason,
            "seq": latest.seq if latest else None,
            "frames_captured": self.capture.frames_captured if self.capture else 0,
            "viewers": sorted(self.clients.viewers),
            "agents": sorted(self.clients.agents),
            "control": self.seat.describe(),
            "encoders": {
                codec: {
                    "subscribers": f.subscribers,
                    "frames": f.frames_encoded,
                    "frames_by_tiles": f.frames_by_tiles,
                    "keyframes": f.keyframes,
                    "bytes": f.bytes_encoded,
                    "last_encode_ms": round(f.last_encode_ms, 2),
                }
                for codec, f in self._feeds.items()
            },
            "lossless": None if self._lossless is None else {
                "tiles": self._lossless.tiles_encoded,
                "tile_bytes": sum(v.bytes_sent for v in self._lossless.viewers),
                "encode_ms": round(self._lossless.encode_ms, 1),
                "messages": self._lossless.messages,
            },
            "recording": str(self.recorder.path) if self.recorder else None,
            "recording_failure": self.recording_failure,
        }

    async def _idle_watch(self) -> None:
        """Log off after ``idle_timeout_s`` without input while a client is connected.

        Like a farm's idle timer, it only runs while someone is connected (a disconnected
        session is the disconnect grace's business) and restarts when a client connects.
        """
        limit = self.policy.idle_timeout_s
        while not self.ended.is_set():
            changed = self.clients.changed
            if self.seat.connected_count == 0:
                await changed.wait()
                changed.clear()
                continue
            since = max(self.last_input_at, self.clients.last_connect_at)
            remaining = since + limit - time.monotonic()
            if remaining <= 0:
                await self.end(f"idle timeout: no input for {limit:g} s")
                return
            try:
                await asyncio.wait_for(changed.wait(), remaining)
                changed.clear()
            except TimeoutError:
                pass

    # -- HTTP / WebSocket --------------------------------------------------------------
    def _token_ok(self, conn: Request | WebSocket) -> bool:
        supplied = conn.query_params.get("token")
        auth = conn.headers.get("authorization", "")
        if supplied is None and auth.lower().startswith("bearer "):
            supplied = auth[7:].strip()
        return supplied is not None and secrets.compare_digest(supplied, self.token)

    def _app(self) -> Starlette:
        return Starlette(routes=[
            Route("/", self._page),
            Route("/receiver.js", self._asset("receiver.js", "text/javascript")),
            Route("/lossless.js", self._asset("lossless.js", "text/javascript")),
            Route("/receiver.css", self._asset("receiver.css", "text/css")),
            Route("/status", self._status),
            WebSocketRoute("/rtc", self._rtc),
            WebSocketRoute("/agent", self._agent),
        ])

    def _asset(self, name: str, media_type: str):
        path = RECEIVER_DIR / name

        async def endpoint(request: Request) -> Response:
            return FileResponse(path, media_type=media_type, headers=PAGE_HEADERS)

        return endpoint

    async def _page(self, request: Request) -> Response:
        if not self._token_ok(request):
            return HTMLResponse(
                "<!doctype html><title>Pixel session</title><p>This session needs its token: "
                "open the address you were given, including <code>?token=...</code>.</p>",
                status_code=403,
            )
        try:
            title = page_title(request.query_params.get("title"))
        except ValueError as exc:
            return HTMLResponse(
                f"<!doctype html><title>Pixel session</title><p>{html.escape(str(exc))}</p>",
                status_code=400,
            )
        page = (RECEIVER_DIR / "receiver.html").read_text(encoding="utf-8")
        page = page.replace("<title>Pixel session</title>",
                            f"<title>{html.escape(title, quote=True)}</title>", 1)
        return HTMLResponse(page, headers=PAGE_HEADERS)

    async def _status(self, request: Request) -> Response:
        if not self._token_ok(request):
            return JSONResponse({"error": "wrong or missing session token"}, status_code=403)
        return JSONResponse(self.describe())

    def _origin_ok(self, ws: WebSocket) -> bool:
        """A browser's WebSocket (it always sends ``Origin``) must come from a page of this
        session (same host and port as the address it connected to) or of an origin the
        session allows; a client that sends no Origin (an agent, a script) is not a
        browser and needs only the token."""
        origin = ws.headers.get("origin")
        if origin is None:
            return True
        if origin.rstrip("/") in self.allowed_origins:
            return True
        parts = urlsplit(origin)
        host = ws.headers.get("host", "")
        return parts.scheme in ("http", "https") and bool(parts.netloc) \
            and parts.netloc.lower() == host.lower()

    async def _reject(self, ws: WebSocket, reason: str) -> None:
        # Closing before accept makes the server answer the handshake with HTTP 403.
        log.info("rejected %s: %s", ws.url.path, reason)
        await ws.close(code=4403, reason=reason)

    # -- agents ------------------------------------------------------------------------
    async def _agent(self, ws: WebSocket) -> None:
        if not self._origin_ok(ws):
            await self._reject(ws, f"origin {ws.headers.get('origin')!r} is not allowed")
            return
        if not self._token_ok(ws):
            await self._reject(ws, "wrong or missing session token")
            return
        if self.ended.is_set():
            await self._reject(ws, f"session ended: {self.end_reason}")
            return
        await ws.accept()
        params = ws.query_params
        client_id = self.clients.client_id(params.get("client_id"), "agent")
        await self.clients.replace(client_id)
        agent = AgentConnection(self, ws, client_id)
        role = self.clients.add_agent(client_id, agent, params.get("control"))
        try:
            await agent.serve(role)
        except WebSocketDisconnect:
            pass
        except Exception:  # noqa: BLE001
            log.exception("agent connection %s failed", client_id)
        finally:
            self.clients.remove_agent(client_id, agent)

    # -- viewers -----------------------------------------------------------------------
    async def _rtc(self, ws: WebSocket) -> None:
        if not self._origin_ok(ws):
            await self._reject(ws, f"origin {ws.headers.get('origin')!r} is not allowed")
            return
        if not self._token_ok(ws):
            await self._reject(ws, "wrong or missing session token")
            return
        if self.ended.is_set():
            await self._reject(ws, f"session ended: {self.end_reason}")
            return
        await ws.accept()
        from pixel_stream.viewers import ViewerConnection

        await ViewerConnection(self, ws).serve()


class SessionThread:
    """A ``PixelSession`` on its own event loop in a background thread, for sync code.

        with SessionThread(display, record_dir=...) as session:
            AgentClient(session.agent_url, session.token) ...

    Attributes of the running session (``url``, ``agent_url``, ``token``, ``port`` ...) are
    available on ``.session``; the common ones are mirrored here.
    """

    def __init__(self, display: Display | str, **kwargs: Any) -> None:
        self._display = display
        self._kwargs = kwargs
        self.session: PixelSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = None

    def start(self, timeout: float = 30.0) -> SessionThread:
        import threading

        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                self.session = PixelSession(self._display, **self._kwargs)
                loop.run_until_complete(self.session.start())
            except BaseException as exc:  # noqa: BLE001 - reported to start()
                failure.append(exc)
                ready.set()
                loop.close()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

        self._thread = threading.Thread(target=run, name="pixel-session", daemon=True)
        self._thread.start()
        if not ready.wait(timeout):
            raise SessionError(f"the session did not start within {timeout:.0f} s")
        if failure:
            self._thread.join(5)
            raise failure[0]
        return self

    def call(self, coro_fn, *args, timeout: float = 60.0):
        """Run ``coro_fn(*args)`` on the session's loop and return its result."""
        future = asyncio.run_coroutine_threadsafe(coro_fn(*args), self._loop)
        return future.result(timeout)

    def stop(self) -> None:
        if self.session is None or self._loop is None or self._loop.is_closed():
            return
        try:
            self.call(self.session.stop)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    @property
    def url(self) -> str:
        return self.session.url

    @property
    def agent_url(self) -> str:
        return self.session.agent_url

    @property
    def token(self) -> str:
        return self.session.token

    def __enter__(self) -> SessionThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
