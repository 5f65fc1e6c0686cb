"""Electronic signatures (``esign_signatures``): who signed a form or an encounter, and locks.

A signature with ``is_lock=1`` on a form (``table='forms'``, ``tid=forms.id``) or on its
whole encounter (``table='form_encounter'``, ``tid=encounter number``) makes the form
read-only; corrections are then added as an amendment with a new signature.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from sandbox.stores.ehr import EsignSignature, Form, User


@dataclass
class SignatureState:
    signatures: list[tuple[EsignSignature, User | None]]
    locked: bool

    @property
    def signed(self) -> bool:
        return bool(self.signatures)


def signature_state(db: Session, form: Form) -> SignatureState:
    rows = db.execute(
        select(EsignSignature, User).outerjoin(User, User.id == EsignSignature.uid)
        .where(or_((EsignSignature.table == "forms") & (EsignSignature.tid == form.id),
                   (EsignSignature.table == "form_encounter")
                   & (EsignSignature.tid == form.encounter)))
        .order_by(EsignSignature.datetime, EsignSignature.id)).all()
    signatures = [(sig, user) for sig, user in rows]
    return SignatureState(signatures=signatures,
                          locked=any(sig.is_lock == 1 for sig, _ in signatures))


def encounter_locked(db: Session, encounter: int) -> bool:
    return db.scalar(select(EsignSignature.id).where(
        EsignSignature.table == "form_encounter", EsignSignature.tid == encounter,
        EsignSignature.is_lock == 1).limit(1)) is not None


def content_hash(*parts: object) -> str:
    """sha256 of the signed content (so a later edit is detectable)."""
    text = "\x1f".join("" if p is None else str(p) for p in parts)
    return hashlib.sha256(text.encode()).hexdigest()
