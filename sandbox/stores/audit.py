"""The audit layer: every insert/update/delete in every store, in one hash chain per store.

Each store keeps its own ``audit_log`` table in the same SQLite file as the data, so a write
and its audit entry commit in one transaction: a killed process leaves both or neither.
The channel (browser, desktop, api, fax, seed) is set by the server side of whoever opened
the session, from how the caller authenticated — never from anything the caller claims.

Entry hash = sha256(canonical JSON of the entry's fields, including the previous hash).
``verify_store`` checks the chain, then replays the after-images and compares them with the
rows actually stored, so editing either an audit row or a data row by hand is detected.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Column, Float, Integer, MetaData, Numeric, String, Table, Text, select
from sqlalchemy.engine import Connection

CHANNELS = ("browser", "desktop", "api", "fax", "seed")
AUDIT_TABLE = "audit_log"
GENESIS_HASH = "0" * 64


def audit_table(metadata: MetaData) -> Table:
    """Add the audit table to a store's metadata (one per system)."""
    return Table(
        AUDIT_TABLE,
        metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("system", String(32), nullable=False),
        Column("channel", String(16), nullable=False),
        Column("episode_id", String(64), nullable=False),
        Column("actor", String(128), nullable=False),
        Column("action", String(8), nullable=False),
        Column("table_name", String(64), nullable=False),
        Column("row_pk", Text, nullable=False),
        Column("before", Text, nullable=True),
        Column("after", Text, nullable=True),
        Column("sandbox_time", String(40), nullable=False),
        Column("prev_hash", String(64), nullable=False),
        Column("hash", String(64), nullable=False),
        sqlite_autoincrement=True,
    )


# -- canonical values --------------------------------------------------------------------
def json_value(value: Any) -> Any:
    """A JSON-safe, canonical form of one column value (same for write and replay)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        raw = bytes(value)
        return {"sha256": hashlib.sha256(raw).hexdigest(), "size": len(raw)}
    if isinstance(value, (dict, list)):
        return json.loads(canonical_json(value))
    raise TypeError(f"cannot audit a value of type {type(value).__name__}")


def canonical_json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=_json_default)


def _json_default(value: Any) -> Any:
    converted = json_value(value)
    if isinstance(converted, (bytes, bytearray)):
        return base64.b64encode(converted).decode()
    return converted


def stored_form(column: Column, value: Any) -> Any:
    """The value as SQLite will hand it back: an app that assigns "76" to a float column
    gets 76.0 stored, so the audit must record 76.0 too (type affinity)."""
    if value is None or isinstance(value, bool):
        return value
    kind = column.type
    try:
        if isinstance(kind, (Float, Numeric)) and isinstance(value, (str, int)):
            return float(value) if not isinstance(kind, Numeric) or kind.asdecimal is False \
                else decimal.Decimal(str(value))
        if isinstance(kind, Integer) and isinstance(value, str) and value.strip().lstrip(
                "-").isdigit():
            return int(value)
        if isinstance(kind, (String, Text)) and isinstance(value, (int, float)):
            return str(value)
    except (ValueError, decimal.InvalidOperation):
        return value
    return value


def row_image(table: Table, values: dict[str, Any]) -> dict[str, Any]:
    """Column-name → canonical value for every column of ``table``."""
    return {col.name: json_value(stored_form(col, values.get(col.name)))
            for col in table.columns}


def pk_image(table: Table, values: dict[str, Any]) -> dict[str, Any]:
    return {col.name: json_value(values.get(col.name)) for col in table.primary_key.columns}


# -- writing -----------------------------------------------------------------------------
@dataclass(frozen=True)
class WriteContext:
    """Who is writing: set by the server side of the caller's authentication."""

    channel: str
    episode_id: str
    actor: str

    def __post_init__(self) -> None:
        if self.channel not in CHANNELS:
            raise ValueError(f"unknown channel {self.channel!r}; use one of {', '.join(CHANNELS)}")
        if not self.episode_id:
            raise ValueError("a write needs an episode id")
        if not self.actor:
            raise ValueError("a write needs an actor")


SEED_CONTEXT = WriteContext(channel="seed", episode_id="seed", actor="seed")


def entry_hash(fields: dict[str, Any]) -> str:
    body = {k: fields[k] for k in sorted(fields) if k not in ("id", "hash")}
    return hashlib.sha256(canonical_json(body).encode()).hexdigest()


def last_hash(conn: Connection, table: Table) -> str:
    found = conn.execute(select(table.c.hash).order_by(table.c.id.desc()).limit(1)).scalar()
    return found or GENESIS_HASH


def append_entries(conn: Connection, table: Table, system: str, ctx: WriteContext,
                   sandbox_time: str, changes: list[tuple[str, str, dict, dict | None, dict | None]]
                   ) -> None:
    """Append (action, table, pk, before, after) changes to the chain, in order."""
    prev = last_hash(conn, table)
    rows = []
    for action, table_name, pk, before, after in changes:
        fields: dict[str, Any] = {
            "system": system,
            "channel": ctx.channel,
            "episode_id": ctx.episode_id,
            "actor": ctx.actor,
            "action": action,
            "table_name": table_name,
            "row_pk": canonical_json(pk),
            "before": None if before is None else canonical_json(before),
            "after": None if after is None else canonical_json(after),
            "sandbox_time": sandbox_time,
            "prev_hash": prev,
        }
        fields["hash"] = entry_hash(fields)
        prev = fields["hash"]
        rows.append(fields)
    if rows:
        conn.execute(table.insert(), rows)


# -- verifying ---------------------------------------------------------------------------
@dataclass
class AuditProblem:
    store: str
    entry_id: int | None
    message: str

    def __str__(self) -> str:
        where = f"audit entry #{self.entry_id}" if self.entry_id is not None else "store"
        return f"{self.store}: {where}: {self.message}"


@dataclass
class AuditReport:
    store: str
    entries: int = 0
    rows_checked: int = 0
    problems: list[AuditProblem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_chain(conn: Connection, metadata: MetaData, store_name: str) -> AuditReport:
    """Check the hash chain, then that every stored row equals its last audited image."""
    report = AuditReport(store=store_name)
    audit = metadata.tables[AUDIT_TABLE]
    expected: dict[tuple[str, str], tuple[int, dict | None]] = {}
    prev = GENESIS_HASH
    for row in conn.execute(select(audit).order_by(audit.c.id)).mappings():
        report.entries += 1
        fields = dict(row)
        if fields["prev_hash"] != prev:
            report.problems.append(AuditProblem(
                store_name, fields["id"],
                "its prev_hash does not match the entry before it (an entry was removed, "
                "inserted or reordered)"))
            return report
        if entry_hash(fields) != fields["hash"]:
            report.problems.append(AuditProblem(
                store_name, fields["id"],
                f"{fields['action']} {fields['table_name']} {fields['row_pk']}: stored hash "
                "does not match the entry's content (the entry was edited)"))
            return report
        prev = fields["hash"]
        after = None if fields["after"] is None else json.loads(fields["after"])
        expected[(fields["table_name"], fields["row_pk"])] = (fields["id"], after)

    data_problems: list[AuditProblem] = []
    for table in metadata.sorted_tables:
        if table.name == AUDIT_TABLE:
            continue
        seen: set[str] = set()
        for row in conn.execute(select(table)).mappings():
            report.rows_checked += 1
            values = dict(row)
            pk = canonical_json(pk_image(table, values))
            seen.add(pk)
            key = (table.name, pk)
            if key not in expected:
                data_problems.append(AuditProblem(
                    store_name, None, f"row {table.name} {pk} has no audit entry (written "
                    "outside the audit layer)"))
                continue
            entry_id, after = expected[key]
            image = json.loads(canonical_json(row_image(table, values)))
            if after is None:
                data_problems.append(AuditProblem(
                    store_name, entry_id,
                    f"row {table.name} {pk} exists but this entry deleted it"))
            elif image != after:
                cols = sorted(c for c in image if image.get(c) != after.get(c))
                data_problems.append(AuditProblem(
                    store_name, entry_id,
                    f"row {table.name} {pk} differs from this entry's after-image "
                    f"(columns: {', '.join(cols)})"))
        for (tname, pk), (entry_id, after) in expected.items():
            if tname == table.name and after is not None and pk not in seen:
                data_problems.append(AuditProblem(
                    store_name, entry_id, f"row {tname} {pk} is missing from the store"))
    data_problems.sort(key=lambda p: (p.entry_id is None, p.entry_id or 0))
    report.problems.extend(data_problems)
    return report
