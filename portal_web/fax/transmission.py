"""How a sent fax progresses on the line, as a pure function of the sandbox clock.

A job is queued when the user presses Send; the service dials a few seconds later, the
remote machine answers (or the line is busy, or no fax tone comes back), the pages go out
one after another, and the remote machine confirms them. :func:`transmission_plan` lays out
every event of that from the send time, the page count and how the called line behaves
(``fax_numbers.line_behaviour``); :func:`state_at` is the latest event at a sandbox time.
The same job therefore has the same history whenever, and however often, it is looked at.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

QUEUE = timedelta(seconds=4)          # waits in the outbound queue before dialling
DIAL = timedelta(seconds=14)          # dial, ring and the T.30 handshake
PAGE = timedelta(seconds=9)           # one page at 14.4 kbit/s
BUSY_SIGNAL = timedelta(seconds=12)   # how long a busy attempt takes
NO_TONE = timedelta(seconds=45)       # rings out without a fax answer tone
RETRY_AFTER = timedelta(seconds=60)
MAX_ATTEMPTS = 3
UNLISTED = "no_fax_tone"              # a number that is not in the directory


@dataclass(frozen=True)
class LineEvent:
    """One step of a transmission: the job's status from ``at`` on, and what happened."""

    at: datetime
    status: str  # queued | sending | delivered | failed
    attempt: int
    text: str
    page: int | None = None


def _busy(behaviour: str, attempt: int) -> bool:
    return behaviour == "busy" or (behaviour == "busy_once" and attempt == 1)


def transmission_plan(sent_at: datetime, pages: int, behaviour: str, *, number: str,
                      remote_csid: str = "") -> list[LineEvent]:
    """Every event of a job sent at ``sent_at`` with ``pages`` pages (cover included) to a
    line that behaves as ``behaviour``; ends with ``delivered`` or ``failed``."""
    events = [LineEvent(sent_at, "queued", 0, "Queued for transmission")]
    at = sent_at + QUEUE
    remote = remote_csid or "the remote fax"
    for attempt in range(1, MAX_ATTEMPTS + 1):
        events.append(LineEvent(at, "sending", attempt,
                                f"Dialling {number} (attempt {attempt} of {MAX_ATTEMPTS})"))
        answered = behaviour == "answers" or (behaviour == "busy_once" and attempt > 1)
        if not answered:
            busy = _busy(behaviour, attempt)
            at += BUSY_SIGNAL if busy else NO_TONE
            reason = ("Line busy" if busy else
                      "No fax answer tone (the number answered by voice or not at all)")
            if attempt == MAX_ATTEMPTS:
                events.append(LineEvent(at, "failed", attempt,
                                        f"{reason}. Not delivered after {MAX_ATTEMPTS} "
                                        "attempts."))
                return events
            retry = at + RETRY_AFTER
            events.append(LineEvent(at, "queued", attempt,
                                    f"{reason}. Retry {attempt + 1} of {MAX_ATTEMPTS} at "
                                    f"{retry:%H:%M:%S}."))
            at = retry
            continue
        at += DIAL
        events.append(LineEvent(at, "sending", attempt, f"Connected to {remote}"))
        for page in range(1, pages + 1):
            events.append(LineEvent(at, "sending", attempt, f"Sending page {page} of {pages}",
                                    page))
            at += PAGE
        events.append(LineEvent(at, "delivered", attempt,
                                f"Delivered: {pages} page{'s' if pages != 1 else ''} "
                                f"confirmed by {remote}"))
        return events
    return events  # pragma: no cover - the loop always returns


def state_at(plan: list[LineEvent], now: datetime) -> LineEvent:
    """The job's current step: the last event at or before ``now``."""
    current = plan[0]
    for event in plan:
        if event.at <= now:
            current = event
        else:
            break
    return current


def final_event(plan: list[LineEvent]) -> LineEvent:
    return plan[-1]


def failure_reason(plan: list[LineEvent]) -> str:
    last = plan[-1]
    return last.text if last.status == "failed" else ""
