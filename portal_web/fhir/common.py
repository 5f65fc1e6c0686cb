"""What every FHIR handler shares: responses, OperationOutcome, authorization, parameters.

Kept apart from the route table (:mod:`portal_web.fhir.api`) so resource modules and the
Observation writer (:mod:`portal_web.fhir.vitals`) import it without importing each other.
"""

from __future__ import annotations

import datetime as dt

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from portal_web.fhir.oauth import AccessToken, api_enabled, bearer, scope_allows
from sandbox.clock import SANDBOX_TZ

BASE = "/apis/default/fhir"
FHIR_JSON = "application/fhir+json"
MAX_BODY = 256 * 1024
DATE_PREFIXES = ("eq", "ge", "le", "gt", "lt", "ne", "sa", "eb")
DATE_PARAM_HELP = ("date must be YYYY, YYYY-MM, YYYY-MM-DD or an ISO dateTime with offset, "
                   "optionally prefixed with eq, ne, ge, le, gt, lt, sa or eb.")


class FhirResponse(JSONResponse):
    media_type = FHIR_JSON


def outcome(status: int, code: str, message: str, issues: list[str] | None = None,
            headers: dict[str, str] | None = None) -> FhirResponse:
    details = issues or [message]
    return FhirResponse({"resourceType": "OperationOutcome", "issue": [
        {"severity": "error", "code": code, "diagnostics": text} for text in details]},
        status_code=status, headers=headers)


def site_of(request: Request):  # noqa: ANN201 - the EhrSite
    return request.app.state.ehr


def base_url(request: Request) -> str:
    return f"{request.url.scheme}://{request.url.netloc}{BASE}"


def authorize(request: Request, resource: str, action: str) -> AccessToken | Response:
    """The request's token when it may ``action`` (r, s, c, u, d) ``resource``; else an
    OperationOutcome (403 API off or scope missing, 401 no token)."""
    site = site_of(request)
    with site.reader() as db:
        enabled = api_enabled(db)
    if not enabled:
        return outcome(403, "forbidden", "The FHIR REST API is turned off in Administration > "
                                         "Globals > Connectors.")
    token = bearer(request)
    if token is None:
        return outcome(401, "login", "Missing or expired access token: request one at "
                                     "/oauth2/default/token and send it as 'Authorization: "
                                     "Bearer <token>'.",
                       headers={"WWW-Authenticate": 'Bearer realm="OpenEMR"'})
    if not scope_allows(token.scopes, resource, action):
        verb = "write" if action in "cud" else "read"
        return outcome(403, "forbidden", f"The token's scopes do not allow {verb} access to "
                                         f"{resource} (need system/{resource}.{verb}).")
    return token


def ref_id(value: str, kind: str) -> str:
    """``Patient/123`` or a full URL → ``123`` (a bare id stays as it is)."""
    value = value.strip()
    if "/" in value:
        prefix, _, rest = value.rpartition("/")
        if prefix.split("/")[-1] == kind:
            return rest
    return value


def fhir_datetime(value: dt.datetime) -> str:
    """A naive sandbox-local time as an ISO dateTime with its offset."""
    return value.replace(tzinfo=SANDBOX_TZ).isoformat(timespec="seconds")


# -- date search --------------------------------------------------------------------------------
DateParam = tuple[str, dt.datetime, dt.datetime]  # prefix, start, end (exclusive)


def parse_date_params(values: list[str]) -> list[DateParam] | None:
    """FHIR date parameters as (prefix, start, end) ranges of naive local time; None if bad."""
    parsed: list[DateParam] = []
    for raw in values:
        prefix = raw[:2] if raw[:2] in DATE_PREFIXES else "eq"
        text = raw[2:] if raw[:2] == prefix else raw
        try:
            if len(text) == 4 and text.isdigit():
                start = dt.datetime(int(text), 1, 1)
                end = dt.datetime(int(text) + 1, 1, 1)
            elif len(text) == 7:
                year, month = int(text[:4]), int(text[5:7])
                start = dt.datetime(year, month, 1)
                end = dt.datetime(year + month // 12, month % 12 + 1, 1)
            elif len(text) == 10:
                day = dt.date.fromisoformat(text)
                start = dt.datetime.combine(day, dt.time())
                end = start + dt.timedelta(days=1)
            else:
                moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
                if moment.tzinfo is not None:
                    moment = moment.astimezone(SANDBOX_TZ).replace(tzinfo=None)
                start, end = moment, moment + dt.timedelta(seconds=1)
        except (ValueError, OverflowError):
            return None
        parsed.append((prefix, start, end))
    return parsed


def date_matches(params: list[DateParam], when: dt.datetime | dt.date | None) -> bool:
    """Whether a resource's date satisfies every date parameter (no date: only without any)."""
    if not params:
        return True
    if when is None:
        return False
    if not isinstance(when, dt.datetime):
        when = dt.datetime.combine(when, dt.time())
    for prefix, start, end in params:
        ok = {"eq": start <= when < end, "ne": not start <= when < end, "ge": when >= start,
              "le": when < end, "gt": when >= end, "lt": when < start, "sa": when >= end,
              "eb": when < start}[prefix]
        if not ok:
            return False
    return True
