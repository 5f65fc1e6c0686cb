"""Writing the payer's interchanges: envelopes with true counts, 999 and TA1 acknowledgements.

Outbound X12 uses ``*`` elements, ``:`` components, ``^`` repetitions and ``~`` terminators
(a line break after each segment, which every reader accepts). Control numbers come from the
caller (derived from the store, so they are deterministic).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field

from portal_web.payer_api.edi import FunctionalGroup, Interchange, Problem, TransactionSet
from portal_web.payer_api.rules import SegmentError

PAYER_ID = "ACME1"
ACK_VERSION = "005010X231A1"
Element = str | Sequence[str]


def segment(seg_id: str, *elements: Element) -> str:
    """One segment; composites are sequences; trailing empty elements are dropped."""
    values = [":".join(e).rstrip(":") if not isinstance(e, str) else e for e in elements]
    while values and values[-1] == "":
        values.pop()
    return "*".join([seg_id, *values]) + "~"


@dataclass
class OutboundSet:
    """A transaction set to send: its body segments (without ST and SE)."""

    ident: str
    version: str
    body: list[str]

    def render(self, control: str) -> list[str]:
        st = segment("ST", self.ident, control, self.version)
        se = segment("SE", str(len(self.body) + 2), control)
        return [st, *self.body, se]


@dataclass
class OutboundGroup:
    code: str  # GS01
    version: str  # GS08
    sets: list[OutboundSet] = field(default_factory=list)


def interchange(receiver: tuple[str, str], control: int, now: dt.datetime, *,
                groups: Sequence[OutboundGroup] = (), ta1: str | None = None,
                usage: str = "P") -> str:
    """A complete interchange from the payer to ``receiver`` (qualifier, id)."""
    qualifier, receiver_id = receiver
    isa = "*".join([
        "ISA", "00", " " * 10, "00", " " * 10, "ZZ", PAYER_ID.ljust(15),
        (qualifier or "ZZ")[:2].ljust(2), receiver_id[:15].ljust(15), now.strftime("%y%m%d"),
        now.strftime("%H%M"), "^", "00501", f"{control:09d}", "0", usage if usage in "PT" else "P",
        ":"]) + "~"
    lines = [isa]
    if ta1:
        lines.append(ta1)
    for number, group in enumerate(groups, start=1):
        group_control = f"{control % 100000}{number:02d}"
        lines.append(segment("GS", group.code, PAYER_ID, receiver_id[:15] or "UNKNOWN",
                             now.strftime("%Y%m%d"), now.strftime("%H%M"), group_control, "X",
                             group.version))
        for index, ts in enumerate(group.sets, start=1):
            lines.extend(ts.render(f"{index:04d}"))
        lines.append(segment("GE", str(len(group.sets)), group_control))
    lines.append(segment("IEA", str(len(groups)), f"{control:09d}"))
    return "\n".join(lines) + "\n"


# -- TA1 --------------------------------------------------------------------------------------
def ta1(source: Interchange | None, isa_text: str, problem: Problem | None) -> str:
    """TA1 for the received interchange: accepted (000) or rejected with a note code."""
    if source is not None:
        control, date, time = source.control, source.isa.value(9), source.isa.value(10)
    else:
        fields = isa_text.split(isa_text[3]) if len(isa_text) > 3 else []
        control = fields[13] if len(fields) > 13 and fields[13].isdigit() else "000000000"
        date = fields[9] if len(fields) > 9 and fields[9].isdigit() else "000000"
        time = fields[10] if len(fields) > 10 and fields[10].isdigit() else "0000"
    control = control.zfill(9)[:9] if control.isdigit() else "000000000"
    date = date if len(date) == 6 and date.isdigit() else "000000"
    time = time if len(time) == 4 and time.isdigit() else "0000"
    if problem is None:
        return segment("TA1", control, date, time, "A", "000")
    return segment("TA1", control, date, time, "R", problem.code)


# -- 999 ---------------------------------------------------------------------------------------
@dataclass
class SetVerdict:
    """What the checks found in one received transaction set."""

    ts: TransactionSet
    envelope: list[Problem]
    errors: list[SegmentError]

    @property
    def accepted(self) -> bool:
        return not self.envelope and not self.errors


def ack_999(group: FunctionalGroup, verdicts: list[SetVerdict],
            group_problems: list[Problem]) -> OutboundSet:
    """The 999 of one functional group: AK2/IK3/IK4/IK5 per set, AK9 for the group."""
    body = [segment("AK1", group.code[:2] or "HI", group.control[:9] or "0",
                    group.version[:12])]
    accepted = 0
    for verdict in verdicts:
        ts = verdict.ts
        body.append(segment("AK2", ts.ident[:3] or "000", ts.control[:9] or "0000",
                            ts.version[:35]))
        for error in verdict.errors[:20]:
            body.append(segment("IK3", error.seg_id[:3], str(error.position),
                                error.loop_id[:4], error.code))
            for issue in error.issues[:10]:
                body.append(segment("IK4", issue.position, str(issue.ref) if issue.ref else "",
                                    issue.code, _printable(issue.value)[:99]))
        codes = [p.code for p in verdict.envelope][:4]
        if verdict.errors:
            codes.append("5")
        if verdict.accepted:
            accepted += 1
            body.append(segment("IK5", "A"))
        else:
            body.append(segment("IK5", "R", *dict.fromkeys(codes[:5])))
    received = len(verdicts)
    if group_problems:
        status = "R"
    elif accepted == received:
        status = "A"
    elif accepted:
        status = "P"
    else:
        status = "R"
    body.append(segment("AK9", status, str(_declared_count(group, received)), str(received),
                        str(accepted), *dict.fromkeys(p.code for p in group_problems[:5])))
    return OutboundSet("999", ACK_VERSION, body)


def _declared_count(group: FunctionalGroup, received: int) -> int:
    return received


def _printable(value: str) -> str:
    """A bad value as a 999 may carry it (no separators or control characters)."""
    return "".join(ch for ch in value if ch.isprintable() and ch not in "*:~^")
