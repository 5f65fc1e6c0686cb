"""Building X12 278/275 interchanges the way a provider's integration engine would.

Used by the payer-API tests and by ``docs/payer-api.md``'s worked example: segments are
written with ``*``/``:``/``~``, counts (SE01, GE01, IEA01) are computed, and each document
travels as a 275 whose BIN02 is a MIME entity with the document base64-encoded.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field

SUBMITTER = "RIVERSIDEFM"
ORG_NPI = "1497758544"
ORG_NAME = "RIVERSIDE FAMILY MEDICINE & SPECIALTY CLINIC"
TRACE_ID = "1364829175"  # "1" + the clinic's EIN 36-4829175


def seg(*elements: str) -> str:
    values = list(elements)
    while values and values[-1] == "":
        values.pop()
    return "*".join(values) + "~"


def mime_entity(filename: str, content_type: str, content: bytes, description: str = "") -> str:
    """A single-part MIME entity: headers, a blank line, the body.

    Documents are base64 (76-column lines); a FHIR JSON body (the QuestionnaireResponse)
    travels as it is, readable. Lines end in LF so the example survives copy and paste.
    """
    readable = content_type == "application/fhir+json"
    lines = [f"Content-Type: {content_type}"]
    if not readable:
        lines.append("Content-Transfer-Encoding: base64")
    lines.append(f'Content-Disposition: attachment; filename="{filename}"')
    if description:
        lines.append(f"Content-Description: {description}")
    body = content.decode("utf-8") if readable else \
        base64.encodebytes(content).decode("ascii")
    return "\n".join(lines) + "\n\n" + body


@dataclass
class Document:
    control: str  # PWK06 / TRN02
    report_type: str  # PWK01
    filename: str
    content_type: str
    content: bytes
    description: str


@dataclass
class Request278:
    member: str = "ACM402918331"
    last: str = "ALVAREZ"
    first: str = "TOMAS"
    dob: str = "19760802"
    sex: str = "M"
    cpt: str = "72148"
    diagnoses: tuple[str, ...] = ("M5116",)
    service_dates: str = "20261026-20261125"
    trace: str = "RFM-278-0001"
    documents: list[Document] = field(default_factory=list)
    message: str = ""

    def segments(self) -> list[str]:
        hi = ["HI", *[f"{'ABK' if i == 0 else 'ABF'}:{code}"
                      for i, code in enumerate(self.diagnoses)]]
        out = [
            seg("BHT", "0007", "13", self.trace, "20261019", "0915"),
            seg("HL", "1", "", "20", "1"),
            seg("NM1", "X3", "2", "ACME HEALTH", "", "", "", "", "PI", "ACME1"),
            seg("HL", "2", "1", "21", "1"),
            seg("NM1", "1P", "2", ORG_NAME, "", "", "", "", "XX", ORG_NPI),
            seg("PER", "IC", "DANA WHITFIELD", "TE", "5555550142"),
            seg("HL", "3", "2", "22", "1"),
            seg("NM1", "IL", "1", self.last, self.first, "", "", "", "MI", self.member),
            seg("DMG", "D8", self.dob, self.sex),
            seg("HL", "4", "3", "EV", "1"),
            seg("TRN", "1", self.trace, TRACE_ID),
            seg("UM", "HS", "I", "62", "11:B", "", "E"),
            seg("DTP", "472", "RD8", self.service_dates),
            seg(*hi) if self.diagnoses else None,
            *[seg("PWK", d.report_type, "EL", "", "", "AC", d.control, d.description)
              for d in self.documents],
            seg("MSG", self.message) if self.message else None,
            seg("NM1", "SJ", "1", "GRANT", "TEST", "", "", "", "XX", "1546827399"),
            seg("PRV", "RF", "PXC", "207X00000X"),
            seg("HL", "5", "4", "SS", "0"),
            seg("UM", "HS", "I"),
            seg("DTP", "472", "RD8", self.service_dates),
            seg("SV1", f"HC:{self.cpt}", "", "UN", "1"),
        ]
        return [s for s in out if s]


def attachment_275(document: Document, member: str = "ACM402918331",
                   last: str = "ALVAREZ", first: str = "TOMAS") -> list[str]:
    entity = mime_entity(document.filename, document.content_type, document.content,
                         document.description)
    return [
        seg("BGN", "02", f"RFM-275-{document.control}", "20261019", "0915"),
        seg("NM1", "PR", "2", "ACME HEALTH", "", "", "", "", "PI", "ACME1"),
        seg("NM1", "41", "2", ORG_NAME, "", "", "", "", "46", SUBMITTER),
        seg("NM1", "1P", "2", ORG_NAME, "", "", "", "", "XX", ORG_NPI),
        seg("NM1", "QC", "1", last, first, "", "", "", "MI", member),
        seg("LX", "1"),
        seg("TRN", "2", document.control),
        seg("DTP", "368", "D8", "20261019"),
        seg("CAT", "AE", "MB"),
        seg("EFI", "05"),
        f"BIN*{len(entity.encode('latin-1'))}*{entity}~",
    ]


def interchange(groups: list[tuple[str, str, str, list[list[str]]]], control: int = 101,
                ack: str = "1") -> bytes:
    """``groups``: (GS01, GS08, ST01, [transaction bodies]); counts are computed."""
    isa = ("ISA*00*          *00*          *ZZ*" + SUBMITTER.ljust(15) + "*ZZ*" +
           "ACME1".ljust(15) + f"*261019*0915*^*00501*{control:09d}*{ack}*T*:~")
    lines = [isa]
    for number, (code, version, ident, bodies) in enumerate(groups, start=1):
        gs_control = str(control * 10 + number)
        lines.append(seg("GS", code, SUBMITTER, "ACME1", "20261019", "0915", gs_control, "X",
                         version))
        for index, body in enumerate(bodies, start=1):
            st_control = f"{index:04d}"
            lines.append(seg("ST", ident, st_control, version))
            lines.extend(body)
            lines.append(seg("SE", str(len(body) + 2), st_control))
        lines.append(seg("GE", str(len(bodies)), gs_control))
    lines.append(seg("IEA", str(len(groups)), f"{control:09d}"))
    return "\n".join(lines).encode("latin-1") + b"\n"


def request_with_attachments(request: Request278, control: int = 101) -> bytes:
    """One interchange: the 278 (GS HI) and a 275 for each of its documents (GS PI)."""
    groups: list[tuple[str, str, str, list[list[str]]]] = [
        ("HI", "005010X217", "278", [request.segments()])]
    if request.documents:
        groups.append(("PI", "005010X210", "275",
                       [attachment_275(d, request.member, request.last, request.first)
                        for d in request.documents]))
    return interchange(groups, control)


def questionnaire_document(answers: dict[str, object], control: str = "RFM-QR-0001",
                           key: str = "lumbar_mri") -> Document:
    """A QuestionnaireResponse (answers by linkId) as a 275 document."""
    items = []
    for link_id, value in answers.items():
        values = value if isinstance(value, list) else [value]
        answer = []
        for v in values:
            if isinstance(v, bool):
                answer.append({"valueBoolean": v})
            elif isinstance(v, int):
                answer.append({"valueInteger": v})
            elif isinstance(v, dict):
                answer.append({"valueCoding": v})
            else:
                answer.append({"valueString": v})
        items.append({"linkId": link_id, "answer": answer})
    qr = {"resourceType": "QuestionnaireResponse", "status": "completed",
          "questionnaire": "http://api.acmehealth.test/fhir/Questionnaire/" + key.replace("_", "-"),
          "item": items}
    return Document(control, "OZ", "questionnaire-response.json", "application/fhir+json",
                    json.dumps(qr, indent=1).encode() + b"\n", "QUESTIONNAIRE RESPONSE LUMBAR MRI")


GOLD_ANSWERS: dict[str, object] = {
    "primary_diagnosis": {"system": "http://hl7.org/fhir/sid/icd-10-cm", "code": "M51.16"},
    "symptom_duration_weeks": 10,
    "conservative_therapy_6wk": True,
    "physical_therapy": True,
    "pt_weeks": 6,
    "nsaid_trial": True,
    "nsaid_name": "naproxen 500 mg twice daily",
    "red_flags": [{"system": "http://api.acmehealth.test/fhir/Questionnaire/lumbar-mri/red_flags",
                   "code": "none"}],
    "prior_imaging": {"system": "http://api.acmehealth.test/fhir/Questionnaire/lumbar-mri/"
                                "prior_imaging", "code": "xray"},
}
