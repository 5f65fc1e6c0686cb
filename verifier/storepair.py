"""A system's live store and its seeded snapshot, opened read-only and checked.

Per store: both files readable as SQLite, the schema of this version (one query over
``pragma_table_info``; ``Store.check_schema`` words any mismatch), and whether the store is
byte-identical to its snapshot (then nothing needs diffing).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote

from sqlalchemy import MetaData
from sqlalchemy.orm import Session

from sandbox.catalog import TaskSpec
from sandbox.stores import SYSTEMS, StoreError, open_store
from sandbox.stores.base import Store
from verifier.errors import VerifyError
from verifier.history import AuditEntry


@dataclass
class SystemStores:
    """One system's live store and seeded snapshot, both read-only."""

    system: str
    live: Store
    seed: Store
    conn: sqlite3.Connection  # live as main, snapshot attached as seed (raw, for diffs)
    identical: bool = False  # byte-identical to the snapshot past the file header
    entries: list[AuditEntry] = field(default_factory=list)
    tainted: dict[tuple[str, str], str] = field(default_factory=dict)
    _live_session: Session | None = None
    _seed_session: Session | None = None

    @property
    def session(self) -> Session:
        if self._live_session is None:
            self._live_session = self.live.reader()
        return self._live_session

    @property
    def seed_session(self) -> Session:
        if self._seed_session is None:
            self._seed_session = self.seed.reader()
        return self._seed_session

    def close(self) -> None:
        for session in (self._live_session, self._seed_session):
            if session is not None:
                session.close()
        self.conn.close()
        self.live.dispose()
        self.seed.dispose()


def _ro_uri(path: Path) -> str:
    return f"file:{quote(str(path.resolve()))}?mode=ro"


def open_system(system: str, store_path: Path, seed_path: Path) -> SystemStores:
    if not seed_path.is_file():
        raise VerifyError(f"{seed_path}: missing; the seeded snapshot of {store_path.name} is "
                          "needed for the footprint (extracts copy seed/ from the run)")
    try:
        live = open_store(system, store_path, readonly=True, check=False)
        seed = open_store(system, seed_path, readonly=True, check=False)
    except StoreError as exc:
        raise VerifyError(str(exc)) from exc
    conn = None
    try:
        conn = sqlite3.connect(_ro_uri(store_path), uri=True)
        _readable(conn, "main", store_path)
        try:
            conn.execute("ATTACH DATABASE ? AS seed", (_ro_uri(seed_path),))
        except sqlite3.DatabaseError as exc:
            raise VerifyError(f"{seed_path}: not a readable SQLite store ({exc})") from exc
        _readable(conn, "seed", seed_path)
        identical = same_pages(store_path, seed_path)
        _check_schema(conn, "main", live)
        if not identical:
            _check_schema(conn, "seed", seed)
    except BaseException:
        if conn is not None:
            conn.close()
        live.dispose()
        seed.dispose()
        raise
    return SystemStores(system, live, seed, conn, identical=identical)


def _readable(conn: sqlite3.Connection, schema: str, path: Path) -> None:
    """Refuse a file that is not an SQLite database, naming it."""
    try:
        conn.execute(f"SELECT count(*) FROM {schema}.sqlite_master").fetchone()
    except sqlite3.DatabaseError as exc:
        raise VerifyError(f"{path}: not a readable SQLite store ({exc})") from exc


def same_pages(store_path: Path, seed_path: Path) -> bool:
    """Whether the store holds exactly the snapshot's pages (nothing written since seeding).

    SQLite's backup copies pages verbatim, so a store nobody wrote to differs from its
    snapshot only in the 100-byte file header (journal mode, change counters). Equal pages
    mean equal tables, so the per-table diff can be skipped. A store with a non-empty WAL
    may hold writes outside its main file: then the answer is no.
    """
    for path in (store_path, seed_path):
        wal = path.with_name(path.name + "-wal")
        if wal.exists() and wal.stat().st_size > 0:
            return False
    if store_path.stat().st_size != seed_path.stat().st_size:
        return False
    with store_path.open("rb") as live, seed_path.open("rb") as seeded:
        live.seek(100)
        seeded.seek(100)
        while True:
            a, b = live.read(1 << 20), seeded.read(1 << 20)
            if a != b:
                return False
            if not a:
                return True


@lru_cache(maxsize=16)
def _schema_columns(metadata: MetaData) -> frozenset[tuple[str, str]]:
    return frozenset((t.name, c.name) for t in metadata.sorted_tables for c in t.columns)


def _check_schema(conn: sqlite3.Connection, schema: str, store: Store) -> None:
    """Every table and column of this version present (one query, not one per table).

    On a mismatch, ``Store.check_schema`` words the error; it is the reference.
    """
    try:
        have = set(conn.execute(
            f"SELECT m.name, p.name FROM {schema}.sqlite_master AS m "
            f"JOIN pragma_table_info(m.name, '{schema}') AS p WHERE m.type = 'table'"))
    except sqlite3.DatabaseError as exc:
        raise VerifyError(f"{store.path}: not a readable SQLite store ({exc})") from exc
    want = _schema_columns(store.metadata)
    if want <= have:
        return
    try:
        store.check_schema()
    except StoreError as exc:
        raise VerifyError(str(exc)) from exc
    lacking = sorted(want - have)[:4]
    raise VerifyError(f"{store.path}: schema mismatch (lacks {lacking}); "
                      f"not a {store.system} store of this version")


def open_task_stores(path: Path, spec: TaskSpec) -> dict[str, SystemStores]:
    """Every store of the task's systems with its snapshot; refuses strays and gaps."""
    store_dir = path / "stores"
    wanted = [s for s in SYSTEMS if s in spec.systems]
    present = sorted(store_dir.glob("*.sqlite")) if store_dir.is_dir() else []
    for file in present:
        if file.stem not in SYSTEMS:
            raise VerifyError(f"{file}: not a store of any system "
                              f"(known: {', '.join(SYSTEMS)})")
        if file.stem not in wanted:
            raise VerifyError(f"{file}: {spec.alias} does not use the {file.stem} system "
                              f"(its systems: {', '.join(spec.systems)}); a store of "
                              "another task?")
    stores: dict[str, SystemStores] = {}
    try:
        for system in wanted:
            store_path = store_dir / f"{system}.sqlite"
            if not store_path.is_file():
                raise VerifyError(f"{store_path}: missing; {spec.alias} uses the {system} "
                                  "system")
            stores[system] = open_system(system, store_path,
                                          path / "seed" / f"{system}.sqlite")
    except BaseException:
        for pair in stores.values():
            pair.close()
        raise
    return stores
