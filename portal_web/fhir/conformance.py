"""What the FHIR R4 HTTP specification asks of every interaction, in one place.

- Formats: this server speaks JSON only. ``_format`` other than JSON, or an ``Accept``
  header none of whose media ranges JSON satisfies (``application/fhir+xml``...), is answered
  406 Not Acceptable with an OperationOutcome (FHIR R4 http.html#mime-type).
- A POST or PUT with a body whose ``Content-Type`` is not ``application/fhir+json`` or
  ``application/json`` is 415 Unsupported Media Type.
- ``Prefer: handling=strict``: a search parameter the server does not support is an error
  (400) instead of a warning in the Bundle (``handling=lenient``, the default), as
  search.html#errors says.
- ``_sort``: a comma-separated list of documented search parameters, each optionally
  prefixed with ``-`` for descending order; resources without a value come last.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable
from functools import wraps
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from portal_web.fhir.common import outcome

if TYPE_CHECKING:
    from portal_web.fhir.search import Entry, ResourceType

JSON_TYPES = {"application/fhir+json", "application/json", "application/json+fhir"}
JSON_FORMATS = JSON_TYPES | {"json"}
ANY_TYPES = {"*/*", "application/*"}
Endpoint = Callable[[Request], Awaitable[Response]]


def _media_ranges(header: str) -> list[str]:
    """The media ranges of an Accept header that are not refused with ``q=0``."""
    ranges = []
    for part in header.split(","):
        kind, *params = (p.strip() for p in part.split(";"))
        if not kind:
            continue
        if any(p.replace(" ", "") in ("q=0", "q=0.0", "q=0.00", "q=0.000") for p in params):
            continue
        ranges.append(kind.lower())
    return ranges


def not_acceptable(request: Request, *, raw_content: bool = False) -> Response | None:
    """406 when the client asks for a format other than JSON (``_format`` or ``Accept``);
    ``raw_content`` (Binary) also accepts any non-XML type, since the bytes are served."""
    fmt = request.query_params.get("_format", "").strip().lower()
    if fmt and fmt.split(";")[0].strip() not in JSON_FORMATS:
        return outcome(406, "not-supported", f"_format={fmt[:40]} is not supported: this server "
                                             "answers only JSON (_format=json or "
                                             "application/fhir+json).")
    ranges = _media_ranges(request.headers.get("accept", ""))
    if not ranges:
        return None
    if any(r in JSON_TYPES or r in ANY_TYPES for r in ranges):
        return None
    if raw_content and any("xml" not in r and "turtle" not in r for r in ranges):
        return None
    return outcome(406, "not-supported", f"Accept: {', '.join(ranges)[:80]} cannot be served: "
                                         "this server answers only application/fhir+json.")


def unsupported_media(request: Request) -> Response | None:
    """415 for a POST/PUT body that is not FHIR JSON."""
    if request.method not in ("POST", "PUT"):
        return None
    declared = request.headers.get("content-type", "").split(";")[0].strip().lower()
    empty = not declared and request.headers.get("content-length", "0") == "0" and \
        "transfer-encoding" not in request.headers
    if declared in JSON_TYPES or empty:  # no body at all: the method's own answer
        return None
    return outcome(415, "not-supported", f"Content-Type '{declared[:60] or '(none)'}' is not "
                                         "supported: send the resource as "
                                         "application/fhir+json.")


def negotiated(endpoint: Endpoint, *, raw_content: bool = False) -> Endpoint:
    """``endpoint`` behind the 406 and 415 checks."""

    @wraps(endpoint)
    async def checked(request: Request) -> Response:
        refused = not_acceptable(request, raw_content=raw_content) or unsupported_media(request)
        return refused if refused is not None else await endpoint(request)

    return checked


def strict(request: Request) -> bool:
    """Whether the client sent ``Prefer: handling=strict``."""
    prefer = ",".join(request.headers.getlist("prefer"))
    return any(p.strip().replace(" ", "").lower() == "handling=strict"
               for p in prefer.replace(";", ",").split(","))


# -- _sort -------------------------------------------------------------------------------------------
def sortable(kind: ResourceType) -> set[str]:
    """The parameters ``_sort`` accepts for ``kind``: every documented search parameter."""
    return {"_id", *(n for n, _ in kind.params), *kind.date_params, *kind.status_params}


def _value(entry: Entry, name: str, kind: ResourceType) -> Any:  # noqa: ANN401
    if name == "_id":
        return entry.id
    if name in kind.date_params:
        when = entry.when
        if when is not None and not isinstance(when, dt.datetime):
            when = dt.datetime.combine(when, dt.time())
        return when
    if name in kind.status_params:
        return entry.status
    if name in ("patient", "subject"):
        return entry.patient
    if name == "encounter":
        return entry.encounter
    if name in entry.strings:
        values = [v.casefold() for v in entry.strings[name] if v]
        return min(values) if values else None
    tokens = {"code": entry.codes, "category": entry.categories}.get(name) or \
        entry.tokens.get(name, frozenset())
    return min(tokens) if tokens else None


def parse_sort(kind: ResourceType, raw: list[str]) -> tuple[list[tuple[str, bool]], list[str]]:
    """(the sort keys as (name, descending), the names that cannot be sorted on)."""
    keys: list[tuple[str, bool]] = []
    refused: list[str] = []
    allowed = sortable(kind)
    for value in raw:
        for item in (v.strip() for v in value.split(",")):
            if not item:
                continue
            name = item[1:] if item.startswith("-") else item
            if name in allowed:
                keys.append((name, item.startswith("-")))
            else:
                refused.append(item[:40])
    return keys, refused


def sort_entries(kind: ResourceType, entries: list[Entry], keys: list[tuple[str, bool]]
                 ) -> list[Entry]:
    """``entries`` in the order of ``keys`` (the first the most significant); ties keep the
    server's order, so paging through the result is stable."""
    ordered = list(entries)
    for name, descending in reversed(keys):
        present = [e for e in ordered if _value(e, name, kind) is not None]
        missing = [e for e in ordered if _value(e, name, kind) is None]
        present.sort(key=lambda e: _value(e, name, kind), reverse=descending)
        ordered = present + missing
    return ordered
