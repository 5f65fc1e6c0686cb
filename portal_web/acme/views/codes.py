"""Code search for the typeaheads: ICD-10-CM (billable codes of the 2026 release, from
``simple-icd-10-cm``) and the procedure codes Acme has rules for. JSON, read-only."""

from __future__ import annotations

import functools
import re

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from portal_web.acme.site import area_view, site_of
from portal_web.acme.views.lookup import code_catalog
from portal_web.common import icd10cm

MAX_RESULTS = 20


@functools.cache
def icd10_index() -> tuple[tuple[str, str, str], ...]:
    """(code, description, lower-case search text) of every billable ICD-10-CM code."""
    return tuple((code, description, f"{code} {description}".lower())
                 for code, description in icd10cm.billable())


def search_icd10(query: str, limit: int = MAX_RESULTS) -> list[tuple[str, str]]:
    """Codes starting with the query, else descriptions containing every word of it."""
    query = query.strip().lower()[:60]
    if len(query) < 3:
        return []
    index = icd10_index()
    code_like = re.fullmatch(r"[a-z]\d[0-9a-z.]*", query)
    if code_like:
        prefix = query.replace(".", "")
        hits = [(c, d) for c, d, _ in index if c.replace(".", "").lower().startswith(prefix)]
    else:
        words = query.split()
        hits = [(c, d) for c, d, text in index if all(w in text for w in words)]
    return hits[:limit]


@area_view("authorizations")
async def icd10(request: Request) -> Response:
    results = search_icd10(request.query_params.get("q", ""))
    return JSONResponse([{"code": c, "description": d} for c, d in results],
                        headers={"Cache-Control": "no-store"})


@area_view("authorizations")
async def procedures(request: Request) -> Response:
    query = request.query_params.get("q", "").strip().lower()[:40]
    with site_of(request).reader() as db:
        catalog = code_catalog(db)
    hits = [(c, d) for c, d in catalog if query in c.lower() or query in d.lower()]
    return JSONResponse([{"code": c, "description": d} for c, d in hits[:MAX_RESULTS]],
                        headers={"Cache-Control": "no-store"})


routes = [
    Route("/auth/codes/icd10", icd10, name="icd10_search"),
    Route("/auth/codes/procedures", procedures, name="procedure_search"),
]
