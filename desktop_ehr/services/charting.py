"""Small charting writes: note addenda and new notes, health-care proxies, filing scanned
documents, In Basket / Message Center status. Each function is one transaction."""

from __future__ import annotations

from sqlalchemy import select

from desktop_ehr.services.parsing import InputError, parse_phone
from desktop_ehr.session import EhrContext

PROXY_RELATIONSHIPS = ("Spouse", "Husband", "Wife", "Partner", "Son", "Daughter", "Brother",
                       "Sister", "Parent", "Mother", "Father", "Grandchild", "Niece", "Nephew",
                       "Friend", "Legal Guardian", "Other")
PROXY_TYPES = ("Health Care Proxy", "Durable Power of Attorney for Health Care",
               "Legal Guardian", "Surrogate Decision Maker")
NOTE_TYPES = ("Progress Notes", "H&P", "Consults", "Discharge Summary", "Procedures",
              "Nursing Note", "ED Provider Notes")


class ChartingRefused(Exception):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


# -- notes -------------------------------------------------------------------------------
def sign_addendum(ctx: EhrContext, note_id: int, reason: str, text: str) -> int:
    """A signed addendum linked to a signed note; the note itself is never changed."""
    problems = []
    if not (reason or "").strip():
        problems.append("Reason for addendum is required.")
    if not (text or "").strip():
        problems.append("Addendum text is empty.")
    m = ctx.models
    with ctx.reader() as s:
        note = s.get(m.Note, note_id)
        if note is None:
            problems.append("The note no longer exists.")
        elif note.status != "signed":
            problems.append("Only a signed note takes an addendum; edit an unsigned note "
                            "directly.")
    if problems:
        raise ChartingRefused(problems)
    now = ctx.now()
    with ctx.write() as s:
        addendum = m.NoteAddendum(note_id=note_id, author_user_id=ctx.user.id, created_at=now,
                                  reason=reason.strip()[:200], text=text.strip(),
                                  status="signed", signed_at=now,
                                  signed_by_user_id=ctx.user.id)
        s.add(addendum)
        s.flush()
        return addendum.id


def create_note(ctx: EhrContext, patient_id: int, encounter_id: int | None, note_type: str,
                title: str, text: str, sign: bool) -> int:
    """A new standalone note, signed or left in progress."""
    if not (text or "").strip():
        raise ChartingRefused(["The note is empty."])
    if note_type not in NOTE_TYPES:
        raise ChartingRefused([f"Note type '{note_type}' is not one of {', '.join(NOTE_TYPES)}."])
    now = ctx.now()
    m = ctx.models
    with ctx.write() as s:
        note = m.Note(patient_id=patient_id, encounter_id=encounter_id, note_type=note_type,
                      title=(title or note_type).strip()[:120], author_user_id=ctx.user.id,
                      service_date=now.date(), created_at=now, text=text.strip(),
                      status="signed" if sign else "in_progress",
                      signed_at=now if sign else None,
                      signed_by_user_id=ctx.user.id if sign else None)
        s.add(note)
        s.flush()
        return note.id


# -- health-care proxy -------------------------------------------------------------------
def save_proxy(ctx: EhrContext, patient_id: int, name: str, relationship: str, phone: str,
               alternate_phone: str = "", proxy_type: str = "Health Care Proxy") -> int:
    """Record the patient's health-care proxy (it becomes the primary one)."""
    problems = []
    if not (name or "").strip():
        problems.append("Proxy name is required.")
    if not (relationship or "").strip():
        problems.append("Relationship is required.")
    normalized = alt = None
    try:
        normalized = parse_phone(phone, "Phone")
    except InputError as err:
        problems.append(err.message)
    if (alternate_phone or "").strip():
        try:
            alt = parse_phone(alternate_phone, "Alternate phone")
        except InputError as err:
            problems.append(err.message)
    if proxy_type not in PROXY_TYPES:
        problems.append(f"Proxy type '{proxy_type}' is not one of {', '.join(PROXY_TYPES)}.")
    if problems:
        raise ChartingRefused(problems)
    m = ctx.models
    now = ctx.now()
    with ctx.write() as s:
        for other in s.scalars(select(m.Proxy).where(m.Proxy.patient_id == patient_id,
                                                     m.Proxy.is_primary.is_(True))):
            other.is_primary = False
        proxy = m.Proxy(patient_id=patient_id, name=name.strip(),
                        relationship=relationship.strip(), phone=normalized,
                        alternate_phone=alt, proxy_type=proxy_type, is_primary=True,
                        status="active", documented_at=now, documented_by_user_id=ctx.user.id)
        s.add(proxy)
        s.flush()
        return proxy.id


# -- scanned documents -------------------------------------------------------------------
def file_document(ctx: EhrContext, document_id: int, patient_id: int, encounter_id: int | None,
                  document_type: str, description: str | None = None) -> None:
    """File an unfiled scan to a chart with a document type."""
    m = ctx.models
    with ctx.reader() as s:
        types = set(s.scalars(select(m.DocumentType.name)))
        doc = s.get(m.Document, document_id)
        status = doc.status if doc else None
    problems = []
    if not document_type:
        problems.append("Choose a document type.")
    elif document_type not in types:
        problems.append(f"'{document_type}' is not a document type; choose one from the list.")
    if status is None:
        problems.append("The scanned document is no longer in the inbox.")
    elif status != "unfiled":
        problems.append("This document was already filed.")
    if problems:
        raise ChartingRefused(problems)
    with ctx.write() as s:
        doc = s.get(m.Document, document_id)
        doc.patient_id = patient_id
        doc.encounter_id = encounter_id
        doc.document_type = document_type
        if description and description.strip():
            doc.description = description.strip()[:200]
        doc.status = "filed"
        doc.filed_at = ctx.now()
        doc.filed_by_user_id = ctx.user.id


def document_content(ctx: EhrContext, document_id: int) -> tuple[str, str, bytes]:
    m = ctx.models
    with ctx.reader() as s:
        doc = s.get(m.Document, document_id)
        if doc is None:
            raise LookupError(f"no document {document_id}")
        return doc.filename, doc.mime_type, bytes(doc.content or b"")


# -- messages ----------------------------------------------------------------------------
def mark_message_done(ctx: EhrContext, message_id: int) -> None:
    m = ctx.models
    with ctx.write() as s:
        msg = s.get(m.Message, message_id)
        if msg is None:
            raise ChartingRefused(["The message no longer exists."])
        msg.status = "done"
