"""The SOAP note form (``form_soap``); signing and locking is done with eSign."""

from __future__ import annotations

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.common.forms import FORM_ERROR
from portal_web.common.requests import login_required, posted_form
from portal_web.ehr.chart import encounter_or_404, latest_vitals, not_found
from portal_web.ehr.esign import signature_state
from portal_web.ehr.formsummary import vitals_rows
from portal_web.ehr.site import Tab, here, site_of, user_of
from sandbox.stores.ehr import Form, FormSoap

guard = login_required("/login")
SECTIONS = (("subjective", "Subjective"), ("objective", "Objective"),
            ("assessment", "Assessment"), ("plan", "Plan"))


def _ids(request: Request) -> tuple[int, int]:
    return int(request.path_params["pid"]), int(request.path_params["enc"])


def _context(db, request: Request, pid: int, number: int) -> dict:  # noqa: ANN001
    site = site_of(request)
    enc = encounter_or_404(db, pid, number)
    vitals = latest_vitals(db, pid)
    return {"patient": site.select_patient(request, db, pid, enc), "enc": enc,
            "sections": SECTIONS, "vitals_rows": vitals_rows(vitals) if vitals else [],
            "vitals": vitals, "form_row": None, "locked": False}


def _soap_form(db, pid: int, number: int, form_id: int) -> Form:  # noqa: ANN001
    form = db.scalar(select(Form).where(Form.formdir == "soap", Form.form_id == form_id,
                                        Form.encounter == number, Form.pid == pid,
                                        Form.deleted == 0))
    if form is None or db.get(FormSoap, form_id) is None:
        raise not_found(f"SOAP form {form_id} of this encounter")
    return form


@guard
async def soap_page(request: Request) -> Response:
    site = site_of(request)
    pid, number = _ids(request)
    raw = request.path_params.get("fid")
    with site.reader() as db:
        ctx = _context(db, request, pid, number)
        if raw is not None:
            form = _soap_form(db, pid, number, int(raw))
            soap = db.get(FormSoap, form.form_id)
            ctx["form_row"] = form
            ctx["locked"] = signature_state(db, form).locked
            ctx["values"] = {k: getattr(soap, k) or "" for k, _ in SECTIONS}
    return site.render(request, "soap.html", ctx, tab=Tab("enc", "SOAP", here(request)))


@guard
async def soap_save(request: Request) -> Response:
    site = site_of(request)
    pid, number = _ids(request)
    raw = request.path_params.get("fid")
    user = user_of(request)
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        with site.reader() as db:
            ctx = _context(db, request, pid, number)
            form = None
            if raw is not None:
                form = _soap_form(db, pid, number, int(raw))
                ctx["form_row"] = form
                if signature_state(db, form).locked:
                    f.fail(FORM_ERROR, "This SOAP note is signed and locked. Use eSign to "
                                       "add an amendment instead of editing it.")
        values = {key: f.text(key, title, max_len=20_000) for key, title in SECTIONS}
        if f.ok and not any(values.values()):
            f.fail(FORM_ERROR, "The note is empty: write at least one section.")
        if not f.ok:
            ctx.update(values=f.raw, errors=f.errors)
            return site.render(request, "soap.html", ctx)
        with site.writer(request) as db:
            if form is None:
                soap = FormSoap(date=site.now(), pid=pid, user=user.username,
                                groupname="Default", authorized=1, activity=1, **values)
                db.add(soap)
                db.flush()
                db.add(Form(date=site.now(), encounter=number, form_name="SOAP",
                            form_id=soap.id, pid=pid, user=user.username, formdir="soap",
                            provider_id=ctx["enc"].provider_id))
            else:
                soap = db.get(FormSoap, form.form_id)
                for key, value in values.items():
                    setattr(soap, key, value)
        site.flash(request, "SOAP note saved. Use eSign on the encounter to sign and lock it.")
        return posted.redirect(f"/patient/{pid}/encounter/{number}")


routes = [
    Route("/patient/{pid:id}/encounter/{enc:id}/soap/new", soap_page, methods=["GET"]),
    Route("/patient/{pid:id}/encounter/{enc:id}/soap/new", soap_save, methods=["POST"]),
    Route("/patient/{pid:id}/encounter/{enc:id}/soap/{fid:id}", soap_page, methods=["GET"]),
    Route("/patient/{pid:id}/encounter/{enc:id}/soap/{fid:id}", soap_save, methods=["POST"]),
]
