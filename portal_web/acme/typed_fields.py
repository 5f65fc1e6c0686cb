"""Typed entries the shared ``FieldReader`` does not have: phone numbers, money, procedure
codes, modifiers and NDCs, as the appeal, peer-to-peer, claim-correction and DME forms take
them. Each reads one posted field, returns the normalised value (or ``None``) and leaves an
inline message on the reader naming the field, what was wrong and what to enter.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal, InvalidOperation

from portal_web.common.forms import FieldReader

PHONE = re.compile(r"\+?1?[\s.\-]*\(?(\d{3})\)?[\s.\-]*(\d{3})[\s.\-]*(\d{4})"
                   r"(?:\s*(?:x|ext\.?)\s*(\d{1,6}))?")
PROCEDURE = re.compile(r"(\d{4}[0-9A-Z]|[A-V]\d{4})")
MODIFIER = re.compile(r"[0-9A-Z]{2}")
MAX_CENTS = 99_999_999  # $999,999.99


def phone(reader: FieldReader, name: str, label: str, *, required: bool = False) -> str | None:
    """A US phone number, stored as ``217-555-0100`` (``x123`` for an extension)."""
    value = reader._get(name)  # noqa: SLF001 - the reader's cleaned raw value
    if not value:
        if required:
            reader.fail(name, f"{label} is required (10 digits, e.g. 217-555-0100).")
        return None
    match = PHONE.fullmatch(value)
    if not match:
        reader.fail(name, f"{label}: '{value[:20]}' is not a US phone number; enter 10 digits "
                          "such as 217-555-0100 (an extension as x123).")
        return None
    area, exchange, line, ext = match.groups()
    if area[0] in "01" or exchange[0] in "01":
        reader.fail(name, f"{label}: {area}-{exchange}-{line} is not a valid US number (the "
                          "area code and exchange cannot start with 0 or 1).")
        return None
    return f"{area}-{exchange}-{line}" + (f" x{ext}" if ext else "")


def money_cents(reader: FieldReader, name: str, label: str, *,
                required: bool = False) -> int | None:
    """A dollar amount (``186.00``, ``$1,860``) as integer cents, at most two decimals."""
    value = reader._get(name).replace("$", "").replace(",", "").strip()  # noqa: SLF001
    if not value:
        if required:
            reader.fail(name, f"{label} is required (dollars and cents, e.g. 186.00).")
        return None
    try:
        amount = Decimal(value)
    except InvalidOperation:
        reader.fail(name, f"{label} must be an amount in dollars such as 186.00 "
                          f"(you entered '{value[:20]}').")
        return None
    if not amount.is_finite() or amount.as_tuple().exponent < -2:  # type: ignore[operator]
        reader.fail(name, f"{label} must be dollars and cents with at most 2 decimals.")
        return None
    cents = int(amount * 100)
    if not 1 <= cents <= MAX_CENTS:
        reader.fail(name, f"{label} must be between $0.01 and $999,999.99.")
        return None
    return cents


def procedure_code(reader: FieldReader, name: str, label: str, *,
                   required: bool = False) -> str | None:
    """A CPT (5 characters, e.g. 99214 or 0001U) or HCPCS Level II code (J0897)."""
    value = reader._get(name).upper().replace(" ", "")  # noqa: SLF001
    if not value:
        if required:
            reader.fail(name, f"{label} is required (a CPT or HCPCS code such as 99214).")
        return None
    if not PROCEDURE.fullmatch(value):
        reader.fail(name, f"{label}: '{value[:12]}' is not a CPT or HCPCS code; enter 5 "
                          "characters such as 99214 or J0897.")
        return None
    return value


def modifiers(reader: FieldReader, name: str, label: str) -> str:
    """Up to four 2-character modifiers, stored upper case joined by ``,`` (``JZ,59``)."""
    value = reader._get(name).upper()  # noqa: SLF001
    parts = [p for p in re.split(r"[\s,;/-]+", value) if p]
    if not parts:
        return ""
    if len(parts) > 4 or not all(MODIFIER.fullmatch(p) for p in parts):
        reader.fail(name, f"{label}: enter up to 4 two-character modifiers separated by "
                          "commas, e.g. 25 or JZ,59.")
        return ""
    return ",".join(parts)


def ndc(reader: FieldReader, name: str, label: str) -> str | None:
    """An 11-digit NDC (5-4-2); hyphens and spaces are dropped."""
    value = re.sub(r"[\s\-]", "", reader._get(name))  # noqa: SLF001
    if not value:
        return None
    if not re.fullmatch(r"\d{11}", value):
        reader.fail(name, f"{label}: enter the 11-digit NDC (5-4-2, e.g. 55513-0710-01).")
        return None
    return value


def dollars(cents: int | None) -> str:
    """Cents as ``1,860.00`` (form values and tables)."""
    if cents is None:
        return ""
    return f"{cents / 100:,.2f}"


def us_date(reader: FieldReader, name: str, label: str, *, required: bool = False,
            earliest: dt.date | None = None, latest: dt.date | None = None) -> dt.date | None:
    """A date typed MM/DD/YYYY (as the portal shows dates) or YYYY-MM-DD."""
    value = reader._get(name)  # noqa: SLF001
    if not value:
        if required:
            reader.fail(name, f"{label} is required (MM/DD/YYYY).")
        return None
    day = None
    for pattern, fmt in ((r"\d{1,2}/\d{1,2}/\d{4}", "%m/%d/%Y"), (r"\d{4}-\d{2}-\d{2}", "%Y-%m-%d")):
        if re.fullmatch(pattern, value):
            try:
                day = dt.datetime.strptime(value, fmt).date()
            except ValueError:
                day = None
            break
    if day is None:
        reader.fail(name, f"{label} must be a date written MM/DD/YYYY (you entered "
                          f"'{value[:20]}').")
        return None
    if earliest is not None and day < earliest:
        reader.fail(name, f"{label} cannot be before {earliest:%m/%d/%Y}.")
        return None
    if latest is not None and day > latest:
        reader.fail(name, f"{label} cannot be after {latest:%m/%d/%Y}.")
        return None
    return day
