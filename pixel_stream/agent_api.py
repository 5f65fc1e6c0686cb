"""The agent API: one WebSocket per agent, JSON requests in, JSON replies (+ images) out.

Protocol (version 1; docs/agent-api.md is the reference):

* connect to ``ws://host:port/agent?token=...`` (or send ``Authorization: Bearer ...``);
  a wrong token is refused at the handshake (HTTP 403);
* the server greets with ``{"type": "hello", ...}`` (screen size, client id, role);
* each request is a JSON object with an ``op`` and an optional ``id`` echoed back;
* each reply is ``{"id": .., "ok": true, ...}`` or ``{"id": .., "ok": false, "error":
  {"code": .., "message": ..}}``; a reply that carries an image says so in ``"image"``
  and the image follows as the next (binary) WebSocket message;
* a malformed request gets an error reply and the connection stays up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import TYPE_CHECKING, Any

from pixel_stream.actions import ACTIONS, ActionError, parse_action, perform_action
from pixel_stream.imaging import ImageFormatError, check_format
from pixel_stream.observe import wait_for_quiet

if TYPE_CHECKING:
    from starlette.websockets import WebSocket

    from pixel_stream.session import PixelSession

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
OPS = ("screenshot", "act", "act_and_observe", "ping", "info", "control", "done")
DEFAULT_QUIET_MS = 300
DEFAULT_TIMEOUT_MS = 5000
MAX_TIMEOUT_MS = 120_000
MAX_MESSAGE = 1_000_000


# what the reader queues for a binary message (requests are JSON text)
_NOT_TEXT = "\x00binary"


class HeldInput:
    """What one agent holds down: buttons (``left_mouse_down`` with no ``left_mouse_up``
    yet) and key combinations (a ``hold_key`` in progress, or interrupted)."""

    def __init__(self) -> None:
        self.buttons: set[int] = set()
        self.combos: list[Any] = []

    def runner(self, run):
        """``run`` (the session's injector runner) noting presses and releases."""
        async def tracked(fn, *args):
            name = getattr(fn, "__name__", "")
            if name == "button":
                button, down = args
                (self.buttons.add if down else self.buttons.discard)(button)
            elif name == "hold_combo":
                combo, down = args
                if down:
                    self.combos.append(combo)
                elif combo in self.combos:
                    self.combos.remove(combo)
            return await run(fn, *args)

        return tracked

    async def release(self, session: PixelSession) -> None:
        """Release everything held (in reverse order of pressing)."""
        buttons, self.buttons = sorted(self.buttons), set()
        combos, self.combos = list(reversed(self.combos)), []
        if not session.accepts_input or session.injector is None:
            return
        injector = session.injector
        for button in buttons:
            with contextlib.suppress(Exception):
                await session.run_input(injector.button, button, False)
        for combo in combos:
            with contextlib.suppress(Exception):
                await session.run_input(injector.hold_combo, combo, False)


class RequestError(ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _ms(request: dict, key: str, default: float, low: float, high: float) -> float:
    value = request.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise RequestError("bad_request", f"{key} must be a number {low:g}..{high:g}, got {value!r}")
    return float(value)


class AgentConnection:
    """Serves one agent WebSocket for a session."""

    def __init__(self, session: PixelSession, websocket: WebSocket, client_id: str) -> None:
        self.session = session
        self.ws = websocket
        self.client_id = client_id
        self._send_lock = asyncio.Lock()
        self._requests: asyncio.Queue[str] = asyncio.Queue()
        self.held = HeldInput()
        self.told_role: str | None = None

    def tell(self, event: dict[str, Any]) -> None:
        """Send an event (``role``, ``ended``) between replies, never inside one."""
        async def send() -> None:
            with contextlib.suppress(Exception):
                await self._send(event)

        asyncio.ensure_future(send())

    def tell_role(self, role: str) -> None:
        """A ``role`` event, when the role differs from the one the agent was last told."""
        if role != self.told_role:
            self.told_role = role
            self.tell({"type": "role", "role": role})

    # -- transport -------------------------------------------------------------------
    async def _send(self, reply: dict[str, Any], image: bytes | None = None) -> None:
        async with self._send_lock:
            await self.ws.send_text(json.dumps(reply, ensure_ascii=False))
            if image is not None:
                await self.ws.send_bytes(image)

    async def _error(self, request_id: Any, code: str, message: str, op: Any = None) -> None:
        reply: dict[str, Any] = {"ok": False, "error": {"code": code, "message": message}}
        if request_id is not None:
            reply["id"] = request_id
        if isinstance(op, str):
            reply["op"] = op
        await self._send(reply)

    async def serve(self, role: str) -> None:
        """Greet, then answer requests until the agent disconnects."""
        s = self.session
        self.told_role = role
        await self._send({
            "type": "hello",
            "protocol": PROTOCOL_VERSION,
            "session": s.name,
            "client_id": self.client_id,
            "role": role,
            "width": s.width,
            "height": s.height,
            "mode": s.policy.mode,
            "ops": list(OPS),
            "actions": list(ACTIONS),
        })
        # Requests are answered in order by one worker while this loop keeps reading, so a
        # departure is noticed at once, even in the middle of a 20 s hold_key.
        worker = asyncio.create_task(self._work(), name=f"agent-{self.client_id}")
        try:
            while True:
                message = await self.ws.receive()
                if message["type"] == "websocket.disconnect":
                    return
                text = message.get("text")
                if text is None:
                    text = _NOT_TEXT
                self._requests.put_nowait(text)
        finally:
            await self.leave(worker)

    async def _work(self) -> None:
        while True:
            text = await self._requests.get()
            if text is _NOT_TEXT:
                await self._error(None, "bad_request", "send requests as JSON text messages")
                continue
            await self._handle_text(text)

    async def leave(self, worker: asyncio.Task | None = None) -> None:
        """The agent went away: cancel what it was doing (a hold_key, the rest of a type)
        and release every button and key it holds, as a departing viewer's are."""
        if worker is not None:
            worker.cancel()
            with contextlib.suppress(BaseException):
                await worker
        await self.held.release(self.session)

    async def _handle_text(self, text: str) -> None:
        if len(text) > MAX_MESSAGE:
            await self._error(None, "bad_request", f"request larger than {MAX_MESSAGE} bytes")
            return
        try:
            request = json.loads(text)
        except json.JSONDecodeError as exc:
            await self._error(None, "bad_json", f"request is not valid JSON: {exc}")
            return
        except RecursionError:
            await self._error(None, "bad_json", "request is nested too deeply; a request is "
                              "a flat JSON object with an 'op'")
            return
        if not isinstance(request, dict):
            await self._error(None, "bad_request", "a request must be a JSON object with an 'op'")
            return
        request_id = request.get("id")
        if not (request_id is None or isinstance(request_id, (str, int, float))):
            await self._error(None, "bad_request", "id must be a string or a number")
            return
        op = request.get("op")
        if op not in OPS:
            await self._error(
                request_id, "unknown_op", f"unknown op {op!r}; known ops: {', '.join(OPS)}", op
            )
            return
        if self.session.ended.is_set():
            await self._error(
                request_id, "session_ended", f"the session has ended ({self.session.end_reason})",
                op,
            )
            return
        try:
            reply, image = await getattr(self, f"_op_{op}")(request)
        except (RequestError, ActionError) as exc:
            await self._error(request_id, exc.code, str(exc), op)
            return
        except ImageFormatError as exc:
            await self._error(request_id, "bad_request", str(exc), op)
            return
        except Exception as exc:  # noqa: BLE001 - reported to the agent, connection stays up
            log.exception("agent request failed")
            await self._error(request_id, "internal", f"{type(exc).__name__}: {exc}", op)
            return
        reply = {"id": request_id, "ok": True, "op": op, **reply} if request_id is not None else {
            "ok": True, "op": op, **reply}
        await self._send(reply, image)

    # -- ops ---------------------------------------------------------------------------
    async def _image(self, request: dict, frame=None) -> tuple[dict, bytes]:
        fmt, quality = check_format(request.get("format", "png"), request.get("quality"))
        if frame is None:
            frame = (
                await self.session.capture.fresh_frame()
                if request.get("fresh", True)
                else self.session.slot.latest
            )
        started = time.perf_counter()
        data, cached = await asyncio.to_thread(
            self.session.screenshots.get, frame, fmt, quality or None
        )
        meta = {
            "format": fmt,
            "bytes": len(data),
            "width": frame.width,
            "height": frame.height,
            "seq": frame.seq,
            "encode_ms": round((time.perf_counter() - started) * 1000, 2),
            "cached": cached,
        }
        return meta, data

    async def _op_ping(self, request: dict) -> tuple[dict, None]:
        return {"pong": True}, None

    async def _op_info(self, request: dict) -> tuple[dict, None]:
        return self.session.describe(), None

    async def _op_control(self, request: dict) -> tuple[dict, None]:
        clients = self.session.clients
        if request.get("take"):
            clients.take_control(self.client_id)
        elif request.get("release"):
            clients.release_control(self.client_id)
        seat = clients.seat
        return {"role": seat.role(self.client_id), "controller": seat.holder}, None

    async def _op_done(self, request: dict) -> tuple[dict, None]:
        """The agent says it has finished the task (optionally with a ``message``); whoever
        runs the episode grades it. Sent again, it is answered the same way."""
        self._check_control()
        message = request.get("message")
        if message is not None and not isinstance(message, str):
            raise RequestError("bad_request", f"message must be a string, got {message!r}")
        s = self.session
        if not s.agent_done.is_set():
            s.agent_done_by = {"client_id": self.client_id, "message": message}
            s.agent_done.set()
        return {"done": True}, None

    async def _op_screenshot(self, request: dict) -> tuple[dict, bytes]:
        meta, data = await self._image(request)
        return {"seq": meta["seq"], "image": meta}, data

    def _check_control(self) -> None:
        seat = self.session.seat
        if not seat.may_input(self.client_id):
            raise RequestError(
                "view_only",
                f"this connection is view-only: client {seat.holder!r} has control; "
                "send {\"op\": \"control\", \"take\": true} to take it over",
            )

    async def _act(self, request: dict) -> tuple[Any, dict, int, float, float]:
        s = self.session
        action = parse_action(request.get("action"), s.width, s.height)
        if action.changes_input:
            self._check_control()
        frame_before = s.slot.latest
        seq_before = frame_before.seq if frame_before else 0
        started = time.monotonic()
        output = await perform_action(action, s.injector, self.held.runner(s.run_input))
        injected = time.monotonic()
        if action.changes_input:
            s.note_input(self.client_id, "action", dict(action.raw), seq_before,
                         frame_before=frame_before)
        return action, output, seq_before, started, injected

    async def _op_act(self, request: dict) -> tuple[dict, bytes | None]:
        action, output, seq_before, started, injected = await self._act(request)
        reply: dict[str, Any] = {
            "action": action.name,
            "seq_before": seq_before,
            "timings": {"inject_ms": round((injected - started) * 1000, 2)},
        }
        if output:
            reply["result"] = output
        if action.name == "screenshot":
            meta, data = await self._image(request)
            reply["seq"] = meta["seq"]
            reply["image"] = meta
            return reply, data
        return reply, None

    async def _op_act_and_observe(self, request: dict) -> tuple[dict, bytes]:
        quiet_ms = _ms(request, "quiet_ms", DEFAULT_QUIET_MS, 0, 60_000)
        timeout_ms = _ms(request, "timeout_ms", DEFAULT_TIMEOUT_MS, 1, MAX_TIMEOUT_MS)
        check_format(request.get("format", "png"), request.get("quality"))
        action, output, seq_before, started, injected = await self._act(request)
        observation = await wait_for_quiet(
            self.session.capture, injected, seq_before, quiet_ms, timeout_ms, since=started
        )
        meta, data = await self._image(request, observation.frame)
        total = (time.monotonic() - started) * 1000
        reply: dict[str, Any] = {
            "action": action.name,
            "seq_before": seq_before,
            "seq_after": observation.frame.seq,
            "seq": observation.frame.seq,
            "changed": observation.changed,
            "timed_out": observation.timed_out,
            "timings": {
                "inject_ms": round((injected - started) * 1000, 2),
                **observation.timings(),
                "encode_ms": meta["encode_ms"],
                "total_ms": round(total, 2),
            },
            "image": meta,
        }
        if output:
            reply["result"] = output
        return reply, data
