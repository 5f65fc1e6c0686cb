"""The audit layer: every write recorded, chained, and tampering detected."""

import json
import sqlite3
from datetime import date, datetime

import pytest
from sqlalchemy import Date, DateTime, Float, ForeignKey, Integer, LargeBinary, String, text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from sandbox.clock import SandboxClock
from sandbox.stores import Store, StoreError, WriteContext, system_metadata
from sandbox.stores.audit import verify_chain


class Base(DeclarativeBase):
    metadata = system_metadata("ehr")


class Patient(Base):
    __tablename__ = "patient"
    pid: Mapped[int] = mapped_column(Integer, primary_key=True)
    lname: Mapped[str] = mapped_column(String(40))
    dob: Mapped[date | None] = mapped_column(Date, default=None)


class Vital(Base):
    __tablename__ = "vital"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pid: Mapped[int] = mapped_column(ForeignKey("patient.pid"))
    weight: Mapped[float] = mapped_column(Float, default=0.0)
    taken: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    scan: Mapped[bytes | None] = mapped_column(LargeBinary, default=None)


BROWSER = WriteContext("browser", "ep-1", "nurse.kelly")


@pytest.fixture
def store(tmp_path):
    s = Store("ehr", tmp_path / "ehr.sqlite", SandboxClock(), metadata=Base.metadata).create()
    with s.writer() as session:
        session.add(Patient(pid=1, lname="Whitaker", dob=date(1961, 3, 14)))
        session.add(Patient(pid=2, lname="Whitacre", dob=date(1961, 3, 14)))
    yield s
    s.dispose()


def entries(store):
    conn = sqlite3.connect(store.path)
    rows = conn.execute(
        "select id, channel, episode_id, actor, action, table_name, row_pk, before, after, "
        "sandbox_time from audit_log order by id").fetchall()
    conn.close()
    return rows


def test_inserts_updates_deletes_are_recorded_with_context(store):
    with store.writer(BROWSER) as session:
        session.add(Vital(pid=1, weight=179.46, taken=datetime(2026, 10, 19, 9, 5),
                          scan=b"%PDF-1.4"))
    with store.writer(BROWSER) as session:
        vital = session.get(Vital, 1)
        vital.weight = 180.0
    with store.writer(WriteContext("api", "ep-1", "fhir-client")) as session:
        session.delete(session.get(Vital, 1))
    log = entries(store)
    assert [(e[1], e[4], e[5]) for e in log] == [
        ("seed", "insert", "patient"), ("seed", "insert", "patient"),
        ("browser", "insert", "vital"), ("browser", "update", "vital"),
        ("api", "delete", "vital")]
    insert, update, delete = log[2], log[3], log[4]
    assert insert[2:4] == ("ep-1", "nurse.kelly")
    after = json.loads(insert[8])
    assert after["weight"] == 179.46 and after["taken"] == "2026-10-19 09:05:00"
    assert after["scan"]["size"] == 8  # blobs are audited by hash and size
    assert json.loads(update[7])["weight"] == 179.46 and json.loads(update[8])["weight"] == 180.0
    assert json.loads(delete[7])["weight"] == 180.0 and delete[8] is None
    assert insert[9] == "2026-10-19 09:00:00"  # sandbox time, not wall time
    assert store.verify_audit().ok


def test_a_failed_transaction_leaves_neither_row_nor_entry(store):
    before = len(entries(store))
    with pytest.raises(RuntimeError), store.writer(BROWSER) as session:
        session.add(Vital(pid=1, weight=1.0))
        session.flush()
        raise RuntimeError("crash mid-write")
    assert len(entries(store)) == before
    with store.reader() as session:
        assert session.query(Vital).count() == 0


def test_no_op_update_writes_no_entry(store):
    before = len(entries(store))
    with store.writer(BROWSER) as session:
        session.get(Patient, 1).lname = "Whitaker"
    assert len(entries(store)) == before


def test_writes_around_the_audit_are_refused(store):
    with pytest.raises(StoreError, match="outside the audit layer"), \
            store.writer(BROWSER) as session:
        session.execute(text("UPDATE patient SET lname='X'"))
    with pytest.raises(StoreError, match="outside the audit layer"), \
            store._write_engine.begin() as conn:
        conn.execute(text("DELETE FROM patient"))


def test_bad_context_is_rejected():
    with pytest.raises(ValueError, match="unknown channel"):
        WriteContext("telepathy", "ep", "me")


def _tamper(path, sql):
    conn = sqlite3.connect(path)
    conn.execute(sql)
    conn.commit()
    conn.close()


def test_editing_a_data_row_by_hand_is_detected_and_named(store):
    _tamper(store.path, "update patient set lname='Hacked' where pid=2")
    report = store.verify_audit()
    assert not report.ok
    problem = report.problems[0]
    assert problem.entry_id == 2
    assert "patient" in problem.message and "lname" in problem.message


def test_editing_an_audit_row_by_hand_is_detected_and_named(store):
    _tamper(store.path, "update audit_log set actor='someone' where id=1")
    problem = store.verify_audit().problems[0]
    assert problem.entry_id == 1 and "hash" in problem.message


def test_removing_an_audit_row_breaks_the_chain(store):
    _tamper(store.path, "delete from audit_log where id=1")
    problem = store.verify_audit().problems[0]
    assert problem.entry_id == 2 and "prev_hash" in problem.message


def test_a_row_inserted_by_hand_has_no_entry(store):
    _tamper(store.path, "insert into patient (pid, lname) values (9, 'Ghost')")
    report = store.verify_audit()
    assert any("has no audit entry" in p.message for p in report.problems)


def test_chain_verification_is_read_only(store):
    with store._read_engine.connect() as conn:
        assert verify_chain(conn, store.metadata, "ehr.sqlite").ok


def test_schema_check_names_the_file(tmp_path, store):
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("create table x (a)").connection.close()
    with pytest.raises(StoreError, match="other.sqlite"):
        Store("ehr", other, metadata=Base.metadata).check_schema()
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="junk.sqlite"):
        Store("ehr", junk, metadata=Base.metadata).check_schema()


def test_audit_records_values_as_stored(store):
    """Text assigned to a numeric column is recorded as the number SQLite stores."""
    with store.writer(BROWSER) as session:
        session.add(Vital(pid=1, weight="76"))
    assert store.verify_audit().ok
    after = json.loads(entries(store)[-1][8])
    assert after["weight"] == 76.0


def test_a_clock_file_that_is_not_an_object_is_a_clock_error():
    from sandbox.clock import ClockError, SandboxClock

    with pytest.raises(ClockError, match="JSON object"):
        SandboxClock.from_json([])
