"""Medication reconciliation: admission (PowerChart) and discharge (Hyperspace navigator).

Admission: each prior-to-admission (home) medication gets Continue, Do Not Continue
(``discontinue``), Modify or Hold; signing writes the reconciliation, its items, and an
inpatient order for every continued or modified medication — and for nothing else.

Discharge: each home medication gets Continue, Change (new dose) or Stop; each medication
started in the hospital (an item with a source order but no home medication) gets New
(prescribe it for home) or Stop; further new medications are added from the catalog.
Signing writes the reconciliation and its items, and a discharge prescription
(``order_mode='discharge'``) for every new or changed medication.

The state is edited in memory; :func:`sign_med_rec` is the one transaction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select

from desktop_ehr.services.catalog import Reference
from desktop_ehr.services.parsing import format_number
from desktop_ehr.session import EhrContext

ADMISSION_ACTIONS = ("continue", "discontinue", "modify", "hold")
DISCHARGE_ACTIONS = ("continue", "change", "stop", "new")
ORDERING_ACTIONS = {"admission": ("continue", "modify"), "discharge": ("new", "change")}
CHANGE_ACTIONS = ("modify", "change")


class MedRecRefused(Exception):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass
class RecRow:
    """One medication of a reconciliation: what the patient took, and what happens now."""

    medication: str
    orderable_id: int | None = None
    dose: float | None = None
    dose_unit: str | None = None
    route: str | None = None
    frequency: str | None = None
    sig: str | None = None
    last_dose_at: datetime | None = None
    home_medication_id: int | None = None
    source_order_id: int | None = None
    item_id: int | None = None
    action: str | None = None
    new_dose: float | None = None
    new_dose_unit: str | None = None
    new_route: str | None = None
    new_frequency: str | None = None
    hold_reason: str | None = None
    comments: str | None = None
    prn: bool = False
    prn_reason: str | None = None
    generated_order_id: int | None = None

    @property
    def from_home(self) -> bool:
        return self.home_medication_id is not None

    @property
    def added(self) -> bool:
        """Added in this reconciliation from the catalog (not on the stored list)."""
        return self.item_id is None and self.home_medication_id is None and \
            self.source_order_id is None

    @property
    def before_text(self) -> str:
        if self.added:
            return ""
        parts = [f"{format_number(self.dose)} {self.dose_unit or ''}".strip()
                 if self.dose is not None else "", self.route or "", self.frequency or ""]
        return ", ".join(p for p in parts if p)

    @property
    def after_text(self) -> str:
        """The 'after' column: the order or list entry this action leaves."""
        if self.action in ("continue",):
            return self.before_text
        if self.action in CHANGE_ACTIONS or self.action == "new":
            dose = self.new_dose if self.new_dose is not None else self.dose
            unit = self.new_dose_unit or self.dose_unit
            parts = [f"{format_number(dose)} {unit or ''}".strip() if dose is not None else "",
                     self.new_route or self.route or "",
                     self.new_frequency or self.frequency or ""]
            return ", ".join(p for p in parts if p)
        if self.action == "hold":
            return f"Held: {self.hold_reason}" if self.hold_reason else "Held (reason needed)"
        if self.action in ("discontinue", "stop"):
            return "Not continued" if self.action == "discontinue" else "Stopped"
        return ""


@dataclass
class MedRecState:
    rec_type: str
    patient_id: int
    encounter_id: int | None
    med_rec_id: int | None = None
    status: str = "not_started"
    signed_at: datetime | None = None
    rows: list[RecRow] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.status == "complete"

    @property
    def actions(self) -> tuple[str, ...]:
        return ADMISSION_ACTIONS if self.rec_type == "admission" else DISCHARGE_ACTIONS


def match_orderable(ref: Reference, medication: str) -> int | None:
    """The catalog entry of a free-text home medication ('amLODIPine 5 mg tablet')."""
    words = medication.lower().replace("(", " ").split()
    if not words:
        return None
    for orderable in ref.orderables.values():
        generic = (orderable.generic_name or "").lower()
        if generic and " ".join(words).startswith(generic):
            return orderable.id
    return None


def load_med_rec(ctx: EhrContext, patient_id: int, encounter_id: int | None, rec_type: str,
                 ref: Reference | None = None) -> MedRecState:
    """The encounter's reconciliation of this type: stored, or started from the home list."""
    m = ctx.models
    state = MedRecState(rec_type, patient_id, encounter_id)
    with ctx.reader() as s:
        rec = None
        if encounter_id is not None:
            rec = s.scalars(select(m.MedRec).where(m.MedRec.encounter_id == encounter_id,
                                                   m.MedRec.rec_type == rec_type)
                            .order_by(m.MedRec.id.desc())).first()
        homes = {h.id: h for h in s.scalars(
            select(m.HomeMedication).where(m.HomeMedication.patient_id == patient_id)
            .order_by(m.HomeMedication.sort, m.HomeMedication.id))}
        if rec is not None:
            state.med_rec_id, state.status, state.signed_at = rec.id, rec.status, rec.signed_at
            for item in s.scalars(select(m.MedRecItem).where(m.MedRecItem.med_rec_id == rec.id)
                                  .order_by(m.MedRecItem.sort, m.MedRecItem.id)):
                home = homes.get(item.home_medication_id)
                source = s.get(m.Order, item.source_order_id) if item.source_order_id \
                    else None
                state.rows.append(_row(home, item, source))
            listed = {r.home_medication_id for r in state.rows}
            if not state.complete:
                state.rows += [_row(h, None) for h in homes.values()
                               if h.id not in listed and h.status == "active"]
        else:
            state.rows = [_row(h, None) for h in homes.values() if h.status == "active"]
    if ref is not None:
        for row in state.rows:
            if row.orderable_id is None:
                row.orderable_id = match_orderable(ref, row.medication)
    return state


def _row(home, item, source=None) -> RecRow:
    row = RecRow(medication=(home.medication if home else item.medication))
    if home is None and source is not None:  # started in the hospital: its order's sentence
        row.orderable_id = source.orderable_id
        row.dose, row.dose_unit, row.route = source.dose, source.dose_unit, source.route
        row.frequency = source.frequency
        row.prn, row.prn_reason = bool(source.prn), source.prn_reason
        row.sig = "Started this admission"
    if home is not None:
        row.home_medication_id = home.id
        row.orderable_id = home.orderable_id
        row.dose, row.dose_unit, row.route = home.dose, home.dose_unit, home.route
        row.frequency, row.sig, row.last_dose_at = home.frequency, home.sig, home.last_dose_at
        row.prn, row.prn_reason = bool(home.prn), home.prn_reason
    if item is not None:
        row.item_id = item.id
        row.orderable_id = item.orderable_id or row.orderable_id
        row.source_order_id = item.source_order_id
        row.action = item.action
        row.new_dose, row.new_dose_unit = item.new_dose, item.new_dose_unit
        row.new_route, row.new_frequency = item.new_route, item.new_frequency
        row.hold_reason, row.comments = item.hold_reason, item.comments
        row.generated_order_id = item.generated_order_id
    return row


def rec_problems(state: MedRecState, ref: Reference) -> list[str]:
    """Why the reconciliation cannot be signed yet (empty when it can)."""
    problems = []
    undecided = [r.medication for r in state.rows if r.action is None]
    if undecided:
        problems.append(f"Choose an action for {len(undecided)} medication"
                        f"{'s' if len(undecided) > 1 else ''}: {'; '.join(undecided)}")
    for row in state.rows:
        if row.action is not None and row.action not in state.actions:
            problems.append(f"{row.medication}: '{row.action}' is not an action of a "
                            f"{state.rec_type} reconciliation.")
        if row.action in CHANGE_ACTIONS:
            if row.new_dose is None:
                problems.append(f"{row.medication}: {row.action} needs the new dose.")
            elif (row.new_dose == row.dose and (row.new_route or row.route) == row.route
                  and (row.new_frequency or row.frequency) == row.frequency):
                problems.append(f"{row.medication}: the new dose, route and frequency are "
                                "the same as before; choose Continue instead.")
        if row.action == "hold" and not (row.hold_reason or "").strip():
            problems.append(f"{row.medication}: Hold needs a reason (e.g. until surgery).")
        if state.rec_type == "discharge" and row.action is not None:
            if row.from_home and row.action == "new":
                problems.append(f"{row.medication}: a home medication is continued, changed "
                                "or stopped, not new.")
            if not row.from_home and row.action in ("continue", "change"):
                problems.append(f"{row.medication}: started in the hospital — choose New to "
                                "prescribe it for home, or Stop.")
        if row.action == "new" and (row.new_dose is None or not row.new_route
                                    or not row.new_frequency):
            problems.append(f"{row.medication}: a new medication needs dose, route and "
                            "frequency.")
        if row.action in ORDERING_ACTIONS[state.rec_type] and row.orderable_id is None:
            problems.append(f"{row.medication}: not in the order catalog; order it "
                            "separately and choose another action here.")
        if row.orderable_id is not None and row.orderable_id not in ref.orderables \
                and row.action in ORDERING_ACTIONS[state.rec_type]:
            problems.append(f"{row.medication}: its catalog entry is inactive.")
    return problems


def sign_med_rec(ctx: EhrContext, state: MedRecState, ref: Reference) -> int:
    """Write the reconciliation, its items and the orders it generates (one transaction)."""
    if state.complete:
        raise MedRecRefused(["This reconciliation is already signed."])
    if state.encounter_id is None:
        raise MedRecRefused(["The patient has no encounter to reconcile against."])
    problems = rec_problems(state, ref)
    if problems:
        raise MedRecRefused(problems)
    m = ctx.models
    user = ctx.user
    now = ctx.now()
    ordering = ORDERING_ACTIONS[state.rec_type]
    with ctx.write() as s:
        rec = s.get(m.MedRec, state.med_rec_id) if state.med_rec_id else None
        if rec is None:
            rec = m.MedRec(patient_id=state.patient_id, encounter_id=state.encounter_id,
                           rec_type=state.rec_type, status="in_progress", started_at=now,
                           started_by_user_id=user.id)
            s.add(rec)
            s.flush()
        elif rec.started_at is None:
            rec.started_at, rec.started_by_user_id = now, user.id
        admission_id = s.scalars(
            select(m.Order.id).where(m.Order.encounter_id == state.encounter_id,
                                     m.Order.order_type == "admit", m.Order.status == "signed")
            .order_by(m.Order.id.desc())).first()
        for sort, row in enumerate(state.rows, start=1):
            item = s.get(m.MedRecItem, row.item_id) if row.item_id else None
            if item is None:
                item = m.MedRecItem(med_rec_id=rec.id, medication=row.medication[:120])
                s.add(item)
            item.home_medication_id = row.home_medication_id
            item.orderable_id = row.orderable_id
            item.action = row.action
            changed = row.action in CHANGE_ACTIONS or row.action == "new"
            item.new_dose = row.new_dose if changed else None
            item.new_dose_unit = (row.new_dose_unit or row.dose_unit) if changed else None
            item.new_route = (row.new_route or row.route) if changed else None
            item.new_frequency = (row.new_frequency or row.frequency) if changed else None
            item.hold_reason = row.hold_reason if row.action == "hold" else None
            item.comments = row.comments or None
            item.sort = sort
            s.flush()
            if row.action in ordering:
                order = _generated_order(m, ref, state, row, user, now)
                order.admission_order_id = admission_id if state.rec_type == "admission" \
                    else None
                s.add(order)
                s.flush()
                item.generated_order_id = order.id
        rec.status = "complete"
        rec.signed_at = now
        rec.signed_by_user_id = user.id
        if state.rec_type == "discharge":
            from desktop_ehr.services.discharge import ensure_discharge, mark_section_in

            discharge = ensure_discharge(s, m, state.patient_id, state.encounter_id)
            discharge.med_rec_id = rec.id
            mark_section_in(s, m, discharge, "Discharge Med Rec", now, user.id)
        return rec.id


def _generated_order(m, ref: Reference, state: MedRecState, row: RecRow, user, now):
    orderable = ref.orderables[row.orderable_id]
    changed = row.action in CHANGE_ACTIONS or row.action == "new"
    dose = row.new_dose if changed and row.new_dose is not None else row.dose
    return m.Order(
        patient_id=state.patient_id, encounter_id=state.encounter_id,
        orderable_id=orderable.id, order_name=orderable.name, order_type=orderable.order_type,
        order_mode="inpatient" if state.rec_type == "admission" else "discharge",
        status="signed", priority="routine", dose=dose,
        dose_unit=(row.new_dose_unit if changed and row.new_dose_unit else row.dose_unit)
        or orderable.dose_unit,
        route=(row.new_route if changed and row.new_route else row.route),
        frequency=(row.new_frequency if changed and row.new_frequency else row.frequency),
        prn=row.prn, prn_reason=row.prn_reason if row.prn else None,
        start_at=now, comments=row.comments or None,
        ordering_user_id=user.id, ordering_provider_id=user.provider_id, entered_at=now,
        signed_at=now, signed_by_user_id=user.id)
