"""Procedure (lab) orders with per-test diagnosis links, results, and the Procedures menu.

An order is ``procedure_order`` (lab, scheduled collection, priority, fasting, patient
instructions) with one ``procedure_order_code`` row per test; each test must link at least
one valid, billable ICD-10-CM code (stored as ``ICD10:E11.9;ICD10:E78.5``), as OpenEMR
refuses to send an order without a diagnosis. Orders placed in an encounter also get a
``forms`` row (``formdir='procedure_order'``).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.common.forms import FORM_ERROR, FieldReader
from portal_web.common.requests import login_required, posted_form
from portal_web.ehr.chart import (
    choices,
    encounter_on,
    encounters_of,
    not_found,
    providers,
    user_name,
)
from portal_web.ehr.site import Tab, here, site_of, user_of
from sandbox.stores.ehr import (
    Form,
    PatientData,
    ProcedureOrder,
    ProcedureOrderCode,
    ProcedureProvider,
    ProcedureReport,
    ProcedureResult,
    ProcedureType,
)

guard = login_required("/login")
PRIORITIES = [("normal", "Normal"), ("high", "High"), ("stat", "Stat")]
STATUSES = [("pending", "Pending"), ("routed", "Routed"), ("complete", "Complete"),
            ("canceled", "Canceled")]
FASTING = [("YES", "Yes"), ("NO", "No")]
TEST_ROWS = 4


def _pid(request: Request) -> int:
    return int(request.path_params["pid"])


def parse_diagnoses(f: FieldReader, name: str, label: str, required: bool) -> str | None:
    """``E11.9, E78.5`` or ``ICD10:E11.9;ICD10:E78.5`` → ``ICD10:E11.9;ICD10:E78.5``."""
    raw = f.raw.get(name, "").strip()
    if not raw:
        if required:
            f.fail(name, f"{label}: link at least one ICD-10 diagnosis (e.g. E11.9); an "
                         "order cannot be sent without one.")
        return None
    codes: list[str] = []
    for part in re.split(r"[;,\s]+", raw):
        if not part:
            continue
        probe = FieldReader({"code": part})
        code = probe.icd10("code", "Code")
        if code is None:
            f.fail(name, f"{label}: {probe.errors['code'].removeprefix('Code: ')}")
            return None
        if code not in codes:
            codes.append(code)
    if len(codes) > 12:
        f.fail(name, f"{label}: link at most 12 diagnoses.")
        return None
    return ";".join(f"ICD10:{c}" for c in codes)


def _context(db, request: Request, pid: int) -> dict[str, Any]:  # noqa: ANN001
    site = site_of(request)
    labs = list(db.scalars(select(ProcedureProvider).where(ProcedureProvider.active == 1)
                           .order_by(ProcedureProvider.ppid)))
    tests = list(db.scalars(select(ProcedureType).where(
        ProcedureType.procedure_type == "ord", ProcedureType.activity == 1)
        .order_by(ProcedureType.lab_id, ProcedureType.seq, ProcedureType.name)))
    encounters = encounters_of(db, pid)[:12]
    return {
        "patient": site.select_patient(request, db, pid), "order": None, "codes": [],
        "labs": [(str(lab.ppid), lab.name) for lab in labs], "lab_rows": labs,
        "tests": tests, "priorities": choices(db, "ord_priority", PRIORITIES),
        "statuses": choices(db, "ord_status", STATUSES), "fasting": FASTING,
        "providers": [(str(u.id), user_name(u)) for u in providers(db)],
        "encounters": [(str(e.encounter), f"{e.date.strftime('%Y-%m-%d')} - "
                        f"{(e.reason or '')[:40]}") for e in encounters],
        "rows": TEST_ROWS,
    }


def read_order(f: FieldReader, ctx: dict, now: dt.datetime) -> dict[str, Any]:
    v: dict[str, Any] = {}
    lab = f.choice("lab_id", "Lab", [k for k, _ in ctx["labs"]], required=True)
    v["lab_id"] = int(lab) if lab else None
    provider = f.choice("provider_id", "Ordering provider", [k for k, _ in ctx["providers"]],
                        required=True)
    v["provider_id"] = int(provider) if provider else None
    day = f.date("date_collected", "Scheduled date", required=True,
                 earliest=now.date() - dt.timedelta(days=1),
                 latest=now.date() + dt.timedelta(days=365))
    at = f.time("time_collected", "Scheduled time") or dt.time(8, 0)
    v["date_collected"] = dt.datetime.combine(day, at) if day else None
    if v["date_collected"] and v["date_collected"] < now - dt.timedelta(hours=12):
        f.fail("date_collected", "The scheduled collection is in the past; choose a date "
                                 "and time from now on.")
    v["scheduled_date"] = v["date_collected"]
    v["order_priority"] = f.choice("order_priority", "Priority",
                                   [k for k, _ in ctx["priorities"]], required=True)
    v["specimen_fasting"] = f.choice("specimen_fasting", "Fasting", [k for k, _ in FASTING],
                                     required=True)
    v["patient_instructions"] = f.text("patient_instructions", "Patient instructions",
                                       max_len=2000)
    v["clinical_hx"] = f.text("clinical_hx", "Clinical history", max_len=2000)
    order_dx = f.icd10("order_diagnosis", "Primary diagnosis")
    v["order_diagnosis"] = f"ICD10:{order_dx}" if order_dx else None
    encounter = f.choice("encounter", "Encounter", [k for k, _ in ctx["encounters"]])
    v["encounter_id"] = int(encounter) if encounter else None
    tests: list[tuple[ProcedureType, str]] = []
    by_id = {str(t.procedure_type_id): t for t in ctx["tests"]}
    for i in range(1, max(TEST_ROWS, _row_count(f)) + 1):
        test_id = f.raw.get(f"test_{i}", "").strip()
        dx_raw = f.raw.get(f"dx_{i}", "").strip()
        if not test_id:
            if dx_raw:
                f.fail(f"test_{i}", f"Test {i}: choose the test these diagnoses belong to.")
            continue
        test = by_id.get(test_id)
        if test is None:
            f.fail(f"test_{i}", f"Test {i}: not a test of the compendium; pick one from the "
                                "list.")
            continue
        if v["lab_id"] is not None and test.lab_id != v["lab_id"]:
            f.fail(f"test_{i}", f"Test {i}: {test.name} is not offered by the chosen lab.")
            continue
        dx = parse_diagnoses(f, f"dx_{i}", f"Test {i} diagnoses", required=True)
        if dx:
            tests.append((test, dx))
    if not tests and not any(k.startswith("test_") for k in f.errors):
        f.fail("test_1", "Add at least one test to the order.")
    v["tests"] = tests
    if v["order_diagnosis"] is None and tests:
        v["order_diagnosis"] = tests[0][1].split(";")[0]
    return v


def _row_count(f: FieldReader) -> int:
    numbers = [int(m[1]) for k in f.raw if (m := re.fullmatch(r"test_(\d{1,2})", k))]
    return min(max(numbers, default=0), 20)


def _order(db, pid: int, order_id: int) -> ProcedureOrder:  # noqa: ANN001
    order = db.get(ProcedureOrder, order_id)
    if order is None or order.patient_id != pid:
        raise not_found(f"Order {order_id} of this patient")
    return order


def order_values(order: ProcedureOrder, codes: list[ProcedureOrderCode],
                 tests: list[ProcedureType]) -> dict[str, str]:
    values = {
        "lab_id": str(order.lab_id), "provider_id": str(order.provider_id or ""),
        "date_collected": order.date_collected.date().isoformat() if order.date_collected
        else "", "time_collected": order.date_collected.strftime("%H:%M")
        if order.date_collected else "",
        "order_priority": order.order_priority, "specimen_fasting": order.specimen_fasting
        or "", "patient_instructions": order.patient_instructions or "",
        "clinical_hx": order.clinical_hx or "",
        "order_diagnosis": (order.order_diagnosis or "").removeprefix("ICD10:"),
        "encounter": str(order.encounter_id or ""),
    }
    for code in codes:
        match = next((t for t in tests if t.lab_id == order.lab_id
                      and t.procedure_code == code.procedure_code), None)
        values[f"test_{code.procedure_order_seq}"] = str(match.procedure_type_id) \
            if match else ""
        values[f"dx_{code.procedure_order_seq}"] = (code.diagnoses or "").replace(
            "ICD10:", "").replace(";", ", ")
    return values


@guard
async def orders_list(request: Request) -> Response:
    site = site_of(request)
    pid = _pid(request)
    with site.reader() as db:
        header = site.select_patient(request, db, pid)
        orders = list(db.scalars(select(ProcedureOrder).where(
            ProcedureOrder.patient_id == pid, ProcedureOrder.activity == 1)
            .order_by(ProcedureOrder.date_ordered.desc())))
        codes = {o.procedure_order_id: list(db.scalars(select(ProcedureOrderCode).where(
            ProcedureOrderCode.procedure_order_id == o.procedure_order_id)
            .order_by(ProcedureOrderCode.procedure_order_seq))) for o in orders}
        labs = {lab.ppid: lab.name for lab in db.scalars(select(ProcedureProvider))}
    p = header.patient
    return site.render(request, "orders.html", {"patient": header, "orders": orders,
                                                "codes": codes, "labs": labs},
                       tab=Tab("ord", f"Orders: {p.lname}", here(request)))


@guard
async def order_form(request: Request) -> Response:
    site = site_of(request)
    pid = _pid(request)
    raw = request.path_params.get("oid")
    with site.reader() as db:
        ctx = _context(db, request, pid)
        if raw is None:
            enc_param = request.query_params.get("encounter", "")[:9]
            today = encounter_on(db, pid, site.today())
            user = user_of(request)
            ctx["values"] = {
                "lab_id": ctx["labs"][0][0] if ctx["labs"] else "",
                "provider_id": str(user.user_id) if any(
                    k == str(user.user_id) for k, _ in ctx["providers"]) else "",
                "order_priority": "normal", "specimen_fasting": "NO",
                "encounter": enc_param or (str(today.encounter) if today else ""),
                "date_collected": site.today().isoformat()}
        else:
            order = _order(db, pid, int(raw))
            codes = list(db.scalars(select(ProcedureOrderCode).where(
                ProcedureOrderCode.procedure_order_id == order.procedure_order_id)
                .order_by(ProcedureOrderCode.procedure_order_seq)))
            ctx.update(order=order, codes=codes)
            ctx["values"] = order_values(order, codes, ctx["tests"])
    return site.render(request, "order_form.html", ctx,
                       tab=Tab("ord", "Procedure Order", here(request)))


@guard
async def order_save(request: Request) -> Response:
    site = site_of(request)
    pid = _pid(request)
    raw = request.path_params.get("oid")
    user = user_of(request)
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        with site.reader() as db:
            ctx = _context(db, request, pid)
            order = _order(db, pid, int(raw)) if raw is not None else None
            ctx["order"] = order
            if order is not None and order.order_status not in ("pending", None):
                f.fail(FORM_ERROR, f"This order is {order.order_status}; it can no longer "
                                   "be changed. Place a new order instead.")
        values = read_order(f, ctx, site.now())
        if not f.ok:
            ctx.update(values=f.raw, errors=f.errors)
            return site.render(request, "order_form.html", ctx)
        tests = values.pop("tests")
        now = site.now()
        with site.writer(request) as db:
            if order is None:
                row = ProcedureOrder(patient_id=pid, date_ordered=now, order_status="pending",
                                     activity=1, procedure_order_type="laboratory_test",
                                     **values)
                db.add(row)
                db.flush()
                if row.encounter_id is not None:
                    db.add(Form(date=now, encounter=row.encounter_id,
                                form_name="Procedure Order", form_id=row.procedure_order_id,
                                pid=pid, user=user.username, formdir="procedure_order",
                                provider_id=row.provider_id))
            else:
                row = db.get(ProcedureOrder, order.procedure_order_id)
                for key, value in values.items():
                    setattr(row, key, value)
                for old in db.scalars(select(ProcedureOrderCode).where(
                        ProcedureOrderCode.procedure_order_id == row.procedure_order_id)):
                    db.delete(old)
                db.flush()
            for seq, (test, dx) in enumerate(tests, start=1):
                db.add(ProcedureOrderCode(
                    procedure_order_id=row.procedure_order_id, procedure_order_seq=seq,
                    procedure_code=test.procedure_code or str(test.procedure_type_id),
                    procedure_name=test.name, diagnoses=dx, procedure_source="1",
                    procedure_order_title=test.name, procedure_type="laboratory_test"))
            order_id = row.procedure_order_id
        site.flash(request, f"Procedure order {order_id} saved ({len(tests)} test"
                            f"{'s' if len(tests) != 1 else ''}).")
        return posted.redirect(f"/patient/{pid}/orders#order-{order_id}")


@guard
async def patient_results(request: Request) -> Response:
    site = site_of(request)
    pid = _pid(request)
    with site.reader() as db:
        header = site.select_patient(request, db, pid)
        rows = db.execute(select(ProcedureResult, ProcedureReport, ProcedureOrder).join(
            ProcedureReport, ProcedureReport.procedure_report_id
            == ProcedureResult.procedure_report_id).join(
            ProcedureOrder, ProcedureOrder.procedure_order_id
            == ProcedureReport.procedure_order_id)
            .where(ProcedureOrder.patient_id == pid)
            .order_by(ProcedureResult.date.desc(), ProcedureResult.procedure_result_id.desc())
        ).all()
    p = header.patient
    return site.render(request, "results.html", {"patient": header, "rows": rows},
                       tab=Tab("res", f"Results: {p.lname}", here(request)))


@guard
async def lab_providers(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        labs = list(db.scalars(select(ProcedureProvider).order_by(ProcedureProvider.ppid)))
    return site.render(request, "procedure_providers.html", {"labs": labs},
                       tab=Tab("ppr", "Procedure Providers", "/procedures/providers"))


@guard
async def compendium(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        tests = list(db.scalars(select(ProcedureType).order_by(
            ProcedureType.lab_id, ProcedureType.seq, ProcedureType.name)))
        labs = {lab.ppid: lab.name for lab in db.scalars(select(ProcedureProvider))}
    return site.render(request, "compendium.html", {"tests": tests, "labs": labs},
                       tab=Tab("cmp", "Lab Compendium", "/procedures/compendium"))


@guard
async def pending_review(request: Request) -> Response:
    site = site_of(request)
    with site.reader() as db:
        rows = db.execute(select(ProcedureOrder, PatientData).join(
            PatientData, PatientData.pid == ProcedureOrder.patient_id)
            .where(ProcedureOrder.activity == 1,
                   ProcedureOrder.order_status.in_(("pending", "routed")))
            .order_by(ProcedureOrder.date_ordered.desc())).all()
        labs = {lab.ppid: lab.name for lab in db.scalars(select(ProcedureProvider))}
    return site.render(request, "pending_orders.html", {"rows": rows, "labs": labs},
                       tab=Tab("pnd", "Pending Review", "/procedures/pending"))


routes = [
    Route("/patient/{pid:id}/orders", orders_list),
    Route("/patient/{pid:id}/orders/new", order_form, methods=["GET"]),
    Route("/patient/{pid:id}/orders/new", order_save, methods=["POST"]),
    Route("/patient/{pid:id}/orders/{oid:id}", order_form, methods=["GET"]),
    Route("/patient/{pid:id}/orders/{oid:id}", order_save, methods=["POST"]),
    Route("/patient/{pid:id}/results", patient_results),
    Route("/procedures/providers", lab_providers),
    Route("/procedures/compendium", compendium),
    Route("/procedures/pending", pending_review),
]
