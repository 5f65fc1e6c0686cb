"""Parsing what users type into order and chart fields, refusing bad input with a message.

Dates accept what clinicians type in the licensed clients: ``10/26/2026``, ``10/26/26``,
``2026-10-26``, and the relative shortcuts ``t`` (today), ``t+3``, ``t-5`` (days from
today). Times accept ``21:00``, ``2100``, ``9:00 PM``, ``9p``. Every parser raises
:class:`InputError` whose message says what was wrong and what to type instead.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta


class InputError(ValueError):
    """A typed value was refused; ``str(err)`` is the message shown next to the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


_RELATIVE = re.compile(r"^t\s*(?:([+-])\s*(\d{1,4}))?$", re.IGNORECASE)
_US_DATE = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})$")
_ISO_DATE = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$")
_TIME_24 = re.compile(r"^(\d{1,2}):?(\d{2})$")
_TIME_12 = re.compile(r"^(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m?\.?$", re.IGNORECASE)
_PHONE = re.compile(r"^\(?(\d{3})\)?[\s.-]?(\d{3})[\s.-]?(\d{4})$")


def parse_date(text: str, today: date, field: str = "Date") -> date:
    """A date from typed text (see module doc); ``today`` anchors the ``t`` shortcuts."""
    value = (text or "").strip()
    if not value:
        raise InputError(field, f"{field} is empty: type a date such as 10/26/2026 or t+3.")
    m = _RELATIVE.match(value)
    if m:
        days = int(m.group(2) or 0)
        return today + timedelta(days=-days if m.group(1) == "-" else days)
    m = _US_DATE.match(value)
    if m:
        month, day, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if year < 100:
            year += 2000
        return _checked_date(field, value, year, month, day)
    m = _ISO_DATE.match(value)
    if m:
        return _checked_date(field, value, int(m.group(1)), int(m.group(2)), int(m.group(3)))
    raise InputError(field, f"{field} '{value}' is not a date: type MM/DD/YYYY (10/26/2026), "
                            "or t, t+N, t-N for days from today.")


def _checked_date(field: str, raw: str, year: int, month: int, day: int) -> date:
    try:
        return date(year, month, day)
    except ValueError:
        raise InputError(field, f"{field} '{raw}' is not a calendar date: check the month "
                                "and day (MM/DD/YYYY).") from None


def parse_time(text: str, field: str = "Time") -> time:
    """A time of day from typed text (24-hour or with AM/PM)."""
    value = (text or "").strip()
    if not value:
        raise InputError(field, f"{field} is empty: type a time such as 21:00 or 9:00 PM.")
    m = _TIME_24.match(value)
    if m:
        hour, minute = int(m.group(1)), int(m.group(2))
        if hour < 24 and minute < 60:
            return time(hour, minute)
    m = _TIME_12.match(value)
    if m:
        hour, minute = int(m.group(1)), int(m.group(2) or 0)
        if 1 <= hour <= 12 and minute < 60:
            hour = hour % 12 + (12 if m.group(3).lower() == "p" else 0)
            return time(hour, minute)
    raise InputError(field, f"{field} '{value}' is not a time: type HH:MM in 24-hour form "
                            "(21:00) or with AM/PM (9:00 PM).")


def parse_datetime(date_text: str, time_text: str, today: date, label: str,
                   default_time: time | None = None) -> datetime | None:
    """Date and time fields together; both empty means no value. A date without a time
    takes ``default_time`` when given, else it is refused."""
    if not (date_text or "").strip() and not (time_text or "").strip():
        return None
    day = parse_date(date_text, today, f"{label} date")
    if not (time_text or "").strip():
        if default_time is None:
            raise InputError(f"{label} time", f"{label} time is empty: type a time such as "
                                              "09:00, or clear the date too.")
        return datetime.combine(day, default_time)
    return datetime.combine(day, parse_time(time_text, f"{label} time"))


def parse_positive_number(text: str, field: str, *, maximum: float | None = None,
                          allow_zero: bool = False) -> float:
    """A positive decimal number (doses, weights); commas as thousands separators are fine."""
    value = (text or "").strip().replace(",", "")
    if not value:
        raise InputError(field, f"{field} is empty: type a number.")
    try:
        number = float(value)
    except ValueError:
        raise InputError(field, f"{field} '{text.strip()}' is not a number: type digits "
                                "only, e.g. 40 or 2.5.") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise InputError(field, f"{field} '{text.strip()}' is not a number.")
    if number < 0 or (number == 0 and not allow_zero):
        raise InputError(field, f"{field} must be greater than zero (got {text.strip()}).")
    if maximum is not None and number > maximum:
        raise InputError(field, f"{field} {text.strip()} is above the largest allowed "
                                f"({format_number(maximum)}): check the value and unit.")
    if round(number, 4) != number:
        raise InputError(field, f"{field} {text.strip()} has too many decimals (4 at most).")
    return number


def parse_int(text: str, field: str, *, minimum: int = 0, maximum: int | None = None) -> int:
    value = (text or "").strip()
    if not value:
        raise InputError(field, f"{field} is empty: type a whole number.")
    if not re.fullmatch(r"\d+", value):
        raise InputError(field, f"{field} '{value}' is not a whole number: type digits only.")
    number = int(value)
    if number < minimum or (maximum is not None and number > maximum):
        top = f" and {maximum}" if maximum is not None else ""
        raise InputError(field, f"{field} must be between {minimum}{top} (got {value}).")
    return number


def parse_phone(text: str, field: str = "Phone") -> str:
    """A 10-digit North American phone number, normalized to ``217-555-0123``."""
    value = (text or "").strip()
    digits = re.sub(r"^\+?1[\s.-]?", "", value) if len(re.sub(r"\D", "", value)) == 11 else value
    m = _PHONE.match(digits)
    if not m:
        raise InputError(field, f"{field} '{value}' is not a 10-digit phone number: type it "
                                "as 217-555-0123.")
    return f"{m.group(1)}-{m.group(2)}-{m.group(3)}"


def format_number(value: float | None) -> str:
    """2.0 → '2', 2.5 → '2.5', 5000 → '5,000' (as order sentences print doses)."""
    if value is None:
        return ""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.4f}".rstrip("0").rstrip(".")


def format_date(value: date | datetime | None) -> str:
    if value is None:
        return ""
    return f"{value.month:02d}/{value.day:02d}/{value.year:04d}"


def format_time(value: datetime | time | None) -> str:
    if value is None:
        return ""
    return f"{value.hour:02d}:{value.minute:02d}"


def format_datetime(value: datetime | None) -> str:
    if value is None:
        return ""
    return f"{format_date(value)} {format_time(value)}"
