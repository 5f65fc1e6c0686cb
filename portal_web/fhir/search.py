"""Search and read for every resource type the API serves, from one registry.

Each :class:`ResourceType` says how to load its resources from the EHR's tables (as
:class:`Entry` values carrying what the common search parameters test) and which parameters
and ``_include`` targets it supports; the handlers here do the rest the same way for all:
``_id``, ``patient``/``subject``, ``encounter``, date parameters with prefixes, ``code``,
``category``, ``status``/``clinical-status``, paging (``_count``, ``_offset`` in the ``next``
link, ``_summary=count``), ``_sort`` (:mod:`portal_web.fhir.conformance`), ``_include`` of the
patient or encounter, an OperationOutcome for every error and a warning entry for parameters
this server ignores (an error under ``Prefer: handling=strict``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from sqlalchemy.orm import Session
from starlette.requests import Request
from starlette.responses import Response

from portal_web.common.params import parse_int
from portal_web.fhir.common import (
    DATE_PARAM_HELP,
    FhirResponse,
    authorize,
    base_url,
    date_matches,
    outcome,
    parse_date_params,
    ref_id,
    site_of,
)
from portal_web.fhir.conformance import parse_sort, sort_entries, sortable, strict
from portal_web.fhir.oauth import AccessToken, scope_allows

DEFAULT_COUNT = 50
MAX_COUNT = 200
CONTROL = {"_count", "_offset", "_include", "_summary", "_format", "_total", "_elements",
           "_sort"}


@dataclass
class Entry:
    """A resource and the values its search parameters test."""

    resource: dict[str, Any]
    patient: str | None = None
    when: dt.datetime | dt.date | None = None
    codes: frozenset[str] = frozenset()
    categories: frozenset[str] = frozenset()
    encounter: str | None = None
    status: str | None = None
    strings: dict[str, tuple[str, ...]] = field(default_factory=dict)  # name, family, ...
    tokens: dict[str, frozenset[str]] = field(default_factory=dict)  # identifier, ...

    @property
    def id(self) -> str:
        return str(self.resource["id"])


def coded(*pairs: tuple[str | None, str | None]) -> frozenset[str]:
    """Token values a ``code`` search matches: ``code`` and ``system|code``."""
    found: set[str] = set()
    for system, code in pairs:
        if code:
            found.add(code)
            if system:
                found.add(f"{system}|{code}")
    return frozenset(found)


Loader = Callable[[Session, dt.date, str], list[Entry]]  # db, today, base URL


@dataclass(frozen=True)
class ResourceType:
    name: str
    load: Loader
    params: tuple[tuple[str, str], ...]  # (name, FHIR search type) beyond _id
    date_params: tuple[str, ...] = ("date",)
    status_params: tuple[str, ...] = ()
    includes: tuple[str, ...] = ()  # "patient", "subject", "encounter"
    profile: str | None = None


REGISTRY: dict[str, ResourceType] = {}


def register(kind: ResourceType) -> ResourceType:
    REGISTRY[kind.name] = kind
    return kind


# -- parameter matching ---------------------------------------------------------------------------
def _tokens(values: list[str]) -> list[set[str]]:
    """Each repetition of a token parameter is AND; commas within one are OR."""
    return [{v.strip() for v in value.split(",") if v.strip()} for value in values]


def _token_hit(wanted: set[str], have: frozenset[str]) -> bool:
    for token in wanted:
        if token in have or (token.startswith("|") and token[1:] in have):
            return True
        if token.endswith("|"):
            system = token[:-1]
            if any(h.startswith(system + "|") for h in have):
                return True
    return False


def select_entries(kind: ResourceType, entries: list[Entry], params: list[tuple[str, str]]
                   ) -> tuple[list[Entry], list[str], str | None]:
    """(matching entries, ignored parameter names, error) for the search parameters."""
    grouped: dict[str, list[str]] = {}
    for name, value in params:
        grouped.setdefault(name, []).append(value)
    ignored: list[str] = []
    selected = entries
    known = {name for name, _ in kind.params} | set(kind.date_params) | \
        set(kind.status_params) | {"_id"}
    for name, values in grouped.items():
        base, _, modifier = name.partition(":")
        if name in CONTROL:
            continue
        if base not in known:
            ignored.append(name)
            continue
        if modifier and modifier not in ("exact", "contains") and base not in ("patient",
                                                                                "subject"):
            return [], [], f"Modifier :{modifier[:20]} is not supported on {base}."
        if base == "_id":
            for wanted in _tokens(values):
                selected = [e for e in selected if e.id in wanted]
        elif base in ("patient", "subject"):
            for wanted in _tokens(values):
                ids = {ref_id(v, "Patient") for v in wanted}
                selected = [e for e in selected if e.patient in ids]
        elif base == "encounter":
            for wanted in _tokens(values):
                ids = {ref_id(v, "Encounter") for v in wanted}
                selected = [e for e in selected if e.encounter in ids]
        elif base in kind.date_params:
            dates = parse_date_params(values)
            if dates is None:
                return [], [], f"{base}: {DATE_PARAM_HELP}"
            selected = [e for e in selected if date_matches(dates, e.when)]
        elif base == "code":
            for wanted in _tokens(values):
                selected = [e for e in selected if _token_hit(wanted, e.codes)]
        elif base == "category":
            for wanted in _tokens(values):
                selected = [e for e in selected if _token_hit(wanted, e.categories)]
        elif base in kind.status_params:
            for wanted in _tokens(values):
                selected = [e for e in selected if e.status in wanted]
        elif base in ("name", "family", "given", "address", "title"):
            for value in values:
                needles = [v.strip().casefold() for v in value.split(",") if v.strip()]
                selected = [e for e in selected if any(
                    (s.casefold() == n if modifier == "exact" else
                     (n in s.casefold() if modifier == "contains" else
                      s.casefold().startswith(n)))
                    for s in e.strings.get(base, ()) for n in needles)]
        else:
            for wanted in _tokens(values):
                selected = [e for e in selected if _token_hit(wanted, e.tokens.get(base,
                                                                                  frozenset()))]
    return selected, ignored, None


# -- handlers -------------------------------------------------------------------------------------
def load(request: Request, kind: ResourceType) -> list[Entry]:
    site = site_of(request)
    with site.reader() as db:
        return kind.load(db, site.today(), base_url(request))


def _int_param(value: str | None, default: int, name: str) -> int:
    if value is None or value == "":
        return default
    number = parse_int(value, low=0)
    if number is None:
        raise ValueError(f"{name} must be a whole number (got '{value[:20]}').")
    return number


def _permitted(request: Request, interaction: str
               ) -> tuple[ResourceType, AccessToken] | Response:
    """The path's resource type and the request's token, when this server has the type and
    the token allows ``interaction`` on it ("s" search, "r" read); else the answer."""
    name = request.path_params["rtype"]
    kind = REGISTRY.get(name)
    if kind is None:
        return unsupported_type(name)
    auth = authorize(request, name, interaction)
    return auth if isinstance(auth, Response) else (kind, auth)


async def search(request: Request) -> Response:
    permitted = _permitted(request, "s")
    if isinstance(permitted, Response):
        return permitted
    kind, auth = permitted
    name = request.path_params["rtype"]
    params = list(request.query_params.multi_items())
    query = dict(request.query_params)
    try:
        count = min(_int_param(query.get("_count"), DEFAULT_COUNT, "_count"), MAX_COUNT)
        offset = _int_param(query.get("_offset"), 0, "_offset")
    except ValueError as exc:
        return outcome(400, "invalid", str(exc))
    summary = query.get("_summary", "")
    if summary and summary not in ("count", "false", "true", "data"):
        return outcome(400, "invalid", "_summary must be count, true, data or false.")
    entries, ignored, error = select_entries(kind, load(request, kind), params)
    if error:
        return outcome(400, "invalid", error)
    sort_keys, unsortable = parse_sort(kind, request.query_params.getlist("_sort"))
    entries = sort_entries(kind, entries, sort_keys)
    includes, include_warnings = _includes(request, kind, request.query_params.getlist(
        "_include"), auth)
    problems = [f"Search parameter '{n[:40]}' is not supported for {name}."
                for n in dict.fromkeys(ignored)] + \
        [f"_sort={n} is not supported for {name} (sortable: "
         f"{', '.join(sorted(sortable(kind)))})." for n in unsortable]
    if strict(request) and (problems or include_warnings):
        return outcome(400, "not-supported", "Prefer: handling=strict and the search has "
                                             "parameters this server does not support.",
                       problems + include_warnings)
    base = base_url(request)
    page = [] if summary == "count" or count == 0 else entries[offset:offset + count]
    links = [{"relation": "self", "url": str(request.url)}]
    if summary != "count" and count and offset + count < len(entries):
        links.append({"relation": "next", "url": _page_url(request, offset + count, count)})
    if summary != "count" and count and offset > 0:
        links.append({"relation": "previous",
                      "url": _page_url(request, max(0, offset - count), count)})
    bundle_entries: list[dict[str, Any]] = [
        {"fullUrl": f"{base}/{e.resource['resourceType']}/{e.id}", "resource": e.resource,
         "search": {"mode": "match"}} for e in page]
    seen = {(e["resource"]["resourceType"], e["resource"]["id"]) for e in bundle_entries}
    for include in includes:
        for resource in _included(request, include, page):
            key = (resource["resourceType"], resource["id"])
            if key not in seen:
                seen.add(key)
                bundle_entries.append({"fullUrl": f"{base}/{key[0]}/{key[1]}",
                                       "resource": resource, "search": {"mode": "include"}})
    warnings = [f"{p[:-1]} and was ignored." for p in problems] + include_warnings
    if warnings:
        bundle_entries.append({"resource": {"resourceType": "OperationOutcome", "issue": [
            {"severity": "warning", "code": "not-supported", "diagnostics": w}
            for w in warnings]}, "search": {"mode": "outcome"}})
    return FhirResponse({"resourceType": "Bundle", "type": "searchset", "total": len(entries),
                         "link": links, "entry": bundle_entries})


def _page_url(request: Request, offset: int, count: int) -> str:
    items = [(k, v) for k, v in request.query_params.multi_items()
             if k not in ("_offset", "_count")]
    items += [("_count", str(count)), ("_offset", str(offset))]
    return f"{base_url(request)}/{request.path_params['rtype']}?{urlencode(items)}"


def _includes(request: Request, kind: ResourceType, values: list[str], token
              ) -> tuple[list[str], list[str]]:
    wanted, warnings = [], []
    for value in values:
        source, _, target = value.partition(":")
        target = target.split(":")[0]
        if source != kind.name or target not in kind.includes:
            warnings.append(f"_include={value[:60]} is not supported for {kind.name} "
                            f"(supported: {', '.join(f'{kind.name}:{t}' for t in kind.includes) or 'none'}).")
            continue
        needed = "Encounter" if target == "encounter" else "Patient"
        if not scope_allows(token.scopes, needed, "r"):
            warnings.append(f"_include={value[:60]} skipped: the token cannot read {needed}.")
            continue
        wanted.append(target)
    return wanted, warnings


def _included(request: Request, target: str, page: list[Entry]) -> list[dict[str, Any]]:
    kind = REGISTRY["Encounter" if target == "encounter" else "Patient"]
    ids = {e.encounter if target == "encounter" else e.patient for e in page} - {None}
    if not ids:
        return []
    return [e.resource for e in load(request, kind) if e.id in ids]


async def read(request: Request) -> Response:
    permitted = _permitted(request, "r")
    if isinstance(permitted, Response):
        return permitted
    kind, _ = permitted
    name = request.path_params["rtype"]
    rid = request.path_params["rid"]
    found = next((e for e in load(request, kind) if e.id == rid), None)
    if found is None:
        return outcome(404, "not-found", f"{name}/{rid[:80]} not found.")
    return FhirResponse(found.resource)


def unsupported_type(name: str) -> Response:
    return outcome(404, "not-supported", f"{name[:40]} is not supported by this server; see "
                                         "/apis/default/fhir/metadata.")
