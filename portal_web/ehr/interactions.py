"""The sandbox drug-interaction checker: drug-drug rules and drug-allergy classes.

Drug-drug rules come from the ``drug_interactions`` table (generic names, either order),
matched against the patient's active prescriptions and active medication-list entries.
Drug-allergy alerts match the new drug against the active allergies through a small class
table (a penicillin allergy covers amoxicillin ...). The check can be switched off with the
global ``drug_interaction_checker = 0`` (on when absent).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from sandbox.stores.ehr import Drug, DrugInteraction, Global, Lists, Prescription

ALLERGY_CLASSES = {
    "penicillin": ("penicillin", "amoxicillin", "ampicillin", "piperacillin", "nafcillin",
                   "dicloxacillin", "amoxicillin-clavulanate"),
    "sulfa": ("sulfamethoxazole", "sulfasalazine", "sulfadiazine", "trimethoprim-sulfamethoxazole"),
    "cephalosporin": ("cephalexin", "cefazolin", "ceftriaxone", "cefdinir", "cefuroxime"),
    "macrolide": ("azithromycin", "clarithromycin", "erythromycin"),
    "statin": ("atorvastatin", "simvastatin", "rosuvastatin", "pravastatin"),
}
SEVERITY_ORDER = {"contraindicated": 0, "major": 1, "moderate": 2, "minor": 3}


@dataclass(frozen=True)
class Alert:
    kind: str  # drug-drug | drug-allergy
    severity: str
    drugs: str  # "clarithromycin + simvastatin"
    message: str
    recommendation: str


def checker_enabled(db: Session) -> bool:
    row = db.get(Global, ("drug_interaction_checker", 0))
    return row is None or row.gl_value.strip() not in ("0", "off", "false", "")


def generic_of(db: Session, drug_name: str, drug_id: int | None = None) -> str:
    """The generic name of a drug (formulary entry, else the leading words of its name)."""
    if drug_id is not None:
        drug = db.get(Drug, drug_id)
        if drug is not None and drug.generic_name:
            return drug.generic_name.lower()
    match = db.scalar(select(Drug).where(Drug.name == drug_name))
    if match is not None and match.generic_name:
        return match.generic_name.lower()
    words = re.split(r"\s+\d", drug_name.lower(), maxsplit=1)[0]
    return words.strip()


def active_medications(db: Session, pid: int, exclude_rx: int | None = None) -> list[str]:
    """Lower-case names of what the patient is taking now."""
    names = [rx.drug.lower() for rx in db.scalars(select(Prescription).where(
        Prescription.patient_id == pid, Prescription.active == 1)) if rx.id != exclude_rx]
    names += [m.title.lower() for m in db.scalars(select(Lists).where(
        Lists.pid == pid, Lists.type == "medication", Lists.activity == 1,
        Lists.enddate.is_(None)))]
    return names


def check(db: Session, pid: int, generic: str, exclude_rx: int | None = None) -> list[Alert]:
    """Alerts for prescribing ``generic`` to patient ``pid``, most severe first."""
    if not generic or not checker_enabled(db):
        return []
    alerts: list[Alert] = []
    meds = active_medications(db, pid, exclude_rx)
    for rule in db.scalars(select(DrugInteraction).where(DrugInteraction.active == 1)):
        a, b = rule.drug_a.lower(), rule.drug_b.lower()
        other = b if a == generic else a if b == generic else None
        if other is None or not any(other in med for med in meds):
            continue
        alerts.append(Alert("drug-drug", rule.severity, f"{generic} + {other}",
                            rule.description, rule.recommendation or ""))
    for allergy in db.scalars(select(Lists).where(
            Lists.pid == pid, Lists.type == "allergy", Lists.activity == 1,
            Lists.enddate.is_(None))):
        title = allergy.title.lower()
        for cls, members in ALLERGY_CLASSES.items():
            if (cls in title or any(m in title for m in members)) and generic in members:
                alerts.append(Alert(
                    "drug-allergy", "major", f"{generic} + {allergy.title} allergy",
                    f"The patient has a documented allergy to {allergy.title}; {generic} "
                    f"belongs to the same class ({cls}).",
                    "Choose a drug from another class, or document why the benefit "
                    "outweighs the risk."))
                break
    return sorted(alerts, key=lambda al: SEVERITY_ORDER.get(al.severity, 9))
