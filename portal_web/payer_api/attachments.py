"""Attachments sent as 005010X210 275 transactions.

Acme's convention (``docs/payer-api.md``): each 275 carries one document; ``TRN02`` is the
attachment control number the 278 names in ``PWK06``; ``CAT*AE*MB`` says ``BIN02`` is a MIME
entity whose body is the document, base64 transfer-encoded, with its content type and a
``Content-Disposition`` file name. A Da Vinci PAS QuestionnaireResponse travels the same
way, as ``application/fhir+json``. The decoded bytes are stored unchanged.
"""

from __future__ import annotations

import binascii
import email
import email.policy
import json
from dataclasses import dataclass
from typing import Any

from portal_web.payer_api.edi import Interchange, TransactionSet
from portal_web.payer_api.rules import Issue, SegmentError

MAX_DOCUMENT = 12 * 1024 * 1024
DOCUMENT_TYPES = {"application/pdf", "image/tiff", "image/jpeg", "image/png", "text/plain",
                  "application/fhir+json"}
QUESTIONNAIRE_TYPE = "application/fhir+json"


@dataclass
class ReceivedDocument:
    """One document of a 275, decoded."""

    control_number: str  # TRN02 = the 278's PWK06
    filename: str
    content_type: str
    content: bytes
    description: str
    patient_member_number: str
    transaction: TransactionSet

    @property
    def questionnaire_response(self) -> dict[str, Any] | None:
        """The FHIR QuestionnaireResponse this document is, if it is one."""
        if self.content_type != QUESTIONNAIRE_TYPE:
            return None
        try:
            data = json.loads(self.content)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return None
        if isinstance(data, dict) and data.get("resourceType") == "QuestionnaireResponse":
            return data
        return None


def read_document(ts: TransactionSet, interchange: Interchange
                  ) -> tuple[ReceivedDocument | None, list[SegmentError]]:
    """The document of a syntactically valid 275, or errors naming the segment at fault."""
    by_id: dict[str, list] = {}
    for segment in ts.segments:
        by_id.setdefault(segment.seg_id, []).append(segment)
    trn = by_id["TRN"][0]
    binary = by_id["BIN"][0]
    patient = next((sg for sg in by_id.get("NM1", []) if sg.value(1) == "QC"), None)

    def fail(code: str, message: str) -> tuple[None, list[SegmentError]]:
        return None, [SegmentError("BIN", binary.position, "1000", "8",
                                   "Binary Data could not be read.",
                                   [Issue("2", 785, code, "", message)])]

    blob = interchange.blob(binary.value(2))
    if blob is None:
        return fail("6", "BIN02 is not readable binary data")
    if int(binary.value(1) or 0) != len(blob):
        return fail("5", "BIN01 is not the length of BIN02")
    try:
        message = email.message_from_bytes(blob, policy=email.policy.compat32)
    except (ValueError, TypeError, IndexError, LookupError):
        return fail("6", "BIN02 is not a MIME entity (CAT*AE*MB)")
    part = next((p for p in message.walk() if not p.is_multipart()), None)
    if part is None:
        return fail("6", "the MIME entity in BIN02 has no body part")
    content_type = (part.get_content_type() or "").lower()
    if content_type not in DOCUMENT_TYPES:
        allowed = ", ".join(sorted(DOCUMENT_TYPES))
        return fail("7", f"the document type {content_type[:60]} is not accepted "
                         f"(use {allowed})")
    encoding = (part.get("Content-Transfer-Encoding") or "").strip().lower()
    if content_type != QUESTIONNAIRE_TYPE and encoding != "base64":
        return fail("6", "the document must be base64 transfer-encoded "
                         "(Content-Transfer-Encoding: base64)")
    try:
        content = part.get_payload(decode=True) if encoding else \
            (part.get_payload() or "").encode("utf-8")
    except (binascii.Error, ValueError, UnicodeEncodeError, AssertionError):
        content = None
    if encoding == "base64" and not _strict_base64(part.get_payload()):
        content = None
    if not content:
        return fail("6", "the MIME body could not be decoded (check the base64 text)")
    if len(content) > MAX_DOCUMENT:
        return fail("5", "the document is larger than 12 MB")
    filename = part.get_filename() or ""
    if not filename:
        return fail("1", "the MIME part needs Content-Disposition: attachment; filename=...")
    if content_type == "application/pdf" and not content.startswith(b"%PDF-"):
        return fail("6", "the body is labelled application/pdf but is not a PDF")
    document = ReceivedDocument(
        control_number=trn.value(2), filename=filename[:200], content_type=content_type,
        content=content, description=(part.get("Content-Description") or filename)[:200],
        patient_member_number=patient.value(9) if patient else "", transaction=ts)
    if content_type == QUESTIONNAIRE_TYPE and document.questionnaire_response is None:
        return fail("6", "the application/fhir+json body is not a QuestionnaireResponse")
    return document, []


def _strict_base64(payload: Any) -> bool:
    if not isinstance(payload, str):
        return False
    text = "".join(payload.split())
    try:
        binascii.a2b_base64(text.encode("ascii"))
    except (binascii.Error, UnicodeEncodeError):
        return False
    return len(text) % 4 == 0
