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
* a tile batch, one binary message: a 4-byte big-endian length, that many bytes of JSON
  ``{"t": "b", "tiles": [[seq, x, y, w, h, size], ...], "d": {"known", "rects"},
  "exact": S}`` ("d" and "exact" when there are), then the tiles' PNGs back to back. A
  change sent as tiles only is one such message: its damage log, its tiles, and "exact"
  when the page then has everything;
* ``{"t": "tile", "id", "seq", "x", "y", "w", "h", "size", "chunks"}`` followed by
  ``chunks`` binary messages with the PNG, for a tile too large for a batch (SCTP messages
  are limited in size; a binary message while a tile's chunks are due is one of them);
* ``{"t": "exact", "seq": S}`` — every tile this page needs for frame S has been sent
  (the page is settled once they are painted and no later damage is known).

A tile covers only what changed since the page's copy of its cells: the bounding box, in
the due cells, of the damage since then (the capture reports the pixels that really
changed, not the toolkit's repainted widget), so a typed letter is a few hundred bytes.

The page keeps each tile until the video shows a frame whose damage (from the log) covers
it and is newer than the tile; only then is that part cleared, so a stale tile never hides
a newer video picture, and a tile older than the video is cut where the video is newer.
Whatever the page clears was damaged after the tile was taken, so the server sends it
again once it settles. Nothing here runs on the capture or encoder threads: the
scheduler is one asyncio task per session (a change sent as tiles only is handled at once,
on the event loop); small tiles are encoded in place, large ones on one worker thread,
shared by all viewers that need the same rectangles of the same frame.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from pixel_stream.frames import Frame, FrameSlot, Rect
from pixel_stream.tiles import (
    BATCH_BYTES,
    CHUNK_BYTES,
    DamageMap,
    batch_message,
    cells_to_rects,
    damage_box,
    encode_tiles,
    tile_messages,
)

log = logging.getLogger(__name__)

CHANNEL_LABEL = "lossless"
# Tiles of at most this many pixels in all are encoded on the event loop (a typed letter:
# a few hundred pixels; a scrolled line edit: about 10,000, 0.2 ms), which costs less than
# a hand-over to the worker thread; larger ones on the worker.
INLINE_PX = 128 * 128
# Damage entries kept for cropping tiles to what changed since a page's copy.
HISTORY = 256
# A tile of at most this many cells is cut to the damage since each cell's copy (else
# since the oldest copy of its cells).
CROP_CELLS = 8
# Tile bytes queued on the channel before the sender waits: small, so the damage log and
# video frame stamps behind it are not held up by a whole-screen refresh.
BUFFER_LOW = 64 * 1024


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
        # the damage noted lately, complete for the frames after ``_entries_from``: a tile
        # is cropped to what changed since the page's copy of its cells
        self._entries: collections.deque[tuple[int, Rect]] = collections.deque()
        self._entries_from = 0
        self._task: asyncio.Task | None = None
        self._waiter: asyncio.Future | None = None  # the task's sleep
        self._poked = False
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="lossless")
        self._ids = itertools.count(1)
        self._cache: tuple[int, dict[Rect, bytes]] = (-1, {})
        self._sending: set[asyncio.Task] = set()  # held: the loop keeps only weak references
        self._at_once_upto = -1  # changes up to this frame went as tiles only: no delay
        self.tiles_encoded = 0
        self.encode_ms = 0.0
        self.messages = 0  # binary and text messages sent, all viewers (tiles, logs, exact)

    def add(self, channel: Any, start_seq: int) -> LosslessViewer:
        """A page's channel; its damage log starts after frame ``start_seq``."""
        viewer = LosslessViewer(channel, self.map.new_sent())
        self.viewers.add(viewer)
        channel.on("open", self._poke)
        viewer.send(json.dumps({"t": "start", "seq": start_seq}))
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="lossless")
        self._poke()
        return viewer

    def send_change(self, seq: int, logs: dict[LosslessViewer, list[dict[str, Any]]]) -> None:
        """Frame ``seq`` went to the pages as tiles only, with no video frame; ``logs``: each
        page's damage log messages for it. A page that is not busy with larger tiles gets
        the change at once as one message: its log, the changed pixels, and "exact" when
        it then has everything; otherwise the log goes now and the tiles from the task."""
        self._at_once_upto = max(self._at_once_upto, seq)
        frame = self.slot.latest
        if frame is not None:
            self._take_damage(frame)
        wake = False
        for viewer in list(self.viewers):
            log = logs.get(viewer, [])
            if frame is None or not self._send_change_to(viewer, frame, log):
                for message in log:
                    self._send(viewer, json.dumps(message))
                wake = True
        for viewer, log in logs.items():  # pages whose channel is not followed any more
            if viewer not in self.viewers:
                for message in log:
                    viewer.send(json.dumps(message))
        if wake:
            self._poke()

    def remove(self, viewer: LosslessViewer) -> None:
        self.viewers.discard(viewer)
        self._poke()

    def resend(self, viewer: LosslessViewer, rect: Rect | None) -> None:
        """The page could not use a tile: send that area again."""
        rows, cols = self.map.cells(rect)
        viewer.sent[rows, cols] = -1
        viewer.exact = None
        self._poke()

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
        entries = None if self._seq is None else self.slot.damage_log(self._seq)
        if entries is None:
            # a first viewer's refresh (at once), or damage not known any more
            self.map.note(frame.seq, None, 0.0 if self._seq is None else frame.captured_at)
            self._entries.clear()
            self._entries_from = frame.seq
        else:
            for seq, rect in entries:
                if seq <= frame.seq and rect.area:
                    self.map.note(seq, rect, frame.captured_at)
                    if len(self._entries) >= HISTORY:
                        self._entries_from = self._entries.popleft()[0]
                    self._entries.append((seq, rect))
        self._seq = frame.seq

    def _poke(self) -> None:
        """Make the task look again (a viewer came, went, asked, or has room)."""
        self._poked = True
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self.viewers:
                self._poked = False
                tick = self.slot.tick
                frame = self.slot.latest
                wait = None
                if frame is not None:
                    self._take_damage(frame)
                    wait = self._schedule(frame)
                # sleep until a new frame, a poke, or the next cell is due
                waiter = self._waiter = loop.create_future()
                if not self._poked and self.slot.wake_on_change(tick, waiter):
                    timer = None if wait is None else loop.call_later(wait, _resolve, waiter)
                    try:
                        await waiter
                    finally:
                        if timer is not None:
                            timer.cancel()
                if self.slot.closed:
                    return
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the video goes on without lossless refreshes
            log.exception("lossless refresh stopped")
        finally:
            self._task = self._waiter = None

    def _tile_rects(self, viewer: LosslessViewer, due: np.ndarray) -> list[Rect]:
        """The rectangles to send for ``due`` cells, each cut to the damage since the
        page's copy of its cells when that damage is known."""
        return [self._crop(viewer, rect)
                for rect in cells_to_rects(due, self.map.cell, self.width, self.height)]

    def _crop(self, viewer: LosslessViewer, rect: Rect) -> Rect:
        rows, cols = self.map.cells(rect)
        sent = viewer.sent[rows, cols]
        if int(sent.min()) < self._entries_from:
            return rect  # what changed since the page's copy is not known: all of it
        if sent.size > CROP_CELLS:
            return damage_box(self._entries, int(sent.min()), rect) or rect
        cell = self.map.cell
        box: Rect | None = None
        for (r, c), since in np.ndenumerate(sent):
            part = Rect((cols.start + c) * cell, (rows.start + r) * cell, cell, cell)
            found = damage_box(self._entries, int(since), part)
            if found is not None:
                box = found.union(box)
        return rect if box is None else box.clamp(self.width, self.height) or rect

    def _since_exact(self, viewer: LosslessViewer, frame: Frame) -> list[Rect] | None:
        """The damage since the frame the page was last told it is exact at, when all of
        it is known (then it is all the page lacks); else None."""
        since = viewer.exact
        if since is None or since < self._entries_from or self._seq != frame.seq:
            return None
        rects: list[Rect] = []
        for seq, rect in reversed(self._entries):
            if seq <= since:
                break
            if rect not in rects:
                rects.append(rect)
        if len(rects) > 1:
            box = rects[0]
            for rect in rects[1:]:
                box = box.union(rect)
            if box.area <= 2 * sum(r.area for r in rects):
                return [box]
        return rects

    def _settled(self, viewer: LosslessViewer, frame: Frame, waiting: bool) -> bool:
        """Once what was sent is painted, the page shows ``frame`` exactly (and it has not
        been told so yet); ``waiting``: some of its cells wait for their quiet delay."""
        return not waiting and viewer.exact != frame.seq and self._seq == frame.seq \
            and self.slot.latest is frame

    def _send_change_to(self, viewer: LosslessViewer, frame: Frame,
                        log: list[dict[str, Any]]) -> bool:
        """The change as one message (see ``send_change``); False when it was not sent."""
        if not viewer.open or viewer.busy or len(log) > 1:
            return False
        rects = self._since_exact(viewer, frame)
        if rects is not None:  # the common case: just what changed since it was exact
            if sum(r.area for r in rects) > INLINE_PX:
                return False
            for rect in rects:
                viewer.sent[self.map.cells(rect)] = frame.seq
            waiting = False
        else:
            due, later = self.map.due(viewer.sent, time.monotonic(), self.delay_s,
                                      self._at_once_upto)
            rects = self._tile_rects(viewer, due) if due.any() else []
            if sum(r.area for r in rects) > INLINE_PX:
                return False
            viewer.sent[due] = frame.seq
            waiting = later is not None
        datas = self._encode_now(frame, rects)
        exact = frame.seq if self._settled(viewer, frame, waiting) else None
        if exact is not None:
            viewer.exact = exact
        tiles = [(frame.seq, rect, data) for rect, data in zip(rects, datas, strict=True)]
        self._send(viewer, batch_message(tiles, log[0] if log else None, exact))
        viewer.tiles_sent += len(tiles)
        viewer.bytes_sent += sum(len(d) for d in datas)
        return True

    def _send(self, viewer: LosslessViewer, message: str | bytes) -> None:
        self.messages += 1
        viewer.send(message)

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
                    self._send(viewer, json.dumps({"t": "exact", "seq": frame.seq}))
                continue
            rects = self._tile_rects(viewer, due)
            viewer.sent[due] = frame.seq
            viewer.busy = True
            task = asyncio.ensure_future(self._send_tiles(viewer, frame, rects))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)
        return wait

    def _cached(self, frame: Frame) -> dict[Rect, bytes]:
        seq, cache = self._cache
        if seq != frame.seq:
            cache = {}
            self._cache = (frame.seq, cache)
        return cache

    def _encode_now(self, frame: Frame, rects: list[Rect]) -> list[bytes]:
        """Small tiles, encoded on the event loop."""
        cache = self._cached(frame)
        missing = [r for r in rects if r not in cache]
        if missing:
            started = time.perf_counter()
            cache.update(zip(missing, encode_tiles(frame, missing), strict=True))
            self.encode_ms += (time.perf_counter() - started) * 1000
            self.tiles_encoded += len(missing)
        return [cache[r] for r in rects]

    async def _encode(self, frame: Frame, rect: Rect) -> bytes:
        cache = self._cached(frame)
        if rect in cache or rect.area <= INLINE_PX:
            return self._encode_now(frame, [rect])[0]
        started = time.perf_counter()
        data = (await asyncio.get_running_loop().run_in_executor(
            self._pool, encode_tiles, frame, [rect]))[0]
        self.encode_ms += (time.perf_counter() - started) * 1000
        self.tiles_encoded += 1
        cache[rect] = data
        return data

    async def _send_tiles(self, viewer: LosslessViewer, frame: Frame, rects: list[Rect]) -> None:
        """Tiles as batches of up to ``BATCH_BYTES`` (one too large for a batch as a header
        and chunks), "exact" in the last batch when the page then has everything."""
        batch: list[tuple[int, Rect, bytes]] = []
        size = 0
        try:
            for rect in rects:
                # one tile at a time: the first is on its way while the next is encoded
                data = await self._encode(frame, rect)
                if batch and (size + len(data) > BATCH_BYTES - 1024 or len(data) > CHUNK_BYTES):
                    await viewer.drain()
                    self._send(viewer, batch_message(batch))
                    batch, size = [], 0
                if len(data) > BATCH_BYTES - 1024:
                    for message in tile_messages(next(self._ids), frame.seq, rect, data):
                        await viewer.drain()
                        self._send(viewer, message)
                else:
                    batch.append((frame.seq, rect, data))
                    size += len(data)
                viewer.tiles_sent += 1
                viewer.bytes_sent += len(data)
                if not viewer.open:
                    return
            await viewer.drain()
            _due, later = self.map.due(viewer.sent, time.monotonic(), self.delay_s,
                                       self._at_once_upto)
            exact = frame.seq if not _due.any() and self._settled(
                viewer, frame, later is not None) else None
            if batch or exact is not None:
                if exact is not None:
                    viewer.exact = exact
                self._send(viewer, batch_message(batch, exact=exact))
        except Exception:  # noqa: BLE001 - that viewer stays lossy, the others go on
            log.exception("sending lossless tiles failed")
        finally:
            viewer.busy = False
            self._poke()


def _resolve(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)
