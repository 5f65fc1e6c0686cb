"""The footprint: every row that differs between the live stores and the seeded snapshot.

The diff is done by SQLite itself (``EXCEPT`` between the store and its attached snapshot, per
table, by primary key), so it does not rely on the audit. Each changed row is then loaded
through the system's models, to show before/after images in the audit's canonical form, and
flagged when it is

- outside the tables the task declares in ``may_touch`` (``outside may_touch``),
- a row of a patient other than the task's (``other patient``),
- a new row identical to another row of its table except for keys and timestamps
  (``duplicate``).

New rows of the tables where an app records that something was *read* (``READ_RECORD_TABLES``:
the EHR's access log, the payer portal's rule lookups and claim-status inquiries) are changes
too, marked ``read``: they are never outside ``may_touch`` nor duplicates, and
:attr:`Footprint.writes` leaves them out.

Checks read these lists for the seeds' "no stray writes / no collateral change / no
duplicate" items; the report lists them all. The ``audit_log`` table itself is not diffed.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    ColumnElement,
    DateTime,
    Integer,
    MetaData,
    Table,
    Time,
    and_,
    or_,
    select,
)
from sqlalchemy.orm import Session

from sandbox.stores.audit import AUDIT_TABLE, canonical_json, pk_image, row_image
from verifier.history import AuditEntry

OUTSIDE_SCOPE = "outside may_touch"
OTHER_PATIENT = "other patient"
DUPLICATE = "duplicate"

Key = tuple[str, str]  # (table, canonical pk JSON), as in the audit's row_pk


@dataclass
class RowChange:
    """One row inserted, updated or deleted since seeding, with who wrote it."""

    system: str
    table: str
    pk: dict[str, Any]
    action: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    writers: tuple[str, ...] = ()
    counted: bool = True
    flags: dict[str, str] = field(default_factory=dict)
    read: bool = False  # a new row of a read-record table (see READ_RECORD_TABLES)

    @property
    def key(self) -> Key:
        return (self.table, canonical_json(self.pk))

    @property
    def ref(self) -> str:
        return f"{self.system}.{self.table}#{','.join(str(v) for v in self.pk.values())}"

    @property
    def changed_columns(self) -> list[str]:
        if self.before is None or self.after is None:
            return []
        return sorted(c for c in self.after if self.after.get(c) != self.before.get(c))

    def value(self, column: str) -> Any:
        """The column's value now, or as it was before deletion."""
        image = self.after if self.after is not None else self.before
        return None if image is None else image.get(column)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"row": self.ref, "action": self.action,
                                "writers": list(self.writers), "counted": self.counted}
        if self.read:
            data["read"] = True
        if self.flags:
            data["flags"] = dict(self.flags)
        if self.action == "update":
            data["changed"] = {c: {"before": self.before.get(c) if self.before else None,
                                   "after": self.after.get(c) if self.after else None}
                               for c in self.changed_columns}
        else:
            data["before"] = self.before
            data["after"] = self.after
        return data


@dataclass(frozen=True)
class PatientScope:
    """The task's patients in one system: which columns name a patient, and whose keys."""

    system: str
    columns: dict[str, list[str]]  # table -> columns naming a patient
    keys: frozenset[Any]
    mrns: tuple[str, ...]
    # child table -> (column, parent table, parent key column, parent's patient column):
    # rows that name their patient only through a parent (an addendum through its note)
    parents: dict[str, list[tuple[str, Table, str, str]]] = field(default_factory=dict)


class Footprint:
    """Every changed row of an extract, with the flags the seeds' checks care about."""

    def __init__(self, changes: list[RowChange], may_touch: dict[str, list[str]],
                 notes: list[str] | None = None):
        self.changes = changes
        self.may_touch = {k: list(v) for k, v in may_touch.items()}
        self.notes = list(notes or [])

    def select(self, system: str | None = None, table: str | None = None,
               action: str | None = None) -> list[RowChange]:
        return [c for c in self.changes
                if (system is None or c.system == system)
                and (table is None or c.table == table)
                and (action is None or c.action == action)]

    def flagged(self, flag: str) -> list[RowChange]:
        return [c for c in self.changes if flag in c.flags]

    @property
    def outside_scope(self) -> list[RowChange]:
        return self.flagged(OUTSIDE_SCOPE)

    @property
    def other_patient(self) -> list[RowChange]:
        return self.flagged(OTHER_PATIENT)

    @property
    def duplicates(self) -> list[RowChange]:
        return self.flagged(DUPLICATE)

    @property
    def stray(self) -> list[RowChange]:
        """Changes outside may_touch, on other patients, or duplicating a row."""
        return [c for c in self.changes if c.flags]

    @property
    def deleted(self) -> list[RowChange]:
        return [c for c in self.changes if c.action == "delete"]

    @property
    def reads(self) -> list[RowChange]:
        """New rows that only record a reading (a document opened, a rule looked up)."""
        return [c for c in self.changes if c.read]

    @property
    def writes(self) -> list[RowChange]:
        """Every change except the records of reading: what "no other change" items judge."""
        return [c for c in self.changes if not c.read]

    def to_json(self) -> dict[str, Any]:
        counts: dict[str, int] = defaultdict(int)
        for change in self.changes:
            counts[change.action] += 1
        return {
            "may_touch": self.may_touch,
            "counts": {"insert": counts["insert"], "update": counts["update"],
                       "delete": counts["delete"], "stray": len(self.stray)},
            "outside_scope": [c.ref for c in self.outside_scope],
            "other_patient": [c.ref for c in self.other_patient],
            "duplicates": [c.ref for c in self.duplicates],
            "reads": [c.ref for c in self.reads],
            "changes": [c.to_json() for c in self.changes],
            "notes": self.notes,
        }


# -- diffing one store -------------------------------------------------------------------
def _quoted(names: Iterable[str]) -> str:
    return ", ".join(f'"{n}"' for n in names)


def changed_keys(conn: sqlite3.Connection, tables: list[Table]) -> dict[str, tuple[set, set]]:
    """Per table, primary keys (tuples) of rows only in the store and only in the snapshot.

    One compound query per store (SQLite allows 500 terms; we use at most 200), because a
    query per table per direction dominated grading an untouched extract.
    """
    found: dict[str, tuple[set, set]] = {t.name: (set(), set()) for t in tables}
    terms = []
    for table in tables:
        cols = _quoted(c.name for c in table.columns)
        pks = _quoted(c.name for c in table.primary_key.columns)
        name = f'"{table.name}"'
        label = table.name.replace("'", "''")
        for tag, first, second in (("n", "main", "seed"), ("o", "seed", "main")):
            terms.append(f"SELECT '{label}', '{tag}', json_array({pks}) FROM "
                         f"(SELECT {cols} FROM {first}.{name} "
                         f"EXCEPT SELECT {cols} FROM {second}.{name})")
    for start in range(0, len(terms), 200):
        query = " UNION ALL ".join(terms[start:start + 200])
        for table_name, tag, pk in conn.execute(query):
            newer, older = found[table_name]
            (newer if tag == "n" else older).add(tuple(json.loads(pk)))
    return found


def canonical_image(table: Table, values: dict[str, Any]) -> dict[str, Any]:
    """The row as the audit writes its after-images (JSON round trip included)."""
    return json.loads(canonical_json(row_image(table, values)))


def fetch_images(session: Session, table: Table,
                 pks: Iterable[dict[str, Any]]) -> dict[Key, dict[str, Any]]:
    """Canonical images of the rows with these primary keys (absent rows are left out)."""
    wanted = list(pks)
    found: dict[Key, dict[str, Any]] = {}
    pk_cols = list(table.primary_key.columns)
    for start in range(0, len(wanted), 400):
        chunk = wanted[start:start + 400]
        where: ColumnElement[bool]
        if len(pk_cols) == 1:
            col = pk_cols[0]
            where = col.in_([pk[col.name] for pk in chunk])
        else:
            where = or_(*(and_(*(c == pk[c.name] for c in pk_cols)) for pk in chunk))
        for row in session.execute(select(table).where(where)).mappings():
            values = dict(row)
            found[(table.name, canonical_json(pk_image(table, values)))] = canonical_image(
                table, values)
    return found


# Tables where an app records that something was *read*: OpenEMR's ``log`` (a document
# viewed or downloaded), the payer portal's ``rule_lookups`` (a PA requirement looked up)
# and ``claim_inquiries`` (a claim-status search). New rows there are evidence of reading —
# pa-04 grades "documents checked", pa-11 "status checked" from them — never a stray write
# or a double submit, whatever the task's may_touch; editing or deleting them still is a
# change.
READ_RECORD_TABLES: dict[str, frozenset[str]] = {
    "ehr": frozenset({"log"}),
    "acme": frozenset({"rule_lookups", "claim_inquiries"}),
}


def is_read_record(system: str, table: str, action: str) -> bool:
    """Whether a change only records a reading: a new row of a read-record table."""
    return action == "insert" and table in READ_RECORD_TABLES.get(system, ())

# Date-time columns that record when a row was written, not what it says: two rows equal
# but for these are a double submit. Other date-times (a scheduled draw, a dose's start) are
# part of what an order says, so two INR checks on different days are not duplicates.
RECORD_TIME_COLUMNS = frozenset({
    "date", "created", "created_at", "updated", "updated_at", "modified", "modified_at",
    "last_updated", "date_added", "date_modified", "timestamp", "entered_at", "logged_at",
    "saved_at", "submitted_at", "sent_at", "received_at", "signed_at", "ordered_at",
    "date_ordered", "activity_date", "post_time",
})


def _signature_columns(table: Table) -> list[str]:
    # A single integer key is a surrogate (ignored); a composite or natural key is part of
    # what the row says (lbf_data's (form_id, field_id)): rows differing there are not copies.
    surrogate = (len(table.primary_key.columns) == 1
                 and isinstance(next(iter(table.primary_key.columns)).type, Integer))
    return [c.name for c in table.columns
            if not (c.primary_key and surrogate) and c.name != "uuid"
            and not (isinstance(c.type, (DateTime, Time)) and c.name in RECORD_TIME_COLUMNS)]


def _flag_duplicates(session: Session, table: Table, inserted: list[RowChange],
                     system: str) -> None:
    cols = _signature_columns(table)
    if not cols:
        return
    groups: dict[str, list[str]] = defaultdict(list)
    for row in session.execute(select(table)).mappings():
        image = canonical_image(table, dict(row))
        sig = canonical_json({c: image.get(c) for c in cols})
        ref = ",".join(str(image.get(c.name)) for c in table.primary_key.columns)
        groups[sig].append(f"{system}.{table.name}#{ref}")
    for change in inserted:
        sig = canonical_json({c: change.after.get(c) for c in cols} if change.after else {})
        others = [r for r in groups.get(sig, []) if r != change.ref]
        if others:
            change.flags[DUPLICATE] = f"same values as {', '.join(others[:3])}"


def _flag_patient(change: RowChange, scope: PatientScope, session: Session) -> None:
    image = change.after if change.after is not None else change.before
    if image is None:
        return
    who = "/".join(scope.mrns) or "?"
    for column in scope.columns.get(change.table, ()):
        if column not in image:
            continue
        value = image[column]
        if value in (None, 0, "") or value in scope.keys:
            continue
        change.flags[OTHER_PATIENT] = f"{column}={value}; the task's patient is MRN {who}"
        return
    for column, parent, parent_key, parent_patient in scope.parents.get(change.table, ()):
        value = image.get(column)
        if value in (None, 0, ""):
            continue
        owner = session.execute(select(parent.c[parent_patient]).where(
            parent.c[parent_key] == value)).scalar()
        if owner not in (None, 0, "") and owner not in scope.keys:
            change.flags[OTHER_PATIENT] = (
                f"{column}={value} belongs to {parent.name} of patient {owner}; "
                f"the task's patient is MRN {who}")
            return


def diff_store(system: str, conn: sqlite3.Connection, metadata: MetaData, live: Session,
               seeded: Session, entries: list[AuditEntry], tainted: dict[Key, str],
               may_touch: list[str] | None, patients: PatientScope | None
               ) -> tuple[list[RowChange], dict[Key, dict | None], dict[Key, dict | None]]:
    """The changes of one store, plus current and seeded images of every row the
    footprint or the run's audit touched (for :func:`verifier.history.unexplained_rows`)."""
    writers: dict[Key, list[str]] = defaultdict(list)
    for entry in entries:
        if entry.writer() not in writers[entry.key]:
            writers[entry.key].append(entry.writer())
    touched_by_audit: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for table_name, row_pk in writers:
        touched_by_audit[table_name].append(json.loads(row_pk))

    changes: list[RowChange] = []
    current: dict[Key, dict | None] = {}
    before: dict[Key, dict | None] = {}
    tables = [t for t in metadata.sorted_tables if t.name != AUDIT_TABLE]
    diff = changed_keys(conn, tables)
    for table in tables:
        newer, older = diff[table.name]
        audited = touched_by_audit.get(table.name, [])
        if not newer and not older and not audited:
            continue
        names = [c.name for c in table.primary_key.columns]
        pks = [dict(zip(names, raw, strict=True)) for raw in newer | older] + audited
        now = fetch_images(live, table, pks)
        then = fetch_images(seeded, table, pks)
        keys = sorted(set(now) | set(then) | {(table.name, canonical_json(pk)) for pk in audited})
        inserted: list[RowChange] = []
        for key in keys:
            current[key], before[key] = now.get(key), then.get(key)
            after_image, before_image = now.get(key), then.get(key)
            if after_image == before_image:
                continue
            action = ("insert" if before_image is None else
                      "delete" if after_image is None else "update")
            image = after_image if after_image is not None else before_image
            assert image is not None  # one side differs from the other, so one exists
            pk = {n: image[n] for n in names}
            change = RowChange(system, table.name, pk, action, before_image, after_image,
                               tuple(writers.get(key, ())), key not in tainted,
                               read=is_read_record(system, table.name, action))
            if (may_touch is None or table.name not in may_touch) and not change.read:
                change.flags[OUTSIDE_SCOPE] = (
                    f"{system} may_touch: {', '.join(may_touch) if may_touch else 'nothing'}")
            if patients is not None:
                _flag_patient(change, patients, live)
            changes.append(change)
            if action == "insert" and not change.read:
                inserted.append(change)
        if inserted:
            _flag_duplicates(live, table, inserted, system)
    return changes, current, before
