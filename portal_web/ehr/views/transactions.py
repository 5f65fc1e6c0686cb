"""Patient transactions: referrals (``transactions`` + ``lbt_data``, layout ``LBTref``).

The referral form is rendered from its layout, so its fields (recipient from the address
book, reason, urgency, linked document, payer case id ...) are whatever ``layout_options``
defines for ``LBTref``; values are ``lbt_data`` rows, one per non-empty field.
"""

from __future__ import annotations

import re

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.common.forms import FORM_ERROR
from portal_web.common.requests import login_required, posted_form
from portal_web.ehr.chart import not_found
from portal_web.ehr.layouts import Layout, load_layout, read_values
from portal_web.ehr.site import Tab, here, site_of, user_of
from sandbox.stores.ehr import LayoutGroupProperties, LbtData, Transaction

guard = login_required("/login")
LBT_ID = re.compile(r"^LBT[A-Za-z0-9_]{1,40}$")


def _pid(request: Request) -> int:
    return int(request.path_params["pid"])


def transaction_types(db) -> list[tuple[str, str]]:  # noqa: ANN001
    rows = db.scalars(select(LayoutGroupProperties).where(
        LayoutGroupProperties.grp_group_id == "", LayoutGroupProperties.grp_activity == 1,
        LayoutGroupProperties.grp_form_id.like("LBT%")).order_by(LayoutGroupProperties.grp_seq))
    return [(r.grp_form_id, r.grp_title) for r in rows] or [("LBTref", "Referral")]


def _layout(db, kind: str, pid: int) -> Layout:  # noqa: ANN001
    layout = load_layout(db, kind, pid) if LBT_ID.match(kind) else None
    if layout is None:
        raise not_found(f"Transaction type '{kind[:40]}'")
    return layout


def _transaction(db, pid: int, tid: int) -> Transaction:  # noqa: ANN001
    row = db.get(Transaction, tid)
    if row is None or row.pid != pid:
        raise not_found(f"Transaction {tid} of this patient")
    return row


@guard
async def transactions_list(request: Request) -> Response:
    site = site_of(request)
    pid = _pid(request)
    with site.reader() as db:
        header = site.select_patient(request, db, pid)
        rows = list(db.scalars(select(Transaction).where(Transaction.pid == pid)
                               .order_by(Transaction.date.desc(), Transaction.id.desc())))
        data = {t.id: {d.field_id: d.field_value or "" for d in db.scalars(
            select(LbtData).where(LbtData.form_id == t.id))} for t in rows}
        layouts = {}
        for kind in {t.title for t in rows}:
            layout = load_layout(db, kind, pid) if LBT_ID.match(kind) else None
            if layout is not None:
                layouts[kind] = layout
        types = transaction_types(db)
    p = header.patient
    return site.render(request, "transactions.html", {
        "patient": header, "rows": rows, "data": data, "layouts": layouts, "types": types},
        tab=Tab("trn", f"Transactions: {p.lname}", here(request)))


@guard
async def transaction_form(request: Request) -> Response:
    site = site_of(request)
    pid = _pid(request)
    raw = request.path_params.get("tid")
    user = user_of(request)
    with site.reader() as db:
        header = site.select_patient(request, db, pid)
        if raw is None:
            kind = request.query_params.get("type", "LBTref")[:44]
            layout = _layout(db, kind, pid)
            row = None
            stored = {f.id: f.option.default_value or "" for f in layout.fields}
            for f in layout.fields:
                if f.kind == 4 and f.id in ("refer_date",):
                    stored[f.id] = site.today().isoformat()
                if f.kind == 10 and not stored.get(f.id):
                    ids = [c for c, _ in f.choices]
                    default = str(user.user_id) if str(user.user_id) in ids else \
                        str(header.patient.providerID or "")
                    stored[f.id] = default if default in ids else ""
        else:
            row = _transaction(db, pid, int(raw))
            layout = _layout(db, row.title, pid)
            stored = {d.field_id: d.field_value or "" for d in db.scalars(
                select(LbtData).where(LbtData.form_id == row.id))}
    return site.render(request, "transaction_form.html", {
        "patient": header, "layout": layout, "row": row,
        "values": {f"form_{k}": v for k, v in stored.items()}},
        tab=Tab("trn", layout.title, here(request)))


@guard
async def transaction_save(request: Request) -> Response:
    site = site_of(request)
    pid = _pid(request)
    raw = request.path_params.get("tid")
    user = user_of(request)
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        with site.reader() as db:
            header = site.select_patient(request, db, pid)
            row = _transaction(db, pid, int(raw)) if raw is not None else None
            kind = row.title if row is not None else (f.raw.get("type") or "LBTref")[:44]
            if kind not in dict(transaction_types(db)):
                f.fail(FORM_ERROR, "Unknown transaction type; reload the page and try again.")
                kind = "LBTref"
            layout = _layout(db, kind, pid)
        values = read_values(layout, f)
        if f.ok and not any(values.values()):
            f.fail(FORM_ERROR, "The form is empty: fill in at least the required fields.")
        if not f.ok:
            return site.render(request, "transaction_form.html", {
                "patient": header, "layout": layout, "row": row, "values": f.raw,
                "errors": f.errors})
        with site.writer(request) as db:
            if row is None:
                target = Transaction(date=site.now(), title=kind, pid=pid, user=user.username,
                                     groupname="Default", authorized=1)
                db.add(target)
                db.flush()
                existing: dict[str, LbtData] = {}
            else:
                target = db.get(Transaction, row.id)
                existing = {d.field_id: d for d in db.scalars(
                    select(LbtData).where(LbtData.form_id == row.id))}
            for field_id, value in values.items():
                item = existing.get(field_id)
                if value and item is None:
                    db.add(LbtData(form_id=target.id, field_id=field_id, field_value=value))
                elif value and item is not None:
                    item.field_value = value
                elif not value and item is not None:
                    db.delete(item)
            tid = target.id
        site.flash(request, f"{layout.title} saved.")
        return posted.redirect(f"/patient/{pid}/transactions#transaction-{tid}")


routes = [
    Route("/patient/{pid:id}/transactions", transactions_list),
    Route("/patient/{pid:id}/transactions/new", transaction_form, methods=["GET"]),
    Route("/patient/{pid:id}/transactions/new", transaction_save, methods=["POST"]),
    Route("/patient/{pid:id}/transactions/{tid:id}", transaction_form, methods=["GET"]),
    Route("/patient/{pid:id}/transactions/{tid:id}", transaction_save, methods=["POST"]),
]
