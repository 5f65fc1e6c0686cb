"""The chart's read-only lists (Chart Review tabs, Results Review, MAR, Medication List …).

Each function returns :class:`ChartRow` objects whose ``cells`` keys match the column keys
the pages declare, so a page is a list of columns over one of these functions.
"""

from __future__ import annotations

from sqlalchemy import select

from desktop_ehr.services.chart import ChartRow
from desktop_ehr.services.parsing import format_date, format_datetime, format_number
from desktop_ehr.session import EhrContext


def _dose(dose, unit) -> str:
    return f"{format_number(dose)} {unit or ''}".strip() if dose is not None else ""


def order_details_text(order) -> str:
    """The order sentence of a stored order ('1 g, IV, Q24H, PRN fever')."""
    parts = []
    if order.dose is not None:
        parts.append(_dose(order.dose, order.dose_unit))
    elif order.dose_unit == "units" and order.order_type == "medication":
        parts.append("per scale")
    for value in (order.route, order.frequency):
        if value:
            parts.append(value)
    if order.prn:
        parts.append(f"PRN {order.prn_reason or ''}".strip())
    if order.occurrences and order.occurrences > 1:
        parts.append(f"x{order.occurrences}")
    if order.code_status:
        parts.append(order.code_status)
    if order.timeframe_value:
        parts.append(f"in {order.timeframe_value} {order.timeframe_unit or ''}".strip())
    if order.hold_parameters:
        parts.append(order.hold_parameters)
    if order.comments and not order.code_status:
        parts.append(order.comments)
    return ", ".join(parts)


def encounters(ctx: EhrContext, patient_id: int) -> list[ChartRow]:
    m = ctx.models
    with ctx.reader() as s:
        rows = []
        for e in s.scalars(select(m.Encounter).where(m.Encounter.patient_id == patient_id)
                           .order_by(m.Encounter.admit_at.desc())):
            dept = s.get(m.Department, e.department_id) if e.department_id else None
            prov = s.get(m.Provider, e.attending_provider_id) if e.attending_provider_id else None
            rows.append(ChartRow(e.id, {
                "date": format_date(e.admit_at), "type": e.encounter_type.title(),
                "department": dept.name if dept else "", "provider": prov.name if prov else "",
                "reason": e.reason_for_visit or "", "status": e.status.title(),
                "fin": getattr(e, "fin", None) or ""}))
        return rows


def notes(ctx: EhrContext, patient_id: int) -> list[ChartRow]:
    """Notes newest first; each row's children are its addenda."""
    m = ctx.models
    with ctx.reader() as s:
        rows = []
        for n in s.scalars(select(m.Note).where(m.Note.patient_id == patient_id)
                           .order_by(m.Note.service_date.desc(), m.Note.id.desc())):
            author = n.author_name
            if n.author_user_id:
                user = s.get(m.User, n.author_user_id)
                author = user.display_name if user else author
            addenda = tuple(s.scalars(select(m.NoteAddendum).where(m.NoteAddendum.note_id == n.id)
                                      .order_by(m.NoteAddendum.id)))
            rows.append(ChartRow(n.id, {
                "date": format_date(n.service_date), "type": n.note_type,
                "title": n.title or n.note_type, "author": author or "",
                "status": "Signed" if n.status == "signed" else n.status.replace("_", " ").title(),
                "addenda": f"{len(addenda)} addend{'um' if len(addenda) == 1 else 'a'}"
                           if addenda else "",
                "text": n.text, "signed_at": format_datetime(n.signed_at)},
                flag=n.status,
                children=tuple({"id": a.id, "reason": a.reason or "", "text": a.text,
                                "status": a.status, "signed_at": format_datetime(a.signed_at)}
                               for a in addenda)))
        return rows


def results(ctx: EhrContext, patient_id: int) -> list[ChartRow]:
    m = ctx.models
    with ctx.reader() as s:
        return [ChartRow(r.id, {
            "collected": format_datetime(r.collected_at), "panel": r.panel or "",
            "component": r.component, "value": r.value, "unit": r.unit or "",
            "range": r.reference_range or "", "flag": r.abnormal_flag or "",
            "status": r.status.title(), "resulted": format_datetime(r.resulted_at)},
            flag=r.abnormal_flag)
            for r in s.scalars(select(m.Result).where(m.Result.patient_id == patient_id)
                               .order_by(m.Result.collected_at.desc(), m.Result.id))]


def home_medications(ctx: EhrContext, patient_id: int) -> list[ChartRow]:
    m = ctx.models
    with ctx.reader() as s:
        return [ChartRow(h.id, {
            "medication": h.medication, "dose": _dose(h.dose, h.dose_unit),
            "route": h.route or "", "frequency": h.frequency or "", "sig": h.sig or "",
            "indication": h.indication or "", "last_dose": format_datetime(h.last_dose_at),
            "status": h.status.title(), "prescriber": h.prescriber or ""}, flag=h.status)
            for h in s.scalars(select(m.HomeMedication)
                               .where(m.HomeMedication.patient_id == patient_id)
                               .order_by(m.HomeMedication.sort, m.HomeMedication.id))]


def orders(ctx: EhrContext, patient_id: int, *, active_only: bool = False,
           order_types: tuple[str, ...] | None = None) -> list[ChartRow]:
    m = ctx.models
    with ctx.reader() as s:
        stmt = select(m.Order).where(m.Order.patient_id == patient_id)
        if active_only:
            stmt = stmt.where(m.Order.status.in_(("signed", "held", "pending")))
        if order_types:
            stmt = stmt.where(m.Order.order_type.in_(order_types))
        rows = []
        for o in s.scalars(stmt.order_by(m.Order.order_type, m.Order.signed_at.desc(),
                                         m.Order.id.desc())):
            status = o.status.title()
            if o.status == "held" and o.hold_start_at:
                status = f"Held from {format_datetime(o.hold_start_at)}"
            rows.append(ChartRow(o.id, {
                "order": o.order_name, "type": o.order_type.replace("_", " ").title(),
                "details": order_details_text(o), "status": status,
                "start": format_datetime(o.start_at), "stop": format_datetime(o.stop_at),
                "mode": o.order_mode.title(), "priority": o.priority.title(),
                "signed": format_datetime(o.signed_at)}, flag=o.status))
        return rows


def mar(ctx: EhrContext, patient_id: int) -> list[ChartRow]:
    m = ctx.models
    with ctx.reader() as s:
        rows = []
        for a in s.scalars(select(m.MarAdministration)
                           .where(m.MarAdministration.patient_id == patient_id)
                           .order_by(m.MarAdministration.scheduled_at.desc())):
            order = s.get(m.Order, a.order_id)
            rows.append(ChartRow(a.id, {
                "medication": order.order_name if order else "",
                "scheduled": format_datetime(a.scheduled_at),
                "given": format_datetime(a.administered_at), "status": a.status.title(),
                "dose": _dose(a.dose, a.dose_unit), "route": a.route or "",
                "site": a.site or "", "by": a.administered_by or ""}, flag=a.status))
        return rows


def allergies(ctx: EhrContext, patient_id: int) -> list[ChartRow]:
    m = ctx.models
    with ctx.reader() as s:
        return [ChartRow(a.id, {
            "allergen": a.allergen, "kind": a.kind.title(), "reaction": a.reaction or "",
            "severity": a.severity.title(), "status": a.status.title(),
            "noted": format_date(a.noted_date)}, flag=a.severity)
            for a in s.scalars(select(m.Allergy).where(m.Allergy.patient_id == patient_id)
                               .order_by(m.Allergy.id))]


def problems(ctx: EhrContext, patient_id: int) -> list[ChartRow]:
    m = ctx.models
    with ctx.reader() as s:
        return [ChartRow(p.id, {
            "problem": p.description, "icd10": p.icd10 or "",
            "hospital": "Yes" if p.hospital_problem else "",
            "principal": "Principal" if p.principal else "", "status": p.status.title(),
            "onset": format_date(p.onset_date), "noted": format_date(p.noted_date)})
            for p in s.scalars(select(m.Problem).where(m.Problem.patient_id == patient_id)
                               .order_by(m.Problem.hospital_problem.desc(), m.Problem.id))]


def vitals(ctx: EhrContext, patient_id: int) -> list[ChartRow]:
    m = ctx.models
    with ctx.reader() as s:
        rows = []
        for v in s.scalars(select(m.VitalSign).where(m.VitalSign.patient_id == patient_id)
                           .order_by(m.VitalSign.taken_at.desc())):
            bp = f"{v.bp_systolic}/{v.bp_diastolic}" if v.bp_systolic else ""
            rows.append(ChartRow(v.id, {
                "taken": format_datetime(v.taken_at),
                "temp": f"{v.temp_c:.1f}" if v.temp_c else "",
                "hr": str(v.heart_rate or ""), "rr": str(v.resp_rate or ""), "bp": bp,
                "spo2": str(v.spo2 or ""), "weight": format_number(v.weight_kg),
                "height": format_number(v.height_cm), "by": v.recorded_by or ""}))
        return rows


def documents(ctx: EhrContext, patient_id: int) -> list[ChartRow]:
    m = ctx.models
    with ctx.reader() as s:
        return [ChartRow(d.id, {
            "type": d.document_type or "", "description": d.description or d.filename,
            "filename": d.filename, "received": format_datetime(d.received_at),
            "filed": format_datetime(d.filed_at), "status": d.status.title(),
            "source": d.source.title()})
            for d in s.scalars(select(m.Document).where(m.Document.patient_id == patient_id,
                                                        m.Document.status == "filed")
                               .order_by(m.Document.filed_at.desc(), m.Document.id.desc()))]


def unfiled_documents(ctx: EhrContext) -> list[ChartRow]:
    m = ctx.models
    with ctx.reader() as s:
        return [ChartRow(d.id, {
            "description": d.description or d.filename, "filename": d.filename,
            "received": format_datetime(d.received_at), "source": d.source.title(),
            "pages": "", "size": f"{len(d.content or b'') // 1024 + 1} KB"})
            for d in s.scalars(select(m.Document).where(m.Document.status == "unfiled")
                               .order_by(m.Document.received_at, m.Document.id))]


def proxies(ctx: EhrContext, patient_id: int) -> list[ChartRow]:
    m = ctx.models
    with ctx.reader() as s:
        return [ChartRow(p.id, {
            "name": p.name, "relationship": p.relationship, "phone": p.phone or "",
            "alternate": p.alternate_phone or "", "type": p.proxy_type,
            "primary": "Primary" if p.is_primary else "", "status": p.status.title(),
            "documented": format_datetime(p.documented_at)})
            for p in s.scalars(select(m.Proxy).where(m.Proxy.patient_id == patient_id)
                               .order_by(m.Proxy.id))]


def messages(ctx: EhrContext, user_id: int) -> list[ChartRow]:
    m = ctx.models
    with ctx.reader() as s:
        rows = []
        for msg in s.scalars(select(m.Message).where(m.Message.recipient_user_id == user_id)
                             .order_by(m.Message.received_at.desc())):
            patient = s.get(m.Patient, msg.patient_id) if msg.patient_id else None
            rows.append(ChartRow(msg.id, {
                "folder": msg.folder, "from": msg.sender, "subject": msg.subject,
                "patient": f"{patient.last_name}, {patient.first_name}" if patient else "",
                "received": format_datetime(msg.received_at), "status": msg.status.title(),
                "priority": msg.priority.title(), "body": msg.body}, flag=msg.status))
        return rows
