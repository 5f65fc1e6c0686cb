"""278 responses (005010X217 and 005010X215, BHT02 ``11``) built from the request and a result.

A response mirrors the request's hierarchy (UMO, requester, subscriber, patient event,
service) and adds the payer's answer: an ``AAA`` in the loop whose data was refused, or the
decision — ``HCR01`` (A1 certified, A2 partially, A3 not certified, A4 pended, C cancelled),
``HCR02`` the authorization number when certified, the tracking reference in ``REF*NT`` and
in the payer's ``TRN*1``, and a ``MSG`` in words.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from portal_web.payer_api.cases import Rejection
from portal_web.payer_api.edi import Segment, TransactionSet
from portal_web.payer_api.outbound import OutboundSet, segment
from sandbox.stores.acme import STATUS_LABELS, X12_ACTION_CODES, PaCase

PAYER_NAME = "ACME HEALTH"
PAYER_TRACE_ID = "9ACMEHLTH0"  # TRN03 of the payer's own trace numbers
MESSAGE_LIMIT = 264


@dataclass
class Decision:
    """The payer's answer about one case, as a 278 response carries it."""

    action: str  # HCR01
    certification: str  # HCR02 (authorization number when certified)
    reference: str
    message: str


def decision_of(case: PaCase) -> Decision:
    action = X12_ACTION_CODES.get(case.status, "A4" if case.status == "submitted" else "NA")
    label = STATUS_LABELS.get(case.status, case.status)
    parts = [f"{label}. Tracking reference {case.reference_number}."]
    if case.status in ("approved", "partially_approved"):
        units = f"{case.approved_units} {case.unit_type or 'units'}" if case.approved_units \
            else "as requested"
        span = ""
        if case.approved_from and case.approved_to:
            span = f" {case.approved_from:%Y-%m-%d} to {case.approved_to:%Y-%m-%d}"
        parts.append(f"Authorization {case.auth_number or ''}: {units}{span}.")
    elif case.status == "denied":
        parts.append(f"Reason: {case.denial_reason or case.denial_code or 'see letter'}.")
    elif case.status == "pended" and case.pend_reason:
        parts.append(f"Pended: {case.pend_reason}")
    elif case.decision_due_at is not None:
        parts.append(f"Clinical review; decision due by {case.decision_due_at:%Y-%m-%d}.")
    certification = case.auth_number or "" if action in ("A1", "A2", "A6") else ""
    return Decision(action, certification, case.reference_number or "", " ".join(parts))


def _clean(text: str) -> str:
    """Free text as X12 allows it: no separators, one line, at most 264 characters."""
    kept = "".join(ch if ch.isprintable() and ch not in "*:~^" else " " for ch in text)
    return " ".join(kept.split())[:MESSAGE_LIMIT]


def _echo(seg: Segment | None, keep: int) -> str | None:
    """A request segment copied into the response (its first ``keep`` elements)."""
    if seg is None:
        return None
    values = seg.elements()[:keep]
    return segment(seg.seg_id, *[v if len(v) > 1 else v[0] for v in values])


class RequestView:
    """The request's segments by hierarchical level, for building the response."""

    def __init__(self, ts: TransactionSet):
        self.ts = ts
        self.levels: dict[str, list[Segment]] = {}
        current: list[Segment] | None = None
        for seg in ts.segments[1:-1]:
            if seg.seg_id == "HL":
                current = self.levels.setdefault(seg.value(3), [])
            if current is not None:
                current.append(seg)
        self.bht = next((s for s in ts.segments if s.seg_id == "BHT"), None)

    def first(self, level: str, seg_id: str, qualifier: str | None = None,
              index: int = 1) -> Segment | None:
        for seg in self.levels.get(level, []):
            if seg.seg_id == seg_id and (qualifier is None or seg.value(index) == qualifier):
                return seg
        return None

    def all(self, level: str, seg_id: str) -> list[Segment]:
        return [s for s in self.levels.get(level, []) if s.seg_id == seg_id]


def review_response(view: RequestView, version: str, now: dt.datetime, *,
                    decision: Decision | None = None,
                    rejection: Rejection | None = None) -> OutboundSet:
    """The 278 response to one request (or inquiry) of ``view``."""
    body = [segment("BHT", "0007", "11", (view.bht.value(3) if view.bht else "")[:50] or "0",
                    now.strftime("%Y%m%d"), now.strftime("%H%M"))]
    where = rejection.loop if rejection else ""

    def aaa() -> str:
        assert rejection is not None
        return segment("AAA", "N", "", rejection.reason, rejection.follow_up)

    has_event = bool(view.levels.get("EV")) and where not in ("2010A", "2010B", "2010C")
    has_service = has_event and bool(view.levels.get("SS"))
    body.append(segment("HL", "1", "", "20", "1"))
    body.append(segment("NM1", "X3", "2", PAYER_NAME, "", "", "", "", "PI", "ACME1"))
    if where == "2010A":
        body.append(aaa())
    body.append(segment("HL", "2", "1", "21", "1"))
    body.append(_echo(view.first("21", "NM1"), 9) or segment("NM1", "1P", "2", "UNKNOWN"))
    if where == "2010B":
        body.append(aaa())
    body.append(segment("HL", "3", "2", "22", "1" if has_event else "0"))
    body.append(_echo(view.first("22", "NM1"), 9) or segment("NM1", "IL", "1", "UNKNOWN"))
    if where == "2010C":
        body.append(aaa())
    dmg = _echo(view.first("22", "DMG"), 3)
    if dmg:
        body.append(dmg)
    if not has_event:
        return OutboundSet("278", version, body)
    body.append(segment("HL", "4", "3", "EV", "1" if has_service else "0"))
    trn = view.first("EV", "TRN")
    if trn is not None:
        body.append(segment("TRN", "2", trn.value(2)[:50], trn.value(3)[:10]))
    if decision is not None and decision.reference:
        body.append(segment("TRN", "1", decision.reference, PAYER_TRACE_ID))
    if where == "2000E":
        body.append(aaa())
    body.append(_echo(view.first("EV", "UM"), 6) or segment("UM", "HS", "I"))
    if decision is not None:
        body.append(segment("HCR", decision.action, decision.certification))
        if decision.reference:
            body.append(segment("REF", "NT", decision.reference))
    hi = _echo(view.first("EV", "HI"), 12)
    if hi:
        body.append(hi)
    text = decision.message if decision else (rejection.message if rejection else "")
    if text:
        body.append(segment("MSG", _clean(text)))
    if has_service:
        body.append(segment("HL", "5", "4", "SS", "0"))
        if where == "2000F":
            body.append(aaa())
        body.append(_echo(view.first("SS", "UM"), 2) or segment("UM", "HS", "I"))
        if decision is not None:
            body.append(segment("HCR", decision.action, decision.certification))
        dtp = _echo(view.first("SS", "DTP"), 3)
        if dtp:
            body.append(dtp)
        for seg_id in ("SV1", "SV2"):
            line = _echo(view.first("SS", seg_id), 5)
            if line:
                body.append(line)
    return OutboundSet("278", version, body)
