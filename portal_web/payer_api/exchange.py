"""One X12 exchange: an interchange in, acknowledgements and 278 responses out.

Order of work, as a clearinghouse-facing payer does it:

1. interchange envelope → a TA1 (rejected interchanges stop here; an accepted one gets a
   TA1 only when ``ISA14`` asks for it);
2. each functional group and transaction set → checked against its guide → one 999 per
   group (``IK3``/``IK4`` name each bad segment and element);
3. each accepted 275 → its document; each accepted 278 request → a case (with the 275s
   its ``PWK`` segments name, and the questionnaire answers) or an ``AAA`` reject; each
   accepted 278 inquiry → the case's current decision;
4. everything received and sent → ``x12_transactions``; all writes in one transaction.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from portal_web.payer_api import cases, guides
from portal_web.payer_api.attachments import ReceivedDocument, read_document
from portal_web.payer_api.cases import IncomingDocument, Rejection, ReviewRequest
from portal_web.payer_api.edi import FunctionalGroup, Interchange, Problem, TransactionSet
from portal_web.payer_api.outbound import (
    ACK_VERSION,
    OutboundGroup,
    OutboundSet,
    SetVerdict,
    ack_999,
    interchange,
    ta1,
)
from portal_web.payer_api.responses import Decision, RequestView, decision_of, review_response
from portal_web.payer_api.rules import Issue, SegmentError, check_transaction
from sandbox.stores.acme import ApiClient, PaCase, X12Transaction

log = logging.getLogger("portal_web.payer_api")
GROUP_SETS = {"HI": ("278",), "PI": ("275",)}
DOCUMENT_TYPES = {"PN": "therapy_note", "M1": "clinical_note", "OB": "clinical_note",
                  "OE": "clinical_note", "PY": "clinical_note", "DS": "clinical_note",
                  "NN": "progress_note", "09": "progress_note", "RR": "imaging_report",
                  "DG": "imaging_report", "LA": "lab_result", "08": "plan_of_care",
                  "B3": "prescription", "CT": "letter_of_medical_necessity"}


@dataclass
class Outcome:
    """What one exchange answers and records."""

    body: str
    log_rows: list[X12Transaction] = field(default_factory=list)
    summary: str = ""


@dataclass
class _Received:
    ts: TransactionSet
    verdict: SetVerdict
    document: ReceivedDocument | None = None


def raw_set(ts: TransactionSet, ic: Interchange) -> str:
    """The transaction set exactly as received, ST to SE (binary data put back)."""
    return ic.received_text(ts.segments[0], ts.segments[-1]).lstrip("\r\n")


def next_control(db: Session) -> int:
    return (db.scalar(select(func.count(X12Transaction.id))) or 0) + 1


# -- envelope ---------------------------------------------------------------------------------
def envelope_problem(ic: Interchange) -> Problem | None:
    if ic.problems:
        return ic.problems[0]
    if ic.isa.value(1) not in ("00", "03") or ic.isa.value(3) not in ("00", "01"):
        return Problem("010", "ISA01/ISA03: authorization and security qualifiers must be 00.")
    if ic.receiver[1] != "ACME1":
        return Problem("008", f"ISA08 is '{ic.receiver[1][:15]}'; Acme's interchange receiver "
                              "ID is ACME1 (ISA07 ZZ).")
    if not re.fullmatch(r"\d{9}", ic.control):
        return Problem("018", "ISA13 must be a 9-digit interchange control number.")
    if ic.isa.value(14) not in ("0", "1"):
        return Problem("019", "ISA14 must be 0 or 1.")
    if ic.isa.value(15) not in ("P", "T"):
        return Problem("020", "ISA15 must be P (production) or T (test).")
    if not re.fullmatch(r"\d{6}", ic.isa.value(9)):
        return Problem("014", "ISA09 must be a YYMMDD date.")
    if not re.fullmatch(r"\d{4}", ic.isa.value(10)):
        return Problem("015", "ISA10 must be an HHMM time.")
    return None


def group_problems(group: FunctionalGroup) -> list[Problem]:
    problems = list(group.problems)
    if group.code not in GROUP_SETS:
        problems.append(Problem("1", f"GS01 {group.code[:2]} is not accepted: use HI for 278 "
                                     "and PI for 275."))
    elif group.version not in guides.FUNCTIONAL_GROUP or \
            guides.FUNCTIONAL_GROUP[group.version] != group.code:
        problems.append(Problem("2", f"GS08 {group.version[:12]} is not supported with GS01 "
                                     f"{group.code}: use 005010X217 or 005010X215 (HI), "
                                     "005010X210 (PI)."))
    if group.header.value(3).strip() == "" or group.header.value(3) != \
            group.header.value(3).strip():
        problems.append(Problem("6", "GS02 (application sender code) is required."))
    return problems


def check_set(ts: TransactionSet, group: FunctionalGroup) -> SetVerdict:
    envelope = list(ts.problems)
    if ts.ident not in GROUP_SETS.get(group.code, ()):
        envelope.append(Problem("6", f"ST01 {ts.ident[:3]} does not belong in a GS01 "
                                     f"{group.code} group."))
        return SetVerdict(ts, envelope, [])
    if ts.version != group.version:
        envelope.append(Problem("I6", f"ST03 {ts.version[:12]} differs from GS08 "
                                      f"{group.version[:12]}."))
        return SetVerdict(ts, envelope, [])
    purpose = ts.segments[1].value(2) if len(ts.segments) > 1 and \
        ts.segments[1].seg_id == "BHT" else "13"
    if ts.ident == "278" and purpose != "13":
        purpose = "13"  # only requests are accepted; BHT02 is then reported as invalid
    guide = guides.guide_for(ts.ident, ts.version, purpose)
    if guide is None:
        envelope.append(Problem("I6", f"{ts.ident} {ts.version[:12]} is not supported."))
        return SetVerdict(ts, envelope, [])
    return SetVerdict(ts, envelope, check_transaction(ts, guide))


# -- the exchange -------------------------------------------------------------------------------
class Exchange:
    """Processes one readable interchange for one API client."""

    def __init__(self, db: Session, client: ApiClient, ic: Interchange, body: bytes,
                 now: dt.datetime):
        self.db = db
        self.client = client
        self.ic = ic
        self.body = body
        self.now = now
        self.rows: list[X12Transaction] = []

    def log(self, direction: str, ts_ident: str, control: str, raw: str, *,
            case_id: int | None = None, status: str = "accepted", error: str = "") -> None:
        row = X12Transaction(api_client_id=self.client.id, direction=direction,
                             transaction_set=ts_ident[:4], control_number=control[:12], raw=raw,
                             case_id=case_id, status=status, error_text=error[:4000],
                             at=self.now)
        self.db.add(row)
        self.rows.append(row)

    def run(self) -> Outcome:
        control = next_control(self.db)
        problem = envelope_problem(self.ic)
        receiver = self.ic.sender
        usage = self.ic.isa.value(15)
        if problem is not None:
            ack = ta1(self.ic, "", problem)
            self.log("inbound", "ISA", self.ic.control, self.body.decode("latin-1"),
                     status="rejected", error=problem.message)
            text = interchange(receiver, control, self.now, ta1=ack, usage=usage)
            self.log("outbound", "TA1", f"{control:09d}", text, status="rejected",
                     error=problem.message)
            return Outcome(text, self.rows, f"TA1 {problem.code}: {problem.message}")
        out_groups: list[OutboundGroup] = []
        responses: list[OutboundSet] = []
        response_cases: list[int | None] = []
        summaries: list[str] = []
        requests: list[_Received] = []
        documents: list[_Received] = []
        checked: list[tuple[FunctionalGroup, list[Problem], list[SetVerdict]]] = []
        for group in self.ic.groups:
            problems = group_problems(group)
            verdicts = []
            for ts in group.transactions:
                if problems:
                    verdict = SetVerdict(ts, [Problem("5", "the group was rejected")], [])
                else:
                    verdict = check_set(ts, group)
                received = _Received(ts, verdict)
                if verdict.accepted and ts.ident == "275":
                    received.document, errors = read_document(ts, self.ic)
                    if errors:
                        verdict.errors.extend(errors)
                verdicts.append(verdict)
                (documents if ts.ident == "275" else requests).append(received)
            checked.append((group, problems, verdicts))
        by_control = {r.document.control_number: r for r in documents
                      if r.verdict.accepted and r.document is not None}
        used: set[str] = set()
        case_of_document: dict[str, int] = {}
        for received in requests:
            case_id = None
            if not received.verdict.accepted:
                self.log("inbound", "278", received.ts.control, raw_set(received.ts, self.ic),
                         status="rejected", error="; ".join(
                             [p.message for p in received.verdict.envelope]
                             + [e.describe() for e in received.verdict.errors])[:4000])
                continue
            response, case_id, message = self.answer(received.ts, by_control, used,
                                                     case_of_document)
            self.log("inbound", "278", received.ts.control, raw_set(received.ts, self.ic),
                     case_id=case_id, status="accepted" if case_id or "inquiry" in message
                     else "rejected", error="" if case_id else message)
            responses.append(response)
            response_cases.append(case_id)
            summaries.append(message)
        # a 275 named by a request of this interchange belongs to that request only
        named = {c for r in requests for c in self._pwk_controls(RequestView(r.ts))}
        for received in documents:
            document = received.document
            status, error, case_id = "rejected", "", None
            if received.verdict.accepted and document is not None:
                if document.control_number in used:
                    status, case_id = "accepted", case_of_document.get(document.control_number)
                elif document.control_number in named:
                    error = (f"275 {document.control_number} was not kept: the 278 request "
                             "naming it was refused (see its 999 or AAA); send it again with "
                             "the corrected request.")
                else:
                    case_id, error = self.attach_later(document)
                    status = "accepted" if case_id else "rejected"
                if error:
                    received.verdict.errors.append(unlinked(received.ts, error))
            else:
                error = "; ".join([p.message for p in received.verdict.envelope]
                                  + [e.describe() for e in received.verdict.errors])
            self.log("inbound", "275", received.ts.control, raw_set(received.ts, self.ic),
                     case_id=case_id, status=status, error=error)
            if error:
                summaries.append(error)
        ack_sets: list[tuple[OutboundSet, str, list[str]]] = []
        for group, problems, verdicts in checked:
            notes = [p.message for p in problems] + [
                p.message for v in verdicts for p in v.envelope] + [
                e.describe() for v in verdicts for e in v.errors]
            ack_sets.append((ack_999(group, verdicts, problems), group.control, notes))
            summaries[:0] = notes[:5]
        out_groups.extend(OutboundGroup("FA", ACK_VERSION, [ack]) for ack, _, _ in ack_sets)
        by_version: dict[str, OutboundGroup] = {}
        for response in responses:
            by_version.setdefault(response.version, OutboundGroup("HI", response.version)
                                  ).sets.append(response)
        out_groups.extend(by_version.values())
        ack_segment = ta1(self.ic, "", None) if self.ic.ack_requested else None
        text = interchange(receiver, control, self.now, groups=out_groups, ta1=ack_segment,
                           usage=usage)
        self._log_outbound(text, control, out_groups, response_cases, ack_sets)
        return Outcome(text, self.rows, " | ".join(s for s in summaries if s)[:1000])

    def _log_outbound(self, text: str, control: int, groups: list[OutboundGroup],
                      response_cases: list[int | None],
                      ack_sets: list[tuple[OutboundSet, str, list[str]]]) -> None:
        """One outbound row per set sent (its ST..SE), plus the TA1 when one was sent."""
        if self.ic.ack_requested:
            self.log("outbound", "TA1", f"{control:09d}", ta1(self.ic, "", None))
        acks = iter(ack_sets)
        responses = iter(response_cases)
        for group in groups:
            for index, ts in enumerate(group.sets, start=1):
                raw = "\n".join(ts.render(f"{index:04d}")) + "\n"
                if ts.ident == "999":
                    _ack, group_control, notes = next(acks)
                    rejected = any(seg.startswith(("IK5*R", "AK9*R", "AK9*P")) for seg in ts.body)
                    self.log("outbound", "999", group_control, raw,
                             status="rejected" if rejected else "accepted",
                             error="; ".join(notes)[:4000])
                else:
                    case_id = next(responses, None)
                    self.log("outbound", ts.ident, f"{control:09d}", raw, case_id=case_id,
                             status="accepted" if case_id else "rejected")

    # -- 278 requests and inquiries -----------------------------------------------------------
    def answer(self, ts: TransactionSet, by_control: dict[str, _Received], used: set[str],
               case_of_document: dict[str, int]) -> tuple[OutboundSet, int | None, str]:
        view = RequestView(ts)
        if ts.version == guides.X215:
            return self.inquiry(view)
        try:
            request = self.read_request(view, by_control)
            plan = cases.evaluate(self.db, self.client, request, self.now.date())
        except Rejection as rejection:
            return (review_response(view, ts.version, self.now, rejection=rejection), None,
                    f"AAA {rejection.reason} in {rejection.loop}: {rejection.message}")
        case = cases.file_case(self.db, self.client, plan, self.now)
        for control in self._pwk_controls(view):
            if control in by_control:
                used.add(control)
                case_of_document[control] = case.id
        decision = decision_of(case)
        if request.awaited_documents:
            decision.message += (" Awaiting attachment(s) " + ", ".join(
                request.awaited_documents[:5]) + ": send each as a 275.")
        return (review_response(view, ts.version, self.now, decision=decision), case.id,
                f"{case.reference_number}: HCR {decision.action}")

    def _pwk_controls(self, view: RequestView) -> list[str]:
        return [p.value(6) for level in ("EV", "SS") for p in view.all(level, "PWK")
                if p.value(5) == "AC" and p.value(6)]

    def read_request(self, view: RequestView, by_control: dict[str, _Received]
                     ) -> ReviewRequest:
        """The X12 278 request as a :class:`ReviewRequest` (refusals as :class:`Rejection`)."""
        umo = view.first("20", "NM1")
        if umo is None or umo.value(8) != "PI" or umo.value(9) != "ACME1":
            raise Rejection("2010A", "79", "C", "Loop 2010A must name Acme Health: "
                            "NM1*X3*2*ACME HEALTH*****PI*ACME1.")
        requester = view.first("21", "NM1")
        subscriber = view.first("22", "NM1")
        if requester is None or subscriber is None:
            raise Rejection("2010C", "15", "C", "Requester and subscriber names are required.")
        if requester.value(8) != "XX":
            raise Rejection("2010B", "43", "C", "Identify the requester by NPI (NM108 XX).")
        if view.levels.get("23"):
            raise Rejection("2010C", "33", "C", "Acme members are identified individually: send "
                            "the patient as the subscriber (2000C) without a dependent loop.")
        dmg = view.first("22", "DMG")
        birth = None
        if dmg is not None:
            birth = dt.date(int(dmg.value(2)[:4]), int(dmg.value(2)[4:6]), int(dmg.value(2)[6:]))
        um = view.first("EV", "UM")
        services = [s for s in view.levels.get("SS", [])]
        service_hls = [s for s in services if s.seg_id == "HL"]
        if len(service_hls) != 1:
            raise Rejection("2000E", "AG", "C", "Send exactly one service (one 2000F loop with an "
                            "SV1 or SV2) per 278 request.")
        line = view.first("SS", "SV1") or view.first("SS", "SV2")
        if line is None:
            raise Rejection("2000F", "AG", "C", "The service needs its procedure code: SV1*HC:"
                            "<CPT or HCPCS> (professional) or SV2 (institutional).")
        index = 1 if line.seg_id == "SV1" else 2
        qualifier, code = line.value(index, 1), line.value(index, 2)
        if qualifier != "HC" or not code:
            raise Rejection("2000F", "AG", "C", f"{line.seg_id}0{index}: send HC:<CPT or HCPCS "
                            "code>.")
        units_text = line.value(4 if index == 1 else 5)
        try:
            units = int(float(units_text)) if units_text else None
        except ValueError:
            units = None
        dtp = view.first("SS", "DTP", "472") or view.first("EV", "DTP", "472")
        start = end = None
        if dtp is not None:
            value = dtp.value(3)
            start = _date(value[:8])
            end = _date(value[9:17]) if dtp.value(2) == "RD8" else start
        hi = view.first("EV", "HI")
        diagnoses = [parts[1] for parts in hi.elements() if len(parts) > 1 and parts[1]] \
            if hi else []
        provider = next((s for lv in ("SS", "EV") for s in view.all(lv, "NM1")
                         if s.value(1) in ("SJ", "DK", "1T", "71", "72")), None)
        prv = view.first("EV", "PRV") or view.first("SS", "PRV")
        msg = view.first("EV", "MSG") or view.first("SS", "MSG")
        qr: dict | None = None
        documents: list[IncomingDocument] = []
        awaited: list[str] = []
        for level in ("EV", "SS"):
            for pwk in view.all(level, "PWK"):
                control = pwk.value(6)
                if pwk.value(5) != "AC" or not control:
                    continue
                received = by_control.get(control)
                if received is None or received.document is None:
                    awaited.append(control)
                    continue
                document = received.document
                if document.patient_member_number and document.patient_member_number != \
                        subscriber.value(9):
                    raise Rejection("2000E", "CI", "C", f"Attachment {control} (275) names "
                                    f"member {document.patient_member_number}, not "
                                    f"{subscriber.value(9)}.")
                if document.questionnaire_response is not None:
                    if qr is not None:
                        raise Rejection("2000E", "AO", "C", "Send one QuestionnaireResponse "
                                        "per request.")
                    qr = document.questionnaire_response
                    continue
                documents.append(IncomingDocument(
                    filename=document.filename, content_type=document.content_type,
                    content=document.content,
                    description=pwk.value(7) or document.description,
                    document_type=DOCUMENT_TYPES.get(pwk.value(1), "other")))
        location = um.value(4, 1) if um is not None and um.value(4, 2) == "B" else None
        name = " ".join(p for p in (provider.value(4), provider.value(3)) if p) \
            if provider is not None and provider.value(2) == "1" else \
            (provider.value(3) if provider is not None else None)
        return ReviewRequest(
            member_number=subscriber.value(9), last_name=subscriber.value(3),
            first_name=subscriber.value(4), birth_date=birth,
            requester_npi=requester.value(9), requester_name=requester.value(3),
            category=um.value(1) if um else "", certification_type=um.value(2) if um else "",
            urgency="expedited" if um is not None and um.value(6) in ("U", "03") else "standard",
            place_of_service=location, diagnoses=diagnoses,
            service_code_type="HCPCS" if code[:1].isalpha() else "CPT", service_code=code,
            modifier=line.value(index, 3) or None, units=units,
            unit_type="visits" if line.value(index + 2) == "VS" else "units",
            service_from=start, service_to=end,
            rendering_npi=provider.value(9) if provider is not None and
            provider.value(8) == "XX" else None,
            rendering_name=name.title() if name else None,
            rendering_taxonomy=prv.value(3) if prv is not None else None,
            clinical_summary=msg.value(1) if msg is not None else "",
            questionnaire_response=qr, documents=documents, awaited_documents=awaited)

    def inquiry(self, view: RequestView) -> tuple[OutboundSet, int | None, str]:
        version = guides.X215
        if "status" not in self.client.scopes.split():
            rejection = Rejection("2000E", "41", "N", "This client is not enabled for status "
                                  "inquiries (scope 'status').")
            return (review_response(view, version, self.now, rejection=rejection), None,
                    f"inquiry: {rejection.message}")
        subscriber = view.first("22", "NM1")
        refs = {r.value(1): r.value(2) for lv in ("EV", "SS") for r in view.all(lv, "REF")}
        case = None
        if refs.get("NT"):
            case = self.db.scalar(select(PaCase).where(PaCase.reference_number == refs["NT"]))
        elif refs.get("BB"):
            case = self.db.scalar(select(PaCase).where(PaCase.auth_number == refs["BB"]))
        member = case and case.member_id and subscriber is not None and \
            self._member_number(case) == subscriber.value(9)
        if case is None or not member or (case.requesting_tin or "").replace("-", "") != \
                self.client.organization_tin.replace("-", ""):
            rejection = Rejection("2000E", "AA", "C", "No case of this organization matches the "
                                  "tracking reference (REF*NT) or authorization number (REF*BB) "
                                  "for this member.")
            return (review_response(view, version, self.now, rejection=rejection), None,
                    f"inquiry: {rejection.message}")
        decision: Decision = decision_of(case)
        return (review_response(view, version, self.now, decision=decision), case.id,
                f"inquiry {case.reference_number}: HCR {decision.action}")

    def _member_number(self, case: PaCase) -> str:
        from sandbox.stores.acme import Member

        member = self.db.get(Member, case.member_id)
        return member.member_number if member else ""

    # -- 275s for an earlier request ------------------------------------------------------------
    def attach_later(self, document: ReceivedDocument) -> tuple[int | None, str]:
        """Attach a 275 whose control number a case of this client named in a PWK."""
        rows = self.db.scalars(select(X12Transaction).where(
            X12Transaction.api_client_id == self.client.id,
            X12Transaction.direction == "inbound", X12Transaction.transaction_set == "278",
            X12Transaction.case_id.is_not(None)).order_by(X12Transaction.id.desc()))
        for row in rows:
            if document.control_number in pwk_controls(row.raw):
                case = self.db.get(PaCase, row.case_id)
                if case is None:
                    continue
                if document.questionnaire_response is not None:
                    return None, (f"275 {document.control_number}: questionnaire answers must "
                                  "travel with the 278 request.")
                cases.attach(self.db, case, IncomingDocument(
                    document.filename, document.content_type, document.content,
                    document.description, "other"), self.client, self.now)
                return case.id, ""
        return None, (f"275 {document.control_number}: no 278 request of this client names "
                      "this attachment control number in a PWK segment.")


def unlinked(ts: TransactionSet, message: str) -> SegmentError:
    """A 999 finding on a 275's TRN whose control number no request takes."""
    trn = next((s for s in ts.segments if s.seg_id == "TRN"), ts.segments[0])
    return SegmentError("TRN", trn.position, "1000", "8", "Attachment control number not "
                        "accepted.", [Issue("2", 127, "7", trn.value(2)[:50], message)])


def pwk_controls(raw: str) -> set[str]:
    """Attachment control numbers (PWK06 with PWK05 AC) of a stored 278 transaction set."""
    if len(raw) < 4:
        return set()
    element = raw[2]
    index = raw.find(element + "0050")
    terminator = raw[index + 11] if 0 <= index and len(raw) > index + 11 else "~"
    found = set()
    for seg in raw.split(terminator):
        fields = seg.strip("\r\n").split(element)
        if fields[0] == "PWK" and len(fields) > 6 and fields[5] == "AC":
            found.add(fields[6])
    return found


def _date(text: str) -> dt.date | None:
    try:
        return dt.date(int(text[:4]), int(text[4:6]), int(text[6:8]))
    except ValueError:
        return None


def problem_summary(errors: list[SegmentError]) -> str:
    return "; ".join(e.describe() for e in errors)
