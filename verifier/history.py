"""The run's audit entries, and proof that they continue the seeded snapshot's chain.

Every store keeps its own hash-chained ``audit_log``. The seeded snapshot ends at some entry;
the live store must hold that very entry (same id, same hash) and every later entry must chain
from it. That is cheap (only the run's entries are hashed) and it is what makes the channel
rule trustworthy: a store from another task or run fails the first test, an edited or
removed entry fails the second. :func:`unexplained_rows` then checks that every row the
footprint found changed is exactly what its last audit entry says, so no row was written
around the audit layer.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox.stores.audit import AUDIT_TABLE, GENESIS_HASH, entry_hash
from verifier.errors import VerifyError

_FIELDS = ("id", "system", "channel", "episode_id", "actor", "action", "table_name", "row_pk",
           "before", "after", "sandbox_time", "prev_hash", "hash")


@dataclass(frozen=True)
class AuditEntry:
    """One audited write of the run (after the seeded snapshot)."""

    id: int
    system: str
    channel: str
    episode_id: str
    actor: str
    action: str
    table_name: str
    row_pk: str
    before: str | None
    after: str | None
    sandbox_time: str
    prev_hash: str
    hash: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.table_name, self.row_pk)

    def after_image(self) -> dict[str, Any] | None:
        return None if self.after is None else json.loads(self.after)

    def before_image(self) -> dict[str, Any] | None:
        return None if self.before is None else json.loads(self.before)

    def writer(self) -> str:
        return f"{self.channel}/{self.episode_id}/{self.actor}"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "channel": self.channel, "episode_id": self.episode_id,
                "actor": self.actor, "action": self.action, "table": self.table_name,
                "row_pk": json.loads(self.row_pk), "sandbox_time": self.sandbox_time}


def _head(conn: sqlite3.Connection, schema: str) -> tuple[int, str]:
    row = conn.execute(
        f'SELECT id, hash FROM {schema}."{AUDIT_TABLE}" ORDER BY id DESC LIMIT 1').fetchone()
    return (0, GENESIS_HASH) if row is None else (int(row[0]), str(row[1]))


def run_entries(conn: sqlite3.Connection, store_path: Path, seed_path: Path) -> list[AuditEntry]:
    """The live store's entries after the seeded snapshot, verified to continue its chain.

    ``conn`` has the live store as ``main`` and the snapshot attached as ``seed``.
    """
    seed_id, seed_hash = _head(conn, "seed")
    if seed_id:
        row = conn.execute(f'SELECT hash FROM main."{AUDIT_TABLE}" WHERE id = ?',
                           (seed_id,)).fetchone()
        if row is None or row[0] != seed_hash:
            raise VerifyError(
                f"{store_path}: was not seeded from {seed_path} (its audit chain does not "
                "continue the snapshot's): a store from another task or run? Use the stores/ "
                "and seed/ of one extract")
    cursor = conn.execute(
        f'SELECT {", ".join(_FIELDS)} FROM main."{AUDIT_TABLE}" WHERE id > ? ORDER BY id',
        (seed_id,))
    entries = []
    prev = seed_hash
    for values in cursor:
        fields = dict(zip(_FIELDS, values, strict=True))
        if fields["prev_hash"] != prev:
            raise VerifyError(
                f"{store_path}: audit entry #{fields['id']} does not chain from the entry "
                "before it (entries were removed, inserted or reordered); the extract cannot "
                "be trusted, so it is not graded")
        if entry_hash(fields) != fields["hash"]:
            raise VerifyError(
                f"{store_path}: audit entry #{fields['id']} was edited (its hash does not "
                "match its content); the extract cannot be trusted, so it is not graded")
        prev = fields["hash"]
        entries.append(AuditEntry(**fields))
    return entries


def last_entries(entries: list[AuditEntry]) -> dict[tuple[str, str], AuditEntry]:
    """The last run entry per (table, row pk)."""
    last: dict[tuple[str, str], AuditEntry] = {}
    for entry in entries:
        last[entry.key] = entry
    return last


def _same_value(stored: Any, audited: Any) -> bool:
    if stored == audited:
        return True
    # An app may assign "76" to a Float column: SQLite stores 76.0, the audit saw "76".
    numbers = []
    for value in (stored, audited):
        if isinstance(value, bool) or value is None:
            return False
        try:
            numbers.append(float(value))
        except (TypeError, ValueError):
            return False
    return numbers[0] == numbers[1]


def same_image(stored: dict | None, audited: dict | None) -> bool:
    """Row images equal, reading numeric text and numbers with the same value as equal."""
    if stored is None or audited is None:
        return stored is audited
    if set(stored) != set(audited):
        return False
    return all(_same_value(stored[c], audited[c]) for c in stored)


def unexplained_rows(store_path: Path, entries: list[AuditEntry],
                     current: dict[tuple[str, str], dict | None],
                     seeded: dict[tuple[str, str], dict | None]) -> None:
    """Raise when a row's current image is not what the audit says it should be.

    ``current`` and ``seeded`` map every (table, pk) that the footprint found changed or the
    run's entries touched to its canonical image now and in the snapshot (``None``: absent).
    """
    last = last_entries(entries)
    for key in sorted(set(current) | set(last)):
        now = current.get(key)
        if key in last:
            expected = last[key].after_image()
            source = f"audit entry #{last[key].id}"
        else:
            expected = seeded.get(key)
            source = "the seeded snapshot (no audit entry of the run touches it)"
        if not same_image(now, expected):
            table, pk = key
            raise VerifyError(
                f"{store_path}: row {table} {pk} differs from {source}: it was written "
                "outside the audit layer, so the channel of its writes is unknown and the "
                "extract is not graded")
