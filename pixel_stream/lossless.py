"""Build to lossless: exact tiles of the settled screen, painted by the page over the video.

H.264 at a constant quantizer never shows the exact pixels. As Citrix HDX does, a region
that stopped changing is refreshed losslessly: once a screen cell has had no damage for
``SessionPolicy.lossless_delay_s``, every viewer whose copy of that cell is older gets it
as PNG tiles over the WebRTC data channel ``lossless``, and the receiver page paints them
on a canvas laid over the video at 1:1.

Ordering between the data channel and the video (separate transports) is settled by
sequence numbers of captured frames (``Frame.seq``):

* ``{"t": "start", "seq": S}`` — the page's damage log starts after frame S;
* ``{"t": "v", "rtp": R, "seq": S, "known": K, "rects": [[seq, x, y, w, h], ...]}`` — the
  video frame with RTP timestamp R shows frame S (sent by the viewer's track as the frame
  goes out, not for heartbeats that repeat the picture; the page reads R from
  ``requestVideoFrameCallback``'s ``metadata.rtpTimestamp``), with each captured frame's
  damaged region since the previous stamp: the log is then complete up to frame K;
* ``{"t": "d", "known": K, "rects": [...]}`` — the damage log up to frame K, for a change
  that was sent as tiles only, with no video frame (``SessionPolicy.tile_changes_px``);
* ``{"t": "tile", "id", "seq", "x", "y", "w", "h", "size", "chunks"}`` followed by
  ``chunks`` binary messages with the PNG (SCTP messages are limited in size);
* ``{"t": "exact", "seq": S}`` — every tile this page needs for frame S has been sent
  (the page is settled once they are painted and no later damage is known).

The page keeps each tile until the video shows a frame whose damage (from the log) covers
it and is newer than the tile; only then is that part cleared, so a stale tile never hides
a newer video picture, and a tile older than the video is cut where the video is newer.
Whatever the page clears was damaged after the tile was taken, so the server sends it
again once it settles. Nothing here runs on the capture or encoder threads: the
scheduler is one asyncio task per session, PNGs are made on one worker thread, shared by
all viewers that need the same rectangles of the same frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import itertools
import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from PIL import Image

from pixel_stream.frames import Frame, FrameSlot, Rect
from pixel_stream.imaging import PNG_COMPRESS_LEVEL

log = logging.getLogger(__name__)

CHANNEL_LABEL = "lossless"
# Screen cells whose quiet time is tracked; a tile covers whole cells.
CELL = 32
# Largest side of one tile: a whole-screen refresh is several tiles, decoded in parallel.
TILE_MAX = 256
# Bytes per binary message (aiortc advertises a 65536-byte max-message-size).
CHUNK_BYTES = 60_000
# Tile bytes queued on the channel before the sender waits: small, so the damage log and
# video frame stamps behind it are not held up by a whole-screen refresh.
BUFFER_LOW = 64 * 1024


# -- pure logic (unit-tested) ------------------------------------------------------------
class DamageMap:
    """When each screen cell last changed (frame seq and monotonic time)."""

    def __init__(self, width: int, height: int, cell: int = CELL) -> None:
        self.width, self.height, self.cell = width, height, cell
        self.rows = -(-height // cell)
        self.cols = -(-width // cell)
        self.changed_seq = np.zeros((self.rows, self.cols), np.int64)
        self.changed_at = np.zeros((self.rows, self.cols), np.float64)

    def cells(self, rect: Rect | None) -> tuple[slice, slice]:
        if rect is None:
            return slice(0, self.rows), slice(0, self.cols)
        c = self.cell
        return (slice(max(0, rect.y // c), -(-(rect.y + rect.height) // c)),
                slice(max(0, rect.x // c), -(-(rect.x + rect.width) // c)))

    def note(self, seq: int, rect: Rect | None, now: float) -> None:
        """Frame ``seq`` changed ``rect`` (None: the whole screen)."""
        if rect is not None and rect.area == 0:
            return
        rows, cols = self.cells(rect)
        self.changed_seq[rows, cols] = seq
        self.changed_at[rows, cols] = now

    def new_sent(self) -> np.ndarray:
        """A viewer's "seq of the tile it has" grid: nothing yet."""
        return np.full((self.rows, self.cols), -1, np.int64)

    def due(self, sent: np.ndarray, now: float, delay: float, at_once_upto: int = -1
            ) -> tuple[np.ndarray, float | None]:
        """(cells to refresh now, seconds until the next pending cell is due or None).
        Cells last changed by frames up to ``at_once_upto`` (sent as tiles, not as video)
        are due at once."""
        stale = self.changed_seq > sent
        quiet = (now - self.changed_at >= delay) | (self.changed_seq <= at_once_upto)
        waiting = stale & ~quiet
        wait = None
        if waiting.any():
            wait = max(0.0, float((self.changed_at[waiting] + delay - now).min()))
        return stale & quiet, wait


def cells_to_rects(mask: np.ndarray, cell: int, width: int, height: int,
                   max_side: int = TILE_MAX) -> list[Rect]:
    """Rectangles (screen pixels, clamped) covering the true cells of ``mask``: runs of a
    row merged with the same run of the rows below, no side longer than ``max_side``."""
    span = max(1, max_side // cell)
    open_runs: dict[tuple[int, int], list[int]] = {}  # (c0, c1) -> [r0, r1]
    boxes: list[tuple[int, int, int, int]] = []
    for r in range(mask.shape[0]):
        row = mask[r]
        runs = []
        c = 0
        while c < row.shape[0]:
            if row[c]:
                c0 = c
                while c < row.shape[0] and row[c] and c - c0 < span:
                    c += 1
                runs.append((c0, c))
            else:
                c += 1
        current = set(runs)
        for key in list(open_runs):
            r0, r1 = open_runs[key]
            if key not in current or r1 - r0 >= span:
                boxes.append((key[0], r0, key[1], r1))
                del open_runs[key]
        for key in runs:
            if key in open_runs:
                open_runs[key][1] = r + 1
            else:
                open_runs[key] = [r, r + 1]
    boxes += [(key[0], r0, key[1], r1) for key, (r0, r1) in open_runs.items()]
    rects = []
    for c0, r0, c1, r1 in sorted(boxes, key=lambda b: (b[1], b[0])):
        rect = Rect(c0 * cell, r0 * cell, (c1 - c0) * cell, (r1 - r0) * cell).clamp(width, height)
        if rect is not None:
            rects.append(rect)
    return rects


def encode_tiles(frame: Frame, rects: list[Rect]) -> list[bytes]:
    """Untagged RGB PNGs of ``rects`` of ``frame`` (a browser decodes them exactly).
    Only each rectangle's pixels are converted (read in place from the BGRX rows), not the
    whole frame: a tile of a typed letter costs what the letter does."""
    pixels = memoryview(frame.pixels)
    stride = frame.stride
    out = []
    for rect in rects:
        start = rect.y * stride + rect.x * 4
        end = (rect.y + rect.height - 1) * stride + (rect.x + rect.width) * 4
        tile = Image.frombuffer("RGB", (rect.width, rect.height), pixels[start:end], "raw",
                                "BGRX", stride, 1)
        buf = io.BytesIO()
        tile.save(buf, "PNG", compress_level=PNG_COMPRESS_LEVEL)
        out.append(buf.getvalue())
    return out


def tile_messages(tile_id: int, seq: int, rect: Rect, data: bytes,
                  chunk: int = CHUNK_BYTES) -> list[str | bytes]:
    """The header (JSON text) and the binary chunks of one tile, in sending order."""
    parts = [data[i:i + chunk] for i in range(0, len(data), chunk)] or [b""]
    header = {"t": "tile", "id": tile_id, "seq": seq, "x": rect.x, "y": rect.y,
              "w": rect.width, "h": rect.height, "size": len(data), "chunks": len(parts)}
    return [json.dumps(header), *parts]


def log_entries(entries: list[tuple[int, Rect]] | None, upto: int, width: int,
                height: int) -> list[list[int]]:
    """Damage-log entries ``[seq, x, y, w, h]`` up to frame ``upto`` (None: not known any
    more, so the whole screen counts as changed at ``upto``)."""
    if entries is None:
        return [[upto, 0, 0, width, height]]
    return [[seq, *rect.as_list()] for seq, rect in entries if seq <= upto and rect.area]


def rtp_origin(sender: Any) -> int | None:
    """The RTP timestamp of the last frame aiortc's sender sent (None if unknown)."""
    value = getattr(sender, "_RTCRtpSender__rtp_timestamp", None)
    return value if isinstance(value, int) else None


class FrameStamper:
    """Stamps this viewer's video frames: the RTP timestamp aiortc gives them (a random
    origin + pts, learnt from the sender after its first frame went out), the captured
    frame they show, and the damage log since the previous stamp."""

    def __init__(self, sender: Any, slot: FrameSlot, start_seq: int) -> None:
        self.sender = sender
        self.slot = slot
        self.origin: int | None = None
        self._last_pts: int | None = None  # pts of the frame handed out last
        self._logged = start_seq  # the damage log sent covers frames up to this one
        self._rects: list[list[int]] = []  # damage not sent yet
        self.waiting: list[tuple[int, int]] = []  # (pts, seq) not stamped yet
        self.frames = 0
        self.lost = False  # damage was not known any more: the page needs everything again

    @property
    def failed(self) -> bool:
        """Frames went out but the sender never showed their RTP timestamps."""
        return self.origin is None and self.frames > 3

    def _log_upto(self, seq: int) -> None:
        """Add the damage of the frames after the last logged one, up to ``seq``."""
        entries = self.slot.damage_log(self._logged)
        if entries is None:
            self.lost = True
        frame = self.slot.latest
        width, height = (frame.width, frame.height) if frame is not None else (0, 0)
        self._rects += log_entries(entries, seq, width, height)
        self._logged = seq

    def by_tiles(self, seq: int) -> list[dict[str, Any]]:
        """Frame ``seq`` goes to the page as tiles, with no video frame: the damage log up
        to it (the page's next video stamp then lists only what came after)."""
        if seq <= self._logged:
            return []
        self._log_upto(seq)
        if self.origin is None or self.waiting:
            return []  # the log goes with the first stamp the page can place
        out = [{"t": "d", "known": seq, "rects": self._rects}]
        self._rects = []
        return out

    def frame_out(self, pts: int, seq: int | None) -> list[dict[str, Any]]:
        """Called as the track hands the sender frame (pts, seq); returns the messages
        that can be sent now."""
        self.frames += 1
        if self.origin is None and self._last_pts is not None:
            sent = rtp_origin(self.sender)
            if sent:
                self.origin = (sent - self._last_pts) & 0xFFFFFFFF
        self._last_pts = pts
        if seq is not None and seq > self._logged:
            self._log_upto(seq)
            self.waiting.append((pts, seq))
        # (a heartbeat repeats a stamped picture and needs no stamp of its own, but it is
        # when the origin is learnt if the screen went quiet before: the frames waiting
        # for it go out now, not at the next change, which may never come)
        if self.origin is None or not self.waiting:
            del self.waiting[:-8]
            return []
        out = [{"t": "v", "rtp": (self.origin + p) & 0xFFFFFFFF, "seq": s,
                "known": self._logged,
                "rects": []} for p, s in self.waiting]
        out[0]["rects"] = self._rects
        self._rects, self.waiting = [], []
        return out


# -- session side ------------------------------------------------------------------------
class LosslessViewer:
    """One page's lossless channel: what it has, and its tiles on the way."""

    def __init__(self, channel: Any, sent: np.ndarray) -> None:
        self.channel = channel
        self.sent = sent
        self.busy = False
        self.exact: int | None = None  # the frame up to which it was told it is exact
        self.low = asyncio.Event()
        self.tiles_sent = 0
        self.bytes_sent = 0
        channel.bufferedAmountLowThreshold = BUFFER_LOW

        @channel.on("bufferedamountlow")
        def on_low() -> None:
            self.low.set()

    @property
    def open(self) -> bool:
        return self.channel.readyState == "open"

    def send(self, message: str | bytes) -> None:
        if self.open:
            with contextlib.suppress(Exception):
                self.channel.send(message)

    async def drain(self) -> None:
        while self.open and self.channel.bufferedAmount > BUFFER_LOW:
            self.low.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.low.wait(), 1.0)


class LosslessFeed:
    """The session's build-to-lossless scheduler (one asyncio task, started with the first
    viewer, ended with the last)."""

    def __init__(self, slot: FrameSlot, width: int, height: int, delay_s: float) -> None:
        self.slot = slot
        self.width, self.height = width, height
        self.delay_s = delay_s
        self.map = DamageMap(width, height)
        self.viewers: set[LosslessViewer] = set()
        self._seq: int | None = None
        self._task: asyncio.Task | None = None
        self._wake = asyncio.Event()
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="lossless")
        self._ids = itertools.count(1)
        self._cache: tuple[int, dict[Rect, bytes]] = (-1, {})
        self._sending: set[asyncio.Task] = set()  # held: the loop keeps only weak references
        self._at_once_upto = -1  # changes up to this frame went as tiles only: no delay
        self.tiles_encoded = 0
        self.encode_ms = 0.0

    def add(self, channel: Any, start_seq: int) -> LosslessViewer:
        """A page's channel; its damage log starts after frame ``start_seq``."""
        viewer = LosslessViewer(channel, self.map.new_sent())
        self.viewers.add(viewer)
        channel.on("open", self._wake.set)
        viewer.send(json.dumps({"t": "start", "seq": start_seq}))
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="lossless")
        self._wake.set()
        return viewer

    def send_now(self, seq: int) -> None:
        """Frame ``seq`` was not encoded as video: its changed cells are due at once."""
        if seq > self._at_once_upto:
            self._at_once_upto = seq
            self._wake.set()

    def remove(self, viewer: LosslessViewer) -> None:
        self.viewers.discard(viewer)
        self._wake.set()

    def resend(self, viewer: LosslessViewer, rect: Rect | None) -> None:
        """The page could not use a tile: send that area again."""
        rows, cols = self.map.cells(rect)
        viewer.sent[rows, cols] = -1
        self._wake.set()

    async def stop(self) -> None:
        task, self._task = self._task, None
        for pending in [task, *self._sending]:
            if pending is not None:
                pending.cancel()
                with contextlib.suppress(BaseException):
                    await pending
        await asyncio.to_thread(self._pool.shutdown, True)

    # -- the task ----------------------------------------------------------------------
    def _take_damage(self, frame: Frame) -> None:
        if frame.seq == self._seq:
            return
        if self._seq is None:
            self.map.note(frame.seq, None, 0.0)  # a first viewer's refresh: at once
        else:
            entries = self.slot.damage_log(self._seq)
            if entries is None:
                self.map.note(frame.seq, None, frame.captured_at)
            else:
                for seq, rect in entries:
                    if seq <= frame.seq:
                        self.map.note(seq, rect, frame.captured_at)
        self._seq = frame.seq

    async def _run(self) -> None:
        wait: float | None = None
        try:
            while self.viewers:
                self._wake.clear()
                frame = self.slot.latest
                if frame is not None:
                    self._take_damage(frame)
                    wait = self._schedule(frame)
                waiter = asyncio.ensure_future(self.slot.next_content_async(
                    self._seq if self._seq is not None else -1, None))
                woken = asyncio.ensure_future(self._wake.wait())
                await asyncio.wait({waiter, woken}, timeout=wait,
                                   return_when=asyncio.FIRST_COMPLETED)
                for future in (waiter, woken):
                    future.cancel()
                if self.slot.closed:
                    return
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the video goes on without lossless refreshes
            log.exception("lossless refresh stopped")
        finally:
            self._task = None

    def _schedule(self, frame: Frame) -> float | None:
        now = time.monotonic()
        wait: float | None = None
        for viewer in list(self.viewers):
            if not viewer.open:
                if viewer.channel.readyState == "closed":
                    self.viewers.discard(viewer)
                continue
            if viewer.busy:
                continue
            due, later = self.map.due(viewer.sent, now, self.delay_s, self._at_once_upto)
            if later is not None:
                wait = later if wait is None else min(wait, later)
            if not due.any():
                if later is None and viewer.exact != frame.seq:
                    # every cell it has is the latest: once painted, its screen is exact
                    viewer.exact = frame.seq
                    viewer.send(json.dumps({"t": "exact", "seq": frame.seq}))
                continue
            rects = cells_to_rects(due, self.map.cell, self.width, self.height)
            viewer.sent[due] = frame.seq
            viewer.busy = True
            task = asyncio.ensure_future(self._send(viewer, frame, rects))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)
        return wait

    async def _encode(self, frame: Frame, rects: list[Rect]) -> list[bytes]:
        seq, cache = self._cache
        if seq != frame.seq:
            cache = {}
            self._cache = (frame.seq, cache)
        missing = [r for r in rects if r not in cache]
        if missing:
            started = time.perf_counter()
            datas = await asyncio.get_running_loop().run_in_executor(
                self._pool, encode_tiles, frame, missing)
            self.encode_ms += (time.perf_counter() - started) * 1000
            self.tiles_encoded += len(missing)
            cache.update(zip(missing, datas, strict=True))
        return [cache[r] for r in rects]

    async def _send(self, viewer: LosslessViewer, frame: Frame, rects: list[Rect]) -> None:
        try:
            for rect in rects:
                # one tile at a time: the first is on its way while the next is encoded
                data = (await self._encode(frame, [rect]))[0]
                for message in tile_messages(next(self._ids), frame.seq, rect, data):
                    await viewer.drain()
                    if not viewer.open:
                        return
                    viewer.send(message)
                viewer.tiles_sent += 1
                viewer.bytes_sent += len(data)
        except Exception:  # noqa: BLE001 - that viewer stays lossy, the others go on
            log.exception("sending lossless tiles failed")
        finally:
            viewer.busy = False
            self._wake.set()
