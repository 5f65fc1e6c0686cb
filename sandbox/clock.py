"""The sandbox clock: the only "now" of every system in an episode.

A clock starts at a fixed sandbox instant (default Monday 2026-10-19 09:00 America/New_York),
advances with monotonic elapsed time once started, and can be advanced explicitly (for payer
decisions that arrive later). Several processes of one episode share a clock through a small
JSON file: ``CLOCK_MONOTONIC`` is machine-wide on Linux, so every process computes the same now.
A clock that was never started is frozen at its start: seeding uses that, so seeded rows never
depend on when seeding ran.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from sandbox.errors import SandboxError

SANDBOX_TZ = ZoneInfo("America/New_York")
DEFAULT_START = datetime(2026, 10, 19, 9, 0, tzinfo=SANDBOX_TZ)


class ClockError(SandboxError, ValueError):
    """A clock file or a clock argument is invalid."""


def parse_sandbox_time(value: str | datetime) -> datetime:
    """An aware datetime from ISO text; naive values are read as sandbox-local time."""
    if isinstance(value, datetime):
        dt = value
    else:
        try:
            dt = datetime.fromisoformat(str(value))
        except ValueError as exc:
            raise ClockError(
                f"not an ISO date-time: {value!r} (write e.g. 2026-10-19T09:00:00-04:00)"
            ) from exc
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=SANDBOX_TZ)
    return dt.astimezone(SANDBOX_TZ)


@dataclass
class SandboxClock:
    """Sandbox time = start + (monotonic elapsed since anchor, when running) + offset."""

    start: datetime = DEFAULT_START
    anchor_monotonic: float | None = None
    offset_s: float = 0.0

    def __post_init__(self) -> None:
        self.start = parse_sandbox_time(self.start)

    # -- reading -------------------------------------------------------------------------
    def now(self) -> datetime:
        """Aware sandbox-local now."""
        elapsed = 0.0
        if self.anchor_monotonic is not None:
            elapsed = max(0.0, time.monotonic() - self.anchor_monotonic)
        return self.start + timedelta(seconds=elapsed + self.offset_s)

    def now_local(self) -> datetime:
        """Naive sandbox-local now, as the stores keep times (like OpenEMR does)."""
        return self.now().replace(tzinfo=None)

    def today(self):
        return self.now().date()

    @property
    def running(self) -> bool:
        return self.anchor_monotonic is not None

    # -- changing ------------------------------------------------------------------------
    def run(self) -> SandboxClock:
        """Start advancing with real elapsed time from now on (idempotent)."""
        if self.anchor_monotonic is None:
            self.anchor_monotonic = time.monotonic()
        return self

    def freeze(self) -> SandboxClock:
        """Stop advancing, keeping the current sandbox time."""
        if self.anchor_monotonic is not None:
            self.offset_s += max(0.0, time.monotonic() - self.anchor_monotonic)
            self.anchor_monotonic = None
        return self

    def advance(self, delta: timedelta | float) -> datetime:
        """Jump forward (never backward); returns the new now."""
        seconds = delta.total_seconds() if isinstance(delta, timedelta) else float(delta)
        if seconds < 0:
            raise ClockError(f"the sandbox clock only moves forward (asked {seconds:+.0f} s)")
        self.offset_s += seconds
        return self.now()

    # -- persistence ---------------------------------------------------------------------
    def to_json(self) -> dict:
        return {
            "start": self.start.isoformat(),
            "anchor_monotonic": self.anchor_monotonic,
            "offset_s": self.offset_s,
        }

    @classmethod
    def from_json(cls, data: dict) -> SandboxClock:
        if not isinstance(data, dict):
            raise ClockError("a clock file must hold a JSON object with 'start'")
        unknown = set(data) - {"start", "anchor_monotonic", "offset_s"}
        if unknown:
            raise ClockError(f"unknown clock keys: {', '.join(sorted(unknown))}")
        try:
            return cls(
                start=parse_sandbox_time(data["start"]),
                anchor_monotonic=data.get("anchor_monotonic"),
                offset_s=float(data.get("offset_s", 0.0)),
            )
        except KeyError as exc:
            raise ClockError("clock file has no 'start'") from exc

    def save(self, path: Path) -> None:
        path = Path(path)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=2) + "\n")
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> SandboxClock:
        try:
            data = json.loads(Path(path).read_text())
        except FileNotFoundError as exc:
            raise ClockError(f"no clock file at {path}") from exc
        except json.JSONDecodeError as exc:
            raise ClockError(f"clock file {path} is not JSON: {exc}") from exc
        return cls.from_json(data)


class SharedClock:
    """A clock backed by an episode's clock file, re-read when the file changes.

    Apps of one episode hold one of these; an explicit advance written by the episode
    runner is seen by every app on its next ``now()``.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self._mtime_ns = -1
        self._clock = SandboxClock()
        self._refresh()

    def _refresh(self) -> None:
        try:
            mtime = self.path.stat().st_mtime_ns
        except FileNotFoundError as exc:
            raise ClockError(f"no clock file at {self.path}") from exc
        if mtime != self._mtime_ns:
            self._clock = SandboxClock.load(self.path)
            self._mtime_ns = mtime

    def now(self) -> datetime:
        self._refresh()
        return self._clock.now()

    def now_local(self) -> datetime:
        return self.now().replace(tzinfo=None)

    def today(self):
        return self.now().date()

    def advance(self, delta: timedelta | float) -> datetime:
        self._refresh()
        new_now = self._clock.advance(delta)
        self._clock.save(self.path)
        self._mtime_ns = -1
        return new_now


def business_days_after(day, n: int, holidays: frozenset = frozenset()):
    """The date n business days (Mon–Fri, not a holiday) after ``day``."""
    current = day
    remaining = n
    while remaining > 0:
        current = current + timedelta(days=1)
        if current.weekday() < 5 and current not in holidays:
            remaining -= 1
    return current
