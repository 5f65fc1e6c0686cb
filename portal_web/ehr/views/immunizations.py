"""Immunizations: CVX-coded vaccines with lot, expiration, dose, route, site and VIS date.

The CVX code must be one of the ``codes`` table's CVX entries; an expired lot cannot be
recorded as given. The VIS picker lists the current Vaccine Information Statements (list
``vis_edition``: ``notes`` = edition date, ``codes`` = the CVX codes it covers); choosing one
fills the VIS date. "Added erroneously" hides an entry without removing it (OpenEMR).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.common.forms import FieldReader
from portal_web.common.requests import login_required, posted_form
from portal_web.ehr.chart import (
    choices,
    encounter_on,
    encounters_of,
    login_users,
    not_found,
    options,
    providers,
    user_name,
)
from portal_web.ehr.site import Tab, here, site_of, user_of
from sandbox.stores.ehr import Code, Immunization

guard = login_required("/login")
COMPLETION = [("Completed", "Completed"), ("Refused", "Refused"),
              ("Not Administered", "Not Administered"),
              ("Partially Administered", "Partially Administered")]
SOURCES = [("new_immunization_record", "New immunization record"),
           ("hist_inf_src_unspecified", "Historical information - source unspecified")]


def _pid(request: Request) -> int:
    return int(request.path_params["pid"])


def _context(db, request: Request, pid: int) -> dict[str, Any]:  # noqa: ANN001
    site = site_of(request)
    cvx = list(db.scalars(select(Code).where(Code.code_type == "CVX", Code.active == 1)
                          .order_by(Code.code_text)))
    vis = [(o.option_id, f"{o.title} (edition {o.notes})", o.notes or "",
            {c.removeprefix("CVX:") for c in (o.codes or "").split(";") if c})
           for o in options(db, "vis_edition")]
    return {
        "patient": site.select_patient(request, db, pid), "imm": None,
        "cvx": [(c.code, f"{c.code} - {c.code_text}") for c in cvx],
        "cvx_rows": cvx,
        "routes": [(o.option_id, o.title) for o in options(db, "drug_route")],
        "sites": [(o.option_id, o.title) for o in options(db, "proc_body_site")],
        "units": [(o.option_id, o.title) for o in options(db, "drug_units")] or [("mL", "mL")],
        "users": [(str(u.id), user_name(u)) for u in login_users(db)],
        "providers": [(str(u.id), user_name(u)) for u in providers(db)],
        "completion": choices(db, "Immunization_Completion_Status", COMPLETION),
        "sources": choices(db, "immunization_informationsource", SOURCES),
        "encounters": [(str(e.encounter), f"{e.date.strftime('%Y-%m-%d')} - "
                        f"{(e.reason or '')[:40]}") for e in encounters_of(db, pid)[:12]],
        "vis": vis, "vis_choices": [(key, title) for key, title, *_ in vis],
    }


def read_immunization(f: FieldReader, ctx: dict, now: dt.datetime) -> dict[str, Any]:
    v: dict[str, Any] = {}
    v["cvx_code"] = f.choice("cvx_code", "Immunization (CVX)", [k for k, _ in ctx["cvx"]],
                             required=True)
    raw_when = f.raw.get("administered_date", "").strip()
    when = None
    try:
        when = dt.datetime.strptime(raw_when, "%Y-%m-%d %H:%M") if raw_when else None
    except ValueError:
        f.fail("administered_date", "Date administered must be written YYYY-MM-DD HH:MM.")
    if raw_when == "":
        f.fail("administered_date", "Date administered is required (YYYY-MM-DD HH:MM).")
    elif when is not None and when > now + dt.timedelta(minutes=5):
        f.fail("administered_date", "Date administered cannot be in the future.")
    elif when is not None and when.year < 1900:
        f.fail("administered_date", "Date administered is not a plausible date.")
    v["administered_date"] = when
    completed = f.choice("completion_status", "Completion status",
                         [k for k, _ in ctx["completion"]], required=True)
    v["completion_status"] = completed
    given = completed in ("Completed", "Partially Administered")
    v["amount_administered"] = f.number("amount_administered", "Amount administered",
                                        unit="", low=0.01, high=10, required=given, decimals=3)
    v["amount_administered_unit"] = f.choice("amount_administered_unit", "Amount unit",
                                             [k for k, _ in ctx["units"]], required=given)
    v["manufacturer"] = f.text("manufacturer", "Manufacturer", max_len=100)
    v["lot_number"] = f.text("lot_number", "Lot number", required=given, max_len=50)
    v["expiration_date"] = f.date("expiration_date", "Expiration date", required=given,
                                  earliest=dt.date(1990, 1, 1), latest=dt.date(2100, 1, 1))
    if given and v["expiration_date"] and when and v["expiration_date"] < when.date():
        f.fail("expiration_date", f"This lot expired on {v['expiration_date']}; an expired "
                                  "vaccine must not be given. Check the label.")
    v["route"] = f.choice("route", "Route", [k for k, _ in ctx["routes"]], required=given)
    v["administration_site"] = f.choice("administration_site", "Administration site",
                                        [k for k, _ in ctx["sites"]], required=given)
    by = f.choice("administered_by_id", "Administered by", [k for k, _ in ctx["users"]],
                  required=given)
    v["administered_by_id"] = int(by) if by else None
    ordering = f.choice("ordering_provider", "Ordering provider",
                        [k for k, _ in ctx["providers"]])
    v["ordering_provider"] = int(ordering) if ordering else None
    v["vis_date"] = f.date("vis_date", "VIS edition date", earliest=dt.date(1990, 1, 1),
                           latest=now.date())
    statement = f.choice("vis_edition", "VIS statement", [k for k, *_ in ctx["vis"]])
    if statement:
        _, _, edition, covers = next(x for x in ctx["vis"] if x[0] == statement)
        try:
            edition_date = dt.date.fromisoformat(edition)
        except ValueError:
            edition_date = None
        if v["cvx_code"] and covers and v["cvx_code"] not in covers:
            f.fail("vis_edition", f"This statement does not cover CVX {v['cvx_code']}; choose "
                                  "the VIS for this vaccine.")
        elif v["vis_date"] is None and "vis_date" not in f.errors:
            v["vis_date"] = edition_date
        elif edition_date and v["vis_date"] and v["vis_date"] != edition_date:
            f.fail("vis_date", f"The chosen statement's edition is {edition}; clear this date "
                               "or correct it.")
    v["education_date"] = f.date("education_date", "Date VIS given",
                                 earliest=dt.date(1990, 1, 1), latest=now.date())
    v["information_source"] = f.choice("information_source", "Information source",
                                       [k for k, _ in ctx["sources"]]) \
        or "new_immunization_record"
    v["consent_obtained"] = 1 if f.checkbox("consent_obtained") else 0
    v["refusal_reason"] = f.text("refusal_reason", "Refusal reason", max_len=255)
    v["note"] = f.text("note", "Notes", max_len=2000)
    encounter = f.choice("encounter_id", "Encounter", [k for k, _ in ctx["encounters"]])
    v["encounter_id"] = int(encounter) if encounter else None
    return v


def imm_values(row: Immunization) -> dict[str, str]:
    def d(value: Any) -> str:
        return value.isoformat() if value else ""

    return {
        "cvx_code": row.cvx_code or "", "administered_date": row.administered_date.strftime(
            "%Y-%m-%d %H:%M") if row.administered_date else "",
        "amount_administered": f"{row.amount_administered:g}" if row.amount_administered
        else "", "amount_administered_unit": row.amount_administered_unit or "",
        "manufacturer": row.manufacturer or "", "lot_number": row.lot_number or "",
        "expiration_date": d(row.expiration_date), "route": row.route or "",
        "administration_site": row.administration_site or "",
        "administered_by_id": str(row.administered_by_id or ""),
        "ordering_provider": str(row.ordering_provider or ""), "vis_date": d(row.vis_date),
        "education_date": d(row.education_date), "completion_status":
        row.completion_status or "", "information_source": row.information_source or "",
        "consent_obtained": "1" if row.consent_obtained else "", "note": row.note or "",
        "refusal_reason": row.refusal_reason or "", "encounter_id": str(row.encounter_id or ""),
    }


def _row(db, pid: int, imm_id: int) -> Immunization:  # noqa: ANN001
    row = db.get(Immunization, imm_id)
    if row is None or row.patient_id != pid:
        raise not_found(f"Immunization {imm_id} of this patient")
    return row


@guard
async def immunization_page(request: Request) -> Response:
    site = site_of(request)
    pid = _pid(request)
    raw = request.path_params.get("iid")
    with site.reader() as db:
        ctx = _context(db, request, pid)
        ctx["history"] = list(db.scalars(select(Immunization).where(
            Immunization.patient_id == pid).order_by(Immunization.administered_date.desc())))
        ctx["cvx_names"] = {c.code: c.code_text for c in ctx["cvx_rows"]}
        if raw is None:
            user = user_of(request)
            enc = request.query_params.get("encounter", "")[:9]
            today_enc = encounter_on(db, pid, site.today())
            ctx["values"] = {
                "administered_date": site.now().strftime("%Y-%m-%d %H:%M"),
                "administered_by_id": str(user.user_id), "completion_status": "Completed",
                "amount_administered_unit": "mL", "information_source":
                "new_immunization_record",
                "encounter_id": enc or (str(today_enc.encounter) if today_enc else ""),
                "education_date": site.today().isoformat()}
        else:
            row = _row(db, pid, int(raw))
            ctx["imm"] = row
            ctx["values"] = imm_values(row)
    p = ctx["patient"].patient
    return site.render(request, "immunizations.html", ctx,
                       tab=Tab("imm", f"Immunizations: {p.lname}", here(request)))


@guard
async def immunization_save(request: Request) -> Response:
    site = site_of(request)
    pid = _pid(request)
    raw = request.path_params.get("iid")
    user = user_of(request)
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        with site.reader() as db:
            ctx = _context(db, request, pid)
            ctx["history"] = list(db.scalars(select(Immunization).where(
                Immunization.patient_id == pid)
                .order_by(Immunization.administered_date.desc())))
            ctx["cvx_names"] = {c.code: c.code_text for c in ctx["cvx_rows"]}
            row = _row(db, pid, int(raw)) if raw is not None else None
            ctx["imm"] = row
        values = read_immunization(f, ctx, site.now())
        if not f.ok:
            ctx.update(values=f.raw, errors=f.errors)
            return site.render(request, "immunizations.html", ctx)
        now = site.now()
        with site.writer(request) as db:
            if row is None:
                db.add(Immunization(patient_id=pid, create_date=now, update_date=now,
                                    created_by=user.user_id, updated_by=user.user_id,
                                    added_erroneously=0, **values))
            else:
                target = db.get(Immunization, row.id)
                for key, value in values.items():
                    setattr(target, key, value)
                target.update_date = now
                target.updated_by = user.user_id
        site.flash(request, f"Immunization (CVX {values['cvx_code']}) saved.")
        return posted.redirect(f"/patient/{pid}/immunizations")


@guard
async def immunization_error(request: Request) -> Response:
    """Mark an entry as added erroneously (it stays in the table)."""
    site = site_of(request)
    pid = _pid(request)
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        with site.writer(request) as db:
            row = _row(db, pid, int(request.path_params["iid"]))
            row.added_erroneously = 1
            row.update_date = site.now()
            row.updated_by = user_of(request).user_id
        site.flash(request, "Immunization marked as added in error.")
        return posted.redirect(f"/patient/{pid}/immunizations")


routes = [
    Route("/patient/{pid:id}/immunizations", immunization_page, methods=["GET"]),
    Route("/patient/{pid:id}/immunizations/new", immunization_page, methods=["GET"]),
    Route("/patient/{pid:id}/immunizations/new", immunization_save, methods=["POST"]),
    Route("/patient/{pid:id}/immunizations/{iid:id}", immunization_page, methods=["GET"]),
    Route("/patient/{pid:id}/immunizations/{iid:id}", immunization_save, methods=["POST"]),
    Route("/patient/{pid:id}/immunizations/{iid:id}/error", immunization_error,
          methods=["POST"]),
]
