"""Clinical decision support where the tasks touch it.

- duplicate-order warning: same orderable, or same generic drug, already active or pending
  (follow-ups to different clinics and labs on different days are not duplicates);
- weight-based dose helper: dose from the charted (dosing) weight, e.g. enoxaparin 1 mg/kg;
- sliding-scale validation: ranges ascending, contiguous, no overlaps, sane units.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from desktop_ehr.services.catalog import Orderable, Reference
from desktop_ehr.services.orders import OrderDraft, describe
from desktop_ehr.services.parsing import format_datetime, format_number
from desktop_ehr.session import EhrContext


@dataclass(frozen=True)
class DuplicateHit:
    """An order the new one duplicates (``where`` is 'active' or 'pending')."""

    order_name: str
    details: str
    where: str
    reason: str

    @property
    def message(self) -> str:
        return f"{self.order_name} ({self.details}) — {self.where}; {self.reason}"


def _same_drug(a: Orderable | None, b: Orderable | None) -> bool:
    return bool(a and b and a.generic_name and a.generic_name == b.generic_name)


def _distinct(draft: OrderDraft, other) -> bool:
    """Same orderable but plainly not a duplicate: follow-ups to different clinics, or the
    same lab drawn on different days. A code status order replaces the previous one at Sign,
    so it never duplicates it."""
    if draft.order_type == "code_status":
        return True
    if draft.order_type == "appointment":
        return draft.department_id != other.department_id
    if draft.order_type == "lab" and draft.start_at and other.start_at:
        return draft.start_at.date() != other.start_at.date()
    return False


def duplicate_orders(ctx: EhrContext, patient_id: int, draft: OrderDraft, ref: Reference,
                     pending: list[OrderDraft] = ()) -> list[DuplicateHit]:
    """Active or pending orders the draft duplicates (empty when none)."""
    from desktop_ehr.services.chart_lists import order_details_text
    new = ref.orderables.get(draft.orderable_id)
    hits: list[DuplicateHit] = []
    m = ctx.models
    with ctx.reader() as s:
        for order in s.scalars(select(m.Order).where(m.Order.patient_id == patient_id,
                                                     m.Order.status.in_(("signed", "held")))):
            same = order.orderable_id == draft.orderable_id
            if same and _distinct(draft, order):
                continue
            if same or _same_drug(new, ref.orderables.get(order.orderable_id)):
                since = f"signed {format_datetime(order.signed_at)}" if order.signed_at else ""
                hits.append(DuplicateHit(
                    order.order_name, order_details_text(order) or "no details",
                    f"active order{', ' + since if since else ''}" if order.status == "signed"
                    else "held order",
                    "same order" if same else f"same drug ({new.generic_name})"))
    for other in pending:
        if other is draft:
            continue
        same = other.orderable_id == draft.orderable_id
        if same and _distinct(draft, other):
            continue
        if same or _same_drug(new, ref.orderables.get(other.orderable_id)):
            hits.append(DuplicateHit(other.order_name, describe(other, ref) or "no details",
                                     "pending order (not yet signed)",
                                     "same order" if same else f"same drug ({new.generic_name})"))
    return hits


def weight_based_dose(per_kg: float, weight_kg: float) -> float:
    """Dose = per-kg dose × dosing weight, to one decimal (the helper's proposal)."""
    if per_kg <= 0 or weight_kg <= 0:
        raise ValueError("dose per kg and weight must be positive")
    return round(per_kg * weight_kg, 1)


def weight_helper_text(orderable: Orderable, weight_kg: float | None,
                       weight_date=None) -> str:
    """The helper's line: 'Dosing weight 92 kg (10/14/2026) · 1 mg/kg → 92 mg'."""
    if weight_kg is None:
        return "No dosing weight on file: record a weight before using a weight-based dose."
    when = f" ({format_datetime(weight_date)[:10]})" if weight_date else ""
    text = f"Dosing weight {format_number(weight_kg)} kg{when}"
    if orderable.weight_based_dose:
        dose = weight_based_dose(orderable.weight_based_dose, weight_kg)
        unit = (orderable.weight_based_unit or "mg/kg").split("/")[0]
        text += (f" · {format_number(orderable.weight_based_dose)} "
                 f"{orderable.weight_based_unit or 'mg/kg'} = {format_number(dose)} {unit}")
    return text


