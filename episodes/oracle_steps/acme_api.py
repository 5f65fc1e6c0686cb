"""Acme Health's X12 278 API (``api.acmehealth.test``), for the oracles of the API control
tasks: a prior-authorization request built the way a provider's integration engine builds it,
to Acme's companion guide (docs/payer-api.md): the 278 request (005010X217), one 275
(005010X210) per attachment in a second group of the same interchange, the questionnaire
answers as a FHIR QuestionnaireResponse in one more 275, and the 278 response read back for
its tracking reference.

Segments end in ``~`` (one to a line), elements are separated by ``*``, components by ``:``;
segment counts and ``BIN01`` byte counts are computed. Every request goes through
``o.api_request`` (API-channel tasks only); the client is the task's ``input/api.json``.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass

ICD10_CM = "http://hl7.org/fhir/sid/icd-10-cm"
X12_TYPE = "application/EDI-X12"
RECEIVER = "ACME1"


# -- the client and the parties ----------------------------------------------------------------
def client(o, name="api.json"):
    """The API client of ``input/api.json``: endpoint, credentials, payer and submitter."""
    return json.loads(o.input_text(name))


def basic_auth(api):
    secret = f"{api['client_id']}:{api['client_secret']}".encode()
    return {"Authorization": "Basic " + base64.b64encode(secret).decode("ascii")}


def api_base(api):
    """``http://api.acmehealth.test`` from the X12 endpoint's URL."""
    return api["endpoint"].split("/x12/")[0]


@dataclass(frozen=True)
class Member:
    """The patient as Acme knows them: always the subscriber, by member ID."""

    last: str
    first: str
    member_id: str
    birth_date: str  # CCYYMMDD
    sex: str  # F, M or U


@dataclass(frozen=True)
class Attachment:
    """One document for a 275: its control number is what the 278's PWK06 names."""

    control: str
    report_type: str  # PWK01: PN physical therapy notes, M1 medical record, OZ support data
    filename: str
    content_type: str
    data: bytes
    description: str


@dataclass(frozen=True)
class Service:
    """What is asked for: one procedure, its diagnoses (ICD-10-CM with the dot), dates."""

    cpt: str
    diagnoses: tuple[str, ...]
    start: str  # CCYYMMDD
    end: str
    service_type: str = "62"  # X12 1365: MRI/CAT scan
    place: str = "11"  # office
    units: int = 1


# -- segments ------------------------------------------------------------------------------------
def seg(*elements):
    """One segment; trailing empty elements are dropped, as the guide requires."""
    values = [str(e) for e in elements]
    while values and values[-1] == "":
        values.pop()
    return "*".join(values) + "~"


def submitter_id(api):
    """The interchange sender ID: the submitter's name as trading partners agree it."""
    words = api["submitter"]["organization"].upper().replace("&", " ").split()
    return (words[0] + "".join(w[0] for w in words[1:3]))[:15]


def trace_company(api):
    """TRN03: '1' followed by the submitter's EIN."""
    return "1" + api["submitter"]["tin"].replace("-", "")


def request_278(api, member, service, attachments, trace, when):
    """The body of a 278 request (BHT to the service line), attachments announced by PWK."""
    org = api["submitter"]["organization"].upper()
    dates = f"{service.start}-{service.end}"
    return [
        seg("BHT", "0007", "13", trace, when.strftime("%Y%m%d"), when.strftime("%H%M")),
        seg("HL", "1", "", "20", "1"),
        seg("NM1", "X3", "2", api["payer"].upper(), "", "", "", "", "PI", api["payer_id"]),
        seg("HL", "2", "1", "21", "1"),
        seg("NM1", "1P", "2", org, "", "", "", "", "XX", api["submitter"]["npi"]),
        seg("HL", "3", "2", "22", "1"),
        seg("NM1", "IL", "1", member.last.upper(), member.first.upper(), "", "", "", "MI",
            member.member_id),
        seg("DMG", "D8", member.birth_date, member.sex),
        seg("HL", "4", "3", "EV", "1"),
        seg("TRN", "1", trace, trace_company(api)),
        seg("UM", "HS", "I", service.service_type, f"{service.place}:B", "", "E"),
        seg("DTP", "472", "RD8", dates),
        seg("HI", *[f"{'ABK' if i == 0 else 'ABF'}:{code.replace('.', '')}"
                    for i, code in enumerate(service.diagnoses)]),
        *[seg("PWK", a.report_type, "EL", "", "", "AC", a.control, a.description)
          for a in attachments],
        seg("HL", "5", "4", "SS", "0"),
        seg("UM", "HS", "I"),
        seg("DTP", "472", "RD8", dates),
        seg("SV1", f"HC:{service.cpt}", "", "UN", str(service.units)),
    ]


def mime_entity(attachment):
    """BIN02: a one-part MIME entity; documents base64, FHIR JSON as it is (readable)."""
    readable = attachment.content_type == "application/fhir+json"
    lines = [f"Content-Type: {attachment.content_type}"]
    if not readable:
        lines.append("Content-Transfer-Encoding: base64")
    lines.append(f'Content-Disposition: attachment; filename="{attachment.filename}"')
    lines.append(f"Content-Description: {attachment.description}")
    body = attachment.data.decode("ascii") if readable else \
        base64.encodebytes(attachment.data).decode("ascii")
    return "\n".join(lines) + "\n\n" + body


def attachment_275(api, member, attachment, when):
    """The body of a 275 carrying one attachment (its TRN02 = the 278's PWK06)."""
    org = api["submitter"]["organization"].upper()
    entity = mime_entity(attachment)
    return [
        seg("BGN", "02", f"{attachment.control}-275", when.strftime("%Y%m%d"),
            when.strftime("%H%M")),
        seg("NM1", "PR", "2", api["payer"].upper(), "", "", "", "", "PI", api["payer_id"]),
        seg("NM1", "41", "2", org, "", "", "", "", "46", submitter_id(api)),
        seg("NM1", "1P", "2", org, "", "", "", "", "XX", api["submitter"]["npi"]),
        seg("NM1", "QC", "1", member.last.upper(), member.first.upper(), "", "", "", "MI",
            member.member_id),
        seg("LX", "1"),
        seg("TRN", "2", attachment.control),
        seg("DTP", "368", "D8", when.strftime("%Y%m%d")),
        seg("CAT", "AE", "MB"),
        seg("EFI", "05"),
        f"BIN*{len(entity.encode('latin-1'))}*{entity}~",
    ]


def interchange(api, groups, when, control=1):
    """ISA ... IEA around ``groups`` of (GS01, GS08, ST01, [transaction set bodies]), with
    every count and control number filled in; a TA1 is asked for (ISA14 1)."""
    sender = submitter_id(api)
    lines = ["ISA*00*          *00*          *ZZ*" + sender.ljust(15) + "*ZZ*" +
             RECEIVER.ljust(15) + f"*{when.strftime('%y%m%d')}*{when.strftime('%H%M')}"
             f"*^*00501*{control:09d}*1*T*:~"]
    for number, (code, version, ident, bodies) in enumerate(groups, start=1):
        group = str(control * 10 + number)
        lines.append(seg("GS", code, sender, RECEIVER, when.strftime("%Y%m%d"),
                         when.strftime("%H%M"), group, "X", version))
        for index, body in enumerate(bodies, start=1):
            st = f"{index:04d}"
            lines += [seg("ST", ident, st, version), *body, seg("SE", str(len(body) + 2), st)]
        lines.append(seg("GE", str(len(bodies)), group))
    lines.append(seg("IEA", str(len(groups)), f"{control:09d}"))
    return "\n".join(lines) + "\n"


def prior_auth_interchange(api, member, service, attachments, trace, when):
    """One interchange: the 278 request (GS HI) and a 275 per attachment (GS PI)."""
    groups = [("HI", "005010X217", "278",
               [request_278(api, member, service, attachments, trace, when)])]
    if attachments:
        groups.append(("PI", "005010X210", "275",
                       [attachment_275(api, member, a, when) for a in attachments]))
    return interchange(api, groups, when)


# -- the questionnaire -----------------------------------------------------------------------
def questionnaire(o, api, cpt):
    """Acme's Questionnaire for a procedure code (``GET /fhir/Questionnaire?context=``)."""
    reply = o.api_request("GET", f"{api_base(api)}/fhir/Questionnaire",
                          params={"context": cpt}, headers=basic_auth(api))
    if reply.status != 200:
        raise RuntimeError(f"the Questionnaire search answered {reply.status}: "
                           f"{reply.text[:300]}")
    found = [e["resource"] for e in reply.json().get("entry", [])]
    if len(found) != 1:
        raise RuntimeError(f"{len(found)} questionnaires for {cpt}")
    return found[0]


def _enabled(item, given):
    """Whether ``item`` is asked under the answers ``given`` so far (its enableWhen)."""
    conditions = item.get("enableWhen", [])
    if not conditions:
        return True
    results = []
    for cond in conditions:
        answered = given.get(cond["question"], [])
        if cond["operator"] == "exists":
            results.append(bool(answered) == cond["answerBoolean"])
            continue
        wanted = next(v for k, v in cond.items() if k.startswith("answer"))
        wanted = wanted.get("code") if isinstance(wanted, dict) else wanted
        matches = [v == wanted for v in answered]
        results.append(any(matches) if cond["operator"] == "=" else not any(matches))
    return all(results) if item.get("enableBehavior") == "all" else any(results)


def _answer(item, value):
    """One answer of ``item`` in the value[x] its type takes."""
    kind = item["type"]
    if kind == "boolean":
        return {"valueBoolean": bool(value)}
    if kind == "integer":
        return {"valueInteger": int(value)}
    if kind == "decimal":
        return {"valueDecimal": float(value)}
    if kind == "date":
        return {"valueDate": str(value)}
    if kind in ("string", "text"):
        return {"valueString": str(value)}
    for option in item.get("answerOption", []):
        if option.get("valueCoding", {}).get("code") == value:
            return {"valueCoding": {k: option["valueCoding"][k] for k in ("system", "code")}}
    if "icd-10" in item.get("answerValueSet", ""):
        return {"valueCoding": {"system": ICD10_CM, "code": str(value)}}
    raise RuntimeError(f"{item['linkId']}: {value!r} is not one of its options")


def questionnaire_response(form, answers):
    """A completed QuestionnaireResponse: the enabled questions in the form's order, each
    answered from ``answers`` (linkId -> value; a list for a question that repeats)."""
    items, given = [], {}
    for item in form["item"]:
        link = item["linkId"]
        if not _enabled(item, given):
            continue
        if link not in answers:
            if item.get("required"):
                raise RuntimeError(f"no answer for the required question {link}")
            continue
        values = answers[link] if isinstance(answers[link], list) else [answers[link]]
        given[link] = values
        items.append({"linkId": link, "answer": [_answer(item, v) for v in values]})
    return {"resourceType": "QuestionnaireResponse", "status": "completed",
            "questionnaire": form["url"], "item": items}


def questionnaire_attachment(response, control, title):
    """The QuestionnaireResponse as the 275 attachment a PWK*OZ announces."""
    data = json.dumps(response, indent=1).encode("ascii") + b"\n"
    return Attachment(control, "OZ", "questionnaire-response.json", "application/fhir+json",
                      data, title)


# -- sending and reading the reply -------------------------------------------------------------
def segments(reply_text):
    """The segments of a reply interchange (its terminator is ISA16's neighbour)."""
    text = reply_text.strip()
    terminator = text[105] if text.startswith("ISA") and len(text) > 105 else "~"
    return [s.strip() for s in text.split(terminator) if s.strip()]


def submit(o, api, interchange_text):
    """POST the interchange; the reply's segments when every part was accepted, else fail
    with what the payer said (TA1, 999 and AAA findings, X-Acme-Result)."""
    reply = o.api_request("POST", api["endpoint"], content=interchange_text.encode("latin-1"),
                          headers={**basic_auth(api), "Content-Type": X12_TYPE})
    if reply.status != 200:
        raise RuntimeError(f"the 278 endpoint answered {reply.status}: {reply.text[:300]}")
    found = segments(reply.text)
    refused = [s for s in found if s.startswith(("AAA*", "IK3*", "IK4*"))
               or (s.startswith("TA1*") and s.split("*")[4] != "A")
               or (s.startswith("AK9*") and s.split("*")[1] != "A")]
    if refused:
        raise RuntimeError(f"the payer refused the request: {refused}; "
                           f"{reply.headers.get('x-acme-result', '')}")
    return found


def tracking_reference(reply_segments):
    """The tracking reference of a 278 response (2000E ``REF*NT``)."""
    refs = [s.split("*")[2] for s in reply_segments if s.startswith("REF*NT*")]
    if len(refs) != 1:
        raise RuntimeError(f"the 278 response carries {len(refs)} tracking references")
    return refs[0]
