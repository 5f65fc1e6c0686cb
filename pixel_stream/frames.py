"""Frames and the one latest-frame slot every consumer of a display reads.

A display is captured once. The capture thread writes into a ``FrameSlot`` that holds only
the newest frame (never a queue, so latency cannot build up); the WebRTC encoder, agent
screenshots and the trace recorder each wait for "something newer than what I have" and
skip whatever they were too slow to see. Threads wait with ``wait_next``; asyncio code with
``await next_async`` (woken from the capture thread without polling).

Two counters: ``frame.seq`` changes only when pixels changed; the slot's ``tick`` also
advances on heartbeats (the same picture re-announced once a second), which keeps a video
stream alive on a static screen.
"""

from __future__ import annotations

import asyncio
import collections
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle in screen pixels."""

    x: int
    y: int
    width: int
    height: int

    def union(self, other: Rect | None) -> Rect:
        if other is None:
            return self
        x0 = min(self.x, other.x)
        y0 = min(self.y, other.y)
        x1 = max(self.x + self.width, other.x + other.width)
        y1 = max(self.y + self.height, other.y + other.height)
        return Rect(x0, y0, x1 - x0, y1 - y0)

    def as_list(self) -> list[int]:
        return [self.x, self.y, self.width, self.height]

    @property
    def area(self) -> int:
        return self.width * self.height

    def clamp(self, width: int, height: int) -> Rect | None:
        """This rectangle cut to a ``width`` x ``height`` screen; None if nothing is left."""
        x0, y0 = max(0, self.x), max(0, self.y)
        x1, y1 = min(width, self.x + self.width), min(height, self.y + self.height)
        if x1 <= x0 or y1 <= y0:
            return None
        return Rect(x0, y0, x1 - x0, y1 - y0)


@dataclass(frozen=True)
class Frame:
    """One captured screen image (BGRX, 4 bytes per pixel, rows packed).

    ``region`` is the bounding box of the damage this frame covers (the whole screen for the
    first frame or when damage was not reported). ``damaged_at`` is the monotonic time the
    first covered damage was seen; ``captured_at`` when the pixels were read.
    """

    seq: int
    width: int
    height: int
    pixels: bytearray = field(repr=False)
    region: Rect
    damaged_at: float
    captured_at: float

    @property
    def stride(self) -> int:
        return self.width * 4


class FrameSlot:
    """The newest frame of one display, with waiting for newer ones from threads or asyncio."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._frame: Frame | None = None
        self._tick = 0
        self._closed = False
        self._async_waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future]] = []
        self._history: collections.deque[tuple[int, Rect]] = collections.deque(maxlen=64)
        # Called by ``publish`` (on the capture thread) with (frame, tick): True when that
        # consumer took the frame already (e.g. an encoder sent it as tiles) and its thread
        # need not wake. Threads are woken unless every hook took the frame.
        self._publish_hooks: list[Callable[[Frame, int], bool]] = []

    # -- writer side -----------------------------------------------------------------
    def publish(self, frame: Frame) -> None:
        """Replace the latest frame with a new picture."""
        with self._cond:
            self._frame = frame
            self._history.append((frame.seq, frame.region))
            self._tick += 1
            tick, hooks = self._tick, self._publish_hooks
            if not hooks:
                self._wake_locked()
                return
            self._wake_async_locked()
        taken = [hook(frame, tick) for hook in hooks]  # every hook sees every frame
        if not all(taken):
            with self._cond:
                self._cond.notify_all()

    def add_publish_hook(self, hook: Callable[[Frame, int], bool]) -> None:
        """``hook(frame, tick)`` runs on every publish; see ``_publish_hooks``."""
        with self._cond:
            self._publish_hooks = [*self._publish_hooks, hook]

    def remove_publish_hook(self, hook: Callable[[Frame, int], bool]) -> None:
        with self._cond:
            self._publish_hooks = [h for h in self._publish_hooks if h != hook]

    def heartbeat(self) -> None:
        """Re-announce the current picture (no change on screen)."""
        with self._cond:
            if self._frame is None:
                return
            self._tick += 1
            self._wake_locked()

    def close(self) -> None:
        """Wake every waiter for good (the capture has stopped)."""
        with self._cond:
            self._closed = True
            self._wake_locked()

    def _wake_locked(self) -> None:
        self._cond.notify_all()
        self._wake_async_locked()

    def _wake_async_locked(self) -> None:
        waiters, self._async_waiters = self._async_waiters, []
        for loop, future in waiters:
            try:
                loop.call_soon_threadsafe(_resolve, future)
            except RuntimeError:  # that loop is closed; its waiter is gone with it
                pass

    # -- reader side -----------------------------------------------------------------
    @property
    def latest(self) -> Frame | None:
        return self._frame

    def damage_since(self, seq: int) -> Rect | None:
        """Union of the regions that changed after frame ``seq`` up to the latest frame.

        None when that is not known any more (too long ago): treat the whole screen as
        changed. A consumer that skipped frames uses this to update only what changed.
        """
        with self._cond:
            history = list(self._history)
        if not history or history[0][0] > seq + 1:
            return None
        # the union in plain ints, newest first (this runs for every frame while typing,
        # over up to the whole history)
        x0 = y0 = 1 << 62
        x1 = y1 = -(1 << 62)
        for frame_seq, rect in reversed(history):
            if frame_seq <= seq:
                break
            x0, y0 = min(x0, rect.x), min(y0, rect.y)
            x1, y1 = max(x1, rect.x + rect.width), max(y1, rect.y + rect.height)
        if x0 > x1:
            return Rect(0, 0, 0, 0)
        return Rect(x0, y0, x1 - x0, y1 - y0)

    def damage_log(self, after_seq: int) -> list[tuple[int, Rect]] | None:
        """Each frame's own damaged region, for the frames after ``after_seq`` up to the
        latest, oldest first; None when that is not known any more (treat all as changed)."""
        with self._cond:
            history = list(self._history)
        if not history or history[0][0] > after_seq + 1:
            return None
        return [(seq, rect) for seq, rect in history if seq > after_seq]

    @property
    def tick(self) -> int:
        return self._tick

    @property
    def closed(self) -> bool:
        return self._closed

    def wait_next(
        self,
        after_tick: int,
        timeout: float | None,
        wake_if: Callable[[], bool] | None = None,
    ) -> tuple[int, Frame | None]:
        """Block until the tick passes ``after_tick`` (or timeout); returns (tick, frame).

        ``wake_if`` is an extra condition checked whenever ``wake_waiters`` is called (a
        consumer's own reason to wake, e.g. a keyframe request).
        """

        def ready() -> bool:
            return (
                self._tick > after_tick or self._closed or (wake_if is not None and wake_if())
            )

        with self._cond:
            if not ready():
                self._cond.wait_for(ready, timeout)
            return self._tick, self._frame

    def wake_waiters(self) -> None:
        """Make blocked ``wait_next`` callers re-check their ``wake_if`` conditions."""
        with self._cond:
            self._cond.notify_all()

    def wake_on_change(self, after_tick: int, future: asyncio.Future) -> bool:
        """Resolve ``future`` (on its own loop) once the tick passes ``after_tick`` or the
        slot closes: the cheapest wait for an asyncio consumer that has other reasons to
        wake too. False, registering nothing, when that has happened already."""
        loop = future.get_loop()
        with self._cond:
            if self._tick > after_tick or self._closed:
                return False
            self._async_waiters.append((loop, future))
        return True

    async def next_async(self, after_tick: int, timeout: float | None) -> tuple[int, Frame | None]:
        """``wait_next`` for asyncio code; never blocks the event loop."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._cond:
                if self._tick > after_tick or self._closed:
                    return self._tick, self._frame
                future = loop.create_future()
                self._async_waiters.append((loop, future))
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                await asyncio.wait_for(future, remaining)
            except TimeoutError:
                with self._cond:
                    return self._tick, self._frame

    async def next_content_async(self, after_seq: int, timeout: float | None) -> Frame | None:
        """Wait for a frame whose ``seq`` is newer than ``after_seq``; None on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        tick = self._tick
        while True:
            frame = self._frame
            if frame is not None and frame.seq > after_seq:
                return frame
            if self._closed:
                return None
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return None
            tick, _ = await self.next_async(tick, remaining)


def _resolve(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)
