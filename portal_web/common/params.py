"""The one way a request's text becomes an integer: ASCII digits only, within SQLite's int64.

``str.isdigit`` is not enough (``'²'.isdigit()`` is true and ``int('²')`` fails), and a
Python int wider than 64 bits makes SQLite refuse to bind it; both used to end in an HTTP
500. :func:`parse_int` answers ``None`` for anything that is not a bounded whole number;
:func:`query_int` and :func:`path_int` turn a bad value into the site's 400 / 404 page,
naming the parameter.
"""

from __future__ import annotations

import re

from starlette.exceptions import HTTPException
from starlette.requests import Request

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
_INTEGER = re.compile(r"[+-]?[0-9]{1,19}")


def parse_int(raw: object, *, low: int = INT64_MIN, high: int = INT64_MAX) -> int | None:
    """``raw`` as an int when it is ASCII digits (an optional sign) within ``low..high``
    (at most SQLite's int64 range); ``None`` otherwise, never an exception."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        value = raw
    elif isinstance(raw, str) and _INTEGER.fullmatch(raw):
        value = int(raw)
    else:
        return None
    if not max(low, INT64_MIN) <= value <= min(high, INT64_MAX):
        return None
    return value


def parse_id(raw: object) -> int | None:
    """A row id: a positive whole number that SQLite can bind, else ``None``."""
    if isinstance(raw, str) and raw[:1] in "+-":
        return None
    return parse_int(raw, low=0)


def bad_parameter(name: str, raw: str, status: int = 400) -> HTTPException:
    """The error that puts the site's own error page up, naming the bad parameter."""
    shown = raw if len(raw) <= 24 else raw[:24] + "…"
    return HTTPException(status, f"The address parameter “{name}” must be a whole number; "
                                 f"“{shown}” is not one the system knows.")


def query_int(request: Request, name: str, *, low: int = 0, high: int = INT64_MAX,
              status: int = 400) -> int | None:
    """The query parameter ``name`` as an int; ``None`` when absent or empty; a value that is
    not a whole number within ``low..high`` is an error page (``status``) naming it."""
    raw = request.query_params.get(name, "").strip()
    if not raw:
        return None
    value = parse_int(raw, low=low, high=high)
    if value is None:
        raise bad_parameter(name, raw, status)
    return value


def path_int(request: Request, name: str) -> int:
    """The path parameter ``name`` as a row id (the ``{x:id}`` convertor already gives an
    int; a plain ``{x}`` segment is parsed here); not a row id → the site's 404 page."""
    raw = request.path_params[name]
    value = parse_id(raw)
    if value is None:
        raise bad_parameter(name, str(raw), 404)
    return value


__all__ = ["INT64_MAX", "INT64_MIN", "bad_parameter", "parse_id", "parse_int", "path_int",
           "query_int"]
