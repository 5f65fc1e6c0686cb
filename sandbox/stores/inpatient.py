"""Column mixins for the two desktop-EHR stores (``hyperspace`` and ``powerchart``).

Both licensed clients chart the same hospital facts — patients on units, encounters, orders
signed from order sets, medication reconciliation, notes with addenda, scanned documents —
so their tables share one structure. Each store still declares its own mapped classes on its
own ``Base`` (``sandbox/stores/hyperspace.py``, ``powerchart.py``); persona-only columns such
as PowerChart's FIN live there. The client labels things in its persona's words (Order Set vs
PowerPlan, In Basket vs Message Center); the stored vocabulary below is one, so a verifier
reads both stores the same way.

Rules every column follows (house rules of the stores):
- defaults are Python-side only, so the audit sees every value;
- datetimes are naive sandbox-local; nothing here reads a clock — the writer sets times
  from the sandbox clock;
- coded values (statuses, actions, order types) are checked on assignment against the
  vocabularies below, so a typo in a seed or in the client fails loudly.
"""

from __future__ import annotations

import hashlib
from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column, validates

# -- vocabularies ------------------------------------------------------------------------
DEPARTMENT_KINDS = ("inpatient_unit", "emergency", "clinic", "procedural", "ancillary")
USER_ROLES = ("Physician", "Resident", "Nurse Practitioner", "RN", "Pharmacist", "Unit Clerk",
              "HIM")
SEXES = ("Male", "Female", "Other", "Unknown")
ENCOUNTER_TYPES = ("inpatient", "observation", "emergency", "outpatient")
ENCOUNTER_STATUSES = ("preadmit", "active", "discharged", "closed", "canceled")  # closed: clinic visit done
ALLERGY_SEVERITIES = ("mild", "moderate", "severe", "unknown")
ALLERGY_KINDS = ("drug", "food", "environmental", "other")
ACTIVE_STATUSES = ("active", "inactive", "resolved", "discontinued")
ORDER_TYPES = ("medication", "lab", "imaging", "nursing", "admit", "discharge", "consult",
               "code_status", "appointment", "diet", "activity", "protocol", "iv_fluid",
               "respiratory", "communication")
ORDER_STATUSES = ("pending", "signed", "held", "discontinued", "completed", "canceled")
ORDER_MODES = ("inpatient", "discharge", "outpatient")
ORDER_PRIORITIES = ("routine", "stat", "now", "timed", "am_draw")
FREQUENCY_KINDS = ("scheduled", "prn", "once", "continuous", "meal_based")
TIMEFRAME_UNITS = ("days", "weeks", "months")
MAR_STATUSES = ("due", "given", "held", "not_given", "refused", "missed")
RESULT_STATUSES = ("preliminary", "final", "corrected")
NOTE_STATUSES = ("in_progress", "pended", "signed")
MED_REC_TYPES = ("admission", "discharge", "transfer")
MED_REC_STATUSES = ("not_started", "in_progress", "complete")
# admission rec uses continue/discontinue/modify/hold; discharge rec continue/new/stop/change
MED_REC_ACTIONS = ("continue", "discontinue", "modify", "hold", "new", "stop", "change")
DISCHARGE_STATUSES = ("in_progress", "complete")
SECTION_STATUSES = ("not_started", "in_progress", "complete")
AVS_ACTIONS = ("preview", "print")
INSTRUCTION_STATUSES = ("in_progress", "signed")
DOCUMENT_STATUSES = ("unfiled", "filed", "deleted")
MESSAGE_STATUSES = ("new", "read", "done")
APPOINTMENT_STATUSES = ("scheduled", "pending_scheduling", "completed", "canceled", "no_show")


def _checked(field: str, value: Any, allowed: tuple[str, ...]) -> Any:
    if value is not None and value not in allowed:
        raise ValueError(f"{field} {value!r} is not one of: {', '.join(allowed)}")
    return value


def sha256_hex(data: bytes | str) -> str:
    """Hex sha256 of bytes, or of text encoded as UTF-8 (how note hashes are taken)."""
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    return hashlib.sha256(raw).hexdigest()


def password_digest(username: str, password: str) -> str:
    """What ``users.password_sha256`` stores: sha256 of ``USERNAME:password``.

    Training log-ins are synthetic and published in the world file's comments; the digest
    only keeps the plain password out of the extract the verifier and agent reports see.
    """
    return sha256_hex(f"{username.upper()}:{password}")


# -- reference data ----------------------------------------------------------------------
class DepartmentColumns:
    """A unit, clinic or service: where patients lie, and where follow-ups are booked."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)  # 'Medicine', 'Cardiology'
    abbreviation: Mapped[str | None] = mapped_column(String(16))  # '4W', 'CARD'
    kind: Mapped[str] = mapped_column(String(20), default="clinic")
    specialty: Mapped[str | None] = mapped_column(String(80))
    location: Mapped[str | None] = mapped_column(String(120))
    phone: Mapped[str | None] = mapped_column(String(20))
    schedulable: Mapped[bool] = mapped_column(Boolean, default=False)  # follow-up target

    @validates("kind")
    def _kind(self, _key: str, value: str) -> str:
        return _checked("department kind", value, DEPARTMENT_KINDS)


class ProviderColumns:
    """A clinician who can be attending, PCP, consultant or the booked provider."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(120))  # 'Haddad, Omar MD'
    credential: Mapped[str | None] = mapped_column(String(16))
    specialty: Mapped[str | None] = mapped_column(String(80))
    npi: Mapped[str | None] = mapped_column(String(10))
    department_id: Mapped[int | None] = mapped_column(ForeignKey("departments.id"))


class UserColumns:
    """A training log-in (the agent signs in as one); orders and notes name their user."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(32), unique=True)
    display_name: Mapped[str] = mapped_column(String(120))  # 'Trainee, Epic'
    role: Mapped[str] = mapped_column(String(32), default="Physician")
    provider_id: Mapped[int | None] = mapped_column(ForeignKey("providers.id"))
    password_sha256: Mapped[str] = mapped_column(String(64))  # see password_digest()
    can_sign_orders: Mapped[bool] = mapped_column(Boolean, default=True)
    active: Mapped[bool] = mapped_column(Boolean, default=True)

    @validates("role")
    def _role(self, _key: str, value: str) -> str:
        return _checked("user role", value, USER_ROLES)


class FrequencyColumns:
    """An administration frequency the order composer offers ('Q12H', 'AC & HS')."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(24), unique=True)  # what orders store
    display: Mapped[str] = mapped_column(String(60))
    kind: Mapped[str] = mapped_column(String(16), default="scheduled")
    interval_hours: Mapped[float | None] = mapped_column(Float)
    admin_times: Mapped[str | None] = mapped_column(String(80))  # '08:00, 20:00'
    sort: Mapped[int] = mapped_column(Integer, default=0)

    @validates("kind")
    def _kind(self, _key: str, value: str) -> str:
        return _checked("frequency kind", value, FREQUENCY_KINDS)


class RouteColumns:
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(16), unique=True)  # 'IV', 'SC', 'PO'
    display: Mapped[str] = mapped_column(String(60))
    sort: Mapped[int] = mapped_column(Integer, default=0)


class DocumentTypeColumns:
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)  # 'Advance Directive'
    category: Mapped[str | None] = mapped_column(String(60))
    sort: Mapped[int] = mapped_column(Integer, default=0)


# -- the chart ---------------------------------------------------------------------------
class PatientColumns:
    """The banner / Storyboard facts of one patient (current values; history elsewhere)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    mrn: Mapped[str] = mapped_column(String(16), unique=True)
    last_name: Mapped[str] = mapped_column(String(60))
    first_name: Mapped[str] = mapped_column(String(60))
    middle_name: Mapped[str | None] = mapped_column(String(60))
    dob: Mapped[date] = mapped_column(Date)
    sex: Mapped[str] = mapped_column(String(8))
    preferred_language: Mapped[str] = mapped_column(String(32), default="English")
    phone: Mapped[str | None] = mapped_column(String(20))
    address: Mapped[str | None] = mapped_column(String(160))
    unit_id: Mapped[int | None] = mapped_column(ForeignKey("departments.id"))
    room: Mapped[str | None] = mapped_column(String(8))
    bed: Mapped[str | None] = mapped_column(String(4))
    attending_provider_id: Mapped[int | None] = mapped_column(ForeignKey("providers.id"))
    pcp_provider_id: Mapped[int | None] = mapped_column(ForeignKey("providers.id"))
    code_status: Mapped[str | None] = mapped_column(String(80))  # as the banner shows it
    isolation: Mapped[str | None] = mapped_column(String(40))
    weight_kg: Mapped[float | None] = mapped_column(Float)  # the charted (dosing) weight
    weight_date: Mapped[datetime | None] = mapped_column(DateTime)
    height_cm: Mapped[float | None] = mapped_column(Float)
    allergies_summary: Mapped[str | None] = mapped_column(String(200))  # 'Penicillins, Latex'
    coverage: Mapped[str | None] = mapped_column(String(80))

    @validates("sex")
    def _sex(self, _key: str, value: str) -> str:
        return _checked("sex", value, SEXES)


class EncounterColumns:
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    patient_id: Mapped[int] = mapped_column(ForeignKey("patients.id"), index=True)
    encounter_type: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), default="active")
    department_id: Mapped[int | None] = mapped_column(ForeignKey("departments.id"))
    attending_provider_id: Mapped[int | None] = mapped_column(ForeignKey("providers.id"))
    admit_at: Mapped[datetime | None] = mapped_column(DateTime)  # arrival / admission
    discharge_at: Mapped[datetime | None] = mapped_column(DateTime)
    reason_for_visit: Mapped[str | None] = mapped_column(String(160))
    disposition: Mapped[str | None] = mapped_column(String(60))

    @validates("encounter_type")
    def _type(self, _key: str, value: str) -> str:
        return _checked("encounter type", value, ENCOUNTER_TYPES)

    @validates("status")
    def _status(self, _key: str, value: str) -> str:
        return _checked("encounter status", value, ENCOUNTER_STATUSES)


class AllergyColumns:
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    patient_id: Mapped[int] = mapped_column(ForeignKey("patients.id"), index=True)
    allergen: Mapped[str] = mapped_column(String(80))
    kind: Mapped[str] = mapped_column(String(16), default="drug")
    reaction: Mapped[str | None] = mapped_column(String(80))
    severity: Mapped[str] = mapped_column(String(12), default="unknown")
    status: Mapped[str] = mapped_column(String(16), default="active")
    noted_date: Mapped[date | None] = mapped_column(Date)

    @validates("kind")
    def _kind(self, _key: str, value: str) -> str:
        return _checked("allergy kind", value, ALLERGY_KINDS)

    @validates("severity")
    def _severity(self, _key: str, value: str) -> str:
        return _checked("allergy severity", value, ALLERGY_SEVERITIES)


class ProblemColumns:
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    patient_id: Mapped[int] = mapped_column(ForeignKey("patients.id"), index=True)
    description: Mapped[str] = mapped_column(String(160))
    icd10: Mapped[str | None] = mapped_column(String(10))
    status: Mapped[str] = mapped_column(String(16), default="active")
    hospital_problem: Mapped[bool] = mapped_column(Boolean, default=False)
    principal: Mapped[bool] = mapped_column(Boolean, default=False)
    onset_date: Mapped[date | None] = mapped_column(Date)
    noted_date: Mapped[date | None] = mapped_column(Date)

    @validates("status")
    def _status(self, _key: str, value: str) -> str:
        return _checked("problem status", value, ACTIVE_STATUSES)


class HomeMedicationColumns:
    """A prior-to-admission (home) medication as the patient takes it."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    patient_id: Mapped[int] = mapped_column(ForeignKey("patients.id"), index=True)
    orderable_id: Mapped[int | None] = mapped_column(ForeignKey("orderables.id"))
    medication: Mapped[str] = mapped_column(String(120))  # 'metoprolol tartrate 50 mg tablet'
    dose: Mapped[float | None] = mapped_column(Float)
    dose_unit: Mapped[str | None] = mapped_column(String(16))
    route: Mapped[str | None] = mapped_column(String(16))
    frequency: Mapped[str | None] = mapped_column(String(24))  # frequencies.code
    prn: Mapped[bool] = mapped_column(Boolean, default=False)
    prn_reason: Mapped[str | None] = mapped_column(String(80))
    indication: Mapped[str | None] = mapped_column(String(120))
    sig: Mapped[str | None] = mapped_column(String(200))  # as the patient reports it
    last_dose_at: Mapped[datetime | None] = mapped_column(DateTime)
    prescriber: Mapped[str | None] = mapped_column(String(120))
    status: Mapped[str] = mapped_column(String(16), default="active")
    sort: Mapped[int] = mapped_column(Integer, default=0)

    @validates("status")
    def _status(self, _key: str, value: str) -> str:
        return _checked("home medication status", value, ACTIVE_STATUSES)


class VitalSignColumns:
    """One flowsheet row (Interactive View / Flowsheets); weight history lives here."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    patient_id: Mapped[int] = mapped_column(ForeignKey("patients.id"), index=True)
    encounter_id: Mapped[int | None] = mapped_column(ForeignKey("encounters.id"))
    taken_at: Mapped[datetime] = mapped_column(DateTime)
    temp_c: Mapped[float | None] = mapped_column(Float)
    heart_rate: Mapped[int | None] = mapped_column(Integer)
    resp_rate: Mapped[int | None] = mapped_column(Integer)
    bp_systolic: Mapped[int | None] = mapped_column(Integer)
    bp_diastolic: Mapped[int | None] = mapped_column(Integer)
    spo2: Mapped[int | None] = mapped_column(Integer)
    weight_kg: Mapped[float | None] = mapped_column(Float)
    height_cm: Mapped[float | None] = mapped_column(Float)
    recorded_by: Mapped[str | None] = mapped_column(String(120))


# -- ordering ----------------------------------------------------------------------------
class OrderableColumns:
    """A catalog entry the order search finds, with its default order sentence."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(120))  # 'cefTRIAXone (ROCEPHIN) injection'
    order_type: Mapped[str] = mapped_column(String(16))
    search_terms: Mapped[str | None] = mapped_column(String(200))  # synonyms, brand names
    generic_name: Mapped[str | None] = mapped_column(String(80))
    therapeutic_class: Mapped[str | None] = mapped_column(String(60))  # duplicate warnings
    default_dose: Mapped[float | None] = mapped_column(Float)
    dose_unit: Mapped[str | None] = mapped_column(String(16))
    default_route: Mapped[str | None] = mapped_column(String(16))
    default_frequency: Mapped[str | None] = mapped_column(String(24))
    prn_allowed: Mapped[bool] = mapped_column(Boolean, default=False)
    prn_reason_required: Mapped[bool] = mapped_column(Boolean, default=True)
    default_priority: Mapped[str] = mapped_column(String(12), default="routine")
    weight_based_dose: Mapped[float | None] = mapped_column(Float)  # e.g. 1.0 (mg/kg)
    weight_based_unit: Mapped[str | None] = mapped_column(String(16))  # 'mg/kg'
    specimen: Mapped[str | None] = mapped_column(String(40))  # labs
    choices: Mapped[list | None] = mapped_column(JSON)  # code status selections etc.
    high_alert: Mapped[bool] = mapped_column(Boolean, default=False)
    scale_allowed: Mapped[bool] = mapped_column(Boolean, default=False)  # sliding scales
    description: Mapped[str | None] = mapped_column(Text)
    active: Mapped[bool] = mapped_column(Boolean, default=True)

    @validates("order_type")
    def _type(self, _key: str, value: str) -> str:
        return _checked("order type", value, ORDER_TYPES)

    @validates("default_priority")
    def _priority(self, _key: str, value: str) -> str:
        return _checked("priority", value, ORDER_PRIORITIES)


class OrderSentenceColumns:
    """A predefined sentence for an orderable ('1 g, IV, q24h'); the first is the default."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    orderable_id: Mapped[int] = mapped_column(ForeignKey("orderables.id"), index=True)
    display: Mapped[str] = mapped_column(String(160))
    dose: Mapped[float | None] = mapped_column(Float)
    dose_unit: Mapped[str | None] = mapped_column(String(16))
    route: Mapped[str | None] = mapped_column(String(16))
    frequency: Mapped[str | None] = mapped_column(String(24))
    prn: Mapped[bool] = mapped_column(Boolean, default=False)
    prn_reason: Mapped[str | None] = mapped_column(String(80))
    comments: Mapped[str | None] = mapped_column(String(200))
    sort: Mapped[int] = mapped_column(Integer, default=0)


class OrderSetColumns:
    """An order set (Hyperspace) or PowerPlan (PowerChart)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    description: Mapped[str | None] = mapped_column(Text)
    specialty: Mapped[str | None] = mapped_column(String(60))
    active: Mapped[bool] = mapped_column(Boolean, default=True)


class OrderSetSectionColumns:
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    order_set_id: Mapped[int] = mapped_column(ForeignKey("order_sets.id"), index=True)
    name: Mapped[str] = mapped_column(String(120))  # 'Antibiotics', 'VTE Prophylaxis'
    phase: Mapped[str | None] = mapped_column(String(60))  # PowerPlan phase, if phased
    choose_one: Mapped[bool] = mapped_column(Boolean, default=False)  # radio vs checkboxes
    guidance: Mapped[str | None] = mapped_column(Text)
    sort: Mapped[int] = mapped_column(Integer, default=0)


class OrderSetItemColumns:
    """One orderable line of a section, its sentence, and whether it comes pre-checked."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    section_id: Mapped[int] = mapped_column(ForeignKey("order_set_sections.id"), index=True)
    orderable_id: Mapped[int] = mapped_column(ForeignKey("orderables.id"))
    display: Mapped[str] = mapped_column(String(200))
    dose: Mapped[float | None] = mapped_column(Float)
    dose_unit: Mapped[str | None] = mapped_column(String(16))
    route: Mapped[str | None] = mapped_column(String(16))
    frequency: Mapped[str | None] = mapped_column(String(24))
    prn: Mapped[bool] = mapped_column(Boolean, default=False)
    prn_reason: Mapped[str | None] = mapped_column(String(80))
    priority: Mapped[str] = mapped_column(String(12), default="routine")
    occurrences: Mapped[int] = mapped_column(Integer, default=1)
    department_id: Mapped[int | None] = mapped_column(ForeignKey("departments.id"))  # admit to
    comments: Mapped[str | None] = mapped_column(String(200))
    default_selected: Mapped[bool] = mapped_column(Boolean, default=False)
    sort: Mapped[int] = mapped_column(Integer, default=0)


class OrderColumns:
    """One order: pending until signed; every detail the composer edits is a column."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    patient_id: Mapped[int] = mapped_column(ForeignKey("patients.id"), index=True)
    encounter_id: Mapped[int | None] = mapped_column(ForeignKey("encounters.id"), index=True)
    orderable_id: Mapped[int] = mapped_column(ForeignKey("orderables.id"))
    order_name: Mapped[str] = mapped_column(String(120))  # orderable name at ordering time
    order_type: Mapped[str] = mapped_column(String(16))
    order_mode: Mapped[str] = mapped_column(String(12), default="inpatient")
    status: Mapped[str] = mapped_column(String(16), default="pending")
    priority: Mapped[str] = mapped_column(String(12), default="routine")
    # medication details
    dose: Mapped[float | None] = mapped_column(Float)
    dose_unit: Mapped[str | None] = mapped_column(String(16))
    route: Mapped[str | None] = mapped_column(String(16))
    frequency: Mapped[str | None] = mapped_column(String(24))  # frequencies.code
    prn: Mapped[bool] = mapped_column(Boolean, default=False)
    prn_reason: Mapped[str | None] = mapped_column(String(80))
    dose_per_kg: Mapped[float | None] = mapped_column(Float)  # weight-based helper input
    dosing_weight_kg: Mapped[float | None] = mapped_column(Float)  # weight the helper used
    hold_parameters: Mapped[str | None] = mapped_column(String(200))  # 'hold if NPO and BG<150'
    dispense_quantity: Mapped[str | None] = mapped_column(String(40))  # discharge Rx
    refills: Mapped[int | None] = mapped_column(Integer)
    # timing
    start_at: Mapped[datetime | None] = mapped_column(DateTime)
    stop_at: Mapped[datetime | None] = mapped_column(DateTime)
    occurrences: Mapped[int] = mapped_column(Integer, default=1)  # 'x2' for blood cultures
    hold_start_at: Mapped[datetime | None] = mapped_column(DateTime)  # status held: from
    hold_end_at: Mapped[datetime | None] = mapped_column(DateTime)  # … until (resume)
    hold_reason: Mapped[str | None] = mapped_column(String(120))
    # non-medication details
    specimen: Mapped[str | None] = mapped_column(String(40))
    department_id: Mapped[int | None] = mapped_column(ForeignKey("departments.id"))
    attending_provider_id: Mapped[int | None] = mapped_column(ForeignKey("providers.id"))
    level_of_care: Mapped[str | None] = mapped_column(String(40))  # admit: 'Inpatient'
    timeframe_value: Mapped[int | None] = mapped_column(Integer)  # follow-up: 7 …
    timeframe_unit: Mapped[str | None] = mapped_column(String(8))  # … 'days'
    code_status: Mapped[str | None] = mapped_column(String(80))  # code status selection
    comments: Mapped[str | None] = mapped_column(Text)
    # provenance and links
    order_set_id: Mapped[int | None] = mapped_column(ForeignKey("order_sets.id"))
    order_set_item_id: Mapped[int | None] = mapped_column(ForeignKey("order_set_items.id"))
    admission_order_id: Mapped[int | None] = mapped_column(ForeignKey("orders.id"))
    supersedes_order_id: Mapped[int | None] = mapped_column(ForeignKey("orders.id"))
    ordering_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    ordering_provider_id: Mapped[int | None] = mapped_column(ForeignKey("providers.id"))
    entered_at: Mapped[datetime | None] = mapped_column(DateTime)
    signed_at: Mapped[datetime | None] = mapped_column(DateTime)
    signed_by_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    discontinued_at: Mapped[datetime | None] = mapped_column(DateTime)
    discontinued_by_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    discontinue_reason: Mapped[str | None] = mapped_column(String(120))

    @validates("order_type")
    def _type(self, _key: str, value: str) -> str:
        return _checked("order type", value, ORDER_TYPES)

    @validates("order_mode")
    def _mode(self, _key: str, value: str) -> str:
        return _checked("order mode", value, ORDER_MODES)

    @validates("status")
    def _status(self, _key: str, value: str) -> str:
        return _checked("order status", value, ORDER_STATUSES)

    @validates("priority")
    def _priority(self, _key: str, value: str) -> str:
        return _checked("priority", value, ORDER_PRIORITIES)

    @validates("timeframe_unit")
    def _timeframe(self, _key: str, value: str | None) -> str | None:
        return _checked("timeframe unit", value, TIMEFRAME_UNITS)


class OrderScaleRangeColumns:
    """One band of a sliding (correctional) scale: glucose low–high → units."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    order_id: Mapped[int] = mapped_column(ForeignKey("orders.id"), index=True)
    sort: Mapped[int] = mapped_column(Integer, default=0)
    low: Mapped[int | None] = mapped_column(Integer)  # mg/dL, inclusive; None = below high
    high: Mapped[int | None] = mapped_column(Integer)  # mg/dL, inclusive; None = and above
    units: Mapped[float] = mapped_column(Float)
    instruction: Mapped[str | None] = mapped_column(String(120))  # 'and call provider'


class OrderDetailColumns:
    """A further order detail field (Cerner-style) the columns of ``orders`` do not hold."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    order_id: Mapped[int] = mapped_column(ForeignKey("orders.id"), index=True)
    field: Mapped[str] = mapped_column(String(60))
    value: Mapped[str | None] = mapped_column(Text)


class MarAdministrationColumns:
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    order_id: Mapped[int] = mapped_column(ForeignKey("orders.id"), index=True)
    patient_id: Mapped[int] = mapped_column(ForeignKey("patients.id"), index=True)
    scheduled_at: Mapped[datetime | None] = mapped_column(DateTime)
    administered_at: Mapped[datetime | None] = mapped_column(DateTime)
    status: Mapped[str] = mapped_column(String(12), default="due")
    dose: Mapped[float | None] = mapped_column(Float)
    dose_unit: Mapped[str | None] = mapped_column(String(16))
    route: Mapped[str | None] = mapped_column(String(16))
    site: Mapped[str | None] = mapped_column(String(40))
    administered_by: Mapped[str | None] = mapped_column(String(120))
    comment: Mapped[str | None] = mapped_column(String(200))

    @validates("status")
    def _status(self, _key: str, value: str) -> str:
        return _checked("MAR status", value, MAR_STATUSES)


class ResultColumns:
    """One result component (a CBC is several rows sharing ``panel`` and ``collected_at``)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    patient_id: Mapped[int] = mapped_column(ForeignKey("patients.id"), index=True)
    encounter_id: Mapped[int | None] = mapped_column(ForeignKey("encounters.id"))
    order_id: Mapped[int | None] = mapped_column(ForeignKey("orders.id"))
    panel: Mapped[str | None] = mapped_column(String(60))  # 'CBC', 'BMP', 'PT/INR'
    component: Mapped[str] = mapped_column(String(60))  # 'INR', 'Hemoglobin'
    loinc: Mapped[str | None] = mapped_column(String(10))
    value: Mapped[str] = mapped_column(String(40))  # as displayed
    value_num: Mapped[float | None] = mapped_column(Float)
    unit: Mapped[str | None] = mapped_column(String(16))
    reference_range: Mapped[str | None] = mapped_column(String(40))
    abnormal_flag: Mapped[str | None] = mapped_column(String(4))  # H, L, HH, LL
    collected_at: Mapped[datetime | None] = mapped_column(DateTime)
    resulted_at: Mapped[datetime | None] = mapped_column(DateTime)
    status: Mapped[str] = mapped_column(String(12), default="final")

    @validates("status")
    def _status(self, _key: str, value: str) -> str:
        return _checked("result status", value, RESULT_STATUSES)


# -- documentation -----------------------------------------------------------------------
class NoteColumns:
    """A clinical note. ``text_sha256`` always follows ``text`` (set on every assignment),
    so a verifier compares it with the hash recorded at seeding to prove the text intact."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    patient_id: Mapped[int] = mapped_column(ForeignKey("patients.id"), index=True)
    encounter_id: Mapped[int | None] = mapped_column(ForeignKey("encounters.id"))
    note_type: Mapped[str] = mapped_column(String(40))  # 'Progress Notes', 'H&P'
    title: Mapped[str | None] = mapped_column(String(120))
    author_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    author_name: Mapped[str | None] = mapped_column(String(120))  # authors without a log-in
    service_date: Mapped[date] = mapped_column(Date)
    created_at: Mapped[datetime | None] = mapped_column(DateTime)
    text: Mapped[str] = mapped_column(Text)
    text_sha256: Mapped[str | None] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(12), default="in_progress")
    signed_at: Mapped[datetime | None] = mapped_column(DateTime)
    signed_by_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))

    @validates("text")
    def _text(self, _key: str, value: str) -> str:
        self.text_sha256 = sha256_hex(value)
        return value

    @validates("status")
    def _status(self, _key: str, value: str) -> str:
        return _checked("note status", value, NOTE_STATUSES)


class NoteAddendumColumns:
    """An addendum: the compliant correction of a signed note, linked to it."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    note_id: Mapped[int] = mapped_column(ForeignKey("notes.id"), index=True)
    author_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime | None] = mapped_column(DateTime)
    reason: Mapped[str | None] = mapped_column(String(200))
    text: Mapped[str] = mapped_column(Text)
    text_sha256: Mapped[str | None] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(12), default="in_progress")
    signed_at: Mapped[datetime | None] = mapped_column(DateTime)
    signed_by_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))

    @validates("text")
    def _text(self, _key: str, value: str) -> str:
        self.text_sha256 = sha256_hex(value)
        return value

    @validates("status")
    def _status(self, _key: str, value: str) -> str:
        return _checked("addendum status", value, NOTE_STATUSES)


class MedRecColumns:
    """One medication reconciliation (admission or discharge) of an encounter."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    patient_id: Mapped[int] = mapped_column(ForeignKey("patients.id"), index=True)
    encounter_id: Mapped[int] = mapped_column(ForeignKey("encounters.id"))
    rec_type: Mapped[str] = mapped_column(String(12))
    status: Mapped[str] = mapped_column(String(12), default="not_started")
    started_at: Mapped[datetime | None] = mapped_column(DateTime)
    started_by_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    signed_at: Mapped[datetime | None] = mapped_column(DateTime)
    signed_by_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))

    @validates("rec_type")
    def _type(self, _key: str, value: str) -> str:
        return _checked("med rec type", value, MED_REC_TYPES)

    @validates("status")
    def _status(self, _key: str, value: str) -> str:
        return _checked("med rec status", value, MED_REC_STATUSES)


class MedRecItemColumns:
    """One row of a reconciliation: a home med (or inpatient order, or new med) and its
    action; ``generated_order_id`` is the order the signed rec created for it, if any."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    med_rec_id: Mapped[int] = mapped_column(ForeignKey("med_recs.id"), index=True)
    home_medication_id: Mapped[int | None] = mapped_column(ForeignKey("home_medications.id"))
    source_order_id: Mapped[int | None] = mapped_column(ForeignKey("orders.id"))
    orderable_id: Mapped[int | None] = mapped_column(ForeignKey("orderables.id"))
    medication: Mapped[str] = mapped_column(String(120))
    action: Mapped[str | None] = mapped_column(String(12))  # None until the user chooses
    new_dose: Mapped[float | None] = mapped_column(Float)
    new_dose_unit: Mapped[str | None] = mapped_column(String(16))
    new_route: Mapped[str | None] = mapped_column(String(16))
    new_frequency: Mapped[str | None] = mapped_column(String(24))
    hold_reason: Mapped[str | None] = mapped_column(String(200))
    comments: Mapped[str | None] = mapped_column(String(200))
    generated_order_id: Mapped[int | None] = mapped_column(ForeignKey("orders.id"))
    sort: Mapped[int] = mapped_column(Integer, default=0)

    @validates("action")
    def _action(self, _key: str, value: str | None) -> str | None:
        return _checked("med rec action", value, MED_REC_ACTIONS)


class DischargeColumns:
    """The Discharge Navigator's state for one encounter."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    patient_id: Mapped[int] = mapped_column(ForeignKey("patients.id"), index=True)
    encounter_id: Mapped[int] = mapped_column(ForeignKey("encounters.id"))
    status: Mapped[str] = mapped_column(String(12), default="in_progress")
    disposition: Mapped[str | None] = mapped_column(String(60))  # 'Home or Self Care'
    expected_discharge_at: Mapped[datetime | None] = mapped_column(DateTime)
    med_rec_id: Mapped[int | None] = mapped_column(ForeignKey("med_recs.id"))
    discharge_order_id: Mapped[int | None] = mapped_column(ForeignKey("orders.id"))
    patient_instructions_id: Mapped[int | None] = mapped_column(
        ForeignKey("patient_instructions.id"))

    @validates("status")
    def _status(self, _key: str, value: str) -> str:
        return _checked("discharge status", value, DISCHARGE_STATUSES)


class DischargeSectionColumns:
    """One navigator section (worked top to bottom) and whether it was completed."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    discharge_id: Mapped[int] = mapped_column(ForeignKey("discharges.id"), index=True)
    section: Mapped[str] = mapped_column(String(40))  # 'Problem List', 'Discharge Med Rec'
    sort: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(12), default="not_started")
    completed_at: Mapped[datetime | None] = mapped_column(DateTime)
    completed_by_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))

    @validates("status")
    def _status(self, _key: str, value: str) -> str:
        return _checked("navigator section status", value, SECTION_STATUSES)


class AvsEventColumns:
    """After Visit Summary activity: every preview or print is one row."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    patient_id: Mapped[int] = mapped_column(ForeignKey("patients.id"), index=True)
    encounter_id: Mapped[int | None] = mapped_column(ForeignKey("encounters.id"))
    action: Mapped[str] = mapped_column(String(8))
    at: Mapped[datetime | None] = mapped_column(DateTime)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    printer: Mapped[str | None] = mapped_column(String(60))

    @validates("action")
    def _action(self, _key: str, value: str) -> str:
        return _checked("AVS action", value, AVS_ACTIONS)


class InstructionTemplateColumns:
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(120), unique=True)


class InstructionTemplateSectionColumns:
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    template_id: Mapped[int] = mapped_column(ForeignKey("instruction_templates.id"), index=True)
    heading: Mapped[str] = mapped_column(String(80))
    prompt: Mapped[str | None] = mapped_column(Text)  # the template's placeholder text
    sort: Mapped[int] = mapped_column(Integer, default=0)


class PatientInstructionColumns:
    """Patient instructions written from a template (one row per section below)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    patient_id: Mapped[int] = mapped_column(ForeignKey("patients.id"), index=True)
    encounter_id: Mapped[int | None] = mapped_column(ForeignKey("encounters.id"))
    template_id: Mapped[int | None] = mapped_column(ForeignKey("instruction_templates.id"))
    status: Mapped[str] = mapped_column(String(12), default="in_progress")
    author_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime | None] = mapped_column(DateTime)
    signed_at: Mapped[datetime | None] = mapped_column(DateTime)

    @validates("status")
    def _status(self, _key: str, value: str) -> str:
        return _checked("patient instructions status", value, INSTRUCTION_STATUSES)


class PatientInstructionSectionColumns:
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    instruction_id: Mapped[int] = mapped_column(ForeignKey("patient_instructions.id"),
                                                index=True)
    heading: Mapped[str] = mapped_column(String(80))
    text: Mapped[str] = mapped_column(Text, default="")
    sort: Mapped[int] = mapped_column(Integer, default=0)


class DocumentColumns:
    """A scanned or received document. ``patient_id`` is None while it waits, unfiled, in
    the scanned-documents inbox; filing sets patient, type and status. ``sha256`` always
    follows ``content``."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    patient_id: Mapped[int | None] = mapped_column(ForeignKey("patients.id"), index=True)
    encounter_id: Mapped[int | None] = mapped_column(ForeignKey("encounters.id"))
    filename: Mapped[str] = mapped_column(String(120))
    mime_type: Mapped[str] = mapped_column(String(40), default="application/pdf")
    content: Mapped[bytes] = mapped_column(LargeBinary)
    sha256: Mapped[str | None] = mapped_column(String(64))
    description: Mapped[str | None] = mapped_column(String(200))  # scanner cover text
    document_type: Mapped[str | None] = mapped_column(String(80))  # document_types.name
    status: Mapped[str] = mapped_column(String(12), default="unfiled")
    source: Mapped[str] = mapped_column(String(16), default="scan")  # scan, fax, upload
    received_at: Mapped[datetime | None] = mapped_column(DateTime)
    filed_at: Mapped[datetime | None] = mapped_column(DateTime)
    filed_by_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))

    @validates("content")
    def _content(self, _key: str, value: bytes) -> bytes:
        self.sha256 = sha256_hex(value)
        return value

    @validates("status")
    def _status(self, _key: str, value: str) -> str:
        return _checked("document status", value, DOCUMENT_STATUSES)


class ProxyColumns:
    """A health-care proxy / agent named by the patient."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    patient_id: Mapped[int] = mapped_column(ForeignKey("patients.id"), index=True)
    name: Mapped[str] = mapped_column(String(120))
    relationship: Mapped[str] = mapped_column(String(40))
    phone: Mapped[str | None] = mapped_column(String(20))
    alternate_phone: Mapped[str | None] = mapped_column(String(20))
    proxy_type: Mapped[str] = mapped_column(String(40), default="Health Care Proxy")
    is_primary: Mapped[bool] = mapped_column(Boolean, default=True)
    status: Mapped[str] = mapped_column(String(16), default="active")
    documented_at: Mapped[datetime | None] = mapped_column(DateTime)
    documented_by_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))


class MessageColumns:
    """An In Basket (Hyperspace) / Message Center (PowerChart) item."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    recipient_user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    patient_id: Mapped[int | None] = mapped_column(ForeignKey("patients.id"))
    folder: Mapped[str] = mapped_column(String(40))  # 'Results', 'Staff Message', 'Cosign'
    sender: Mapped[str] = mapped_column(String(120))
    subject: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text, default="")
    priority: Mapped[str] = mapped_column(String(8), default="normal")
    status: Mapped[str] = mapped_column(String(8), default="new")
    received_at: Mapped[datetime | None] = mapped_column(DateTime)

    @validates("status")
    def _status(self, _key: str, value: str) -> str:
        return _checked("message status", value, MESSAGE_STATUSES)


class AppointmentColumns:
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    patient_id: Mapped[int] = mapped_column(ForeignKey("patients.id"), index=True)
    department_id: Mapped[int] = mapped_column(ForeignKey("departments.id"))
    provider_id: Mapped[int | None] = mapped_column(ForeignKey("providers.id"))
    order_id: Mapped[int | None] = mapped_column(ForeignKey("orders.id"))  # follow-up order
    visit_type: Mapped[str] = mapped_column(String(60))  # 'Hospital Follow Up', 'Procedure'
    start_at: Mapped[datetime | None] = mapped_column(DateTime)
    duration_min: Mapped[int] = mapped_column(Integer, default=20)
    status: Mapped[str] = mapped_column(String(20), default="scheduled")
    notes: Mapped[str | None] = mapped_column(String(200))

    @validates("status")
    def _status(self, _key: str, value: str) -> str:
        return _checked("appointment status", value, APPOINTMENT_STATUSES)
