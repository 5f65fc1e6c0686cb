"""One SQLite store per system, opened through SQLAlchemy 2, with every write audited.

A system module (``sandbox/stores/ehr.py`` …) declares its models on its own declarative
base, whose metadata (:func:`system_metadata`) also carries the store's audit table.
Writes go through :meth:`Store.writer`, a session whose flushes are turned into audit entries
in the same transaction. A guard on the engine refuses any INSERT/UPDATE/DELETE that is not
part of an audited flush, so nothing can write around the audit layer by accident.

A model that keeps a file's bytes (an uploaded attachment, a received fax) takes its columns
from :class:`StoredFile` or :class:`UploadedFile`, so every such file is found and compared
the same way: by the sha256 of its content.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import Integer, LargeBinary, MetaData, String, create_engine, event, inspect
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Mapped, Session, mapped_column, sessionmaker, validates

from sandbox.errors import SandboxError
from sandbox.stores.audit import (
    AUDIT_TABLE,
    SEED_CONTEXT,
    AuditReport,
    WriteContext,
    append_entries,
    audit_table,
    pk_image,
    row_image,
    verify_chain,
)

SYSTEMS = ("ehr", "hyperspace", "powerchart", "acme", "epa", "fax", "regulator")

# system name -> module that defines its models (imported lazily)
SYSTEM_MODULES = {
    "ehr": "sandbox.stores.ehr",
    "hyperspace": "sandbox.stores.hyperspace",
    "powerchart": "sandbox.stores.powerchart",
    "acme": "sandbox.stores.acme",
    "epa": "sandbox.stores.epa",
    "fax": "sandbox.stores.fax",
    "regulator": "sandbox.stores.regulator",
}


class StoreError(SandboxError, RuntimeError):
    """A store is missing, corrupt, of another system, or was written around the audit."""


class Clock(Protocol):
    def now_local(self) -> Any: ...


def system_metadata(system: str) -> MetaData:
    """The metadata of one system's declarative base, with the store's audit table::

        class Base(DeclarativeBase):
            metadata = system_metadata("acme")
    """
    if system not in SYSTEMS:
        raise ValueError(f"unknown system {system!r}; known: {', '.join(SYSTEMS)}")
    metadata = MetaData(info={"system": system})
    audit_table(metadata)
    return metadata


def metadata_for(system: str) -> MetaData:
    """The metadata (models + audit table) of a system."""
    if system not in SYSTEM_MODULES:
        raise StoreError(f"unknown system {system!r}; known: {', '.join(SYSTEMS)}")
    module = importlib.import_module(SYSTEM_MODULES[system])
    return module.Base.metadata


def model_for(system: str, table_name: str) -> type:
    """The mapped class of ``table_name`` in ``system`` (for data-driven seeding)."""
    module = importlib.import_module(SYSTEM_MODULES[system])
    for mapper in module.Base.registry.mappers:
        if mapper.local_table.name == table_name:
            return mapper.class_
    known = sorted(t for t in metadata_for(system).tables if t != AUDIT_TABLE)
    raise StoreError(f"system {system!r} has no table {table_name!r}; tables: {', '.join(known)}")


# -- stored files ------------------------------------------------------------------------
class StoredFile:
    """Columns of a model that keeps one file's bytes: ``filename``, ``size_bytes``,
    ``sha256`` and ``content``.

    ``sha256`` and ``size_bytes`` are derived from ``content`` whenever it is assigned, so
    seeds may omit them and no writer can store a digest that lies: verifiers recognise an
    attached document by this digest (the same bytes as the EHR's document or an input file).
    The file's columns come after the model's own (``sort_order``): ``filename``,
    ``content_type`` (uploads only), ``size_bytes``, ``sha256``, ``content``.
    """

    filename: Mapped[str] = mapped_column(String(200), sort_order=1)
    size_bytes: Mapped[int] = mapped_column(Integer, sort_order=3)
    sha256: Mapped[str] = mapped_column(String(64), sort_order=4)
    content: Mapped[bytes] = mapped_column(LargeBinary, sort_order=5)

    @validates("content")
    def _digest(self, _key: str, content: bytes) -> bytes:
        """Keep ``sha256`` and ``size_bytes`` true to the stored bytes (seeds omit them)."""
        self.sha256 = hashlib.sha256(content).hexdigest()
        self.size_bytes = len(content)
        return content


class UploadedFile(StoredFile):
    """A :class:`StoredFile` a user uploaded, with the ``content_type`` it came with (a PDF
    unless said otherwise). A file the sandbox itself produced, such as a received fax,
    has no upload type and uses :class:`StoredFile`."""

    content_type: Mapped[str] = mapped_column(String(80), default="application/pdf",
                                              sort_order=2)


# -- engine ------------------------------------------------------------------------------
_WRITE_KEYWORDS = ("INSERT", "UPDATE", "DELETE", "REPLACE")


def _make_engine(path: Path, *, immediate: bool, readonly: bool) -> Engine:
    if readonly:
        url = f"sqlite:///file:{path}?mode=ro&uri=true"
    else:
        url = f"sqlite:///{path}"
    engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record):  # noqa: ANN001
        dbapi_conn.isolation_level = None  # we emit BEGIN ourselves
        cur = dbapi_conn.cursor()
        if not readonly:
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):  # noqa: ANN001
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    @event.listens_for(engine, "before_cursor_execute")
    def _guard(conn, _cursor, statement, _params, _context, _executemany):  # noqa: ANN001
        head = statement.lstrip()[:7].upper()
        if head.startswith(_WRITE_KEYWORDS) and not conn.info.get("audited_flush"):
            raise StoreError(
                "write outside the audit layer refused: use Store.writer() and ORM objects "
                f"(statement: {statement.strip()[:60]}...)")

    return engine


class Store:
    """One system's SQLite file."""

    def __init__(self, system: str, path: Path | str, clock: Clock | None = None,
                 readonly: bool = False, metadata: MetaData | None = None):
        if system not in SYSTEMS:
            raise StoreError(f"unknown system {system!r}; known: {', '.join(SYSTEMS)}")
        self.system = system
        self.path = Path(path)
        self.clock = clock
        self.metadata = metadata if metadata is not None else metadata_for(system)
        self.readonly = readonly
        if readonly and not self.path.exists():
            raise StoreError(f"no {system} store at {self.path}")
        self._write_engine = None if readonly else _make_engine(
            self.path, immediate=True, readonly=False)
        self._read_engine = _make_engine(self.path, immediate=False, readonly=readonly)
        self._reader = sessionmaker(self._read_engine, expire_on_commit=False)

    # -- lifecycle -----------------------------------------------------------------------
    def create(self) -> Store:
        """Create every table (the file must be new or empty)."""
        if self._write_engine is None:
            raise StoreError(f"{self.path} is open read-only")
        with self._write_engine.connect() as conn:
            conn.info["audited_flush"] = True  # DDL only; the guard ignores it anyway
            self.metadata.create_all(conn)
            conn.commit()
            conn.info["audited_flush"] = False
        return self

    def check_schema(self) -> None:
        """Raise StoreError naming the file when its tables do not match this system."""
        try:
            names = set(inspect(self._read_engine).get_table_names())
        except Exception as exc:  # sqlite3.DatabaseError for a corrupt file
            raise StoreError(f"{self.path}: not a readable SQLite store ({exc})") from exc
        want = set(self.metadata.tables)
        missing = want - names
        if missing:
            raise StoreError(
                f"{self.path}: not a {self.system} store of this version (missing tables: "
                f"{', '.join(sorted(missing)[:6])}{'…' if len(missing) > 6 else ''})")
        for table in self.metadata.sorted_tables:
            have = {c["name"] for c in inspect(self._read_engine).get_columns(table.name)}
            lacking = {c.name for c in table.columns} - have
            if lacking:
                raise StoreError(f"{self.path}: table {table.name} lacks columns "
                                 f"{', '.join(sorted(lacking))} (schema mismatch)")

    def dispose(self) -> None:
        if self._write_engine is not None:
            self._write_engine.dispose()
        self._read_engine.dispose()

    # -- sessions ------------------------------------------------------------------------
    def reader(self) -> Session:
        """A session for reading; flushing writes from it is refused."""
        return self._reader()

    @contextmanager
    def writer(self, ctx: WriteContext = SEED_CONTEXT) -> Iterator[Session]:
        """An audited write transaction: commits on success, rolls back on error."""
        if self._write_engine is None:
            raise StoreError(f"{self.path} is open read-only")
        session = Session(self._write_engine, expire_on_commit=False)
        session.info["write_context"] = ctx
        session.info["store"] = self
        event.listen(session, "before_flush", _before_flush)
        event.listen(session, "after_flush", _after_flush)
        event.listen(session, "after_flush_postexec", _after_flush_postexec)
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()

    def now_text(self) -> str:
        if self.clock is None:
            raise StoreError("this store was opened without a sandbox clock; it cannot write")
        return self.clock.now_local().isoformat(sep=" ")

    def verify_audit(self) -> AuditReport:
        with self._read_engine.connect() as conn:
            return verify_chain(conn, self.metadata, self.path.name)


# -- flush hooks: turn the unit of work into audit entries --------------------------------
def _local_columns(obj: Any):
    state = inspect(obj)
    for prop in state.mapper.column_attrs:
        column = prop.columns[0]
        if column.table is state.mapper.local_table:
            yield state, prop.key, column


def _before_values(obj: Any) -> dict[str, Any]:
    """Column values as stored before this flush (loading any not yet in memory)."""
    values: dict[str, Any] = {}
    for state, key, column in _local_columns(obj):
        hist = state.attrs[key].load_history()
        if hist.deleted:
            values[column.name] = hist.deleted[0]
        elif hist.unchanged:
            values[column.name] = hist.unchanged[0]
        else:
            values[column.name] = None
    return values


def _current_values(obj: Any) -> dict[str, Any]:
    return {column.name: state.attrs[key].value for state, key, column in _local_columns(obj)}


def _before_flush(session: Session, _ctx, _instances) -> None:  # noqa: ANN001
    session.connection().info["audited_flush"] = True
    befores = {}
    for obj in list(session.dirty) + list(session.deleted):
        table = inspect(obj).mapper.local_table
        befores[id(obj)] = row_image(table, _before_values(obj))
    session.info["before_images"] = befores


def _after_flush_postexec(session: Session, _ctx) -> None:  # noqa: ANN001
    session.connection().info["audited_flush"] = False
    session.info.pop("before_images", None)


def _after_flush(session: Session, _ctx) -> None:  # noqa: ANN001
    store: Store = session.info["store"]
    ctx: WriteContext = session.info["write_context"]
    befores: dict[int, dict] = session.info.get("before_images", {})
    changes: list[tuple[str, str, dict, dict | None, dict | None]] = []
    for obj in session.new:
        table = inspect(obj).mapper.local_table
        after = row_image(table, _current_values(obj))
        changes.append(("insert", table.name, pk_image(table, after), None, after))
    for obj in session.dirty:
        if id(obj) not in befores:
            continue
        table = inspect(obj).mapper.local_table
        before = befores[id(obj)]
        after = row_image(table, _current_values(obj))
        if before == after:
            continue
        changes.append(("update", table.name, pk_image(table, after), before, after))
    for obj in session.deleted:
        table = inspect(obj).mapper.local_table
        before = befores.get(id(obj)) or row_image(table, _current_values(obj))
        changes.append(("delete", table.name, pk_image(table, before), before, None))
    if not changes:
        return
    conn = session.connection()
    append_entries(conn, store.metadata.tables[AUDIT_TABLE], store.system, ctx,
                   store.now_text(), changes)


def open_store(system: str, path: Path | str, clock: Clock | None = None, *,
               readonly: bool = False, check: bool = True) -> Store:
    """Open an existing store; with ``check`` its schema must match this version."""
    path = Path(path)
    if not path.exists():
        raise StoreError(f"no {system} store at {path}")
    store = Store(system, path, clock, readonly=readonly)
    if check:
        store.check_schema()
    return store
