"""Replay a recorded trace against a display.

Two pacings:

* ``recorded`` - each input is injected at its recorded time offset (scaled by
  ``speed``), the way a human did it;
* ``settle`` - each input is injected as soon as the screen has settled after the previous
  one (no damage for ``quiet_ms``). Inputs that did not change the screen when recorded
  (``seq_after == seq_before``, e.g. pointer motion) do not wait. Mouse presses keep their
  recorded spacing inside the multi-click window, so two clicks stay two clicks and a
  double click stays one. An input whose line carries a screen checkpoint is injected
  only once the live screen matches it (:mod:`pixel_stream.checkpoints`), or after
  ``checkpoint_timeout_ms``. After three checkpoints in a row were not met the replay is
  *off its recorded screens* (it went another way, or a stretch of the screen differs from
  the recording's, such as a file chooser's path bar showing where the run's folders are):
  it then waits for each recorded screen only ``LOST_WAIT_S``, until one is met again and
  the full waits resume.

Agent actions are replayed through the same code as the agent API, receiver input through
the same code as the receiver page, so a replay is exactly as faithful as a live session.
The report ends with the final screen's pixel hash, for comparing two runs.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pixel_stream.actions import parse_action, perform_action
from pixel_stream.capture import ScreenCapture
from pixel_stream.checkpoints import (
    CheckpointError,
    cells_differing,
    decode_thumb,
    matches,
    screen_thumb,
)
from pixel_stream.frames import Frame
from pixel_stream.imaging import pixel_hash
from pixel_stream.observe import wait_for_quiet
from pixel_stream.recording import read_trace
from pixel_stream.viewer_input import ViewerInput, parse_viewer_input
from pixel_stream.xinput import InputInjector

PACINGS = ("recorded", "settle")
# Two presses closer than this may be one double click to the app (Qt and GTK use 400 ms,
# X toolkits up to 500 ms); settle pacing keeps such gaps as recorded, and never makes a
# longer gap shorter than this, so a replay neither creates nor splits a multi-click.
MULTI_CLICK_WINDOW_S = 0.6
# ... and no farther apart than this (Qt and GTK use a few pixels).
MULTI_CLICK_DISTANCE = 8
# Unmet screen checkpoints in a row after which a replay is off its recorded screens ...
LOST_AFTER_MISSES = 3
# ... and waits this long for each of them, until one is met again.
LOST_WAIT_S = 1.0
PRESS_ACTIONS = frozenset({
    "left_click", "right_click", "middle_click", "double_click", "triple_click",
    "left_mouse_down", "left_click_drag",
})


def is_press(event: dict[str, Any]) -> bool:
    """Does this trace event press a mouse button?"""
    body = event.get("event", {})
    if event.get("kind") == "action":
        return body.get("action") in PRESS_ACTIONS
    return body.get("t") == "button" and bool(body.get("down"))


class ReplayError(RuntimeError):
    """The trace cannot be replayed on this display."""


@dataclass
class ReplayReport:
    events: int = 0
    final_seq: int = 0
    final_hash: str = ""
    duration_s: float = 0.0
    timed_out: list[int] = field(default_factory=list)
    checkpoints: int = 0  # inputs that waited for their recorded screen
    checkpoint_wait_s: float = 0.0
    # inputs whose screen never came: (event n, cells still differing at the timeout)
    unmatched: list[tuple[int, int]] = field(default_factory=list)
    # the inputs at which the replay was found off its recorded screens (LOST_AFTER_MISSES
    # in a row), and those whose screen was met again after that
    lost_at: list[int] = field(default_factory=list)
    found_again_at: list[int] = field(default_factory=list)
    misses_in_row: int = 0

    @property
    def lost(self) -> bool:
        """Is the replay off its recorded screens now?"""
        return self.misses_in_row >= LOST_AFTER_MISSES

    def to_dict(self) -> dict[str, Any]:
        return {
            "events": self.events,
            "final_seq": self.final_seq,
            "final_hash": self.final_hash,
            "duration_s": round(self.duration_s, 3),
            "timed_out": self.timed_out,
            "checkpoints": self.checkpoints,
            "checkpoint_wait_s": round(self.checkpoint_wait_s, 3),
            "unmatched": [list(item) for item in self.unmatched],
            "lost_at": self.lost_at,
            "found_again_at": self.found_again_at,
        }


@dataclass
class ReplayTarget:
    """Where a replay injects: a display's capture and input connection, and the function
    that runs injector calls in order (a session's ``run_input``, or a private thread).

    ``on_input(client, kind, event, seq_before, frame_before=frame)`` is told about every
    injected input (a session records it in its own trace); ``check()`` runs before each input and may raise
    to stop the replay (an episode that is no longer running).
    """

    capture: ScreenCapture
    injector: InputInjector
    run: Callable[..., Awaitable[Any]]
    on_input: Callable[..., None] | None = None
    check: Callable[[], None] | None = None


async def replay_trace(
    trace: Path | str,
    display_name: str,
    pacing: str = "settle",
    quiet_ms: float = 200.0,
    timeout_ms: float = 5000.0,
    speed: float = 1.0,
) -> ReplayReport:
    """Re-inject every input of ``trace`` into ``display_name``; returns a report."""
    capture = await asyncio.to_thread(ScreenCapture(display_name).start)
    injector = await asyncio.to_thread(InputInjector, display_name)
    pool = ThreadPoolExecutor(1, thread_name_prefix="replay-input")
    loop = asyncio.get_running_loop()

    async def run(fn, *args):
        return await loop.run_in_executor(pool, fn, *args)

    try:
        return await replay_into(trace, ReplayTarget(capture, injector, run), pacing=pacing,
                                 quiet_ms=quiet_ms, timeout_ms=timeout_ms, speed=speed)
    finally:
        await run(injector.close)
        pool.shutdown(wait=True)
        await asyncio.to_thread(capture.stop)


async def replay_into(
    trace: Path | str,
    target: ReplayTarget,
    pacing: str = "settle",
    quiet_ms: float = 200.0,
    timeout_ms: float = 5000.0,
    speed: float = 1.0,
    keep_gaps: bool = False,
    checkpoint_timeout_ms: float = 15000.0,
) -> ReplayReport:
    """Re-inject every input of ``trace`` through ``target``; returns a report.

    ``keep_gaps``: no input follows the one before it sooner than it did when recorded
    (with settle pacing) — whoever recorded the trace may have waited for a page that shows
    nothing until it arrives, which no screen-settle wait can see.
    """
    if pacing not in PACINGS:
        raise ReplayError(f"pacing must be one of {', '.join(PACINGS)}, got {pacing!r}")
    if speed <= 0:
        raise ReplayError(f"speed must be positive, got {speed!r}")
    header, events = read_trace(trace)
    capture = target.capture
    if (header.get("width"), header.get("height")) != (capture.width, capture.height):
        raise ReplayError(
            f"{trace} was recorded on a {header.get('width')}x{header.get('height')} "
            f"screen; this display is {capture.width}x{capture.height}"
        )
    report = ReplayReport()
    inputs: dict[str, ViewerInput] = {}
    started = time.monotonic()
    last_press: tuple[float, float] | None = None  # (recorded t, replayed monotonic)
    previous: tuple[float, float] | None = None  # (recorded t, replayed at) of the last input
    upcoming_press = _upcoming_press_times(events)
    for index, event in enumerate(events):
        if target.check is not None:
            target.check()
        recorded_t = float(event.get("t", 0.0))
        if pacing == "recorded":
            await _sleep_until(started + recorded_t / speed)
        else:
            pressed_again = (is_press(event) and last_press is not None
                             and recorded_t - last_press[0] < MULTI_CLICK_WINDOW_S
                             and _after_a_button(events, index))
            if "screen" in event and not pressed_again:
                wait = LOST_WAIT_S if report.lost else checkpoint_timeout_ms / 1000.0
                await _await_checkpoint(event, capture, wait, report)
            if keep_gaps and previous is not None:
                await _sleep_until(previous[1] + (recorded_t - previous[0]) / speed)
            if is_press(event) and last_press is not None:
                wanted = min(recorded_t - last_press[0], MULTI_CLICK_WINDOW_S) / speed
                await _sleep_until(last_press[1] + wanted)
        frame_before = capture.slot.latest
        injected_at = await _inject(event, target, inputs, frame_before)
        seq_before = frame_before.seq
        previous = (recorded_t, injected_at)
        report.events += 1
        if is_press(event):
            last_press = (recorded_t, injected_at)
        changed = event.get("seq_after", 0) != event.get("seq_before", 0)
        in_multi_click = (
            last_press is not None
            and upcoming_press[index] is not None
            and upcoming_press[index] - last_press[0] < MULTI_CLICK_WINDOW_S
        )
        if pacing == "settle" and changed and not in_multi_click:
            seen = await wait_for_quiet(capture, injected_at, seq_before, quiet_ms, timeout_ms)
            if seen.timed_out:
                report.timed_out.append(event.get("n", report.events))
    for viewer_input in inputs.values():
        await viewer_input.release_all()
    final = await wait_for_quiet(
        capture, time.monotonic(), capture.slot.latest.seq, quiet_ms, timeout_ms
    )
    report.final_seq = final.frame.seq
    report.final_hash = pixel_hash(final.frame)
    report.duration_s = time.monotonic() - started
    return report


async def _await_checkpoint(event: dict[str, Any], capture: ScreenCapture, timeout: float,
                            report: ReplayReport) -> None:
    """Until the live screen matches the one ``event`` was recorded on, or ``timeout``.

    A second press of a multi-click never waits here (waiting could split a double click).
    The report counts the misses in a row: at ``LOST_AFTER_MISSES`` the replay is off its
    recorded screens until one is met again (module docstring).
    """
    try:
        wanted = decode_thumb(event["screen"])
    except CheckpointError as exc:
        raise ReplayError(f"trace line {event.get('n')}: {exc}") from exc
    started = time.monotonic()
    deadline = started + timeout
    report.checkpoints += 1
    frame = capture.slot.latest
    while frame is not None:
        live = await asyncio.to_thread(screen_thumb, frame)
        if matches(live, wanted):
            report.checkpoint_wait_s += time.monotonic() - started
            if report.lost:
                report.found_again_at.append(int(event.get("n", report.events + 1)))
            report.misses_in_row = 0
            return
        remaining = deadline - time.monotonic()
        newer = await capture.slot.next_content_async(frame.seq, remaining) \
            if remaining > 0 else None
        if newer is None:
            report.checkpoint_wait_s += time.monotonic() - started
            report.unmatched.append((int(event.get("n", report.events + 1)),
                                     cells_differing(live, wanted)))
            report.misses_in_row += 1
            if report.misses_in_row == LOST_AFTER_MISSES:
                report.lost_at.append(report.unmatched[-1][0])
            return
        frame = newer


def _after_a_button(events: list[dict[str, Any]], index: int) -> bool:
    """Is the last input before ``events[index]``, pointer motion aside, a mouse button at
    the same place (so a press here may be the next click of a multi-click)?"""
    here = _where(events[index])
    for event in reversed(events[:index]):
        body = event.get("event", {})
        if event.get("kind") == "action":
            if body.get("action") == "mouse_move":
                continue
            button = is_press(event) or body.get("action") == "left_mouse_up"
        elif body.get("t") == "move":
            continue
        else:
            button = body.get("t") == "button"
        there = _where(event)
        return button and (here is None or there is None or (
            abs(here[0] - there[0]) <= MULTI_CLICK_DISTANCE
            and abs(here[1] - there[1]) <= MULTI_CLICK_DISTANCE))
    return False


def _where(event: dict[str, Any]) -> tuple[int, int] | None:
    """Where a pointer event happens, when its line says."""
    body = event.get("event", {})
    point = body.get("coordinate") if event.get("kind") == "action" else (
        [body["x"], body["y"]] if "x" in body and "y" in body else None)
    if isinstance(point, list | tuple) and len(point) == 2:
        return int(point[0]), int(point[1])
    return None


async def _sleep_until(when: float) -> None:
    delay = when - time.monotonic()
    if delay > 0:
        await asyncio.sleep(delay)


def _upcoming_press_times(events: list[dict[str, Any]]) -> list[float | None]:
    """For each event, the recorded time of the next mouse press after it (None: none)."""
    upcoming: list[float | None] = [None] * len(events)
    following: float | None = None
    for index in range(len(events) - 1, -1, -1):
        upcoming[index] = following
        if is_press(events[index]):
            following = float(events[index].get("t", 0.0))
    return upcoming


async def _inject(
    event: dict[str, Any],
    target: ReplayTarget,
    inputs: dict[str, ViewerInput],
    frame_before: Frame,
) -> float:
    """Inject one trace event the way it came in live (agent action or receiver input)."""
    body = event["event"]
    capture = target.capture
    if event["kind"] == "action":
        action = parse_action(body, capture.width, capture.height)
        await perform_action(action, target.injector, target.run)
        recorded: dict[str, Any] | None = dict(action.raw)
    else:
        client = str(event.get("client", "viewer"))
        viewer_input = inputs.setdefault(client, ViewerInput(target.injector, target.run))
        recorded = parse_viewer_input(body, capture.width, capture.height)
        if recorded is not None:
            await viewer_input.apply(recorded)
    if target.on_input is not None and recorded is not None:
        target.on_input("replay", event["kind"], recorded, frame_before.seq,
                        frame_before=frame_before)
    return time.monotonic()
