"""Reading the chart: patient search, the banner / Storyboard summary and chart lists.

Everything here reads through short-lived sessions and returns plain dataclasses, so widgets
never hold ORM objects across a store restore.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

from sqlalchemy import or_, select

from desktop_ehr.services.parsing import format_number
from desktop_ehr.session import EhrContext

ACTIVE_ORDER_STATUSES = ("signed", "held")


@dataclass(frozen=True)
class PatientRow:
    id: int
    name: str  # 'Test, Walter'
    mrn: str
    fin: str | None
    dob: date
    age: int
    sex: str
    location: str
    reason: str


@dataclass
class PatientSummary:
    """What the Storyboard (Hyperspace) and the Banner Bar (PowerChart) show."""

    id: int
    name: str
    first_name: str
    last_name: str
    mrn: str
    fin: str | None
    dob: date
    age: int
    sex: str
    allergies: list[str]
    code_status: str
    isolation: str | None
    weight_kg: float | None
    weight_date: datetime | None
    height_cm: float | None
    coverage: str | None
    pcp: str | None
    attending: str | None
    location: str
    encounter_id: int | None
    encounter_type: str | None
    encounter_status: str | None
    admit_at: datetime | None
    reason: str | None
    language: str = "English"
    proxy: str | None = None

    @property
    def age_sex(self) -> str:
        return f"{self.age} y.o. {self.sex[:1]}" if self.sex else f"{self.age} y.o."

    @property
    def weight_text(self) -> str:
        return f"{format_number(self.weight_kg)} kg" if self.weight_kg else "No weight on file"

    @property
    def bmi(self) -> float | None:
        if not self.weight_kg or not self.height_cm:
            return None
        return round(self.weight_kg / (self.height_cm / 100) ** 2, 1)

    @property
    def allergy_text(self) -> str:
        return ", ".join(self.allergies) if self.allergies else "No Known Allergies"


@dataclass(frozen=True)
class ChartRow:
    """A row of a read-only chart list: ``cells`` by column key, plus a record id."""

    id: int
    cells: dict
    flag: str | None = None  # 'H', 'L', 'held', … (drives colouring)
    children: tuple = field(default_factory=tuple)


def age_on(dob: date, today: date) -> int:
    return today.year - dob.year - ((today.month, today.day) < (dob.month, dob.day))


def full_name(patient) -> str:
    return f"{patient.last_name}, {patient.first_name}"


def _location(m, session, patient) -> str:
    if patient.unit_id is None:
        return "Outpatient"
    unit = session.get(m.Department, patient.unit_id)
    where = (unit.abbreviation or unit.name) if unit else ""
    if patient.room:
        room = patient.room + (f"-{patient.bed}" if patient.bed else "")
        where = room if room.startswith(where) else f"{where} {room}"
    return where.strip()


def current_encounter(ctx: EhrContext, session, patient_id: int):
    """The patient's active encounter (latest admitted), else the latest one."""
    m = ctx.models
    rows = session.scalars(select(m.Encounter).where(m.Encounter.patient_id == patient_id)
                           .order_by(m.Encounter.admit_at.desc(), m.Encounter.id.desc())).all()
    for row in rows:
        if row.status in ("active", "preadmit"):
            return row
    return rows[0] if rows else None


def search_patients(ctx: EhrContext, text: str = "") -> list[PatientRow]:
    """Patients matching a name ('test, wal', 'walter test'), an MRN or a FIN; all if blank."""
    m = ctx.models
    query = (text or "").strip()
    with ctx.reader() as session:
        stmt = select(m.Patient).order_by(m.Patient.last_name, m.Patient.first_name,
                                          m.Patient.mrn)
        if query:
            terms = [t for t in query.replace(",", " ").split() if t]
            for term in terms:
                like = f"%{term}%"
                conds = [m.Patient.last_name.ilike(like), m.Patient.first_name.ilike(like),
                         m.Patient.mrn.ilike(f"{term}%")]
                if hasattr(m.Patient, "fin"):
                    conds.append(m.Patient.fin.ilike(f"{term}%"))
                stmt = stmt.where(or_(*conds))
        today = ctx.today()
        rows = []
        for p in session.scalars(stmt):
            enc = current_encounter(ctx, session, p.id)
            rows.append(PatientRow(
                id=p.id, name=full_name(p), mrn=p.mrn, fin=getattr(p, "fin", None), dob=p.dob,
                age=age_on(p.dob, today), sex=p.sex, location=_location(m, session, p),
                reason=(enc.reason_for_visit or "") if enc else ""))
        return rows


def patient_summary(ctx: EhrContext, patient_id: int) -> PatientSummary:
    m = ctx.models
    with ctx.reader() as session:
        p = session.get(m.Patient, patient_id)
        if p is None:
            raise LookupError(f"no patient with id {patient_id}")
        allergies = [a.allergen for a in session.scalars(
            select(m.Allergy).where(m.Allergy.patient_id == p.id, m.Allergy.status == "active")
            .order_by(m.Allergy.id))]
        if not allergies and p.allergies_summary and \
                p.allergies_summary.lower() not in ("no known allergies", "nka", "nkda"):
            allergies = [s.strip() for s in p.allergies_summary.split(",") if s.strip()]
        enc = current_encounter(ctx, session, p.id)
        code = latest_code_status(ctx, session, p.id) or p.code_status or "Not on file"
        proxy = session.scalars(select(m.Proxy).where(m.Proxy.patient_id == p.id,
                                                      m.Proxy.status == "active")
                                .order_by(m.Proxy.id.desc())).first()

        def provider(pid):
            prov = session.get(m.Provider, pid) if pid else None
            return prov.name if prov else None

        attending = provider(enc.attending_provider_id if enc and enc.attending_provider_id
                             else p.attending_provider_id)
        return PatientSummary(
            id=p.id, name=full_name(p), first_name=p.first_name, last_name=p.last_name,
            mrn=p.mrn, fin=(getattr(enc, "fin", None) if enc else None) or getattr(p, "fin", None),
            dob=p.dob, age=age_on(p.dob, ctx.today()), sex=p.sex, allergies=allergies,
            code_status=code, isolation=p.isolation, weight_kg=p.weight_kg,
            weight_date=p.weight_date, height_cm=p.height_cm, coverage=p.coverage,
            pcp=provider(p.pcp_provider_id), attending=attending,
            location=_location(m, session, p), encounter_id=enc.id if enc else None,
            encounter_type=enc.encounter_type if enc else None,
            encounter_status=enc.status if enc else None,
            admit_at=enc.admit_at if enc else None,
            reason=enc.reason_for_visit if enc else None,
            language=p.preferred_language,
            proxy=f"{proxy.name} ({proxy.relationship})" if proxy else None)


def latest_code_status(ctx: EhrContext, session, patient_id: int) -> str | None:
    """The selection of the newest signed Code Status order, if any."""
    m = ctx.models
    order = session.scalars(
        select(m.Order).where(m.Order.patient_id == patient_id,
                              m.Order.order_type == "code_status",
                              m.Order.status == "signed")
        .order_by(m.Order.signed_at.desc(), m.Order.id.desc())).first()
    return (order.code_status or order.comments) if order else None
