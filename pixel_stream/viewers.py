"""One receiver page connected to a session: signalling, the peer, its input channel.

The page opens ``/rtc`` and sends ``{"type": "offer", "sdp", "client_id", "view_only"}``;
the answer comes back with the codec, the client id and the page's role. The WebSocket
then stays open for control (``take_control``, ``release_control``) and for the server's
``role``/``ended``/``error`` events; its closing is how the session learns that the
viewer left. Input arrives on the WebRTC data channel ``input``: messages are checked
(``viewer_input``), refused for view-only clients, queued (bounded) and injected in order
by one task per viewer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import TYPE_CHECKING, Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from pixel_stream.frames import Rect
from pixel_stream.lossless import CHANNEL_LABEL, LosslessViewer
from pixel_stream.rtc import ScreenVideoTrack, negotiate_viewer
from pixel_stream.stamps import FrameStamper
from pixel_stream.viewer_input import (
    POINTER_TYPES,
    ViewerInput,
    ViewerInputError,
    parse_viewer_input,
)

if TYPE_CHECKING:
    from pixel_stream.session import PixelSession

OFFER_TIMEOUT_S = 30.0
# Input messages of one viewer waiting to be injected. Injection keeps up with any typist
# (queued messages go in batches), so this only bounds a client that floods the session.
MAX_VIEWER_QUEUE = 8192
MAX_INPUT_BATCH = 512


async def send_json(ws: WebSocket, message: dict[str, Any]) -> None:
    """Send a JSON event, ignoring a connection that is already gone."""
    with contextlib.suppress(Exception):
        await ws.send_text(json.dumps(message))


class ViewerConnection:
    """Serves one receiver page for a session."""

    def __init__(self, session: PixelSession, ws: WebSocket) -> None:
        self.session = session
        self.ws = ws
        self.client_id = ""
        self.track = ScreenVideoTrack(session.feed)
        self.pc = None
        self.codec: str | None = None
        self.channel = None
        self.queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(MAX_VIEWER_QUEUE)
        self.input: ViewerInput | None = None
        self.worker: asyncio.Task | None = None
        self.lossless: LosslessViewer | None = None
        self.stamper: FrameStamper | None = None
        self.closed = False

    # -- signalling --------------------------------------------------------------------
    async def _read_offer(self) -> dict[str, Any] | None:
        ws = self.ws
        try:
            offer = json.loads(await asyncio.wait_for(ws.receive_text(), OFFER_TIMEOUT_S))
        except (TimeoutError, json.JSONDecodeError, WebSocketDisconnect, KeyError) as exc:
            await send_json(ws, {"type": "error", "message": f"expected an offer: {exc}"})
            return None
        if not isinstance(offer, dict) or offer.get("type") != "offer" or not isinstance(
            offer.get("sdp"), str
        ):
            await send_json(ws, {
                "type": "error",
                "message": 'the first message must be {"type": "offer", "sdp": "..."}',
            })
            return None
        return offer

    async def serve(self) -> None:
        """Answer the offer, then serve control messages until the page goes away."""
        session, ws = self.session, self.ws
        offer = await self._read_offer()
        if offer is None:
            self.track.stop()
            with contextlib.suppress(Exception):  # the page may be gone already
                await ws.close(1002)
            return
        clients = session.clients
        self.client_id = clients.client_id(offer.get("client_id"), "viewer")
        await clients.replace(self.client_id)
        try:
            self.pc, answer, self.codec = await negotiate_viewer(offer["sdp"], self.track)
        except Exception as exc:  # noqa: BLE001 - tell the page why
            await send_json(ws, {"type": "error", "message": f"cannot answer the offer: {exc}"})
            await ws.close(1002)
            self.track.stop()
            return
        self.input = ViewerInput(session.injector, session.run_input)
        self.worker = asyncio.create_task(self._inject_queued())
        self._attach_channel()
        role = clients.add_viewer(self.client_id, self,
                                  wants_control=not offer.get("view_only"))
        await ws.send_text(json.dumps({
            "type": "answer", "sdp": answer, "codec": self.codec, "client_id": self.client_id,
            "role": role, "width": session.width, "height": session.height,
        }))
        try:
            while True:
                await self._control(await ws.receive_text())
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            await self.close()

    async def _control(self, text: str) -> None:
        clients = self.session.clients
        try:
            message = json.loads(text)
        except json.JSONDecodeError:
            await send_json(self.ws, {"type": "error", "message": "not JSON"})
            return
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "take_control":
            clients.take_control(self.client_id)
        elif kind == "release_control":
            clients.release_control(self.client_id)
        elif kind == "ping":
            await send_json(self.ws, {"type": "pong", "ts": message.get("ts")})
        else:
            await send_json(self.ws, {
                "type": "error",
                "message": f"unknown message type {kind!r}; known: take_control, "
                "release_control, ping",
            })

    def send_role(self) -> None:
        role = self.session.seat.role(self.client_id)
        asyncio.ensure_future(send_json(self.ws, {"type": "role", "role": role}))
        if self.channel is not None and self.channel.readyState == "open":
            with contextlib.suppress(Exception):
                self.channel.send(json.dumps({"t": "role", "role": role}))

    # -- input -------------------------------------------------------------------------
    def _attach_channel(self) -> None:
        @self.pc.on("datachannel")
        def on_datachannel(channel) -> None:
            if channel.label == CHANNEL_LABEL:
                self._attach_lossless(channel)
                return
            self.channel = channel
            channel.send(json.dumps({"t": "role", "role": self.session.seat.role(self.client_id)}))

            @channel.on("message")
            def on_message(message) -> None:
                self._on_input(channel, message)

        @self.pc.on("connectionstatechange")
        async def on_state() -> None:
            if self.pc.connectionState in ("failed", "closed"):
                await self.close()

    @property
    def shows_tiles(self) -> bool:
        """Its page shows exact tiles in order with the video (a change may come as tiles
        only)."""
        stamper, lossless = self.stamper, self.lossless
        return (stamper is not None and lossless is not None and lossless.open
                and stamper.origin is not None and not stamper.failed)

    def sent_as_tiles(self, seq: int) -> list[dict[str, Any]]:
        """Frame ``seq`` reaches this page as tiles only: the damage log up to it, which
        goes to the page with (before) the change's tiles."""
        if self.stamper is None or self.lossless is None:
            return []
        return self.stamper.by_tiles(seq)

    def _attach_lossless(self, channel) -> None:
        """The page's ``lossless`` channel: exact tiles, the damage log, frame stamps."""
        feed = self.session.lossless_feed()
        if feed is None or self.lossless is not None:
            return
        slot = self.session.capture.slot
        start = slot.latest.seq if slot.latest is not None else 0
        viewer = self.lossless = feed.add(channel, start)
        stamper = self.stamper = FrameStamper(self.pc.getSenders()[0], slot, start)
        video_feed = self.track._feed

        def on_frame(pts: int) -> None:
            seq = video_feed.seq_of_pts(pts) if video_feed is not None else None
            for message in stamper.frame_out(pts, seq):
                viewer.send(json.dumps(message))
            if stamper.lost:  # the page cleared what it could not check: send it all
                stamper.lost = False
                feed.resend(viewer, None)
            if stamper.failed:  # tiles could never be ordered: the page drops them
                self.track.on_frame = None
                feed.remove(viewer)
                with contextlib.suppress(Exception):
                    channel.close()

        self.track.on_frame = on_frame

        @channel.on("message")
        def on_message(message) -> None:
            # the page could not paint a tile: {"t": "resend", "x", "y", "w", "h"}
            with contextlib.suppress(Exception):
                msg = json.loads(message)
                rect = Rect(*(int(msg[k]) for k in ("x", "y", "w", "h")))
                feed.resend(viewer, rect.clamp(self.session.width, self.session.height))

        @channel.on("close")
        def on_close() -> None:
            feed.remove(viewer)

    def _on_input(self, channel, message: Any) -> None:
        session = self.session

        def reply(payload: dict[str, Any]) -> None:
            if channel.readyState == "open":
                channel.send(json.dumps(payload))

        if not isinstance(message, str):
            reply({"t": "error", "message": "send input as JSON text"})
            return
        try:
            msg = json.loads(message)
        except json.JSONDecodeError:
            reply({"t": "error", "code": "bad_json", "message": "input message is not JSON"})
            return
        if isinstance(msg, dict) and msg.get("t") == "ping":
            reply({"t": "pong", "id": msg.get("id"), "ts": msg.get("ts")})
            return
        if session.ended.is_set():
            reply({"t": "error", "code": "session_ended", "message": str(session.end_reason)})
            return
        try:
            event = parse_viewer_input(msg, session.width, session.height)
        except ViewerInputError as exc:
            reply({"t": "error", "code": exc.code, "message": str(exc)})
            return
        if event is None:
            return
        if not session.seat.may_input(self.client_id):
            if event["t"] != "move":
                reply({
                    "t": "error", "code": "view_only",
                    "message": f"view-only: client {session.seat.holder!r} has control",
                })
            return
        try:
            self.queue.put_nowait(event)
        except asyncio.QueueFull:
            reply({"t": "error", "code": "busy",
                   "message": f"input dropped: more than {MAX_VIEWER_QUEUE} messages waiting "
                              "to be injected; send input no faster than the screen can take "
                              "it"})

    async def _inject_queued(self) -> None:
        """Inject this client's messages in arrival order: whatever queued up while the
        previous ones were injected goes in one batch (one round trip to the server)."""
        session = self.session
        while True:
            events = [await self.queue.get()]
            while events[-1] is not None and not self.queue.empty() \
                    and len(events) < MAX_INPUT_BATCH:
                events.append(self.queue.get_nowait())
            stop = events[-1] is None
            if stop:
                events.pop()
            if events:
                frame_before = session.capture.slot.latest
                seq_before = frame_before.seq
                pointer_only = all(event["t"] in POINTER_TYPES for event in events)
                if pointer_only:
                    apply = self.input.apply_pointer
                elif self.input.never_blocks(events):
                    apply = self.input.apply_inline
                else:
                    apply = self.input.apply_all
                try:
                    failures = await session.run_input(apply, events)
                except Exception as exc:  # noqa: BLE001 - report and keep serving
                    failures = [(event, exc) for event in events]
                failed = {id(event) for event, _exc in failures}
                if failures and self.channel is not None and self.channel.readyState == "open":
                    self.channel.send(json.dumps({"t": "error", "message": str(failures[0][1])}))
                for event in events:
                    if id(event) not in failed:
                        record = {k: v for k, v in event.items() if k != "keysym"}
                        session.note_input(self.client_id, "input", record, seq_before,
                                           frame_before=frame_before)
            if stop:
                return

    # -- end ---------------------------------------------------------------------------
    async def close(self) -> None:
        """Release held input, close the peer and the socket; tell the seat we left."""
        if self.closed:
            return
        self.closed = True
        session = self.session
        if self.worker is not None:
            self.worker.cancel()
        if self.input is not None and session.accepts_input:
            with contextlib.suppress(Exception):
                await self.input.release_all()
        self.track.stop()
        if self.lossless is not None:
            feed = self.session.lossless_feed()
            if feed is not None:
                feed.remove(self.lossless)
        if self.pc is not None:
            with contextlib.suppress(Exception):
                await self.pc.close()
        with contextlib.suppress(Exception):
            await self.ws.close()
        session.clients.remove_viewer(self.client_id, self)
