"""Trace recording: every injected input, from any client, as one JSON line.

``trace.jsonl`` starts with a header line (``"kind": "header"``: screen size, mode, start
times) followed by one line per input, in the order they were injected:

    {"n": 3, "t": 1.234, "sandbox_time": "2026-10-19T09:00:01.234000-04:00",
     "client": "agent-1", "kind": "action", "event": {"action": "left_click", ...},
     "seq_before": 17, "seq_after": 18, "screenshot": "shots/000003.png"}

``t`` is monotonic seconds since the trace started; ``seq_before`` the frame on screen when
the input was injected; ``seq_after`` the frame once the screen settled (no damage for
``settle_ms``) or when the next input arrived, whichever came first. ``kind`` is
``action`` (agent API, computer-use vocabulary) or ``input`` (receiver page, low-level
message). With ``screenshots=True`` the settled frame is saved as PNG next to the trace for
every input except bare pointer motion.

Every input except pointer motion that comes with a screen not seen by an earlier line also
carries ``screen``, a checkpoint of the frame ``seq_before`` (:mod:`pixel_stream.checkpoints`):
a replay waits for that screen before it injects the input.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pixel_stream.capture import ScreenCapture
from pixel_stream.checkpoints import encode_thumb, screen_thumb
from pixel_stream.frames import Frame
from pixel_stream.imaging import encode_frame

log = logging.getLogger(__name__)

TRACE_NAME = "trace.jsonl"
TRACE_VERSION = 2  # 2: lines carry screen checkpoints


@dataclass
class _Pending:
    line: dict[str, Any]
    at: float
    screenshot: bool
    checkpoint: Frame | None = None  # the frame whose thumbnail the line carries
    next_arrived: asyncio.Event = field(default_factory=asyncio.Event)


class TraceRecorder:
    """Writes ``trace.jsonl`` (and optional screenshots) for one session."""

    def __init__(
        self,
        directory: Path | str,
        capture: ScreenCapture,
        now_sandbox: Callable[[], datetime],
        screenshots: bool = False,
        settle_ms: float = 150.0,
        header: dict[str, Any] | None = None,
        on_failure: Callable[[str], None] | None = None,
    ) -> None:
        self.directory = Path(directory)
        # why recording stopped (a write failed); the trace then lacks inputs, so whoever
        # owns the recorder is told (``on_failure``) and must not treat the run as recorded
        self.failure: str | None = None
        self._on_failure = on_failure
        self.path = self.directory / TRACE_NAME
        self._capture = capture
        self._now_sandbox = now_sandbox
        self.screenshots = screenshots
        self.settle_s = settle_ms / 1000.0
        self._header = header or {}
        self._queue: asyncio.Queue[_Pending | None] = asyncio.Queue()
        self._last: _Pending | None = None
        self._task: asyncio.Task | None = None
        self._file = None
        self._t0 = time.monotonic()
        self.count = 0
        self._checkpoint_seq = -1  # the frame of the last checkpoint written

    async def start(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        if self.path.exists() and self.path.stat().st_size > 0:
            raise FileExistsError(
                f"{self.path} already holds a trace; record into an empty directory "
                "(traces are never appended to or overwritten)"
            )
        if self.screenshots:
            (self.directory / "shots").mkdir(exist_ok=True)
        self._file = self.path.open("w", encoding="utf-8")
        self._t0 = time.monotonic()
        frame = self._capture.slot.latest
        header = {
            "kind": "header",
            "version": TRACE_VERSION,
            "width": self._capture.width,
            "height": self._capture.height,
            "sandbox_time": self._now_sandbox().isoformat(),
            "seq": frame.seq if frame else 0,
            **self._header,
        }
        self._write(header)
        self._task = asyncio.create_task(self._finalise_loop(), name="trace-recorder")

    def record(self, client_id: str, kind: str, event: dict[str, Any], seq_before: int,
               frame_before: Frame | None = None) -> None:
        """Log one injected input (call right after injecting it; ``frame_before`` is the
        frame that was on screen then, if the caller kept it)."""
        if self._file is None or self.failure is not None:
            return
        now = time.monotonic()
        try:
            sandbox_time = self._now_sandbox().isoformat()
        except Exception as exc:  # noqa: BLE001 - e.g. the run's clock file is gone
            self._failed(f"no sandbox time for input {self.count + 1}: "
                         f"{type(exc).__name__}: {exc}")
            return
        self.count += 1
        line = {
            "n": self.count,
            "t": round(now - self._t0, 6),
            "sandbox_time": sandbox_time,
            "client": client_id,
            "kind": kind,
            "event": event,
            "seq_before": seq_before,
        }
        motion = (kind == "input" and event.get("t") == "move") or (
            kind == "action" and event.get("action") == "mouse_move")
        checkpoint = self._checkpoint(seq_before, frame_before) if not motion else None
        shot = self.screenshots and not (kind == "input" and event.get("t") == "move")
        pending = _Pending(line=line, at=now, screenshot=shot, checkpoint=checkpoint)
        if self._last is not None:
            self._last.next_arrived.set()
        self._last = pending
        self._queue.put_nowait(pending)

    def _checkpoint(self, seq_before: int, frame: Frame | None) -> Frame | None:
        """The frame ``seq_before`` (given, or still the latest frame) to checkpoint, unless
        an earlier line carries it; None when that frame went by unseen. Its thumbnail is
        made later, off the input path."""
        if frame is None or frame.seq != seq_before:
            frame = self._capture.slot.latest
        if frame is None or frame.seq != seq_before or seq_before == self._checkpoint_seq:
            return None
        self._checkpoint_seq = seq_before
        return frame

    async def _finalise_loop(self) -> None:
        try:
            await self._finalise_lines()
        except Exception as exc:  # noqa: BLE001 - any failure is reported, never swallowed
            self._failed(f"{type(exc).__name__}: {exc}")

    def _failed(self, why: str) -> None:
        if self.failure is not None:
            return
        self.failure = f"the trace recorder failed after {self.count} inputs: {why}"
        log.error("%s: %s", self.path, self.failure)
        if self._on_failure is not None:
            try:
                self._on_failure(self.failure)
            except Exception:  # noqa: BLE001
                log.exception("reporting the recorder's failure failed")

    async def _finalise_lines(self) -> None:
        while True:
            pending = await self._queue.get()
            if pending is None:
                return
            if pending.checkpoint is not None:
                pending.line["screen"] = await asyncio.to_thread(_thumb, pending.checkpoint)
            await self._settle(pending)
            frame = self._capture.slot.latest
            pending.line["seq_after"] = frame.seq if frame else 0
            if pending.screenshot and frame is not None:
                name = f"shots/{pending.line['n']:06d}.png"
                data = await asyncio.to_thread(encode_frame, frame, "png")
                (self.directory / name).write_bytes(data)
                pending.line["screenshot"] = name
            self._write(pending.line)

    async def _settle(self, pending: _Pending) -> None:
        """Until the screen is quiet after this input, or the next input came."""
        capture = self._capture
        deadline = pending.at + 2.0
        while not pending.next_arrived.is_set():
            now = time.monotonic()
            activity = max(pending.at, capture.last_damage_at)
            if now - activity >= self.settle_s and not capture.damage_pending:
                return
            if now >= deadline:
                return
            wake = min(max(activity + self.settle_s, now + 0.002), deadline) - now
            try:
                await asyncio.wait_for(pending.next_arrived.wait(), wake)
            except TimeoutError:
                pass

    def _write(self, line: dict[str, Any]) -> None:
        if self._file is not None:
            self._file.write(json.dumps(line, ensure_ascii=False) + "\n")
            self._file.flush()

    async def close(self) -> None:
        """Finish pending lines (their ``seq_after`` is the frame at close) and close."""
        if self._task is not None:
            if self._last is not None:
                self._last.next_arrived.set()
            self._queue.put_nowait(None)
            try:
                await asyncio.wait_for(self._task, 10.0)
            except TimeoutError:
                self._task.cancel()
                self._failed("pending lines were not finished within 10 s of closing")
            self._task = None
        if self._file is not None:
            try:
                self._file.close()
            except OSError as exc:
                self._failed(f"closing the trace: {exc}")
            self._file = None


def _thumb(frame: Frame) -> str:
    return encode_thumb(screen_thumb(frame))


def read_trace(path: Path | str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(header, events) of a trace file; raises ``ValueError`` with the line number."""
    path = Path(path)
    if path.is_dir():
        path = path / TRACE_NAME
    header: dict[str, Any] | None = None
    events: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as fh:
        for number, text in enumerate(fh, 1):
            if not text.strip():
                continue
            try:
                line = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not JSON ({exc})") from exc
            if line.get("kind") == "header":
                if header is None:
                    header = line
                continue
            if line.get("kind") not in ("action", "input") or "event" not in line:
                raise ValueError(
                    f"{path}:{number}: a trace line needs kind 'action' or 'input' and an event"
                )
            events.append(line)
    if header is None:
        raise ValueError(f"{path}: no header line; is this a pixel_stream trace?")
    return header, events


class TraceCheckError(ValueError):
    """A file that is not a trace this screen can replay; the message says why."""


def check_trace(path: Path | str, width: int, height: int) -> tuple[dict[str, Any], int]:
    """Check, before anything is started, that ``path`` is a trace a replay can inject on a
    ``width`` x ``height`` screen: a header of a known version and that screen size, and
    lines whose every input is one the agent API or a receiver page could have sent.
    Returns (header, number of inputs); raises ``TraceCheckError``."""
    from pixel_stream.actions import ActionError, parse_action
    from pixel_stream.viewer_input import ViewerInputError, parse_viewer_input

    try:
        header, events = read_trace(path)
    except (OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
        raise TraceCheckError(f"not a trace: {exc}") from None
    version = header.get("version")
    if isinstance(version, bool) or not isinstance(version, int) \
            or not 1 <= version <= TRACE_VERSION:
        raise TraceCheckError(f"{path}: trace version {version!r} is not one this version "
                              f"reads (1..{TRACE_VERSION})")
    if (header.get("width"), header.get("height")) != (width, height):
        raise TraceCheckError(
            f"{path} was recorded on a {header.get('width')}x{header.get('height')} screen; "
            f"the workstation is {width}x{height}")
    for number, line in enumerate(events, 1):
        t = line.get("t", 0.0)
        if isinstance(t, bool) or not isinstance(t, (int, float)) or t < 0:
            raise TraceCheckError(f"{path}: input {number}: t must be seconds, got {t!r}")
        try:
            if line["kind"] == "action":
                parse_action(line["event"], width, height)
            else:
                parse_viewer_input(line["event"], width, height)
        except (ActionError, ViewerInputError, TypeError, KeyError, AttributeError) as exc:
            raise TraceCheckError(f"{path}: input {number}: {exc}") from None
    return header, len(events)
