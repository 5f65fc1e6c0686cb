"""The drug-interaction alert and the e-prescribing review screen.

The alert page asks for an action — cancel, modify the order, or override with a reason —
and logs it on the alert rows (acknowledged, by whom, when, action, the prescription an
override created). The eRx review screen shows the NewRx message; only its Transmit button
sends it (``erx_gateway_log`` NewRx, ``erx_uploaded=1``), and only a prescriber may press it;
"Leave pending" keeps it untransmitted for the prescriber's signature.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.common.forms import FORM_ERROR, FieldReader
from portal_web.common.requests import login_required, posted_form, session_of
from portal_web.ehr.chart import not_found, option_titles, patient_or_404, user_name
from portal_web.ehr.site import Tab, here, site_of, user_of
from portal_web.ehr.views.rx import (
    ERX_STATUS,
    charted_weight,
    pid_of,
    prescription_or_404,
    read_rx,
    rx_context,
    write_prescription,
)
from sandbox.stores.ehr import CdsAlertLog, Drug, ErxGatewayLog, Pharmacy, Prescription, User

guard = login_required("/login")


def _pending(request: Request, pid: int, alert_id: int) -> dict | None:
    entry = session_of(request).data.get("rx_pending", {}).get(str(alert_id))
    return entry if entry and entry["pid"] == pid else None


@guard
async def alert_page(request: Request) -> Response:
    site = site_of(request)
    pid = pid_of(request)
    alert_id = int(request.path_params["aid"])
    pending = _pending(request, pid, alert_id)
    with site.reader() as db:
        header = site.select_patient(request, db, pid)
        first = db.get(CdsAlertLog, alert_id)
        if first is None or first.pid != pid:
            raise not_found(f"Alert {alert_id}")
        ids = pending["alerts"] if pending else [alert_id]
        alerts = [db.get(CdsAlertLog, i) for i in ids]
        weight = charted_weight(db, pid)
    return site.render(request, "rx_alert.html", {
        "patient": header, "alerts": alerts, "pending": pending, "alert_id": alert_id,
        "weight": weight, "values": {}})


@guard
async def alert_action(request: Request) -> Response:
    site = site_of(request)
    pid = pid_of(request)
    alert_id = int(request.path_params["aid"])
    user = user_of(request)
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        pending = _pending(request, pid, alert_id)
        with site.reader() as db:
            header = site.select_patient(request, db, pid)
            first = db.get(CdsAlertLog, alert_id)
            if first is None or first.pid != pid:
                raise not_found(f"Alert {alert_id}")
            alerts = [db.get(CdsAlertLog, i) for i in (pending["alerts"] if pending
                                                          else [alert_id])]
            ctx = rx_context(db, request, pid)
        action = f.choice("action", "Action", ["cancel", "modify", "override"], required=True)
        reason = f.text("override_reason", "Override reason", max_len=1000)
        if action == "override" and not reason:
            f.fail("override_reason", "Give the clinical reason for overriding this alert.")
        if pending is None and action in ("modify", "override"):
            f.fail(FORM_ERROR, "The prescription this alert was about is no longer pending "
                               "(it was already handled, or you logged in again). Cancel, "
                               "then enter it again.")
        values = None
        if f.ok and action == "override" and pending is not None:
            reread = FieldReader(pending["raw"])
            values = read_rx(reread, ctx, site.today(), site.now())
            with site.reader() as db:
                drug = db.scalar(select(Drug).where(Drug.name == values["drug"]))
            values["drug_id"] = drug.drug_id if drug else None
            values["rxnorm_drugcode"] = drug.drug_code if drug else None
            if not reread.ok:
                f.fail(FORM_ERROR, "The pending prescription is no longer valid; choose "
                                   "Change order and correct it.")
        if not f.ok:
            return site.render(request, "rx_alert.html", {
                "patient": header, "alerts": alerts, "pending": pending,
                "alert_id": alert_id, "weight": ctx["weight"], "values": f.raw,
                "errors": f.errors})
        now = site.now()
        ids = [a.id for a in alerts if a is not None and not a.acknowledged]
        session_of(request).data.get("rx_pending", {}).pop(str(alert_id), None)
        if action == "override" and values is not None and pending is not None:
            rx = None
            if pending.get("rx_id"):
                with site.reader() as db:
                    rx = db.get(Prescription, pending["rx_id"])
            write_prescription(site, request, pid, values, rx, ids, reason)
            site.flash(request, "Alert overridden; the prescription was saved.")
            return posted.redirect(f"/patient/{pid}/rx")
        with site.writer(request) as db:
            for i in ids:
                alert = db.get(CdsAlertLog, i)
                alert.acknowledged = 1
                alert.acknowledged_at = now
                alert.acknowledged_by = user.user_id
                alert.action_taken = action
        if action == "modify" and pending is not None:
            session_of(request).data.setdefault("rx_modify", {})[str(pid)] = pending["raw"]
            return posted.redirect(f"/patient/{pid}/rx/new")
        site.flash(request, "Prescription cancelled; nothing was prescribed.")
        return posted.redirect(f"/patient/{pid}/rx")


def erx_message(rx: Prescription, patient, prescriber: User | None,  # noqa: ANN001
                pharmacy: Pharmacy | None, interval: str, now: dt.datetime) -> str:
    """The NewRx message as the sandbox gateway receives it (NCPDP SCRIPT-like text)."""
    lines = [
        "Message: NewRx   Version: SCRIPT 2017071 (sandbox)",
        f"SentTime: {now.isoformat(sep='T')}",
        f"To: {pharmacy.name if pharmacy else '?'}  NCPDPID {pharmacy.ncpdp if pharmacy else '?'}",
        f"From: {user_name(prescriber)}  NPI {prescriber.npi if prescriber else '?'}",
        f"Patient: {patient.lname}, {patient.fname}  DOB {patient.DOB}  Gender {patient.sex[:1]}",
        f"Drug: {rx.drug}" + (f"  RxNorm {rx.rxnorm_drugcode}" if rx.rxnorm_drugcode else ""),
        f"Sig: {rx.drug_dosage_instructions or ''}",
        f"Dose: {rx.dosage or ''} {rx.unit or ''}  Route: {rx.route or ''}  "
        f"Frequency: {interval}",
        f"Quantity: {rx.quantity or ''}  Refills: {rx.refills}"
        + (f"  Days supply: {rx.days_supply}" if rx.days_supply else ""),
        f"Substitutions: {'Allowed' if rx.substitute != 2 else 'Dispense as written'}",
    ]
    if rx.diagnosis:
        lines.append(f"Diagnosis: {rx.diagnosis}")
    if rx.note:
        lines.append(f"Note: {rx.note}")
    return "\n".join(lines)


def _erx_context(db, request: Request, pid: int, rx_id: int) -> dict:  # noqa: ANN001
    site = site_of(request)
    header = site.select_patient(request, db, pid)
    rx = prescription_or_404(db, pid, rx_id)
    prescriber = db.get(User, rx.provider_id) if rx.provider_id else None
    pharmacy = db.get(Pharmacy, rx.pharmacy_id) if rx.pharmacy_id else None
    interval = option_titles(db, "drug_interval").get(rx.interval or "", rx.interval or "")
    log = list(db.scalars(select(ErxGatewayLog).where(ErxGatewayLog.prescription_id == rx.id)
                          .order_by(ErxGatewayLog.sent_at)))
    return {"patient": header, "rx": rx, "prescriber": prescriber, "pharmacy": pharmacy,
            "interval": interval, "gateway_log": log, "erx_status": ERX_STATUS,
            "message": erx_message(rx, patient_or_404(db, pid), prescriber, pharmacy,
                                   interval, site.now()),
            "can_transmit": db.get(User, user_of(request).user_id).authorized == 1}


@guard
async def erx_review(request: Request) -> Response:
    site = site_of(request)
    pid = pid_of(request)
    with site.reader() as db:
        ctx = _erx_context(db, request, pid, int(request.path_params["rid"]))
    return site.render(request, "erx_review.html", ctx,
                       tab=Tab("rx", "eRx Review", here(request)))


@guard
async def erx_action(request: Request) -> Response:
    site = site_of(request)
    pid = pid_of(request)
    rx_id = int(request.path_params["rid"])
    user = user_of(request)
    async with posted_form(request) as posted:
        if posted.replay:
            return posted.replay
        f = posted.reader
        with site.reader() as db:
            ctx = _erx_context(db, request, pid, rx_id)
        rx: Prescription = ctx["rx"]
        action = f.choice("action", "Action", ["transmit", "pending"], required=True)
        if rx.erx_uploaded:
            f.fail(FORM_ERROR, "This prescription was already transmitted.")
        elif not rx.active:
            f.fail(FORM_ERROR, "This prescription is discontinued; it cannot be sent.")
        if action == "transmit":
            if ctx["pharmacy"] is None or not ctx["pharmacy"].ncpdp:
                f.fail(FORM_ERROR, "Choose a pharmacy that accepts e-prescriptions (edit the "
                                   "prescription) before transmitting.")
            if not ctx["can_transmit"]:
                f.fail(FORM_ERROR, "Only a prescriber can sign and transmit. Use 'Leave "
                                   "pending for signature' instead.")
        if not f.ok:
            ctx.update(errors=f.errors)
            return site.render(request, "erx_review.html", ctx)
        now = site.now()
        with site.writer(request) as db:
            row = db.get(Prescription, rx_id)
            if action == "transmit":
                db.add(ErxGatewayLog(prescription_id=rx_id, pid=pid, message_type="NewRx",
                                     pharmacy_ncpdp=ctx["pharmacy"].ncpdp, sent_at=now,
                                     sent_by=user.user_id, status="accepted",
                                     payload=ctx["message"]))
                row.erx_uploaded = 1
                row.erx_source = 1
                row.erx_status = "transmitted"
            else:
                row.erx_status = "pending_signature"
            row.date_modified = now
        site.flash(request, "Prescription transmitted to the pharmacy." if action == "transmit"
                   else "Prescription left pending for the prescriber's signature; it was not "
                        "transmitted.")
        return posted.redirect(f"/patient/{pid}/rx")




routes = [
    Route("/patient/{pid:id}/rx/alert/{aid:id}", alert_page, methods=["GET"]),
    Route("/patient/{pid:id}/rx/alert/{aid:id}", alert_action, methods=["POST"]),
    Route("/patient/{pid:id}/rx/{rid:id}/erx", erx_review, methods=["GET"]),
    Route("/patient/{pid:id}/rx/{rid:id}/erx", erx_action, methods=["POST"]),
]
