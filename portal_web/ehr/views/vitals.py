"""The Vitals form: US or metric entry, stored in OpenEMR's imperial units with BMI computed.

Each measurement has a US field and a metric field (the page's script mirrors one into the
other). The server takes the US value when given, otherwise converts the metric one, and
refuses a pair that disagrees, so what is stored never depends on the script having run.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.common.forms import FORM_ERROR, FieldReader
from portal_web.common.requests import login_required, posted_form
from portal_web.ehr import units
from portal_web.ehr.chart import choices, encounter_or_404, not_found
from portal_web.ehr.esign import signature_state
from portal_web.ehr.site import Tab, here, site_of, user_of
from sandbox.stores.ehr import Form, FormVitals

guard = login_required("/login")
TEMP_METHODS = [("Oral", "Oral"), ("Tympanic", "Tympanic"), ("Axillary", "Axillary"),
                ("Temporal", "Temporal Artery")]


@dataclass(frozen=True)
class Paired:
    """A measurement entered in US or metric units; stored in the US unit."""

    column: str
    label: str
    us_unit: str
    metric_unit: str
    us_range: tuple[float, float]
    to_us: object  # metric -> US
    to_metric: object  # US -> metric
    tolerance: float

    @property
    def us_name(self) -> str:
        return f"{self.column}_{self.us_unit_key}"

    @property
    def metric_name(self) -> str:
        return f"{self.column}_{self.metric_unit_key}"

    @property
    def us_unit_key(self) -> str:
        return {"lb": "lb", "in": "in", "°F": "f"}[self.us_unit]

    @property
    def metric_unit_key(self) -> str:
        return {"kg": "kg", "cm": "cm", "°C": "c"}[self.metric_unit]

    @property
    def metric_range(self) -> tuple[float, float]:
        low, high = self.us_range
        return (self.to_metric(low), self.to_metric(high))  # type: ignore[operator]


PAIRED = [
    Paired("weight", "Weight", "lb", "kg", (0.5, 1000), units.kg_to_lb, units.lb_to_kg, 0.05),
    Paired("height", "Height", "in", "cm", (5, 108), units.cm_to_in, units.in_to_cm, 0.05),
    Paired("temperature", "Temperature", "°F", "°C", (80, 115), units.c_to_f, units.f_to_c,
           0.05),
    Paired("waist_circ", "Waist Circ", "in", "cm", (5, 100), units.cm_to_in, units.in_to_cm,
           0.05),
    Paired("head_circ", "Head Circ", "in", "cm", (5, 40), units.cm_to_in, units.in_to_cm,
           0.05),
]
SINGLE = [  # column, label, unit, low, high, decimals
    ("pulse", "Pulse", "per min", 10, 300, 0),
    ("respiration", "Respiration", "per min", 2, 80, 0),
    ("oxygen_saturation", "Oxygen Saturation", "%", 40, 100, 1),
    ("oxygen_flow_rate", "Oxygen Flow Rate", "L/min", 0, 60, 1),
    ("inhaled_oxygen_concentration", "Inhaled O2 Concentration", "%", 21, 100, 0),
]


def read_vitals(f: FieldReader, now: dt.datetime,
                temp_methods: list[tuple[str, str]] = TEMP_METHODS) -> dict[str, object]:
    """Validated column values of a vitals row (empty numerics as 0, as OpenEMR stores)."""
    values: dict[str, object] = {}
    for pair in PAIRED:
        low, high = pair.us_range
        m_low, m_high = pair.metric_range
        us = f.number(pair.us_name, f"{pair.label} ({pair.us_unit})", unit=pair.us_unit,
                      low=low, high=high)
        metric = f.number(pair.metric_name, f"{pair.label} ({pair.metric_unit})",
                          unit=pair.metric_unit, low=m_low, high=m_high)
        stored = 0.0
        if us is not None:
            stored = units._round(us, 2)
            if metric is not None and abs(pair.to_us(metric) - us) > pair.tolerance:  # type: ignore[operator]
                f.fail(pair.metric_name,
                       f"{pair.label}: {metric:g} {pair.metric_unit} does not match "
                       f"{us:g} {pair.us_unit}; clear one of the two fields.")
        elif metric is not None:
            stored = pair.to_us(metric)  # type: ignore[operator]
        values[pair.column] = stored
    bps = f.integer("bps", "BP Systolic", low=40, high=300, unit="mmHg")
    bpd = f.integer("bpd", "BP Diastolic", low=20, high=200, unit="mmHg")
    if bps is not None and bpd is not None and bpd >= bps:
        f.fail("bpd", "BP Diastolic must be lower than BP Systolic.")
    if (bps is None) != (bpd is None) and "bps" not in f.errors and "bpd" not in f.errors:
        f.fail("bpd" if bpd is None else "bps",
               "Enter both the systolic and the diastolic pressure.")
    values["bps"] = str(bps) if bps is not None else None
    values["bpd"] = str(bpd) if bpd is not None else None
    for column, label, unit, low, high, decimals in SINGLE:
        number = f.number(column, label, unit=unit, low=low, high=high, decimals=decimals)
        values[column] = number or 0.0
    values["temp_method"] = f.choice("temp_method", "Temperature location",
                                     [k for k, _ in temp_methods])
    values["note"] = f.text("note", "Other notes", max_len=2000)
    values["date"] = _when(f, now)
    bmi = units.bmi(values["weight"], values["height"])  # type: ignore[arg-type]
    values["BMI"] = bmi
    values["BMI_status"] = units.bmi_status(bmi)
    measured = [values[p.column] for p in PAIRED] + [values[c[0]] for c in SINGLE]
    if f.ok and not any(measured) and bps is None:
        f.fail(FORM_ERROR, "Enter at least one vital sign before saving.")
    return values


def _when(f: FieldReader, now: dt.datetime) -> dt.datetime:
    raw = f.raw.get("date", "").strip()
    if not raw:
        return now
    try:
        when = dt.datetime.strptime(raw, "%Y-%m-%d %H:%M")
    except ValueError:
        f.fail("date", f"Date must be written YYYY-MM-DD HH:MM (you entered '{raw[:20]}').")
        return now
    if when > now + dt.timedelta(minutes=5):
        f.fail("date", "Date cannot be in the future.")
    elif when < now - dt.timedelta(days=366):
        f.fail("date", "Date is more than a year ago; vitals are charted in a current "
                       "encounter.")
    return when


def form_values(v: FormVitals) -> dict[str, str]:
    """A stored row as the form's fields (US values, metric computed)."""
    out: dict[str, str] = {"date": v.date.strftime("%Y-%m-%d %H:%M")}
    for pair in PAIRED:
        stored = getattr(v, pair.column) or 0
        out[pair.us_name] = f"{stored:g}" if stored else ""
        out[pair.metric_name] = f"{pair.to_metric(stored):g}" if stored else ""  # type: ignore[operator]
    for column, *_ in SINGLE:
        stored = getattr(v, column) or 0
        out[column] = f"{stored:g}" if stored else ""
    out.update(bps=v.bps or "", bpd=v.bpd or "", temp_method=v.temp_method or "",
               note=v.note or "", bmi=f"{v.BMI:g}" if v.BMI else "")
    return out


def _context(db, request: Request, pid: int, number: int) -> dict:  # noqa: ANN001
    site = site_of(request)
    enc = encounter_or_404(db, pid, number)
    header = site.select_patient(request, db, pid, enc)
    history = list(db.scalars(select(FormVitals).where(FormVitals.pid == pid,
                                                       FormVitals.activity == 1)
                              .order_by(FormVitals.date.desc()).limit(3)))
    return {"patient": header, "enc": enc, "paired": PAIRED, "single": SINGLE,
            "temp_methods": choices(db, "temp_locations", TEMP_METHODS), "history": history}


def _ids(request: Request) -> tuple[int, int]:
    return int(request.path_params["pid"]), int(request.path_params["enc"])


def _vitals_form(db, pid: int, number: int, form_id: int) -> tuple[Form, FormVitals]:  # noqa: ANN001
    form = db.scalar(select(Form).where(Form.formdir == "vitals", Form.form_id == form_id,
                                        Form.encounter == number, Form.pid == pid,
                                        Form.deleted == 0))
    vitals = db.get(FormVitals, form_id) if form else None
    if form is None or vitals is None:
        raise not_found(f"Vitals form {form_id} of this encounter")
    return form, vitals


@guard
async def new_vitals(request: Request) -> Response:
    site = site_of(request)
    pid, number = _ids(request)
    with site.reader() as db:
        ctx = _context(db, request, pid, number)
    ctx["values"] = {"date": site.now().strftime("%Y-%m-%d %H:%M")}
    ctx["form_row"] = None
    return site.render(request, "vitals.html", ctx,
                       tab=Tab("enc", "Vitals", here(request)))


@guard
async def edit_vitals(request: Request) -> Response:
    site = site_of(request)
    pid, number = _ids(request)
    form_id = int(request.path_params["fid"])
    with site.reader() as db:
        ctx = _context(db, request, pid, number)
        form, vitals = _vitals_form(db, pid, number, form_id)
        ctx["locked"] = signature_state(db, form).locked
    ctx["values"] = form_values(vitals)
    ctx["form_row"] = form
    return site.render(request, "vitals.html", ctx, tab=Tab("enc", "Vitals", here(request)))


@guard
async def save_vitals(request: Request) -> Response:
    site = site_of(request)
    pid, number = _ids(request)
    raw_fid = request.path_params.get("fid")
    user = user_of(request)
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        with site.reader() as db:
            ctx = _context(db, request, pid, number)
            form = None
            if raw_fid is not None:
                form, _ = _vitals_form(db, pid, number, int(raw_fid))
                if signature_state(db, form).locked:
                    f.fail(FORM_ERROR, "This vitals form is signed and locked; it cannot be "
                                       "changed. Add a new Vitals form instead.")
        values = read_vitals(f, site.now(), ctx["temp_methods"])
        if not f.ok:
            ctx.update(values=f.raw, errors=f.errors, form_row=form)
            return site.render(request, "vitals.html", ctx)
        with site.writer(request) as db:
            if form is None:
                vitals = FormVitals(pid=pid, user=user.username, groupname="Default",
                                    authorized=1, activity=1, **values)
                db.add(vitals)
                db.flush()
                db.add(Form(date=site.now(), encounter=number, form_name="Vitals",
                            form_id=vitals.id, pid=pid, user=user.username, formdir="vitals",
                            provider_id=ctx["enc"].provider_id))
            else:
                vitals = db.get(FormVitals, form.form_id)
                for key, value in values.items():
                    setattr(vitals, key, value)
        site.flash(request, "Vitals saved.")
        return posted.redirect(f"/patient/{pid}/encounter/{number}")


routes = [
    Route("/patient/{pid:id}/encounter/{enc:id}/vitals/new", new_vitals, methods=["GET"]),
    Route("/patient/{pid:id}/encounter/{enc:id}/vitals/new", save_vitals, methods=["POST"]),
    Route("/patient/{pid:id}/encounter/{enc:id}/vitals/{fid:id}", edit_vitals,
          methods=["GET"]),
    Route("/patient/{pid:id}/encounter/{enc:id}/vitals/{fid:id}", save_vitals,
          methods=["POST"]),
]
