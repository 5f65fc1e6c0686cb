"""Order sets (Hyperspace) / PowerPlans (PowerChart): sections of lines, some pre-checked."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from desktop_ehr.session import EhrContext


@dataclass(frozen=True)
class SetItem:
    """One line of a section, with the columns a draft is built from."""

    id: int
    section_id: int
    orderable_id: int
    display: str
    default_selected: bool
    dose: float | None = None
    dose_unit: str | None = None
    route: str | None = None
    frequency: str | None = None
    prn: bool = False
    prn_reason: str | None = None
    priority: str = "routine"
    occurrences: int = 1
    department_id: int | None = None
    comments: str | None = None


@dataclass(frozen=True)
class SetSection:
    id: int
    name: str
    phase: str | None
    choose_one: bool
    guidance: str | None
    items: tuple[SetItem, ...]


@dataclass(frozen=True)
class OrderSetInfo:
    id: int
    name: str
    description: str | None
    specialty: str | None
    sections: tuple[SetSection, ...]

    def item(self, item_id: int) -> SetItem | None:
        for section in self.sections:
            for item in section.items:
                if item.id == item_id:
                    return item
        return None


@dataclass(frozen=True)
class OrderSetRow:
    id: int
    name: str
    specialty: str | None


def search_order_sets(ctx: EhrContext, text: str = "") -> list[OrderSetRow]:
    m = ctx.models
    words = [w for w in (text or "").lower().split() if w]
    with ctx.reader() as s:
        rows = [OrderSetRow(o.id, o.name, o.specialty) for o in s.scalars(
            select(m.OrderSet).where(m.OrderSet.active.is_(True)).order_by(m.OrderSet.name))]
    if not words:
        return rows
    return [r for r in rows
            if all(w in f"{r.name} {r.specialty or ''} order set powerplan".lower()
                   for w in words)]


def load_order_set(ctx: EhrContext, order_set_id: int) -> OrderSetInfo:
    m = ctx.models
    with ctx.reader() as s:
        order_set = s.get(m.OrderSet, order_set_id)
        if order_set is None:
            raise LookupError(f"no order set with id {order_set_id}")
        sections = []
        for sec in s.scalars(select(m.OrderSetSection)
                             .where(m.OrderSetSection.order_set_id == order_set_id)
                             .order_by(m.OrderSetSection.sort, m.OrderSetSection.id)):
            items = tuple(SetItem(
                id=i.id, section_id=sec.id, orderable_id=i.orderable_id, display=i.display,
                default_selected=bool(i.default_selected), dose=i.dose, dose_unit=i.dose_unit,
                route=i.route, frequency=i.frequency, prn=bool(i.prn), prn_reason=i.prn_reason,
                priority=i.priority or "routine", occurrences=i.occurrences or 1,
                department_id=i.department_id, comments=i.comments)
                for i in s.scalars(select(m.OrderSetItem)
                                   .where(m.OrderSetItem.section_id == sec.id)
                                   .order_by(m.OrderSetItem.sort, m.OrderSetItem.id)))
            sections.append(SetSection(sec.id, sec.name, sec.phase, bool(sec.choose_one),
                                       sec.guidance, items))
        return OrderSetInfo(order_set.id, order_set.name, order_set.description,
                            order_set.specialty, tuple(sections))
