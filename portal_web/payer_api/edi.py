"""Reading an X12 interchange into envelopes and transaction sets, with pyx12's checks.

pyx12's reader does the segment splitting and the envelope bookkeeping (ISA/IEA, GS/GE and
ST/SE control numbers and counts, HL numbering); this module files its findings under the
envelope they belong to, so the acknowledgements can say where the problem was: interchange
problems become TA1 note codes, group problems AK9 codes, transaction problems IK5 codes.

``BIN`` segments (275 attachments) carry length-prefixed data that may contain any
character, including the terminators, so they are cut out by their declared length before
pyx12 sees the text and put back as :class:`BinaryData`.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field

import pyx12.errors
import pyx12.segment
import pyx12.x12file

ISA_LENGTH = 106
BASIC_TEXT = re.compile(r"^[A-Za-z0-9 !\"&'()+,\-./:;?=%@\[\]_{}\\|<>#$~^*]*$")
BIN_PLACEHOLDER = "BINARY-DATA-{:03d}"


class InterchangeUnreadable(Exception):
    """The body is not an X12 interchange at all; ``note`` is the TA1 note code."""

    def __init__(self, note: str, message: str, isa: str = ""):
        super().__init__(message)
        self.note = note
        self.isa = isa


@dataclass(frozen=True)
class Problem:
    """An envelope-level finding: an acknowledgement code and what it means here."""

    code: str
    message: str


@dataclass
class Segment:
    """One segment as received, with its position in its transaction set (ST = 1)."""

    raw: pyx12.segment.Segment
    position: int
    span: tuple[int, int] = (0, 0)  # where it is in the received text (terminator included)

    @property
    def seg_id(self) -> str:
        return self.raw.get_seg_id() or ""

    def elements(self) -> list[list[str]]:
        """Element values, each as its list of components (a simple element has one)."""
        return [[part.get_value() for part in comp.elements] for comp in self.raw.elements]

    def value(self, index: int, component: int = 1) -> str:
        """Element ``index`` (1-based), component ``component``; '' when absent."""
        values = self.elements()
        if index > len(values) or component > len(values[index - 1]):
            return ""
        return values[index - 1][component - 1]

    def text(self) -> str:
        return self.raw.format()


@dataclass
class TransactionSet:
    header: Segment
    segments: list[Segment] = field(default_factory=list)  # ST .. SE
    problems: list[Problem] = field(default_factory=list)  # IK5 codes
    segment_problems: list[tuple[int, str, str]] = field(default_factory=list)  # pos, code, msg

    @property
    def ident(self) -> str:
        return self.header.value(1)

    @property
    def control(self) -> str:
        return self.header.value(2)

    @property
    def version(self) -> str:
        return self.header.value(3)

    def text(self, seg_term: str = "~") -> str:
        return "".join(s.text() for s in self.segments)


@dataclass
class FunctionalGroup:
    header: Segment
    transactions: list[TransactionSet] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # AK9 codes

    @property
    def code(self) -> str:
        return self.header.value(1)

    @property
    def control(self) -> str:
        return self.header.value(6)

    @property
    def version(self) -> str:
        return self.header.value(8)


@dataclass
class Interchange:
    isa: Segment
    groups: list[FunctionalGroup] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # TA1 note codes
    acknowledgements: list[Segment] = field(default_factory=list)  # TA1s it carries
    blobs: list[bytes] = field(default_factory=list)
    source: str = ""  # the received text with BIN data cut out (see :func:`cut_binary`)
    element_separator: str = "*"
    component_separator: str = ":"
    segment_terminator: str = "~"
    repetition_separator: str = "^"

    @property
    def control(self) -> str:
        return self.isa.value(13)

    @property
    def sender(self) -> tuple[str, str]:
        return self.isa.value(5), self.isa.value(6).strip()

    @property
    def receiver(self) -> tuple[str, str]:
        return self.isa.value(7), self.isa.value(8).strip()

    @property
    def ack_requested(self) -> bool:
        return self.isa.value(14) == "1"

    def received_text(self, first: Segment, last: Segment) -> str:
        """The exact text received from ``first`` to ``last`` (BIN data put back)."""
        text = self.source[first.span[0]:last.span[1]]
        return re.sub(r"BINARY-DATA-(\d{3})",
                      lambda m: self.blobs[int(m.group(1))].decode("latin-1"), text)

    def blob(self, placeholder: str) -> bytes | None:
        """The bytes a ``BIN02`` placeholder stands for."""
        match = re.fullmatch(r"BINARY-DATA-(\d{3})", placeholder)
        if match is None or int(match.group(1)) >= len(self.blobs):
            return None
        return self.blobs[int(match.group(1))]


def separators(text: str) -> tuple[str, str, str, str]:
    """(element, component, segment, repetition) separators from a fixed-length ISA."""
    if not text.startswith("ISA"):
        raise InterchangeUnreadable("022", "The body does not start with an ISA segment; send "
                                           "one X12 interchange (ISA ... IEA).")
    if len(text) < ISA_LENGTH:
        raise InterchangeUnreadable("022", f"The ISA segment is {len(text)} characters; it must "
                                           f"be exactly {ISA_LENGTH} (fixed-length fields).")
    element, component, terminator = text[3], text[104], text[105]
    if element.isalnum() or element == " ":
        raise InterchangeUnreadable("026", f"ISA: '{element}' cannot be the element separator.")
    if text[3:ISA_LENGTH].count(element) != 16:
        raise InterchangeUnreadable("022", "ISA: the segment must have 16 fixed-length elements "
                                           "separated by the character after 'ISA'.")
    if component.isalnum() or component in (" ", element):
        raise InterchangeUnreadable("027", f"ISA16: '{component}' cannot be the component "
                                           "separator.")
    if terminator.isalnum() or terminator in (" ", element, component):
        raise InterchangeUnreadable("004", f"ISA: '{terminator}' cannot be the segment "
                                           "terminator.")
    return element, component, terminator, text[82]


def cut_binary(text: str, element: str, terminator: str) -> tuple[str, list[bytes]]:
    """Replace each ``BIN`` segment's data by a placeholder, using its declared length."""
    blobs: list[bytes] = []
    out: list[str] = []
    pattern = re.compile(re.escape(terminator) + r"[\r\n]*BIN" + re.escape(element))
    pos = 0
    while True:
        match = pattern.search(text, pos)
        if match is None:
            out.append(text[pos:])
            break
        start = match.end()
        digits = re.match(r"\d{1,15}", text[start:])
        if digits is None or text[start + len(digits.group()):][:1] != element:
            out.append(text[pos:start])
            pos = start
            continue
        length = int(digits.group())
        data_start = start + len(digits.group()) + 1
        data_end = data_start + length
        if data_end > len(text) or text[data_end:data_end + 1] != terminator:
            # the declared length does not end at a terminator: leave it for the checks
            out.append(text[pos:start])
            pos = start
            continue
        out.append(text[pos:data_start])
        out.append(BIN_PLACEHOLDER.format(len(blobs)))
        blobs.append(text[data_start:data_end].encode("latin-1"))
        pos = data_end
    return "".join(out), blobs


def segment_spans(text: str, terminator: str) -> list[tuple[int, int]]:
    """(start, end) of each segment as pyx12's reader splits them (line breaks before a
    segment belong to it; the terminator ends it)."""
    spans = []
    start = 0
    while True:
        end = text.find(terminator, start)
        if end < 0:
            break
        piece = text[start:end]
        if piece.lstrip("\n\r") == "":
            break
        spans.append((start, end + len(terminator)))
        start = end + len(terminator)
    return spans


def read_interchange(body: bytes) -> Interchange:
    """Parse one interchange; envelope problems are recorded, not raised.

    Raises :class:`InterchangeUnreadable` when there is no usable ISA at all.
    """
    text = body.decode("latin-1").lstrip("\r\n\t ")
    element, component, terminator, repetition = separators(text)
    isa_text = text[:ISA_LENGTH]
    version = isa_text[84:89]
    if version != "00501":
        raise InterchangeUnreadable("017", f"ISA12 is '{version}': this payer accepts "
                                           "interchange control version 00501 only.", isa_text)
    stripped, blobs = cut_binary(text, element, terminator)
    spans = segment_spans(stripped, terminator)
    try:
        reader = pyx12.x12file.X12Reader(io.StringIO(stripped))
    except pyx12.errors.X12Error as exc:
        raise InterchangeUnreadable("022", f"ISA: {exc}"[:300], isa_text) from exc
    interchange: Interchange | None = None
    group: FunctionalGroup | None = None
    transaction: TransactionSet | None = None
    position = 0
    segments = iter(reader)
    last = "ISA"
    count = 0
    try:
        while True:
            try:
                raw = next(segments)
            except StopIteration:
                break
            except (IndexError, KeyError, TypeError, ValueError) as exc:
                # pyx12's envelope bookkeeping gives up on trailers without headers
                if interchange is None:
                    raise InterchangeUnreadable("022", "No ISA segment could be read.",
                                                isa_text) from exc
                interchange.problems.append(Problem(
                    "024", f"The envelope is broken after {last}: every GE, SE and IEA needs "
                           "its GS, ST and ISA, in order (ISA GS ST ... SE GE IEA)."))
                break
            seg_id = raw.get_seg_id() or ""
            last = seg_id[:3] or last
            if seg_id == "ST":
                position = 0
            position += 1
            span = spans[count] if count < len(spans) else (0, 0)
            count += 1
            seg = Segment(raw, position, span)
            if seg_id == "ISA":
                if interchange is not None:
                    interchange.problems.append(Problem("024", "A second ISA follows; send one "
                                                               "interchange per request."))
                    break
                interchange = Interchange(isa=seg, blobs=blobs, source=stripped,
                                          element_separator=element,
                                          component_separator=component,
                                          segment_terminator=terminator,
                                          repetition_separator=repetition)
            elif interchange is None:
                raise InterchangeUnreadable("022", "The body does not start with ISA.")
            elif seg_id == "GS":
                group = FunctionalGroup(header=seg)
                interchange.groups.append(group)
                transaction = None
            elif seg_id == "ST":
                transaction = TransactionSet(header=seg, segments=[seg])
                if group is None:
                    interchange.problems.append(Problem("024", "ST appears outside a GS/GE "
                                                               "functional group."))
                else:
                    group.transactions.append(transaction)
            elif seg_id == "TA1" and group is None and transaction is None:
                interchange.acknowledgements.append(seg)
            elif seg_id in ("GE", "IEA"):
                transaction = None
                group = None
            elif transaction is not None:
                transaction.segments.append(seg)
                if seg_id == "SE":
                    _file_errors(reader.pop_errors(), interchange, group, transaction, position)
                    transaction = None
                    continue
            else:
                interchange.problems.append(Problem("024", f"Segment {seg_id[:3]} appears outside "
                                                           "a transaction set (ST ... SE)."))
            _file_errors(reader.pop_errors(), interchange, group, transaction, position)
        reader.cleanup()
    except pyx12.errors.X12Error as exc:
        if interchange is None:
            raise InterchangeUnreadable("022", str(exc)[:300], isa_text) from exc
        interchange.problems.append(Problem("024", str(exc)[:300]))
    if interchange is None:
        raise InterchangeUnreadable("022", "No ISA segment could be read.", isa_text)
    _file_errors(reader.pop_errors(), interchange, group, transaction, position)
    if not interchange.groups and not interchange.problems and not interchange.acknowledgements:
        interchange.problems.append(Problem("024", "The interchange holds no functional group "
                                                   "(GS ... GE)."))
    return interchange


def _file_errors(errors: list, interchange: Interchange | None, group: FunctionalGroup | None,
                 transaction: TransactionSet | None, position: int) -> None:
    if interchange is None:
        return
    for kind, code, message, _value, _line in errors:
        if kind == "isa":
            interchange.problems.append(Problem(code, message))
        elif kind == "gs":
            target = group.problems if group is not None else interchange.problems
            target.append(Problem(code if group is not None else "024", message))
        elif kind == "st":
            if transaction is not None:
                transaction.problems.append(Problem(code, message))
            elif group is not None and group.transactions:
                group.transactions[-1].problems.append(Problem(code, message))
            else:
                interchange.problems.append(Problem("024", message))
        elif transaction is not None:
            transaction.segment_problems.append((position, code, message))
