"""Reference numbers the portal hands out, in the shapes of ``fixtures/world/acme.yaml``.

Deterministic: the next number is one more than the highest already stored with the same
prefix (seeded rows included), never below a floor, so a replayed episode gets the same
numbers. Call inside the write transaction that stores the row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import InstrumentedAttribute, Session


@dataclass(frozen=True)
class ReferenceFormat:
    """``prefix`` + a zero-padded number of ``digits`` digits, starting at ``floor``."""

    prefix: str
    digits: int
    floor: int

    def format(self, number: int) -> str:
        return f"{self.prefix}{number:0{self.digits}d}"

    def parse(self, value: str | None) -> int | None:
        if not value:
            return None
        match = re.fullmatch(re.escape(self.prefix) + rf"(\d{{{self.digits}}})", value)
        return int(match[1]) if match else None


PA_CASE = ReferenceFormat("PA26-", 6, 42001)       # tracking reference at submission
AUTH_NUMBER = ReferenceFormat("A26", 7, 421001)    # certification number on approval
APPEAL = ReferenceFormat("AP26-", 6, 10001)
P2P = ReferenceFormat("P2P-", 6, 100001)
CORRECTION = ReferenceFormat("CC26-", 6, 5001)


def next_reference(db: Session, column: InstrumentedAttribute, fmt: ReferenceFormat) -> str:
    """The next free reference of ``fmt`` for ``column`` (e.g. ``PaCase.reference_number``)."""
    values = db.scalars(select(column).where(column.like(f"{fmt.prefix}%"))).all()
    numbers = [n for n in (fmt.parse(v) for v in values) if n is not None]
    return fmt.format(max([fmt.floor - 1, *numbers]) + 1)
