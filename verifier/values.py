"""Comparing what a check expected with what it found, and writing either into evidence.

Stores hold values the way the apps wrote them: OpenEMR keeps blood pressure as text, weight
as a float in pounds, dates as dates. A check compares in the domain's terms — numbers
within a stated tolerance, free text after normalising case and whitespace — and records
both sides in JSON-safe form.
"""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import math
import re
from typing import Any

_SPACE = re.compile(r"\s+")


def normalize_text(value: Any) -> str:
    """Case-folded, whitespace-collapsed, stripped text (``None`` → ``""``)."""
    if value is None:
        return ""
    return _SPACE.sub(" ", str(value)).strip().casefold()


def mentions(text: Any, token: Any) -> bool:
    """Whether ``token`` (a reference or claim number, a bulletin key) is written in
    ``text`` as a whole, case and spacing ignored: not as a part of a longer number or word
    ("PA26-100010" is not in "PA26-1000107" nor in "XPA26-100010")."""
    wanted = normalize_text(token)
    if not wanted:
        return False
    pattern = rf"(?<![0-9a-z]){re.escape(wanted)}(?![0-9a-z])"
    return re.search(pattern, normalize_text(text)) is not None


def as_number(value: Any) -> float | None:
    """A float from a number or numeric text; ``None`` when it is neither."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float, decimal.Decimal)):
        number = float(value)
    else:
        try:
            number = float(str(value).strip())
        except ValueError:
            return None
    return None if math.isnan(number) else number


def as_date(value: Any) -> dt.date | None:
    """A date from a date, a datetime or ISO text; ``None`` otherwise."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()[:10])
        except ValueError:
            return None
    return None


def same_value(found: Any, expected: Any, tol: float | None = None) -> bool:
    """Whether ``found`` equals ``expected`` in the expected value's terms.

    Numbers compare numerically (within ``tol`` when given, so 98.8 °F matches 98.78 °F);
    dates compare as dates whatever their representation; everything else compares as
    normalised text.
    """
    if found is None:
        return expected is None
    if isinstance(expected, bool):
        return bool(found) == expected if isinstance(found, (bool, int)) else False
    if isinstance(expected, (int, float, decimal.Decimal)):
        number = as_number(found)
        if number is None:
            return False
        slack = (tol or 0.0) + 1e-9
        return abs(number - float(expected)) <= slack
    if isinstance(expected, (dt.date, dt.datetime)) and not isinstance(expected, dt.datetime):
        return as_date(found) == expected
    if isinstance(expected, dt.datetime):
        return isinstance(found, dt.datetime) and found == expected
    return normalize_text(found) == normalize_text(expected)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def jsonable(value: Any) -> Any:
    """A JSON-safe form of an evidence value (dates as ISO text, bytes as their sha256)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        raw = bytes(value)
        return {"sha256": sha256_bytes(raw), "size": len(raw)}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [jsonable(v) for v in value]
        return sorted(items, key=str) if isinstance(value, (set, frozenset)) else items
    if hasattr(value, "to_json"):
        return jsonable(value.to_json())
    return str(value)
