"""The Dashboard: every request of the office by status group, with search, sorting, the
Archived filter and the Enter Key box (open a request by its Key, patient last name and
date of birth, as CoverMyMeds asks)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal_web.common.forms import clean_text
from portal_web.common.requests import CsrfRejected, login_required, read_form, session_of
from portal_web.common.sessions import csrf_matches
from portal_web.epa.pa_request import all_requests, normalize_key
from portal_web.epa.questions import parse_date
from portal_web.epa.site import LOGIN_PATH, site_of
from portal_web.epa.status import GROUPS, Badge, badge
from sandbox.stores.epa import EpaPlan, EpaRequest, PlanState

guard = login_required(LOGIN_PATH)
FILTERS = (("all", "All Requests"), *GROUPS, ("archived", "Archived"))
SORTS = ("patient", "drug", "status", "updated", "key")
MAX_QUERY = 60


@dataclass(frozen=True)
class DashboardRow:
    """One request as a dashboard line."""

    key: str
    patient: str
    dob: date
    drug: str
    strength: str
    plan: str
    bin: str
    badge: Badge
    updated: datetime | None
    archived: bool

    def matches(self, query: str) -> bool:
        text = " ".join((self.key, self.patient, self.drug, self.strength, self.plan,
                         self.dob.strftime("%m/%d/%Y"))).lower()
        return all(word in text for word in query.lower().split())


def _row(request: EpaRequest, state: PlanState, plan: EpaPlan | None) -> DashboardRow:
    times = [t for t in (request.updated_at, state.replied_at) if t is not None]
    return DashboardRow(
        key=request.request_key, patient=f"{request.patient_last}, {request.patient_first}",
        dob=request.patient_dob, drug=request.drug_name, strength=request.drug_strength,
        plan=plan.name if plan else "", bin=plan.rx_bin if plan else "",
        badge=badge(state.status), updated=max(times) if times else None,
        archived=bool(request.archived))


def _sorted(rows: list[DashboardRow], sort: str, descending: bool) -> list[DashboardRow]:
    order = [g for g, _ in GROUPS]
    keys = {
        "patient": lambda r: (r.patient.lower(), r.dob),
        "drug": lambda r: (r.drug.lower(), r.strength.lower()),
        "status": lambda r: (order.index(r.badge.group), r.badge.label),
        "updated": lambda r: r.updated or datetime.min,
        "key": lambda r: r.key,
    }
    return sorted(rows, key=keys[sort], reverse=descending)


def dashboard_context(request: Request) -> dict:
    """The rows, filter counts and sort state for the query string of ``request``."""
    site = site_of(request)
    params = request.query_params
    show = params.get("show", "all")
    show = show if show in dict(FILTERS) else "all"
    query = clean_text(params.get("q", ""))[:MAX_QUERY]
    sort = params.get("sort", "updated")
    sort = sort if sort in SORTS else "updated"
    descending = params.get("dir", "desc" if sort == "updated" else "asc") == "desc"
    with site.reader() as db:
        rows = [_row(r, s, p) for r, s, p in all_requests(db, site.now())]
    counts = {key: 0 for key, _ in FILTERS}
    for row in rows:
        if row.archived:
            counts["archived"] += 1
        else:
            counts["all"] += 1
            counts[row.badge.group] += 1
    if show == "archived":
        shown = [r for r in rows if r.archived]
    else:
        shown = [r for r in rows if not r.archived and show in ("all", r.badge.group)]
    if query:
        shown = [r for r in shown if r.matches(query)]
    return {"rows": _sorted(shown, sort, descending), "filters": FILTERS, "counts": counts,
            "show": show, "query": query, "sort": sort, "descending": descending,
            "nav": "dashboard"}


@guard
async def dashboard(request: Request) -> Response:
    site = site_of(request)
    return site.render(request, "dashboard.html", dashboard_context(request))


@guard
async def enter_key(request: Request) -> Response:
    """Open a request by Key + patient last name + date of birth (writes nothing)."""
    site = site_of(request)
    form = await read_form(request)
    if not csrf_matches(session_of(request), form.get("csrf_token")):  # type: ignore[arg-type]
        raise CsrfRejected()
    raw = {name: clean_text(str(form.get(name) or ""))[:80]
           for name in ("key", "last_name", "dob")}
    errors: dict[str, str] = {}
    key = normalize_key(raw["key"])
    if not raw["key"]:
        errors["key"] = "Enter the request's Key (8 letters and digits, e.g. AB12-CD34)."
    elif key is None:
        errors["key"] = (f"'{raw['key'][:20]}' is not a Key: a Key has 8 letters and digits, "
                         "written like AB12-CD34.")
    if not raw["last_name"]:
        errors["last_name"] = "Enter the patient's last name."
    dob = parse_date(raw["dob"]) if raw["dob"] else None
    if not raw["dob"]:
        errors["dob"] = "Enter the patient's date of birth (MM/DD/YYYY)."
    elif dob is None:
        errors["dob"] = (f"Date of birth must be a date written MM/DD/YYYY "
                         f"(you entered '{raw['dob'][:20]}').")
    if not errors:
        with site.reader() as db:
            found = db.scalar(select(EpaRequest).where(EpaRequest.request_key == key))
        if (found is None or found.patient_last.strip().lower() != raw["last_name"].lower()
                or found.patient_dob != dob):
            errors["_form"] = (f"No request matches Key {key} with that patient last name and "
                               "date of birth. Check the Key on the pharmacy's fax or "
                               "notice, and the patient's details.")
        else:
            return RedirectResponse(f"/request/{key}", 303)
    context = dashboard_context(request)
    context.update(key_values=raw, key_errors=errors)
    return site.render(request, "dashboard.html", context)


routes = [
    Route("/dashboard", dashboard, methods=["GET"], name="dashboard"),
    Route("/key", enter_key, methods=["POST"], name="enter_key"),
]
