"""An encounter: its forms shown inline, the form menu, and eSign (sign / lock)."""

from __future__ import annotations

import hashlib

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.common.params import bad_parameter, parse_id
from portal_web.common.requests import login_required, posted_form
from portal_web.ehr.chart import encounter_or_404, forms_of, not_found
from portal_web.ehr.esign import content_hash, encounter_locked, signature_state
from portal_web.ehr.formsummary import form_summaries, layout_forms, summary_text
from portal_web.ehr.site import Tab, here, site_of, user_of
from sandbox.stores.ehr import EsignSignature, Form, User, UserSecure, check_password

guard = login_required("/login")


def ids(request: Request) -> tuple[int, int]:
    return int(request.path_params["pid"]), int(request.path_params["enc"])


@guard
async def encounter_page(request: Request) -> Response:
    site = site_of(request)
    pid, number = ids(request)
    with site.reader() as db:
        enc = encounter_or_404(db, pid, number)
        header = site.select_patient(request, db, pid, enc)
        forms = forms_of(db, number)
        blocks = form_summaries(db, forms)
        provider = db.get(User, enc.provider_id) if enc.provider_id else None
        lbf = layout_forms(db)
        locked = encounter_locked(db, number)
    return site.render(request, "encounter.html", {
        "patient": header, "enc": enc, "blocks": blocks, "provider": provider,
        "layout_forms": lbf, "encounter_locked": locked},
        tab=Tab("enc", f"Encounter {enc.date.strftime('%Y-%m-%d')}", here(request)))


def _esign_target(db, pid: int, number: int, form_id: str | None):  # noqa: ANN001, ANN202
    """(forms row or None for the whole encounter, title)."""
    if not form_id:
        return None, "Encounter"
    number_of_form = parse_id(form_id)
    if number_of_form is None:
        raise bad_parameter("form", form_id)
    form = db.get(Form, number_of_form)
    if form is None or form.encounter != number or form.pid != pid or form.deleted:
        raise not_found(f"Form {form_id} of this encounter")
    return form, form.form_name


@guard
async def esign_page(request: Request) -> Response:
    site = site_of(request)
    pid, number = ids(request)
    with site.reader() as db:
        enc = encounter_or_404(db, pid, number)
        header = site.select_patient(request, db, pid, enc)
        form, title = _esign_target(db, pid, number, request.query_params.get("form"))
        state = signature_state(db, form) if form else None
        enc_sigs = db.execute(select(EsignSignature, User).outerjoin(
            User, User.id == EsignSignature.uid).where(
            EsignSignature.table == "form_encounter", EsignSignature.tid == number)).all()
    return site.render(request, "esign.html", {
        "patient": header, "enc": enc, "form": form, "title": title,
        "state": state, "enc_sigs": enc_sigs,
        "values": {"lock": "1", "form": str(form.id) if form else ""}})


@guard
async def esign_submit(request: Request) -> Response:
    site = site_of(request)
    pid, number = ids(request)
    user = user_of(request)
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        with site.reader() as db:
            enc = encounter_or_404(db, pid, number)
            header = site.select_patient(request, db, pid, enc)
            form, title = _esign_target(db, pid, number, f.raw.get("form"))
            state = signature_state(db, form) if form else None
            enc_sigs = db.execute(select(EsignSignature, User).outerjoin(
                User, User.id == EsignSignature.uid).where(
                EsignSignature.table == "form_encounter", EsignSignature.tid == number)).all()
            secure = db.get(UserSecure, user.user_id)
            password = str(posted.data.get("password") or "")[:256]
            if not password:
                f.fail("password", "Enter your password to sign.")
            elif secure is None or not check_password(secure.password, password):
                f.fail("password", "That password is not correct; enter the password you "
                                   "logged in with.")
            amendment = f.text("amendment", "Amendment", max_len=5000)
            already = (state.signed if state else bool(enc_sigs))
            if already and not amendment:
                f.fail("amendment", "This item is already signed: enter an amendment that "
                                    "says what you are adding, then sign again.")
            summary = summary_text(db, form) if form else f"encounter {number}"
        if not f.ok:
            return site.render(request, "esign.html", {
                "patient": header, "enc": enc, "form": form, "title": title, "state": state,
                "enc_sigs": enc_sigs, "values": f.raw, "errors": f.errors})
        now = site.now()
        digest = content_hash(summary, amendment)
        with site.writer(request) as db:
            db.add(EsignSignature(
                tid=form.id if form else number, table="forms" if form else "form_encounter",
                uid=user.user_id, datetime=now, is_lock=1 if f.checkbox("lock") else 0,
                amendment=amendment, hash=digest,
                signature_hash=hashlib.sha256(
                    f"{digest}|{user.user_id}|{now.isoformat()}".encode()).hexdigest()))
        locked = " and locked" if f.checkbox("lock") else ""
        site.flash(request, f"{title} signed{locked} by {user.display_name}.")
        return posted.redirect(f"/patient/{pid}/encounter/{number}")


routes = [
    Route("/patient/{pid:id}/encounter/{enc:id}", encounter_page, name="encounter"),
    Route("/patient/{pid:id}/encounter/{enc:id}/esign", esign_page, methods=["GET"]),
    Route("/patient/{pid:id}/encounter/{enc:id}/esign", esign_submit, methods=["POST"]),
]
