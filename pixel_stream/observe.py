"""Waiting for the screen to settle: the "observe" half of ``act_and_observe``.

Quiet means: no X damage for ``quiet_ms``. The capture thread records the time of the last
damage it saw; this waits on the frame slot (woken by new frames, never polling) until
that time is ``quiet_ms`` in the past, or the timeout passes. Then it asks the capture for
the screen as of now, so the returned frame includes the last change.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from pixel_stream.capture import ScreenCapture
from pixel_stream.frames import Frame


@dataclass(frozen=True)
class Observation:
    """The settled screen after an action, with how long things took."""

    frame: Frame
    seq_before: int
    changed: bool
    timed_out: bool
    first_change_ms: float | None
    settle_ms: float

    def timings(self) -> dict:
        return {
            "first_change_ms": None
            if self.first_change_ms is None
            else round(self.first_change_ms, 2),
            "settle_ms": round(self.settle_ms, 2),
        }


async def wait_for_quiet(
    capture: ScreenCapture,
    started: float,
    seq_before: int,
    quiet_ms: float,
    timeout_ms: float,
    since: float | None = None,
) -> Observation:
    """Wait until no damage for ``quiet_ms`` after ``started`` (monotonic), or the timeout.
    The timings count from ``since`` (default ``started``): an action's own start, when
    ``started`` is when its input was in (the application may repaint, and the capture see
    it, before the injecting call has returned)."""
    quiet = quiet_ms / 1000.0
    deadline = started + timeout_ms / 1000.0
    slot = capture.slot
    seq = seq_before
    first_change: float | None = None
    timed_out = False
    while True:
        activity = max(started, capture.last_damage_at)
        now = time.monotonic()
        if now - activity >= quiet and not capture.damage_pending:
            break
        if now >= deadline:
            timed_out = True
            break
        wake_at = min(max(activity + quiet, now + 0.002), deadline)
        frame = await slot.next_content_async(seq, wake_at - now)
        if frame is not None:
            seq = frame.seq
            if first_change is None:
                first_change = frame.damaged_at
        if slot.closed:
            break
    frame = await capture.fresh_frame()
    if first_change is None and frame.seq > seq_before:
        first_change = frame.damaged_at
    settled = time.monotonic()
    origin = started if since is None else since
    return Observation(
        frame=frame,
        seq_before=seq_before,
        changed=frame.seq > seq_before,
        timed_out=timed_out,
        first_change_ms=None if first_change is None else (first_change - origin) * 1000,
        settle_ms=(settled - origin) * 1000,
    )
