"""The order catalog and reference lists the composer offers (frequencies, routes, units).

Loaded once per log-in into a :class:`Reference` (the lists do not change during a run) and
searched in memory, so typing in the order search never waits on the store.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import select

from desktop_ehr.session import EhrContext


@dataclass(frozen=True)
class Frequency:
    code: str
    display: str
    kind: str

    @property
    def label(self) -> str:
        return f"{self.code} - {self.display}"


@dataclass(frozen=True)
class Route:
    code: str
    display: str

    @property
    def label(self) -> str:
        return f"{self.code} - {self.display}"


@dataclass(frozen=True)
class Sentence:
    id: int
    display: str
    dose: float | None
    dose_unit: str | None
    route: str | None
    frequency: str | None
    prn: bool
    prn_reason: str | None
    comments: str | None


@dataclass(frozen=True)
class Orderable:
    id: int
    name: str
    order_type: str
    search_terms: str
    generic_name: str | None
    therapeutic_class: str | None
    default_dose: float | None
    dose_unit: str | None
    default_route: str | None
    default_frequency: str | None
    prn_allowed: bool
    prn_reason_required: bool
    default_priority: str
    weight_based_dose: float | None
    weight_based_unit: str | None
    specimen: str | None
    choices: tuple[str, ...]
    high_alert: bool
    scale_allowed: bool
    description: str | None
    sentences: tuple[Sentence, ...] = ()

    @property
    def is_medication(self) -> bool:
        return self.order_type in ("medication", "iv_fluid") or (
            self.order_type == "respiratory" and self.dose_unit is not None)


@dataclass(frozen=True)
class Department:
    id: int
    name: str
    abbreviation: str | None
    kind: str
    schedulable: bool


@dataclass(frozen=True)
class Provider:
    id: int
    name: str
    specialty: str | None
    department_id: int | None


@dataclass
class Reference:
    """Everything the composer and the order search need, read once."""

    orderables: dict[int, Orderable] = field(default_factory=dict)
    frequencies: list[Frequency] = field(default_factory=list)
    routes: list[Route] = field(default_factory=list)
    departments: list[Department] = field(default_factory=list)
    providers: list[Provider] = field(default_factory=list)
    document_types: list[str] = field(default_factory=list)

    def frequency(self, code: str | None) -> Frequency | None:
        return next((f for f in self.frequencies if f.code == code), None)

    def route(self, code: str | None) -> Route | None:
        return next((r for r in self.routes if r.code == code), None)

    def department(self, dept_id: int | None) -> Department | None:
        return next((d for d in self.departments if d.id == dept_id), None)

    def provider(self, provider_id: int | None) -> Provider | None:
        return next((p for p in self.providers if p.id == provider_id), None)

    def find_frequency(self, text: str) -> Frequency | None:
        """A frequency from what a user typed: its code, its display or its list label."""
        wanted = (text or "").strip().lower()
        for freq in self.frequencies:
            if wanted in (freq.code.lower(), freq.display.lower(), freq.label.lower()):
                return freq
        return None

    def search(self, text: str, limit: int = 60) -> list[Orderable]:
        """Orderables whose name, generic name or synonyms contain every typed word."""
        words = [w for w in (text or "").lower().replace(",", " ").split() if w]
        if not words:
            return []
        hits = []
        for item in self.orderables.values():
            haystack = " ".join(filter(None, (item.name, item.generic_name, item.search_terms,
                                              item.order_type))).lower()
            if all(w in haystack for w in words):
                starts = item.name.lower().startswith(words[0])
                hits.append((0 if starts else 1, item.name.lower(), item))
        return [h[2] for h in sorted(hits, key=lambda h: h[:2])][:limit]


def load_reference(ctx: EhrContext) -> Reference:
    m = ctx.models
    ref = Reference()
    with ctx.reader() as s:
        sentences: dict[int, list[Sentence]] = {}
        for row in s.scalars(select(m.OrderSentence).order_by(m.OrderSentence.orderable_id,
                                                             m.OrderSentence.sort)):
            sentences.setdefault(row.orderable_id, []).append(Sentence(
                row.id, row.display, row.dose, row.dose_unit, row.route, row.frequency,
                bool(row.prn), row.prn_reason, row.comments))
        for o in s.scalars(select(m.Orderable).where(m.Orderable.active.is_(True))
                           .order_by(m.Orderable.id)):
            ref.orderables[o.id] = Orderable(
                id=o.id, name=o.name, order_type=o.order_type, search_terms=o.search_terms or "",
                generic_name=o.generic_name, therapeutic_class=o.therapeutic_class,
                default_dose=o.default_dose, dose_unit=o.dose_unit,
                default_route=o.default_route, default_frequency=o.default_frequency,
                prn_allowed=bool(o.prn_allowed), prn_reason_required=bool(o.prn_reason_required),
                default_priority=o.default_priority or "routine",
                weight_based_dose=o.weight_based_dose, weight_based_unit=o.weight_based_unit,
                specimen=o.specimen, choices=tuple(o.choices or ()),
                high_alert=bool(o.high_alert), scale_allowed=bool(o.scale_allowed),
                description=o.description, sentences=tuple(sentences.get(o.id, ())))
        ref.frequencies = [Frequency(f.code, f.display, f.kind) for f in s.scalars(
            select(m.Frequency).order_by(m.Frequency.sort, m.Frequency.id))]
        ref.routes = [Route(r.code, r.display) for r in s.scalars(
            select(m.Route).order_by(m.Route.sort, m.Route.id))]
        ref.departments = [Department(d.id, d.name, d.abbreviation, d.kind, bool(d.schedulable))
                           for d in s.scalars(select(m.Department).order_by(m.Department.name))]
        ref.providers = [Provider(p.id, p.name, p.specialty, p.department_id)
                         for p in s.scalars(select(m.Provider).order_by(m.Provider.name))]
        ref.document_types = [d.name for d in s.scalars(
            select(m.DocumentType).order_by(m.DocumentType.sort, m.DocumentType.name))]
    return ref
