"""US date and time display (MM/DD/YYYY, 12-hour clock), as the portal shows them."""

from __future__ import annotations

from datetime import date, datetime


def mdy(value: date | datetime | None) -> str:
    """``02/22/1977``; empty for None."""
    return value.strftime("%m/%d/%Y") if value is not None else ""


def mdy_time(value: datetime | None) -> str:
    """``10/19/2026 9:05 AM``; empty for None."""
    if value is None:
        return ""
    return f"{value.strftime('%m/%d/%Y')} {value.strftime('%I:%M %p').lstrip('0')}"


def clock_time(value: datetime | None) -> str:
    """``9:05 AM``; empty for None."""
    return value.strftime("%I:%M %p").lstrip("0") if value is not None else ""


def register(env) -> None:  # noqa: ANN001 - a jinja2 Environment
    """Make the formats available to templates as filters."""
    env.filters["mdy"] = mdy
    env.filters["mdy_time"] = mdy_time
    env.filters["clock_time"] = clock_time
