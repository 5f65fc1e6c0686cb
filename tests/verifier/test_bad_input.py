"""Input that cannot be graded: one clear message naming the file, exit 2, no traceback."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import sqlite3

import pytest

from sandbox.stores import Store
from sandbox.stores.ehr import Lists, PatientData
from tests.verifier.builders import RunBuilder, seed_patients, task_spec
from verifier.cli import verify_main

SPEC = task_spec("R09.03.01.02-T01")


def build(root, *, latex_reaction: str = "rash"):
    run = RunBuilder(root, SPEC)
    seed_patients(run)
    run.snapshot()
    with run.agent() as s:
        s.get(Lists, 1101).reaction = latex_reaction
    return run.close()


@pytest.fixture
def extract(tmp_path):
    return build(tmp_path / "extract")


def verify(capsys, *argv):
    status = verify_main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def raw_sql(path, statement, params=()):
    conn = sqlite3.connect(path)
    conn.execute(statement, params)
    conn.commit()
    conn.close()


def test_a_good_extract_grades(capsys, extract):
    status, out, err = verify(capsys, "ord-01", extract)
    assert "score" in out and err == ""
    # this extract's seed has no encounter of the task's date: one item cannot be graded,
    # and that (not a crash, not a complete report) is exit status 1
    assert status == 1
    assert "score incomplete" in out and "could not grade" in out


def damage_cases():
    def run_json(d):
        (d / "run.json").unlink()
        return "run.json: missing"

    def run_json_corrupt(d):
        (d / "run.json").write_text("{not json")
        return "run.json: not readable JSON"

    def other_task(d):
        data = json.loads((d / "run.json").read_text())
        data.update(task="R09.03.01.02-T04", alias="ord-04")
        (d / "run.json").write_text(json.dumps(data))
        return "run.json: this extract is of task R09.03.01.02-T04 (ord-04), not R09.03.01.02-T01"

    def clock(d):
        (d / "clock.json").write_text("[]")
        return "clock.json"

    def store_missing(d):
        (d / "stores" / "ehr.sqlite").unlink()
        return "stores/ehr.sqlite: missing"

    def seed_missing(d):
        (d / "seed" / "ehr.sqlite").unlink()
        return "seed/ehr.sqlite: missing"

    def store_of_another_system(d):
        (d / "stores" / "ehr.sqlite").unlink()
        store = Store("acme", d / "stores" / "ehr.sqlite").create()
        store.dispose()
        return "stores/ehr.sqlite: not a ehr store of this version"

    def corrupt_store(d):
        (d / "stores" / "ehr.sqlite").write_bytes(b"this is not a database" * 100)
        return "stores/ehr.sqlite: not a readable SQLite store"

    def extra_store(d):
        Store("acme", d / "stores" / "acme.sqlite").create().dispose()
        return "stores/acme.sqlite: ord-01 does not use the acme system"

    def unknown_store(d):
        (d / "stores" / "notes.sqlite").write_bytes(b"")
        return "stores/notes.sqlite: not a store of any system"

    def audit_edited(d):
        raw_sql(d / "stores" / "ehr.sqlite",
                "UPDATE audit_log SET actor = 'dr.osei' WHERE id = (SELECT max(id) FROM audit_log)")
        return "stores/ehr.sqlite: audit entry #"

    def audit_removed(d):
        raw_sql(d / "stores" / "ehr.sqlite",
                "DELETE FROM audit_log WHERE id = (SELECT max(id) FROM audit_log)")
        return "written outside the audit layer"

    def row_outside_audit(d):
        raw_sql(d / "stores" / "ehr.sqlite", "UPDATE lists SET title = 'Latex rubber' WHERE id = 1101")
        return "stores/ehr.sqlite: row lists {\"id\":1101} differs from audit entry"

    def seed_row_outside_audit(d):
        raw_sql(d / "stores" / "ehr.sqlite", "UPDATE lists SET title = 'Codeine!' WHERE id = 1102")
        return "differs from the seeded snapshot"

    return [run_json, run_json_corrupt, other_task, clock, store_missing, seed_missing,
            store_of_another_system, corrupt_store, extra_store, unknown_store, audit_edited,
            audit_removed, row_outside_audit, seed_row_outside_audit]


@pytest.mark.parametrize("damage", damage_cases(), ids=lambda f: f.__name__)
def test_damaged_extract_exits_2_naming_the_file(capsys, extract, damage):
    expected = damage(extract)
    status, out, err = verify(capsys, "ord-01", extract)
    assert status == 2
    assert out == ""
    assert expected in err, err
    assert "Traceback" not in err and err.count("\n") <= 3


def test_store_of_another_run_is_refused(capsys, tmp_path):
    first = build(tmp_path / "first")
    run = RunBuilder(tmp_path / "other", SPEC)  # seeded differently: the chains diverge
    with run.seed() as s:
        s.add(PatientData(id=1, pid=1001, pubpid="402015", fname="Harold", lname="Whitaker",
                          DOB=dt.date(1961, 3, 14), sex="Male"))
        s.flush()
        s.add(Lists(id=1199, date=dt.datetime(2020, 1, 3), type="allergy", title="Iodine",
                    pid=1001))
    run.snapshot().close()
    shutil.copy(run.root / "stores" / "ehr.sqlite", first / "stores" / "ehr.sqlite")
    status, _, err = verify(capsys, "ord-01", first)
    assert status == 2 and "stores/ehr.sqlite: was not seeded from" in err
    assert str(first / "seed" / "ehr.sqlite") in err


def test_missing_directory_unknown_task_and_variant(capsys, tmp_path, extract):
    status, _, err = verify(capsys, "ord-01", tmp_path / "nowhere")
    assert status == 2 and "nowhere: no extract here" in err
    status, _, err = verify(capsys, "ord-99", extract)
    assert status == 2 and "unknown task 'ord-99'" in err
    status, _, err = verify(capsys, "ord-01", extract, "--variant", "normal-mg")
    assert status == 2 and "seeded as variant 'default', not 'normal-mg'" in err
