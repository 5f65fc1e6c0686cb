"""Order drafts: what the Order Composer edits before an order is signed.

A draft lives in the client only (the pending list) until Sign writes it, so closing the
composer or discarding pending orders leaves nothing in the store. This module builds drafts
from catalog entries, order sentences and order-set items, prints their sentence, and says
which required details are missing — the same rules the composer's Accept and the Sign
button apply.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from desktop_ehr.services.catalog import Orderable, Reference, Sentence
from desktop_ehr.services.parsing import format_datetime, format_number

PRIORITIES = ("routine", "stat", "now", "timed", "am_draw")
PRIORITY_LABELS = {"routine": "Routine", "stat": "STAT", "now": "Now", "timed": "Timed",
                   "am_draw": "AM Draw"}
LEVELS_OF_CARE = ("Inpatient", "Observation")
TIMEFRAME_UNITS = ("days", "weeks", "months")
MAX_DOSE = 100000.0


@dataclass(frozen=True)
class ScaleBand:
    """One correctional-scale band: blood glucose ``low``–``high`` mg/dL → ``units``."""

    low: int | None
    high: int | None
    units: float
    instruction: str = ""

    @property
    def range_text(self) -> str:
        if self.low is None:
            return f"less than {self.high + 1}" if self.high is not None else "any"
        if self.high is None:
            return f"{self.low} or greater"
        return f"{self.low}-{self.high}"


# The bounds of a correctional scale a prescriber may enter.
MAX_GLUCOSE = 1000
MAX_SCALE_UNITS = 50.0


def scale_problems(bands: list[ScaleBand]) -> list[str]:
    """What is wrong with a correctional scale (empty when it is usable)."""
    if not bands:
        return ["A sliding scale needs at least one range."]
    problems: list[str] = []
    for i, band in enumerate(bands, start=1):
        label = f"Range {i} ({band.range_text})"
        if band.low is None and band.high is None:
            problems.append(f"{label}: give a low or a high glucose value.")
        for value in (band.low, band.high):
            if value is not None and not 0 <= value <= MAX_GLUCOSE:
                problems.append(f"{label}: glucose {value} is outside 0-{MAX_GLUCOSE} mg/dL.")
        if band.low is not None and band.high is not None and band.low > band.high:
            problems.append(f"{label}: low {band.low} is above high {band.high}.")
        if not 0 <= band.units <= MAX_SCALE_UNITS:
            problems.append(f"{label}: {format_number(band.units)} units is outside "
                            f"0-{format_number(MAX_SCALE_UNITS)}.")
        if band.low is None and i != 1:
            problems.append(f"{label}: only the first range may be open below.")
        if band.high is None and i != len(bands):
            problems.append(f"{label}: only the last range may be open above.")
    for i in range(1, len(bands)):
        prev, cur = bands[i - 1], bands[i]
        if prev.high is None or cur.low is None:
            continue
        if cur.low <= prev.high:
            problems.append(f"Ranges {i} and {i + 1} overlap ({prev.range_text} and "
                            f"{cur.range_text}).")
        elif cur.low != prev.high + 1:
            problems.append(f"Ranges {i} and {i + 1} leave a gap: {prev.high + 1}-{cur.low - 1} "
                            "mg/dL has no dose.")
    return problems


@dataclass
class OrderDraft:
    """Every detail the composer edits; column names follow ``orders``."""

    orderable_id: int
    order_name: str
    order_type: str
    dose: float | None = None
    dose_unit: str | None = None
    route: str | None = None
    frequency: str | None = None
    prn: bool = False
    prn_reason: str | None = None
    dose_per_kg: float | None = None
    dosing_weight_kg: float | None = None
    hold_parameters: str | None = None
    start_at: datetime | None = None
    stop_at: datetime | None = None
    priority: str = "routine"
    occurrences: int = 1
    specimen: str | None = None
    department_id: int | None = None
    attending_provider_id: int | None = None
    level_of_care: str | None = None
    timeframe_value: int | None = None
    timeframe_unit: str | None = None
    code_status: str | None = None
    comments: str | None = None
    dispense_quantity: str | None = None
    refills: int | None = None
    order_mode: str = "inpatient"
    scale: list[ScaleBand] = field(default_factory=list)
    details: dict[str, str] = field(default_factory=dict)  # further Cerner-style fields
    order_set_id: int | None = None
    order_set_item_id: int | None = None

    def copy(self) -> OrderDraft:
        return replace(self, scale=list(self.scale), details=dict(self.details))


def is_medication_like(orderable: Orderable) -> bool:
    """Orders whose composer shows dose, route and frequency."""
    return orderable.order_type in ("medication", "iv_fluid") or (
        orderable.order_type == "respiratory" and orderable.dose_unit is not None)


def default_start(now: datetime) -> datetime:
    """Start 'now', on the minute (the composer's default start)."""
    return now.replace(second=0, microsecond=0)


def draft_for(orderable: Orderable, now: datetime, ref: Reference | None = None) -> OrderDraft:
    """A new draft with the catalog's defaults (and its first order sentence, if any)."""
    draft = OrderDraft(orderable_id=orderable.id, order_name=orderable.name,
                       order_type=orderable.order_type, priority=orderable.default_priority,
                       specimen=orderable.specimen)
    if is_medication_like(orderable) or orderable.order_type == "protocol":
        draft.dose = orderable.default_dose
        draft.dose_unit = orderable.dose_unit
        draft.route = orderable.default_route
        draft.frequency = orderable.default_frequency
    elif orderable.default_frequency:
        draft.frequency = orderable.default_frequency
    if ref is not None:
        freq = ref.frequency(draft.frequency)
        draft.prn = bool(freq and freq.kind == "prn")
    if orderable.order_type not in ("appointment",):
        draft.start_at = default_start(now)
    if orderable.order_type == "admit":
        draft.level_of_care = "Observation" if "observation" in orderable.name.lower() \
            else "Inpatient"
    if orderable.sentences:
        apply_sentence(draft, orderable.sentences[0], ref)
    return draft


def apply_sentence(draft: OrderDraft, sentence: Sentence, ref: Reference | None = None) -> None:
    """Fill a draft from a predefined order sentence (the composer's quick picks)."""
    draft.dose = sentence.dose
    if sentence.dose_unit:
        draft.dose_unit = sentence.dose_unit
    if sentence.route:
        draft.route = sentence.route
    if sentence.frequency:
        draft.frequency = sentence.frequency
    draft.prn = bool(sentence.prn)
    if ref is not None and not draft.prn:
        freq = ref.frequency(draft.frequency)
        draft.prn = bool(freq and freq.kind == "prn")
    draft.prn_reason = sentence.prn_reason if draft.prn else None
    if sentence.comments:
        draft.comments = sentence.comments


def draft_from_set_item(item, orderable: Orderable, order_set_id: int, now: datetime,
                        ref: Reference | None = None) -> OrderDraft:
    """The draft an order-set line stands for (``item`` has order_set_items' columns)."""
    draft = draft_for(orderable, now, ref)
    for name in ("dose", "dose_unit", "route", "frequency", "department_id"):
        value = getattr(item, name)
        if value is not None:
            setattr(draft, name, value)
    if item.dose is None and orderable.scale_allowed:
        draft.dose = None  # a scale order: the ranges are entered in the composer
    draft.prn = bool(item.prn) or draft.prn
    draft.prn_reason = item.prn_reason or (draft.prn_reason if draft.prn else None)
    draft.priority = item.priority or draft.priority
    draft.occurrences = item.occurrences or 1
    if orderable.order_type == "code_status" and item.comments:
        draft.code_status = item.comments
    elif item.comments:
        draft.comments = item.comments
    draft.order_set_id = order_set_id
    draft.order_set_item_id = item.id
    return draft


# -- rules -------------------------------------------------------------------------------
def missing_fields(draft: OrderDraft, orderable: Orderable, ref: Reference) -> list[str]:
    """Required details not yet given, by their field labels (empty when complete)."""
    missing: list[str] = []
    freq = ref.frequency(draft.frequency)
    if is_medication_like(orderable):
        if draft.dose is None:
            if orderable.scale_allowed:
                if not draft.scale:
                    missing.append("Dose or sliding scale ranges")
            else:
                missing.append("Dose")
        if not draft.route:
            missing.append("Route")
        if not draft.frequency:
            missing.append("Frequency")
        if draft.start_at is None:
            missing.append("Start date/time")
    is_prn = draft.prn or (freq is not None and freq.kind == "prn")
    if is_prn and orderable.prn_reason_required and not (draft.prn_reason or "").strip():
        missing.append("PRN reason")
    kind = orderable.order_type
    if kind == "admit" and draft.department_id is None:
        missing.append("Admit to (department)")
    if kind == "code_status" and not draft.code_status:
        missing.append("Code status")
    if kind == "appointment":
        if draft.department_id is None:
            missing.append("Department")
        if not draft.timeframe_value or not draft.timeframe_unit:
            missing.append("Follow-up timeframe")
    if kind == "discharge" and not draft.details.get("Disposition"):
        missing.append("Disposition")
    return missing


def invalid_fields(draft: OrderDraft, ref: Reference) -> list[str]:
    """Values that are present but wrong together (stop before start, bad scale …)."""
    problems = []
    if draft.frequency and ref.frequency(draft.frequency) is None:
        problems.append(f"Frequency '{draft.frequency}' is not in the frequency list.")
    if draft.route and ref.route(draft.route) is None:
        problems.append(f"Route '{draft.route}' is not in the route list.")
    if draft.start_at and draft.stop_at and draft.stop_at <= draft.start_at:
        problems.append(f"Stop ({format_datetime(draft.stop_at)}) must be after start "
                        f"({format_datetime(draft.start_at)}).")
    if draft.dose is not None and not 0 < draft.dose <= MAX_DOSE:
        problems.append(f"Dose {format_number(draft.dose)} is out of range.")
    if draft.scale:
        problems.extend(scale_problems(draft.scale))
    if draft.priority not in PRIORITIES:
        problems.append(f"Priority '{draft.priority}' is not one of "
                        f"{', '.join(PRIORITY_LABELS.values())}.")
    if draft.timeframe_unit and draft.timeframe_unit not in TIMEFRAME_UNITS:
        problems.append(f"Timeframe unit '{draft.timeframe_unit}' is not days, weeks or months.")
    return problems


# -- display -----------------------------------------------------------------------------
def describe(draft: OrderDraft, ref: Reference, with_start: bool = True) -> str:
    """The order sentence shown in pending lists ('1 g, IV, every 24 hours, ...')."""
    parts: list[str] = []
    if draft.dose is not None:
        parts.append(f"{format_number(draft.dose)} {draft.dose_unit or ''}".strip())
    elif draft.scale:
        parts.append(f"correctional scale ({len(draft.scale)} ranges)")
    if draft.route:
        route = ref.route(draft.route)
        parts.append(route.display if route else draft.route)
    if draft.frequency:
        freq = ref.frequency(draft.frequency)
        parts.append(freq.display if freq else draft.frequency)
    if draft.prn and draft.prn_reason:
        parts.append(f"PRN {draft.prn_reason}")
    if draft.order_type == "admit" and draft.department_id:
        dept = ref.department(draft.department_id)
        parts.append(f"{draft.level_of_care or 'Inpatient'} - {dept.name if dept else ''}")
    if draft.order_type == "code_status" and draft.code_status:
        parts.append(draft.code_status)
    if draft.order_type == "appointment":
        dept = ref.department(draft.department_id)
        if dept:
            parts.append(dept.name)
        if draft.timeframe_value:
            parts.append(f"in {draft.timeframe_value} {draft.timeframe_unit or ''}".strip())
    if draft.order_type == "discharge" and draft.details.get("Disposition"):
        parts.append(draft.details["Disposition"])
    if draft.order_type == "lab":
        parts.append(PRIORITY_LABELS.get(draft.priority, draft.priority))
        if draft.occurrences > 1:
            parts.append(f"x{draft.occurrences}")
    if draft.hold_parameters:
        parts.append(draft.hold_parameters)
    if with_start and draft.start_at and draft.order_type != "appointment":
        parts.append(f"starting {format_datetime(draft.start_at)}")
    if draft.stop_at:
        parts.append(f"until {format_datetime(draft.stop_at)}")
    return ", ".join(p for p in parts if p)
