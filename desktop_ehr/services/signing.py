"""Sign: write pending orders and actions on existing orders in one transaction.

Orders signed together with an admission order are linked to it (``admission_order_id``);
so are orders signed later on an encounter that already has a signed admission order. A
discharge order also records itself on the encounter's Discharge Navigator row, and a new
code status order discontinues the patient's previous one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from desktop_ehr.services.catalog import Reference
from desktop_ehr.services.orders import OrderDraft, invalid_fields, missing_fields
from desktop_ehr.session import EhrContext

ORDER_ACTIONS = ("hold", "discontinue", "resume")


class SignRefused(Exception):
    """Sign was refused; ``problems`` name each order and what it lacks."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass
class OrderAction:
    """A pending change to a signed order: hold (from/until), discontinue or resume."""

    kind: str
    order_id: int
    order_name: str
    hold_from: datetime | None = None
    hold_until: datetime | None = None
    reason: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in ORDER_ACTIONS:
            raise ValueError(f"order action {self.kind!r} is not one of {ORDER_ACTIONS}")


def sign_problems(drafts: list[OrderDraft], ref: Reference) -> list[str]:
    problems = []
    for draft in drafts:
        orderable = ref.orderables.get(draft.orderable_id)
        if orderable is None:
            problems.append(f"{draft.order_name}: no longer orderable; remove it.")
            continue
        missing = missing_fields(draft, orderable, ref)
        if missing:
            problems.append(f"{draft.order_name}: missing {', '.join(missing)}")
        problems.extend(f"{draft.order_name}: {p}" for p in invalid_fields(draft, ref))
    return problems


def sign_orders(ctx: EhrContext, patient_id: int, encounter_id: int | None,
                drafts: list[OrderDraft], ref: Reference,
                actions: list[OrderAction] = ()) -> list[int]:
    """Sign every draft and apply every action, or nothing; returns the new order ids."""
    if not drafts and not actions:
        raise SignRefused(["There are no pending orders to sign."])
    user = ctx.user
    if user is None or not user.can_sign_orders:
        raise SignRefused(["Your log-in cannot sign orders; ask a provider to sign them."])
    problems = sign_problems(drafts, ref)
    if problems:
        raise SignRefused(problems)
    m = ctx.models
    now = ctx.now()
    new_ids: list[int] = []
    with ctx.write() as s:
        admits = [d for d in drafts if d.order_type == "admit"]
        others = [d for d in drafts if d.order_type != "admit"]
        admission_id = None
        for draft in admits:
            order = _new_order(m, draft, patient_id, encounter_id, user, now)
            s.add(order)
            s.flush()
            admission_id = admission_id or order.id
            _children(s, m, order, draft)
            new_ids.append(order.id)
        if admission_id is None and encounter_id is not None:
            admission_id = s.scalars(
                select(m.Order.id).where(m.Order.patient_id == patient_id,
                                         m.Order.encounter_id == encounter_id,
                                         m.Order.order_type == "admit",
                                         m.Order.status == "signed")
                .order_by(m.Order.signed_at.desc(), m.Order.id.desc())).first()
        for draft in others:
            order = _new_order(m, draft, patient_id, encounter_id, user, now)
            order.admission_order_id = admission_id
            s.add(order)
            s.flush()
            _children(s, m, order, draft)
            if draft.order_type == "code_status":
                _replace_code_status(s, m, patient_id, order, now, user.id)
            if encounter_id is not None and (draft.order_type == "discharge" or (
                    draft.order_type == "appointment" and draft.order_mode == "discharge")):
                _record_discharge_order(s, m, patient_id, encounter_id, order, draft, now,
                                        user.id)
            new_ids.append(order.id)
        for action in actions:
            _apply_action(s, m, patient_id, action, now, user.id)
    return new_ids


def _new_order(m, draft: OrderDraft, patient_id: int, encounter_id: int | None, user, now):
    return m.Order(
        patient_id=patient_id, encounter_id=encounter_id, orderable_id=draft.orderable_id,
        order_name=draft.order_name, order_type=draft.order_type, order_mode=draft.order_mode,
        status="signed", priority=draft.priority, dose=draft.dose, dose_unit=draft.dose_unit,
        route=draft.route, frequency=draft.frequency, prn=bool(draft.prn),
        prn_reason=(draft.prn_reason or None) if draft.prn else None,
        dose_per_kg=draft.dose_per_kg, dosing_weight_kg=draft.dosing_weight_kg,
        hold_parameters=draft.hold_parameters or None,
        dispense_quantity=draft.dispense_quantity or None, refills=draft.refills,
        start_at=draft.start_at, stop_at=draft.stop_at, occurrences=draft.occurrences or 1,
        specimen=draft.specimen, department_id=draft.department_id,
        attending_provider_id=draft.attending_provider_id, level_of_care=draft.level_of_care,
        timeframe_value=draft.timeframe_value, timeframe_unit=draft.timeframe_unit,
        code_status=draft.code_status, comments=draft.comments or None,
        order_set_id=draft.order_set_id, order_set_item_id=draft.order_set_item_id,
        ordering_user_id=user.id, ordering_provider_id=user.provider_id, entered_at=now,
        signed_at=now, signed_by_user_id=user.id)


def _children(s, m, order, draft: OrderDraft) -> None:
    for sort, band in enumerate(draft.scale, start=1):
        s.add(m.OrderScaleRange(order_id=order.id, sort=sort, low=band.low, high=band.high,
                                units=band.units, instruction=band.instruction or None))
    for name, value in draft.details.items():
        if value not in (None, ""):
            s.add(m.OrderDetail(order_id=order.id, field=name, value=str(value)))


def _replace_code_status(s, m, patient_id: int, order, now: datetime, user_id: int) -> None:
    """One code status at a time: a new one discontinues the patient's earlier ones (the
    banner shows the newest signed code status order)."""
    for old in s.scalars(select(m.Order).where(m.Order.patient_id == patient_id,
                                               m.Order.order_type == "code_status",
                                               m.Order.status == "signed",
                                               m.Order.id != order.id)):
        old.status = "discontinued"
        old.discontinued_at = now
        old.discontinued_by_user_id = user_id
        old.discontinue_reason = f"Replaced by code status: {order.code_status}"


def _apply_action(s, m, patient_id: int, action: OrderAction, now: datetime,
                  user_id: int) -> None:
    order = s.get(m.Order, action.order_id)
    if order is None or order.patient_id != patient_id:
        raise SignRefused([f"{action.order_name}: the order is no longer on this chart."])
    if action.kind == "hold":
        order.status = "held"
        order.hold_start_at = action.hold_from or now
        order.hold_end_at = action.hold_until
        order.hold_reason = action.reason
    elif action.kind == "resume":
        order.status = "signed"
        order.hold_end_at = action.hold_until or now
    else:
        order.status = "discontinued"
        order.discontinued_at = action.hold_from or now
        order.discontinued_by_user_id = user_id
        order.discontinue_reason = action.reason


def _record_discharge_order(s, m, patient_id, encounter_id, order, draft, now, user_id):
    from desktop_ehr.services.discharge import ensure_discharge, mark_section_in

    discharge = ensure_discharge(s, m, patient_id, encounter_id)
    if draft.order_type == "appointment":
        mark_section_in(s, m, discharge, "Follow-up", now, user_id)
        return
    discharge.discharge_order_id = order.id
    discharge.disposition = draft.details.get("Disposition") or discharge.disposition
    if draft.start_at:
        discharge.expected_discharge_at = draft.start_at
    mark_section_in(s, m, discharge, "Discharge Order", now, user_id)
