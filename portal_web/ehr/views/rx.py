"""Prescriptions: the list, the Rx form with the interaction check, discontinuing.

Saving a new prescription first runs the interaction check. When it alerts, nothing is
prescribed yet: each alert is logged in ``cds_alert_log`` as shown and the user is sent to
the alert page (:mod:`.erx`), which records the action taken. A saved prescription starts
untransmitted (``erx_uploaded=0``, ``erx_status='draft'``).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal_web.common.forms import FORM_ERROR, FieldReader
from portal_web.common.params import parse_id
from portal_web.common.requests import login_required, posted_form, session_of
from portal_web.ehr import interactions
from portal_web.ehr.chart import (
    encounter_on,
    latest_vitals,
    not_found,
    option_titles,
    options,
    providers,
    user_name,
)
from portal_web.ehr.site import Tab, here, site_of, user_of
from sandbox.stores.ehr import CdsAlertLog, Drug, Pharmacy, Prescription

guard = login_required("/login")
SUBSTITUTE = [("1", "Substitution allowed"), ("2", "Dispense as written")]
QUANTITY = re.compile(r"^\d{1,6}(\.\d{1,3})?( ?[A-Za-z]{1,12})?$")
DOSE = re.compile(r"^\d{1,6}(\.\d{1,3})?$")
ERX_STATUS = {None: "Not sent", "draft": "Not sent", "pending_signature":
              "Pending signature", "transmitted": "Transmitted"}


def pid_of(request: Request) -> int:
    return int(request.path_params["pid"])


def charted_weight(db, pid: int):  # noqa: ANN001, ANN202
    vitals = latest_vitals(db, pid)
    if vitals is None or not vitals.weight:
        return None
    return {"kg": round(vitals.weight * 0.45359237, 2), "lb": vitals.weight, "date": vitals.date}


def rx_context(db, request: Request, pid: int) -> dict[str, Any]:  # noqa: ANN001
    site = site_of(request)
    header = site.select_patient(request, db, pid)
    pharmacies = list(db.scalars(select(Pharmacy).order_by(Pharmacy.name)))
    return {
        "patient": header, "rx": None,
        "drugs": list(db.scalars(select(Drug).where(Drug.active == 1).order_by(Drug.name))),
        "units": [(o.option_id, o.title) for o in options(db, "drug_units")],
        "forms": [(o.option_id, o.title) for o in options(db, "drug_form")],
        "routes": [(o.option_id, f"{o.option_id} - {o.title}" if o.option_id != o.title
                    else o.title) for o in options(db, "drug_route")],
        "intervals": [(o.option_id, o.title + (f" ({o.notes})" if o.notes else ""))
                      for o in options(db, "drug_interval")],
        "pharmacies": [(str(ph.id), f"{ph.name} ({ph.city or ''})") for ph in pharmacies],
        "providers": [(str(u.id), user_name(u)) for u in providers(db)],
        "substitutes": SUBSTITUTE,
        "weight": charted_weight(db, pid),
        "inpatient": header.patient.care_setting == "inpatient",
        "preferred_pharmacy": header.patient.pharmacy_id,
    }


def _defaults(ctx: dict, request: Request) -> dict[str, str]:
    """A new prescription: today, the user as prescriber (else the patient's PCP), the
    patient's preferred pharmacy."""
    site = site_of(request)
    user = user_of(request)
    ids = {k for k, _ in ctx["providers"]}
    pcp = str(ctx["patient"].patient.providerID or "")
    provider = str(user.user_id) if str(user.user_id) in ids else (pcp if pcp in ids else "")
    return {"start_date": site.today().isoformat(), "provider_id": provider,
            "pharmacy_id": str(ctx["preferred_pharmacy"] or ""), "refills": "0",
            "substitute": "1", "active": "1", "medication": "1",
            "encounter": request.query_params.get("encounter", "")[:9]}


def read_rx(f: FieldReader, ctx: dict, today: dt.date, now: dt.datetime) -> dict[str, Any]:
    """Validated prescription columns (raises nothing; messages go to ``f.errors``)."""
    v: dict[str, Any] = {}
    v["drug"] = f.text("drug", "Drug", required=True, max_len=255)
    dosage = f.text("dosage", "Dose", required=True, max_len=12)
    if dosage is not None and (not DOSE.match(dosage) or float(dosage) <= 0):
        f.fail("dosage", "Dose must be a positive number such as 1, 2 or 10.5 (the unit "
                         "goes in the unit field).")
    v["dosage"] = dosage
    v["unit"] = f.choice("unit", "Dose unit", [k for k, _ in ctx["units"]], required=True)
    v["form"] = f.choice("form", "Form", [k for k, _ in ctx["forms"]])
    v["route"] = f.choice("route", "Route", [k for k, _ in ctx["routes"]], required=True)
    v["interval"] = f.choice("interval", "Frequency", [k for k, _ in ctx["intervals"]],
                             required=True)
    v["size"] = f.text("size", "Strength", max_len=40)
    v["drug_dosage_instructions"] = f.text("drug_dosage_instructions", "Directions (sig)",
                                           required=True, max_len=1000)
    quantity = f.text("quantity", "Quantity", required=not ctx["inpatient"], max_len=24)
    if quantity is not None and not QUANTITY.match(quantity):
        f.fail("quantity", "Quantity must be a number, optionally with a unit (90, 6, "
                           "150 mL).")
    v["quantity"] = quantity
    v["refills"] = f.integer("refills", "Refills", low=0, high=11) or 0
    v["days_supply"] = f.integer("days_supply", "Days supply", low=1, high=365)
    v["substitute"] = int(f.choice("substitute", "Substitution", ["1", "2"]) or 1)
    v["start_date"] = f.date("start_date", "Start date", required=True,
                             earliest=today - dt.timedelta(days=365),
                             latest=today + dt.timedelta(days=365))
    v["end_date"] = f.date("end_date", "End date", earliest=today - dt.timedelta(days=365),
                           latest=today + dt.timedelta(days=3650))
    if v["start_date"] and v["end_date"] and v["end_date"] < v["start_date"]:
        f.fail("end_date", "End date cannot be before the start date.")
    diagnosis = f.icd10("diagnosis", "Diagnosis")
    v["diagnosis"] = f"ICD10:{diagnosis}" if diagnosis else None
    v["indication"] = f.text("indication", "Indication", max_len=255)
    pharmacy = f.choice("pharmacy_id", "Pharmacy", [k for k, _ in ctx["pharmacies"]],
                        required=not ctx["inpatient"])
    v["pharmacy_id"] = int(pharmacy) if pharmacy else None
    provider = f.choice("provider_id", "Prescriber", [k for k, _ in ctx["providers"]],
                        required=True)
    v["provider_id"] = int(provider) if provider else None
    v["note"] = f.text("note", "Notes", max_len=2000)
    v["prn"] = f.text("prn", "PRN reason", max_len=255)
    v["medication"] = 1 if f.checkbox("medication") else 0
    v["infusion_minutes"] = f.integer("infusion_minutes", "Infusion time", low=1, high=1440,
                                      unit="minutes")
    if v["infusion_minutes"] is not None and v["route"] not in (None, "IV"):
        f.fail("infusion_minutes", "An infusion time only applies to the IV route.")
    v["scheduled_at"] = _datetime(f, "scheduled_at", "First dose at", now)
    v["care_setting"] = "inpatient" if ctx["inpatient"] else "outpatient"
    encounter = f.raw.get("encounter", "").strip()
    v["encounter"] = parse_id(encounter) if len(encounter) <= 9 else None
    return v


def _datetime(f: FieldReader, name: str, label: str, now: dt.datetime) -> dt.datetime | None:
    raw = f.raw.get(name, "").strip()
    if not raw:
        return None
    try:
        when = dt.datetime.strptime(raw, "%Y-%m-%d %H:%M")
    except ValueError:
        f.fail(name, f"{label} must be written YYYY-MM-DD HH:MM (you entered '{raw[:20]}').")
        return None
    if when < now - dt.timedelta(days=1) or when > now + dt.timedelta(days=60):
        f.fail(name, f"{label} must be within the next 60 days.")
        return None
    return when


def prescription_or_404(db, pid: int, rx_id: int) -> Prescription:  # noqa: ANN001
    rx = db.get(Prescription, rx_id)
    if rx is None or rx.patient_id != pid:
        raise not_found(f"Prescription {rx_id} of this patient")
    return rx


def rx_values(rx: Prescription) -> dict[str, str]:
    return {
        "drug": rx.drug, "dosage": rx.dosage or "", "unit": rx.unit or "", "form": rx.form or "",
        "route": rx.route or "", "interval": rx.interval or "", "size": rx.size or "",
        "drug_dosage_instructions": rx.drug_dosage_instructions or "",
        "quantity": rx.quantity or "", "refills": str(rx.refills or 0),
        "days_supply": str(rx.days_supply or ""), "substitute": str(rx.substitute or 1),
        "start_date": rx.start_date.isoformat() if rx.start_date else "",
        "end_date": rx.end_date.isoformat() if rx.end_date else "",
        "diagnosis": (rx.diagnosis or "").removeprefix("ICD10:"), "indication":
        rx.indication or "", "pharmacy_id": str(rx.pharmacy_id or ""),
        "provider_id": str(rx.provider_id or ""), "note": rx.note or "", "prn": rx.prn or "",
        "medication": "1" if rx.medication else "", "infusion_minutes":
        str(rx.infusion_minutes or ""), "scheduled_at": rx.scheduled_at.strftime(
            "%Y-%m-%d %H:%M") if rx.scheduled_at else "",
        "encounter": str(rx.encounter or ""),
    }


@guard
async def rx_list(request: Request) -> Response:
    site = site_of(request)
    pid = pid_of(request)
    with site.reader() as db:
        header = site.select_patient(request, db, pid)
        rows = list(db.scalars(select(Prescription).where(Prescription.patient_id == pid)
                               .order_by(Prescription.active.desc(),
                                         Prescription.date_added.desc())))
        pharmacies = {ph.id: ph for ph in db.scalars(select(Pharmacy))}
        intervals = option_titles(db, "drug_interval")
        alerts = list(db.scalars(select(CdsAlertLog).where(CdsAlertLog.pid == pid)
                                 .order_by(CdsAlertLog.shown_at.desc()).limit(10)))
    p = header.patient
    return site.render(request, "rx_list.html", {
        "patient": header, "rows": rows, "pharmacies": pharmacies, "intervals": intervals,
        "alerts": alerts, "erx_status": ERX_STATUS},
        tab=Tab("rx", f"Rx: {p.lname}", here(request)))


@guard
async def rx_form(request: Request) -> Response:
    site = site_of(request)
    pid = pid_of(request)
    raw = request.path_params.get("rid")
    with site.reader() as db:
        ctx = rx_context(db, request, pid)
        if raw is None:
            ctx["values"] = _defaults(ctx, request)
            pending = session_of(request).data.get("rx_modify", {}).pop(str(pid), None)
            if pending:
                ctx["values"] = pending
                ctx["notice"] = ("The interaction alert was acknowledged with 'Change "
                                 "order': edit the prescription below and save it again.")
        else:
            rx = prescription_or_404(db, pid, int(raw))
            ctx["rx"] = rx
            ctx["values"] = rx_values(rx)
    return site.render(request, "rx_form.html", ctx, tab=Tab("rx", "Prescription",
                                                             here(request)))


@guard
async def rx_save(request: Request) -> Response:
    site = site_of(request)
    pid = pid_of(request)
    raw = request.path_params.get("rid")
    user = user_of(request)
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        with site.reader() as db:
            ctx = rx_context(db, request, pid)
            rx = prescription_or_404(db, pid, int(raw)) if raw is not None else None
            ctx["rx"] = rx
            if rx is not None and rx.erx_uploaded:
                f.fail(FORM_ERROR, "This prescription was already transmitted to the "
                                   "pharmacy; discontinue it and write a new one instead.")
            values = read_rx(f, ctx, site.today(), site.now())
            alerts: list[interactions.Alert] = []
            if f.ok and (rx is None or rx.drug != values["drug"]):
                drug = db.scalar(select(Drug).where(Drug.name == values["drug"]))
                values["drug_id"] = drug.drug_id if drug else None
                values["rxnorm_drugcode"] = drug.drug_code if drug else None
                generic = interactions.generic_of(db, values["drug"], values["drug_id"])
                alerts = interactions.check(db, pid, generic,
                                            exclude_rx=rx.id if rx else None)
        if not f.ok:
            ctx.update(values=f.raw, errors=f.errors)
            return site.render(request, "rx_form.html", ctx)
        now = site.now()
        if alerts:
            with site.writer(request) as db:
                rows = [CdsAlertLog(pid=pid, alert_type=a.kind, severity=a.severity,
                                    drugs=a.drugs, message=f"{a.message} {a.recommendation}"
                                    .strip(), shown_at=now, shown_to=user.user_id,
                                    acknowledged=0) for a in alerts]
                db.add_all(rows)
                db.flush()
                alert_ids = [r.id for r in rows]
            pending = session_of(request).data.setdefault("rx_pending", {})
            pending[str(alert_ids[0])] = {"pid": pid, "raw": dict(f.raw), "alerts": alert_ids,
                                          "rx_id": rx.id if rx else None}
            return posted.redirect(f"/patient/{pid}/rx/alert/{alert_ids[0]}")
        rx_id = write_prescription(site, request, pid, values, rx)
        site.flash(request, f"Prescription for {values['drug']} saved. Open eRx Review to "
                            "check it and transmit it to the pharmacy.")
        return posted.redirect(f"/patient/{pid}/rx#rx-{rx_id}")


def write_prescription(site, request: Request, pid: int, values: dict[str, Any],  # noqa: ANN001
              rx: Prescription | None, alert_ids: list[int] | None = None,
              override_reason: str | None = None) -> int:
    """Insert or update the prescription; mark its alerts overridden (one transaction)."""
    user = user_of(request)
    now = site.now()
    with site.writer(request) as db:
        if values.get("encounter") is None:
            enc = encounter_on(db, pid, site.today())
            values["encounter"] = enc.encounter if enc else None
        if rx is None:
            row = Prescription(patient_id=pid, date_added=now, date_modified=now,
                               user=user.username, created_by=user.user_id,
                               updated_by=user.user_id, active=1, erx_uploaded=0,
                               erx_source=0, erx_status="draft", **values)
            db.add(row)
        else:
            row = db.get(Prescription, rx.id)
            for key, value in values.items():
                setattr(row, key, value)
            row.date_modified = now
            row.updated_by = user.user_id
        db.flush()
        for alert_id in alert_ids or []:
            alert = db.get(CdsAlertLog, alert_id)
            alert.acknowledged = 1
            alert.acknowledged_at = now
            alert.acknowledged_by = user.user_id
            alert.action_taken = "override"
            alert.override_reason = override_reason
            alert.prescription_id = row.id
        return row.id


@guard
async def rx_discontinue(request: Request) -> Response:
    site = site_of(request)
    pid = pid_of(request)
    rx_id = int(request.path_params["rid"])
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        with site.writer(request) as db:
            row = prescription_or_404(db, pid, rx_id)
            if row.active:
                row.active = 0
                row.end_date = site.today()
                row.date_modified = site.now()
                row.updated_by = user_of(request).user_id
            drug = row.drug
        site.flash(request, f"{drug} discontinued.")
        return posted.redirect(f"/patient/{pid}/rx")


async def _no_get(request: Request) -> Response:
    return RedirectResponse(f"/patient/{pid_of(request)}/rx", status_code=303)


routes = [
    Route("/patient/{pid:id}/rx", rx_list),
    Route("/patient/{pid:id}/rx/new", rx_form, methods=["GET"]),
    Route("/patient/{pid:id}/rx/new", rx_save, methods=["POST"]),
    Route("/patient/{pid:id}/rx/{rid:id}", rx_form, methods=["GET"]),
    Route("/patient/{pid:id}/rx/{rid:id}", rx_save, methods=["POST"]),
    Route("/patient/{pid:id}/rx/{rid:id}/discontinue", _no_get, methods=["GET"]),
    Route("/patient/{pid:id}/rx/{rid:id}/discontinue", rx_discontinue, methods=["POST"]),
]
