"""A declarative X12 implementation-guide checker: loops, segment usage, element rules.

pyx12 reads any X12 but maps only the 4010 278; the 005010X217/X215/X210 guides this payer
uses are written as data in :mod:`portal_web.payer_api.guides` with the types here, and
:func:`check_transaction` walks a transaction set against them. What it reports is what a
999 carries: the segment (IK3: id, position, loop, code) and its elements (IK4: position,
data element number, code, bad value), with a sentence a developer can act on.

Codes are those of the 999 (005010X231A1): IK304 ``1`` unrecognized segment, ``2``
unexpected, ``3`` required segment missing, ``4`` loop over maximum, ``5`` segment over
maximum use, ``7`` not in proper sequence, ``8`` data element errors, ``I4`` a "not used"
segment; IK403 ``1`` required element missing, ``3`` too many elements, ``4`` too short,
``5`` too long, ``6`` invalid character, ``7`` invalid code value, ``8`` invalid date,
``9`` invalid time, ``13`` too many components, ``I10`` a "not used" element present.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from portal_web.payer_api.edi import Segment, TransactionSet

SEGMENT_ID = re.compile(r"^[A-Z][A-Z0-9]{1,2}$")
BASIC = re.compile(r"^[A-Za-z0-9 !\"&'()+,\-./;?=%@\[\]_{}\\|<>#$]*$")


# -- specification types -------------------------------------------------------------------
@dataclass(frozen=True)
class El:
    """One element (or component) of a segment as the guide uses it."""

    ref: int  # data element reference number
    name: str
    usage: str = "S"  # R required, S situational, N not used
    kind: str = "AN"  # AN, ID, DT, TM, N0, R, COMP
    min: int = 1
    max: int = 80
    codes: frozenset[str] | None = None
    parts: tuple[El, ...] = ()  # components of a composite


def r(ref: int, name: str, kind: str = "AN", mn: int = 1, mx: int = 80,
      codes: str | None = None) -> El:
    """A required element; ``codes`` is a space-separated code list."""
    return El(ref, name, "R", kind, mn, mx, frozenset(codes.split()) if codes else None)


def s(ref: int, name: str, kind: str = "AN", mn: int = 1, mx: int = 80,
      codes: str | None = None) -> El:
    """A situational element."""
    return El(ref, name, "S", kind, mn, mx, frozenset(codes.split()) if codes else None)


def n(ref: int, name: str) -> El:
    """A "not used" element."""
    return El(ref, name, "N")


def comp(ref: int, name: str, usage: str, *parts: El) -> El:
    return El(ref, name, usage, "COMP", parts=parts)


@dataclass(frozen=True)
class Issue:
    """An element-level finding (IK4)."""

    position: str  # "3" or "1:2"
    ref: int
    code: str
    value: str
    message: str


SegmentCheck = Callable[[Segment], list[Issue]]


@dataclass(frozen=True)
class Seg:
    """A segment of a loop: usage, repeat, elements, and what picks it (the qualifier)."""

    seg_id: str
    name: str
    usage: str  # R, S, N
    max_use: int
    elements: tuple[El, ...]
    qualifier: tuple[int, frozenset[str]] | None = None
    checks: tuple[SegmentCheck, ...] = ()

    def matches(self, seg: Segment, strict: bool = True) -> bool:
        if seg.seg_id != self.seg_id:
            return False
        if self.qualifier is None or not strict:
            return True
        index, codes = self.qualifier
        return seg.value(index) in codes


def seg(seg_id: str, name: str, usage: str, max_use: int, *elements: El,
        qualifier: tuple[int, str] | None = None, checks: tuple[SegmentCheck, ...] = ()) -> Seg:
    q = (qualifier[0], frozenset(qualifier[1].split())) if qualifier else None
    return Seg(seg_id, name, usage, max_use, tuple(elements), q, checks)


@dataclass(frozen=True)
class Loop:
    """A loop: its first child is the segment that starts it."""

    loop_id: str
    name: str
    usage: str
    max_repeat: int
    children: tuple[Seg | Loop, ...]

    @property
    def head(self) -> Seg:
        first = self.children[0]
        return first if isinstance(first, Seg) else first.head


@dataclass(frozen=True)
class Level:
    """A hierarchical level (HL03 code) and the levels that may be its parent."""

    code: str
    loop: Loop
    parents: frozenset[str]  # empty: the root
    required: bool = True


@dataclass(frozen=True)
class Guide:
    """One implementation guide (e.g. 005010X217 request) for one transaction set."""

    ident: str  # 278
    version: str  # 005010X217
    name: str
    header: tuple[Seg, ...]
    levels: tuple[Level, ...]
    trailer: Seg
    hierarchical: bool = True
    body: Loop | None = None  # a non-hierarchical transaction's loops (e.g. 275)

    def level(self, code: str) -> Level | None:
        return next((lv for lv in self.levels if lv.code == code), None)


# -- findings ---------------------------------------------------------------------------------
@dataclass
class SegmentError:
    """A segment-level finding (IK3) with its element findings (IK4)."""

    seg_id: str
    position: int
    loop_id: str
    code: str
    message: str
    issues: list[Issue] = field(default_factory=list)

    def describe(self) -> str:
        where = f"{self.seg_id} (segment {self.position}, loop {self.loop_id or 'header'})"
        details = "; ".join(i.message for i in self.issues)
        return f"{where}: {self.message}" + (f" — {details}" if details else "")


# -- element checks ---------------------------------------------------------------------------
def _check_value(el: El, value: str, position: str) -> list[Issue]:
    label = f"{el.name} ({position})"
    if el.usage == "N":
        return [Issue(position, el.ref, "I10", value[:99],
                      f"{label} is not used in this guide; leave it empty")]
    if not BASIC.match(value):
        return [Issue(position, el.ref, "6", value[:99],
                      f"{label} has characters outside the X12 basic/extended set")]
    if el.codes is not None and value not in el.codes:
        allowed = ", ".join(sorted(el.codes)[:12])
        return [Issue(position, el.ref, "7", value[:99],
                      f"{label} '{value[:30]}' is not a valid code here (allowed: {allowed})")]
    if el.kind == "DT":
        if not _date_ok(value):
            return [Issue(position, el.ref, "8", value[:99],
                          f"{label} '{value[:30]}' is not a CCYYMMDD date")]
        return []
    if el.kind == "TM":
        if not re.fullmatch(r"([01]\d|2[0-3])[0-5]\d([0-5]\d(\d{1,2})?)?", value):
            return [Issue(position, el.ref, "9", value[:99],
                          f"{label} '{value[:30]}' is not an HHMM time")]
        return []
    if el.kind == "N0" and not re.fullmatch(r"-?\d+", value):
        return [Issue(position, el.ref, "6", value[:99], f"{label} must be a whole number")]
    if el.kind == "R" and not re.fullmatch(r"-?(\d+\.?\d*|\.\d+)", value):
        return [Issue(position, el.ref, "6", value[:99], f"{label} must be a number")]
    size = len(value.lstrip("-").replace(".", "")) if el.kind in ("N0", "R") else len(value)
    if size < el.min:
        return [Issue(position, el.ref, "4", value[:99],
                      f"{label} is shorter than {el.min} characters")]
    if size > el.max:
        return [Issue(position, el.ref, "5", value[:99],
                      f"{label} is longer than {el.max} characters")]
    return []


def _date_ok(value: str) -> bool:
    if not re.fullmatch(r"\d{8}", value):
        return False
    try:
        dt.date(int(value[:4]), int(value[4:6]), int(value[6:]))
    except ValueError:
        return False
    return True


def check_elements(spec: Seg, segment: Segment) -> list[Issue]:
    """Element issues of one segment against its spec."""
    values = segment.elements()
    issues: list[Issue] = []
    if len(values) > len(spec.elements):
        extra = len(spec.elements) + 1
        issues.append(Issue(str(extra), 0, "3", "",
                            f"{spec.seg_id} has {len(values)} elements; at most "
                            f"{len(spec.elements)} are defined"))
    for index, el in enumerate(spec.elements, start=1):
        parts = values[index - 1] if index <= len(values) else [""]
        present = any(p for p in parts)
        if not present:
            if el.usage == "R":
                issues.append(Issue(str(index), el.ref, "1", "",
                                    f"{el.name} ({spec.seg_id}{index:02d}) is required"))
            continue
        if el.kind == "COMP":
            if len(parts) > len(el.parts):
                issues.append(Issue(str(index), el.ref, "13", "",
                                    f"{el.name} ({spec.seg_id}{index:02d}) has too many "
                                    "components"))
            for c_index, part in enumerate(el.parts, start=1):
                value = parts[c_index - 1] if c_index <= len(parts) else ""
                where = f"{index}:{c_index}"
                if not value:
                    if part.usage == "R":
                        issues.append(Issue(where, part.ref, "1", "",
                                            f"{part.name} ({spec.seg_id}{index:02d}-{c_index}) "
                                            "is required"))
                    continue
                issues.extend(_relabel(_check_value(part, value, where), spec.seg_id, index,
                                       c_index))
            continue
        if len(parts) > 1:
            issues.append(Issue(str(index), el.ref, "13", ":".join(parts)[:99],
                                f"{el.name} ({spec.seg_id}{index:02d}) is a simple element; "
                                "it has components"))
            continue
        issues.extend(_relabel(_check_value(el, parts[0], str(index)), spec.seg_id, index))
    for check in spec.checks:
        if not issues:
            issues.extend(check(segment))
    return issues


def _relabel(issues: list[Issue], seg_id: str, index: int, c_index: int | None = None
             ) -> list[Issue]:
    """Messages name the element as ``NM109`` / ``HI01-2``."""
    name = f"{seg_id}{index:02d}" + (f"-{c_index}" if c_index else "")
    position = f"{index}:{c_index}" if c_index else str(index)
    return [Issue(i.position, i.ref, i.code, i.value,
                  i.message.replace(f"({position})", f"({name})")) for i in issues]


# -- loop matching ----------------------------------------------------------------------------
class _Walker:
    """Matches one run of segments against a loop; collects :class:`SegmentError`."""

    def __init__(self, errors: list[SegmentError]):
        self.errors = errors

    def error(self, segment: Segment, loop_id: str, code: str, message: str,
              issues: list[Issue] | None = None, seg_id: str | None = None) -> None:
        self.errors.append(SegmentError(seg_id or segment.seg_id, segment.position, loop_id,
                                        code, message, issues or []))

    def walk(self, loop: Loop, segs: list[Segment], i: int, top: bool = False) -> int:
        """Consume segments of one occurrence of ``loop`` starting at ``segs[i]`` (its head).

        At the ``top`` of a hierarchical level a segment that fits nowhere is reported and
        skipped; in a nested loop it ends the loop (the enclosing loop may take it).
        """
        counts: dict[int, int] = {}
        pos = 0
        while i < len(segs):
            segment = segs[i]
            j = self._find(loop, segment, pos, strict=True)
            if j is None:
                j = self._find(loop, segment, pos, strict=False)
            if j is None:
                if self._find(loop, segment, 0, strict=True) is None:
                    if not top:
                        break  # belongs to an enclosing loop (or nowhere)
                    self.error(segment, loop.loop_id, "2",
                               f"{segment.seg_id} is not expected in loop {loop.loop_id} "
                               f"({loop.name}).")
                    i += 1
                    continue
                self.error(segment, loop.loop_id, "7",
                           f"{segment.seg_id} is out of order in loop {loop.loop_id} "
                           f"({loop.name}).")
                i += 1
                continue
            if j == 0 and counts.get(0):
                if top:  # a second head within one level: not expected
                    self.error(segment, loop.loop_id, "2",
                               f"A second {segment.seg_id} is not expected in loop "
                               f"{loop.loop_id}.")
                    i += 1
                    continue
                break  # the head again: a new occurrence of this loop
            self._missing(loop, counts, pos, j, segment)
            child = loop.children[j]
            counts[j] = counts.get(j, 0) + 1
            if isinstance(child, Seg):
                if child.usage == "N":
                    self.error(segment, loop.loop_id, "I4",
                               f"{child.name} ({child.seg_id}) is not used in loop "
                               f"{loop.loop_id}.")
                elif counts[j] > child.max_use:
                    self.error(segment, loop.loop_id, "5",
                               f"{child.name} ({child.seg_id}) may appear at most "
                               f"{child.max_use} time(s) in loop {loop.loop_id}.")
                else:
                    issues = check_elements(child, segment)
                    if issues:
                        self.error(segment, loop.loop_id, "8",
                                   f"{child.name} has data element errors.", issues)
                i += 1
            else:
                if counts[j] > child.max_repeat:
                    self.error(segment, child.loop_id, "4",
                               f"Loop {child.loop_id} ({child.name}) may occur at most "
                               f"{child.max_repeat} time(s).")
                start = i
                i = self.walk(child, segs, i)
                if i == start:  # nothing consumed: avoid looping forever
                    i += 1
            pos = j
        if i > 0:
            self._missing(loop, counts, pos, len(loop.children), segs[i - 1], at_end=True)
        return i

    def _find(self, loop: Loop, segment: Segment, start: int, strict: bool) -> int | None:
        for j in range(start, len(loop.children)):
            child = loop.children[j]
            head = child if isinstance(child, Seg) else child.head
            if head.matches(segment, strict):
                if not strict and self._find_anywhere(loop, segment) is not None:
                    return None  # a qualified match exists elsewhere: not this one
                return j
        return None

    def _find_anywhere(self, loop: Loop, segment: Segment) -> int | None:
        for j, child in enumerate(loop.children):
            head = child if isinstance(child, Seg) else child.head
            if head.matches(segment, True):
                return j
        return None

    def _missing(self, loop: Loop, counts: dict[int, int], pos: int, upto: int,
                 at: Segment, at_end: bool = False) -> None:
        for k in range(pos, upto):
            child = loop.children[k]
            if counts.get(k) or child.usage != "R":
                continue
            if isinstance(child, Seg):
                name, seg_id, loop_id = child.name, child.seg_id, loop.loop_id
            else:
                name, seg_id, loop_id = f"loop {child.loop_id} ({child.name})", \
                    child.head.seg_id, child.loop_id
            qualifier = ""
            head = child if isinstance(child, Seg) else child.head
            if head.qualifier is not None:
                qualifier = f"*{sorted(head.qualifier[1])[0]}"
            self.error(at, loop_id, "3",
                       f"Required {name} is missing: expected {seg_id}{qualifier} "
                       f"{'before the end of' if at_end else 'before ' + at.seg_id + ' in'} "
                       f"loop {loop.loop_id}.", seg_id=seg_id)
            counts[k] = 1


# -- transaction --------------------------------------------------------------------------------
def check_transaction(ts: TransactionSet, guide: Guide) -> list[SegmentError]:
    """Every finding of a transaction set against ``guide`` (empty when it conforms)."""
    errors: list[SegmentError] = []
    for pos, code, message in ts.segment_problems:
        seg_id = ts.segments[pos - 1].seg_id if 0 < pos <= len(ts.segments) else "HL"
        errors.append(SegmentError(seg_id, pos, "", "8" if code.startswith("HL") else code,
                                   message))
    segs = ts.segments[1:-1] if ts.segments and ts.segments[-1].seg_id == "SE" \
        else ts.segments[1:]
    walker = _Walker(errors)
    for segment in segs:
        if not SEGMENT_ID.match(segment.seg_id):
            walker.error(segment, "", "1", f"'{segment.seg_id[:5]}' is not a segment identifier.")
    segs = [sg for sg in segs if SEGMENT_ID.match(sg.seg_id)]
    header = Loop("", "Header", "R", 1, guide.header)
    i = walker.walk(header, segs, 0) if segs else 0
    if i == 0:
        first = guide.header[0]
        walker.error(segs[0] if segs else ts.header, "", "3",
                     f"Required {first.name} ({first.seg_id}) is missing after ST.",
                     seg_id=first.seg_id)
    if guide.hierarchical:
        _check_hierarchy(guide, segs[i:], walker)
    elif guide.body is not None:
        rest = segs[i:]
        if rest:
            walker.walk(guide.body, rest, 0, top=True)
        else:
            anchor = segs[-1] if segs else ts.header
            walker.error(anchor, guide.body.loop_id, "3", f"The {guide.ident} has no "
                         f"{guide.body.name.lower()} after its header.",
                         seg_id=guide.body.head.seg_id)
    return sorted(errors, key=lambda e: e.position)


def _check_hierarchy(guide: Guide, segs: list[Segment], walker: _Walker) -> None:
    blocks: list[list[Segment]] = []
    for segment in segs:
        if segment.seg_id == "HL":
            blocks.append([segment])
        elif blocks:
            blocks[-1].append(segment)
        else:
            walker.error(segment, "", "2", f"{segment.seg_id} appears before the first HL "
                                           "of the hierarchy.")
    levels_by_id: dict[str, str] = {}
    seen: set[str] = set()
    for block in blocks:
        hl = block[0]
        code = hl.value(3)
        level = guide.level(code)
        if level is None:
            allowed = ", ".join(lv.code for lv in guide.levels)
            walker.error(hl, "", "8", "Hierarchical level code is not used in this guide.",
                         [Issue("3", 735, "7", code[:99],
                                f"HL03 '{code[:10]}' is not a level of the {guide.version} "
                                f"{guide.ident} (use {allowed})")])
            continue
        parent_code = levels_by_id.get(hl.value(2), "")
        if level.parents and parent_code not in level.parents:
            want = " or ".join(sorted(level.parents))
            walker.error(hl, level.loop.loop_id, "8", f"Loop {level.loop.loop_id} "
                         f"({level.loop.name}) is under the wrong parent.",
                         [Issue("2", 734, "7", hl.value(2)[:99],
                                f"HL02 must point to the HL of a level {want} loop")])
        elif not level.parents and hl.value(2):
            walker.error(hl, level.loop.loop_id, "8", "The first level has no parent.",
                         [Issue("2", 734, "I10", hl.value(2)[:99],
                                "HL02 is not used for the top level")])
        levels_by_id[hl.value(1)] = code
        seen.add(code)
        walker.walk(level.loop, block, 0, top=True)
    anchor = segs[-1] if segs else None
    for level in guide.levels:
        if level.required and level.code not in seen and anchor is not None:
            walker.error(anchor, level.loop.loop_id, "3",
                         f"Required loop {level.loop.loop_id} ({level.loop.name}) is missing: "
                         f"expected HL with HL03 {level.code}.", seg_id="HL")
