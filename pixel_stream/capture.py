"""Damage-driven screen capture: one thread per display feeding one ``FrameSlot``.

The thread sleeps in ``select()`` on the X connection. X DAMAGE tells it which rectangles
of the root window changed; it then reads the screen through MIT-SHM and publishes the frame with its sequence number and damaged region. Nothing runs while the
screen is idle except a heartbeat once a second, which re-announces the picture so video
streams stay alive; every ``verify_every``-th heartbeat also re-reads the screen and
compares, a safety net for damage that was never reported. Frames are rate-capped (30 fps
by default) by a ``FrameSchedule``: an isolated change is read at once; damage arriving
faster than the cap is merged into the next frame, never queued.

``fresh_frame()`` is for agents: it makes the thread flush the X connection (a round trip,
so every damage event the server generated before the request is seen), read the screen
at once if anything is pending, and return that frame - "the screen as of now".
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import select
import sys
import threading
import time
from concurrent.futures import Future
from typing import TYPE_CHECKING

import numpy as np

from pixel_stream.frames import Frame, FrameSlot, Rect

if TYPE_CHECKING:
    from pixel_stream.xcapture_c import ShmScreen

log = logging.getLogger(__name__)


class CaptureError(RuntimeError):
    """The display cannot be captured (no such display, no DAMAGE extension...)."""


# Pixel buffers kept for reuse; one is reused once no frame or consumer holds it.
SNAPSHOT_POOL = 3


def changed_box(old: np.ndarray, new: np.ndarray) -> tuple[int, int, int, int] | None:
    """(y0, y1, x0, x1) bounding the pixels where two equal-sized images differ, or None."""
    diff = old != new
    rows = np.flatnonzero(diff.any(axis=1))
    if rows.size == 0:
        return None
    cols = np.flatnonzero(diff[rows[0] : rows[-1] + 1].any(axis=0))
    return int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1


class FrameSchedule:
    """When the next frame may be read: at once after a quiet period, else one frame
    interval (``1 / max_fps``) after the previous frame.

    A change after a quiet period is read at once, never at a frame tick. Damage that comes
    sooner waits out the interval and is merged into one frame. (Letting a second frame
    through at once - a token bucket of two - shows the second half of a two-step repaint,
    such as a line edit's caret area after its text, up to 30 ms sooner, but while typing
    it made a fifth more frames, and frames are what typing costs.)
    """

    def __init__(self, max_fps: float) -> None:
        self.interval = 1.0 / max_fps
        self._last = float("-inf")

    def delay(self, now: float) -> float:
        """Seconds from ``now`` until a frame may be read (0: at once)."""
        return max(0.0, self._last + self.interval - now)

    def took(self, now: float) -> None:
        """A frame was read at ``now``."""
        self._last = now


class ScreenCapture:
    """Capture the root window of ``display_name`` into ``slot``."""

    def __init__(
        self,
        display_name: str,
        slot: FrameSlot | None = None,
        max_fps: float = 30.0,
        heartbeat_s: float = 1.0,
        verify_every: int = 5,
    ) -> None:
        if not 1 <= max_fps <= 60:
            raise ValueError(f"max_fps must be between 1 and 60, got {max_fps!r}")
        if heartbeat_s <= 0:
            raise ValueError(f"heartbeat_s must be positive, got {heartbeat_s!r}")
        self.display_name = display_name
        self.slot = slot or FrameSlot()
        self.min_interval = 1.0 / max_fps
        self.schedule = FrameSchedule(max_fps)
        self.heartbeat_s = heartbeat_s
        self.verify_every = max(1, verify_every)
        self._heartbeats = 0
        self.width = 0
        self.height = 0
        self.frames_captured = 0
        self.missed_damage = 0
        self._canvas = bytearray()
        # (buffer, seq of the frame whose pixels it holds), newest last; see _snapshot
        self._pool: collections.deque[list] = collections.deque(maxlen=SNAPSHOT_POOL)
        self._recent: collections.deque[tuple[int, Rect]] = collections.deque(maxlen=16)
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._wake_r, self._wake_w = -1, -1
        self._fresh_lock = threading.Lock()
        self._fresh_requests: list[Future] = []
        self._pending: Rect | None = None
        self._pending_since = 0.0
        self._last_damage_at = 0.0
        self._started = threading.Event()
        self._start_error: BaseException | None = None

    # -- public ----------------------------------------------------------------------
    def start(self, timeout: float = 10.0) -> ScreenCapture:
        """Open the display, take the first frame and start the capture thread."""
        if self._thread is not None:
            raise CaptureError("capture already started")
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._thread = threading.Thread(
            target=self._run, name=f"capture{self.display_name}", daemon=True
        )
        self._thread.start()
        if not self._started.wait(timeout):
            raise CaptureError(f"capture of {self.display_name} did not start in {timeout} s")
        if self._start_error is not None:
            self._thread.join(1.0)
            self._thread = None
            raise CaptureError(
                f"cannot capture display {self.display_name}: {self._start_error}"
            ) from self._start_error
        return self

    def stop(self) -> None:
        """Stop the thread and close the X connections; wakes every waiter."""
        self._stop.set()
        self._wake()
        if self._thread is not None:
            self._thread.join(5.0)
            self._thread = None
        for fd in (self._wake_r, self._wake_w):
            if fd >= 0:
                os.close(fd)
        self._wake_r = self._wake_w = -1
        self.slot.close()
        with self._fresh_lock:
            requests, self._fresh_requests = self._fresh_requests, []
        for fut in requests:
            if not fut.done():
                fut.set_result(self.slot.latest)

    @property
    def last_damage_at(self) -> float:
        """Monotonic time of the most recent damage seen (0 if none yet)."""
        return self._last_damage_at

    @property
    def damage_pending(self) -> bool:
        """Damage was reported that no published frame covers yet."""
        return self._pending is not None

    def request_fresh(self) -> Future:
        """Ask for the screen as of now; the future resolves to that ``Frame``."""
        fut: Future = Future()
        with self._fresh_lock:
            if self._thread is None or self._stop.is_set() or self.slot.closed:
                fut.set_result(self.slot.latest)
                return fut
            self._fresh_requests.append(fut)
        self._wake()
        return fut

    async def fresh_frame(self) -> Frame:
        """``request_fresh`` for asyncio code."""
        frame = await asyncio.wrap_future(self.request_fresh())
        if frame is None or (self.slot.closed and not self._stop.is_set()):
            raise CaptureError(
                f"capture of {self.display_name} has stopped (did the display exit?)"
            )
        return frame

    def __enter__(self) -> ScreenCapture:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- thread ----------------------------------------------------------------------
    def _wake(self) -> None:
        if self._wake_w >= 0:
            try:
                os.write(self._wake_w, b"x")
            except (BlockingIOError, OSError):
                pass

    def _run(self) -> None:
        try:
            screen = self._open()
        except BaseException as exc:  # noqa: BLE001 - reported to start()
            self._start_error = exc
            self._started.set()
            return
        try:
            self._loop(screen)
        except Exception as exc:  # noqa: BLE001 - the display died or the X connection broke
            if not self._stop.is_set():
                log.warning("capture of %s stopped: %s", self.display_name, exc)
        finally:
            try:
                screen.close()
            except Exception:  # noqa: BLE001 - already broken
                pass
            with self._fresh_lock:
                self.slot.close()
                requests, self._fresh_requests = self._fresh_requests, []
            for fut in requests:  # nobody waits forever for a capture that is gone
                if not fut.done():
                    fut.set_result(self.slot.latest)

    def _open(self) -> ShmScreen:
        from pixel_stream.xcapture_c import ShmScreen

        screen = ShmScreen(self.display_name)
        try:
            self.width, self.height = screen.width, screen.height
            now = time.monotonic()
            pixels = self._grab(screen)
            self._publish(pixels, Rect(0, 0, self.width, self.height), now)
        except BaseException:
            screen.close()
            raise
        self._started.set()
        return screen

    def _grab(self, screen: ShmScreen) -> bytearray:
        """The whole screen (also refreshes the canvas partial grabs update)."""
        pixels = bytearray(screen.read(0, 0, self.width, self.height))
        self._canvas = bytearray(pixels)
        return pixels

    def _grab_region(self, screen: ShmScreen, region: Rect) -> tuple[bytearray, Rect] | None:
        """Read ``region`` into the canvas; returns a snapshot of the whole screen and the
        rectangle whose pixels really changed, or None when none did.

        Reading a typed character's few rows through MIT-SHM costs a fraction of reading
        the screen. Toolkits report a whole widget as damaged when they repaint it (a Qt
        line edit: its whole width for one typed letter), so the read rows are compared
        with the canvas first: the frame's region is the bounding box of the pixels that
        differ (the letter and the caret), which is all the encoder, the damage log and the
        exact tiles then need to carry.
        """
        rect = region.clamp(self.width, self.height)
        if rect is None:
            return None
        if rect.area * 2 > self.width * self.height:
            return self._grab(screen), rect
        raw = screen.read(rect.x, rect.y, rect.width, rect.height)
        new = np.frombuffer(raw, np.uint32, rect.area).reshape(rect.height, rect.width)
        canvas = np.frombuffer(self._canvas, np.uint32).reshape(self.height, self.width)
        old = canvas[rect.y : rect.y + rect.height, rect.x : rect.x + rect.width]
        changed = changed_box(old, new)
        if changed is None:
            return None
        y0, y1, x0, x1 = changed
        old[y0:y1, x0:x1] = new[y0:y1, x0:x1]
        changed_rect = Rect(rect.x + x0, rect.y + y0, x1 - x0, y1 - y0)
        return self._snapshot(changed_rect), changed_rect

    def _snapshot(self, region: Rect) -> bytearray:
        """A copy of the canvas for the next frame, which changes ``region``.

        Copying 4 MB per typed character costs more than everything else the capture does,
        so a buffer of an earlier frame that nobody holds any more (no frame, no memoryview,
        no consumer: only the pool refers to it) is brought up to date instead, by copying
        the rows changed since its frame.
        """
        latest = self.slot.latest
        seq = (latest.seq + 1) if latest else 1
        canvas, stride = self._canvas, self.width * 4
        for entry in self._pool:
            # references: the pool entry and getrefcount's own argument
            if sys.getrefcount(entry[0]) != 2 or len(entry[0]) != len(canvas):
                continue
            rows = self._rows_since(entry[1], region)
            if rows is None:
                entry[0][:] = canvas
            else:
                buf = entry[0]
                for y0, y1 in rows:
                    buf[y0 * stride : y1 * stride] = canvas[y0 * stride : y1 * stride]
            entry[1] = seq
            self._pool.remove(entry)
            self._pool.append(entry)
            return entry[0]
        pixels = bytearray(canvas)
        self._pool.append([pixels, seq])
        return pixels

    def _rows_since(self, seq: int, region: Rect) -> list[tuple[int, int]] | None:
        """Row ranges changed after frame ``seq`` up to the next frame (which changes
        ``region``); None when not known any more."""
        recent = self._recent
        if not recent or recent[0][0] > seq + 1:
            return None
        rows = []
        for frame_seq, rect in (*recent, (0, region)):
            if frame_seq > seq or frame_seq == 0:
                clamped = rect.clamp(self.width, self.height)
                if clamped is not None:
                    rows.append((clamped.y, clamped.y + clamped.height))
        return rows

    def _publish(self, pixels: bytearray, region: Rect, damaged_at: float) -> Frame:
        latest = self.slot.latest
        frame = Frame(
            seq=(latest.seq + 1) if latest else 1,
            width=self.width,
            height=self.height,
            pixels=pixels,
            region=region,
            damaged_at=damaged_at,
            captured_at=time.monotonic(),
        )
        self.frames_captured += 1
        self._recent.append((frame.seq, region))
        self.slot.publish(frame)
        return frame

    def _drain_damage(self, screen: ShmScreen) -> None:
        """Take every damage event: one read of the socket, then the queued events."""
        box = screen.drain()
        if box is None:
            return
        x0, y0, x1, y1 = box
        now = time.monotonic()
        if self._pending is None:
            self._pending_since = now
        self._pending = Rect(x0, y0, x1 - x0, y1 - y0).union(self._pending)
        self._last_damage_at = now

    def _loop(self, screen: ShmScreen) -> None:
        xfd = screen.fileno()
        last_announce = time.monotonic()
        schedule = self.schedule
        while not self._stop.is_set():
            now = time.monotonic()
            if self._pending is not None:
                timeout = schedule.delay(now)
            else:
                timeout = max(0.0, last_announce + self.heartbeat_s - now)
            if screen.queued():
                # read off the socket during the last flush: the socket will not wake us
                timeout = 0.0
            readable, _, _ = select.select([xfd, self._wake_r], [], [], timeout)
            if self._stop.is_set():
                break
            if self._wake_r in readable:
                try:
                    os.read(self._wake_r, 4096)
                except BlockingIOError:
                    pass
            with self._fresh_lock:
                fresh, self._fresh_requests = self._fresh_requests, []
            if fresh:
                screen.sync()  # round trip: every damage the server queued for us is now read
            self._drain_damage(screen)
            now = time.monotonic()
            if self._pending is not None and (fresh or schedule.delay(now) == 0.0):
                region, since = self._pending, self._pending_since
                self._pending = None
                screen.subtract()
                schedule.took(now)
                grabbed = self._grab_region(screen, region)
                if grabbed is not None:  # a repaint with the same pixels is no new frame
                    self._publish(grabbed[0], grabbed[1], since)
                    last_announce = time.monotonic()
            elif self._pending is None and now - last_announce >= self.heartbeat_s:
                self._heartbeat(screen)
                last_announce = time.monotonic()
            for fut in fresh:
                if not fut.done():
                    fut.set_result(self.slot.latest)

    def _heartbeat(self, screen: ShmScreen) -> None:
        """Re-announce the frame (every ``verify_every``-th time after re-reading the
        screen). A re-read does not count against the frame-rate cap: a click just after
        it is still read at once."""
        self._heartbeats += 1
        if self._heartbeats % self.verify_every:
            self.slot.heartbeat()
            return
        pixels = self._grab(screen)
        latest = self.slot.latest
        if latest is not None and pixels == latest.pixels:
            self.slot.heartbeat()
            return
        # Pixels changed without a damage report: publish them rather than trust DAMAGE.
        self.missed_damage += 1
        self._publish(pixels, Rect(0, 0, self.width, self.height), time.monotonic())
