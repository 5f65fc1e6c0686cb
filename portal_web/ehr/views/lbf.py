"""Layout-based encounter forms (Joint Injection Procedure, I&O flowsheet ...).

Values go to ``lbf_data(form_id, field_id, field_value)``, one row per non-empty field; the
``forms`` row has ``formdir`` = the layout id and ``form_name`` = the layout's title.
"""

from __future__ import annotations

import re

from sqlalchemy import func, select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.common.forms import FORM_ERROR
from portal_web.common.requests import login_required, posted_form
from portal_web.ehr.chart import encounter_or_404, not_found
from portal_web.ehr.esign import signature_state
from portal_web.ehr.layouts import Layout, grid_field_ids, load_layout, read_values
from portal_web.ehr.site import Tab, here, site_of, user_of
from sandbox.stores.ehr import Form, LbfData

guard = login_required("/login")
LBF_ID = re.compile(r"^LBF[A-Za-z0-9_]{1,40}$")


def _ids(request: Request) -> tuple[int, int, str]:
    return (int(request.path_params["pid"]), int(request.path_params["enc"]),
            request.path_params["formdir"])


def _layout(db, formdir: str, pid: int) -> Layout:  # noqa: ANN001
    layout = load_layout(db, formdir, pid) if LBF_ID.match(formdir) else None
    if layout is None:
        raise not_found(f"Form '{formdir[:40]}'")
    return layout


def _context(db, request: Request, pid: int, number: int, formdir: str) -> dict:  # noqa: ANN001
    site = site_of(request)
    enc = encounter_or_404(db, pid, number)
    layout = _layout(db, formdir, pid)
    return {"patient": site.select_patient(request, db, pid, enc), "enc": enc,
            "layout": layout, "grid_ids": grid_field_ids(layout), "form_row": None,
            "locked": False}


def _lbf_form(db, pid: int, number: int, formdir: str, form_id: int) -> Form:  # noqa: ANN001
    form = db.scalar(select(Form).where(Form.formdir == formdir, Form.form_id == form_id,
                                        Form.encounter == number, Form.pid == pid,
                                        Form.deleted == 0))
    if form is None:
        raise not_found(f"Form {form_id} of this encounter")
    return form


def _as_values(layout: Layout, stored: dict[str, str]) -> dict[str, str]:
    return {f"form_{f.id}": stored.get(f.id, "") for f in layout.fields}


@guard
async def lbf_page(request: Request) -> Response:
    site = site_of(request)
    pid, number, formdir = _ids(request)
    raw = request.path_params.get("fid")
    with site.reader() as db:
        ctx = _context(db, request, pid, number, formdir)
        stored: dict[str, str] = {}
        if raw is not None:
            form = _lbf_form(db, pid, number, formdir, int(raw))
            stored = {d.field_id: d.field_value or "" for d in db.scalars(
                select(LbfData).where(LbfData.form_id == form.form_id))}
            ctx.update(form_row=form, locked=signature_state(db, form).locked)
        else:
            stored = {f.id: f.option.default_value or "" for f in ctx["layout"].fields}
    ctx["values"] = _as_values(ctx["layout"], stored)
    return site.render(request, "lbf.html", ctx,
                       tab=Tab("enc", ctx["layout"].title, here(request)))


@guard
async def lbf_save(request: Request) -> Response:
    site = site_of(request)
    pid, number, formdir = _ids(request)
    raw = request.path_params.get("fid")
    user = user_of(request)
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        with site.reader() as db:
            ctx = _context(db, request, pid, number, formdir)
            form = None
            if raw is not None:
                form = _lbf_form(db, pid, number, formdir, int(raw))
                ctx["form_row"] = form
                if signature_state(db, form).locked:
                    f.fail(FORM_ERROR, "This form is signed and locked; it cannot be changed.")
        layout: Layout = ctx["layout"]
        values = read_values(layout, f)
        if f.ok and not any(values.values()):
            f.fail(FORM_ERROR, "The form is empty: fill in at least one field.")
        if not f.ok:
            ctx.update(values=f.raw, errors=f.errors)
            return site.render(request, "lbf.html", ctx)
        with site.writer(request) as db:
            if form is None:
                form_id = max(db.scalar(select(func.max(LbfData.form_id))) or 0,
                              db.scalar(select(func.max(Form.form_id)).where(
                                  Form.formdir.like("LBF%"))) or 0) + 1
                db.add(Form(date=site.now(), encounter=number, form_name=layout.title,
                            form_id=form_id, pid=pid, user=user.username, formdir=formdir,
                            provider_id=ctx["enc"].provider_id))
                existing: dict[str, LbfData] = {}
            else:
                form_id = form.form_id
                existing = {d.field_id: d for d in db.scalars(
                    select(LbfData).where(LbfData.form_id == form_id))}
            for field_id, value in values.items():
                row = existing.get(field_id)
                if value and row is None:
                    db.add(LbfData(form_id=form_id, field_id=field_id, field_value=value))
                elif value and row is not None:
                    row.field_value = value
                elif not value and row is not None:
                    db.delete(row)
        site.flash(request, f"{layout.title} saved.")
        return posted.redirect(f"/patient/{pid}/encounter/{number}")


BASE = "/patient/{pid:id}/encounter/{enc:id}/lbf/{formdir:str}"
routes = [
    Route(BASE + "/new", lbf_page, methods=["GET"]),
    Route(BASE + "/new", lbf_save, methods=["POST"]),
    Route(BASE + "/{fid:id}", lbf_page, methods=["GET"]),
    Route(BASE + "/{fid:id}", lbf_save, methods=["POST"]),
]
