"""Read-side queries of the web EHR: patients, encounters, forms, issues and code lists.

Views call these with a reader session; a missing patient, encounter or row becomes a
404 page that says what to do, never an exception.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from sqlalchemy import or_, select
from sqlalchemy.orm import Session
from starlette.exceptions import HTTPException

from portal_web.common.params import parse_id
from sandbox.stores.ehr import (
    Form,
    FormEncounter,
    FormVitals,
    ListOption,
    Lists,
    PatientData,
    User,
)


def not_found(what: str) -> HTTPException:
    return HTTPException(status_code=404, detail=(
        f"{what} was not found. It may have been removed, or the address is wrong; "
        "use Finder to open the patient again."))


def age_on(dob: dt.date, day: dt.date) -> int:
    return day.year - dob.year - ((day.month, day.day) < (dob.month, dob.day))


def age_text(dob: dt.date, day: dt.date) -> str:
    """OpenEMR-style age: years, or months/weeks for small children."""
    years = age_on(dob, day)
    if years >= 2:
        return str(years)
    months = (day.year - dob.year) * 12 + day.month - dob.month - (day.day < dob.day)
    if months >= 1:
        return f"{months} month{'s' if months != 1 else ''}"
    weeks = (day - dob).days // 7
    return f"{weeks} week{'s' if weeks != 1 else ''}"


def patient_or_404(db: Session, pid: int) -> PatientData:
    patient = db.scalar(select(PatientData).where(PatientData.pid == pid))
    if patient is None:
        raise not_found(f"Patient {pid}")
    return patient


def encounter_or_404(db: Session, pid: int, encounter: int) -> FormEncounter:
    row = db.scalar(select(FormEncounter).where(FormEncounter.encounter == encounter,
                                                FormEncounter.pid == pid))
    if row is None:
        raise not_found(f"Encounter {encounter} of this patient")
    return row


def find_patients(db: Session, query: str, limit: int = 100) -> list[PatientData]:
    """Patients by last/first name (``Last, First`` works), MRN, pid or DOB (YYYY-MM-DD)."""
    stmt = select(PatientData).order_by(PatientData.lname, PatientData.fname)
    query = query.strip()[:100]
    if query:
        conditions = []
        if "," in query:
            last, first = (part.strip() for part in query.split(",", 1))
            conditions.append(PatientData.lname.ilike(f"{last}%")
                              & PatientData.fname.ilike(f"{first}%"))
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", query):
            try:
                conditions.append(PatientData.DOB == dt.date.fromisoformat(query))
            except ValueError:
                pass
        number = parse_id(query)
        if number is not None:
            conditions.append(PatientData.pubpid.like(f"{query}%"))
            conditions.append(PatientData.pid == number)
        for word in query.replace(",", " ").split():
            conditions.append(PatientData.lname.ilike(f"{word}%"))
            conditions.append(PatientData.fname.ilike(f"{word}%"))
        stmt = stmt.where(or_(*conditions))
    return list(db.scalars(stmt.limit(limit)))


def encounters_of(db: Session, pid: int) -> list[FormEncounter]:
    return list(db.scalars(select(FormEncounter).where(FormEncounter.pid == pid)
                           .order_by(FormEncounter.date.desc(), FormEncounter.id.desc())))


def encounter_on(db: Session, pid: int, day: dt.date) -> FormEncounter | None:
    """The patient's latest encounter that started on ``day`` (today's visit)."""
    start = dt.datetime.combine(day, dt.time())
    return db.scalar(select(FormEncounter).where(
        FormEncounter.pid == pid, FormEncounter.date >= start,
        FormEncounter.date < start + dt.timedelta(days=1))
        .order_by(FormEncounter.date.desc()).limit(1))


def forms_of(db: Session, encounter: int) -> list[Form]:
    return list(db.scalars(select(Form).where(Form.encounter == encounter, Form.deleted == 0)
                           .order_by(Form.date, Form.id)))


def issues_of(db: Session, pid: int, kind: str) -> list[Lists]:
    """Issues of one type, never the deleted ones (``activity=0``); active first."""
    rows = db.scalars(select(Lists).where(Lists.pid == pid, Lists.type == kind,
                                          Lists.activity == 1).order_by(Lists.begdate.desc(),
                                                                        Lists.id))
    return sorted(rows, key=lambda r: r.enddate is not None)


def latest_vitals(db: Session, pid: int) -> FormVitals | None:
    return db.scalar(select(FormVitals).where(FormVitals.pid == pid, FormVitals.activity == 1)
                     .order_by(FormVitals.date.desc(), FormVitals.id.desc()).limit(1))


def options(db: Session, list_id: str) -> list[ListOption]:
    return list(db.scalars(select(ListOption).where(ListOption.list_id == list_id,
                                                    ListOption.activity == 1)
                           .order_by(ListOption.seq, ListOption.title)))


def choices(db: Session, list_id: str,
            fallback: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
    """(option id, title) pairs of a coded list; ``fallback`` when the list is not seeded."""
    found = [(o.option_id, o.title) for o in options(db, list_id)]
    return found or list(fallback or [])


def option_titles(db: Session, list_id: str) -> dict[str, str]:
    return {o.option_id: o.title for o in options(db, list_id)}


def login_users(db: Session) -> list[User]:
    """Users who can log in (have a username), by name."""
    return list(db.scalars(select(User).where(User.username.is_not(None), User.username != "",
                                              User.active == 1)
                           .order_by(User.lname, User.fname)))


def providers(db: Session) -> list[User]:
    """Log-in users who are authorized providers."""
    return [u for u in login_users(db) if u.authorized == 1]


def address_book(db: Session) -> list[User]:
    """External contacts (no username), by name."""
    return list(db.scalars(select(User).where(or_(User.username.is_(None), User.username == ""),
                                              User.active == 1)
                           .order_by(User.lname, User.fname)))


def user_name(user: User | None) -> str:
    if user is None:
        return ""
    name = " ".join(p for p in (user.title, user.fname, user.lname) if p)
    if user.valedictory:
        name += f", {user.valedictory}"
    return name or (user.organization or user.username or f"#{user.id}")


@dataclass
class PatientHeader:
    """What the patient title bar shows."""

    patient: PatientData
    age: str
    encounter: FormEncounter | None
    weight_kg: float | None
    weight_date: dt.datetime | None


def patient_header(db: Session, pid: int, today: dt.date,
                   encounter: FormEncounter | None = None) -> PatientHeader:
    patient = patient_or_404(db, pid)
    vitals = latest_vitals(db, pid)
    weight = round(vitals.weight * 0.45359237, 2) if vitals and vitals.weight else None
    return PatientHeader(patient=patient, age=age_text(patient.DOB, today),
                         encounter=encounter or encounter_on(db, pid, today),
                         weight_kg=weight, weight_date=vitals.date if weight else None)
