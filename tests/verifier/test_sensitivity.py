"""The sensitivity suite's engine: GRADED / UNGRADED declarations, validated at load time,
and every declared value changed in a copy of a 1.0 extract through the audited writer.

A small task of its own (a new Penicillin allergy; 60% entry, 40% details in two parts) on a
run built row by row, so each way the suite can fail is shown on purpose.
"""

from __future__ import annotations

import datetime as dt
import sqlite3

import pytest

from sandbox.stores.ehr import Lists
from tests.verifier.builders import RunBuilder, make_task, seed_patients
from verifier import VerifyError, grade
from verifier.sensitivity import run_sensitivity
from verifier.taskmodule import load_checks

CREDIT = [("entry", 60), ("details", 40)]
SPARE = {"id": "R09.03.01.02-T91", "alias": "ord-91"}  # an id no real task uses
CHECKS = '''
from sandbox.stores.ehr import Lists
from verifier import Graded, Result, Ungraded, check, equal_share, expect

def _entry(ex):
    rows = [r for r in ex.created(Lists, Lists.pid == 1001) if r.title == "Penicillin"]
    return rows[-1] if rows else None

@check("entry")
def entry(ex):
    return _entry(ex) is not None

@check("details")
def details(ex):
    row = _entry(ex)
    if row is None:
        return Result.failed()
    return equal_share({"reaction": expect(row.reaction, "hives"),
                        "severity": expect(row.severity_al, "moderate")})
'''
NEW = '{"title": "Penicillin"}'
GRADED = f'''
GRADED = [
    Graded("ehr.lists", {NEW}, "reaction", "rash", "details", 1 / 2),
    Graded("ehr.lists", {NEW}, "severity_al", "severe", "details", 1 / 2),
    Graded("ehr.lists", {NEW}, "title", "Amoxicillin", "entry", 1, also={{"details": 1}}),
    Graded("ehr.lists", {NEW}, "pid", 1002, "entry", 1, also={{"details": 1}}),
]
'''
UNGRADED = '''
UNGRADED = [Ungraded("ehr.lists", "date type user groupname activity occurrence "
                     "classification outcome erx_source erx_uploaded", "bookkeeping")]
'''


def task_and_run(tmp_path, source: str):  # noqa: ANN201 - (TaskSpec, run directory)
    spec = make_task(tmp_path / "tasks", source, credit=CREDIT, may_touch={"ehr": ["lists"]},
                     **SPARE)
    run = RunBuilder(tmp_path / "run", spec)
    seed_patients(run)
    run.snapshot()
    with run.agent() as s:
        s.add(Lists(date=dt.datetime(2026, 10, 19, 9), type="allergy", title="Penicillin",
                    reaction="hives", severity_al="moderate", pid=1001, user="nurse.kelly"))
    return spec, run.close()


def audit_count(run_dir) -> int:  # noqa: ANN001
    conn = sqlite3.connect(run_dir / "stores" / "ehr.sqlite")
    try:
        return conn.execute("select count(*) from audit_log").fetchone()[0]
    finally:
        conn.close()


def test_each_declared_value_moves_its_share_and_everything_is_accounted_for(tmp_path):
    spec, run_dir = task_and_run(tmp_path, CHECKS + GRADED + UNGRADED)
    entries = audit_count(run_dir)
    found = run_sensitivity(spec, run_dir, tmp_path / "work")
    assert found.ok, found.render()
    assert found.baseline == 1.0
    assert [(m.entry.column, m.score) for m in found.mutations] == [
        ("reaction", 0.8), ("severity_al", 0.8), ("title", 0.0), ("pid", 0.0)]
    assert found.summary().startswith("ord-91 default: 4/4 graded values moved the score")
    # copies were changed, never the extract; and the copies are gone
    assert audit_count(run_dir) == entries and grade(spec, run_dir).score == 1.0
    assert list((tmp_path / "work").iterdir()) == []


def test_a_value_the_run_wrote_that_no_list_accounts_for_fails(tmp_path):
    """The hole the suite exists for: severity written, no check declared to grade it."""
    graded = GRADED.replace('    Graded("ehr.lists", {"title": "Penicillin"}, "severity_al", '
                            '"severe", "details", 1 / 2),\n', "")
    spec, run_dir = task_and_run(tmp_path, CHECKS + graded + UNGRADED)
    found = run_sensitivity(spec, run_dir, tmp_path / "work")
    assert not found.ok
    assert len(found.uncovered) == 1
    assert found.uncovered[0].startswith("ehr.lists#1103 severity_al = 'moderate': the run "
                                         "wrote it, no GRADED entry changes it")


def test_a_declared_share_the_grade_does_not_move_by_fails(tmp_path):
    spec, run_dir = task_and_run(tmp_path, CHECKS + GRADED.replace(
        '"reaction", "rash", "details", 1 / 2', '"reaction", "rash", "details", 1 / 4')
        + UNGRADED)
    found = run_sensitivity(spec, run_dir, tmp_path / "work")
    bad = [m for m in found.mutations if not m.ok]
    assert [m.entry.column for m in bad] == ["reaction"]
    assert bad[0].problem == "details: 0.5 (expected 0.75)"
    assert "FAIL  ehr.lists#1103 reaction: 'hives' -> 'rash'" in found.render()


def test_a_value_a_check_ignores_is_caught_even_when_declared(tmp_path):
    """Declaring severity graded while the check no longer reads it fails the mutation."""
    checks = CHECKS.replace('"severity": expect(row.severity_al, "moderate")',
                            '"severity": True')
    spec, run_dir = task_and_run(tmp_path, checks + GRADED + UNGRADED)
    found = run_sensitivity(spec, run_dir, tmp_path / "work")
    assert [m.entry.column for m in found.mutations if not m.ok] == ["severity_al"]


def test_selectors_contradictions_and_unstorable_values_are_problems(tmp_path):
    extra = '''
GRADED += [
    Graded("ehr.lists", {"pid": 1003}, "title", "x", "entry", 1),
    Graded("ehr.lists", {"title": "Penicillin"}, "reaction", "hives", "details", 1 / 2),
    Graded("ehr.lists", {"title": "Penicillin"}, "pid", 99999, "entry", 1),
]
UNGRADED += [Ungraded("ehr.lists", "reaction", "contradicts GRADED")]
'''
    spec, run_dir = task_and_run(tmp_path, CHECKS + GRADED + UNGRADED + extra)
    found = run_sensitivity(spec, run_dir, tmp_path / "work")
    assert not found.ok
    assert any("matches 0 rows" in p for p in found.problems)
    assert any("the 'wrong' value is the gold value" in p for p in found.problems)
    assert any("reaction: declared both graded and not graded" in p for p in found.problems)
    assert any(m.problem and m.problem.startswith("the wrong value cannot be stored")
               for m in found.mutations)


def test_a_task_without_a_list_is_reported_as_undeclared(tmp_path):
    spec, run_dir = task_and_run(tmp_path, CHECKS)
    found = run_sensitivity(spec, run_dir, tmp_path / "work")
    assert not found.declared and not found.ok and found.mutations == []
    assert found.summary() == "ord-91 default: no GRADED list in verify.py yet"
    assert load_checks(spec).graded is None


@pytest.mark.parametrize("entry, message", [
    ('Graded("ehr.lists", {"pid": 1}, "title", "x", "no such item", 1)',
     "'no such item' is not a credit item"),
    ('Graded("ehr.lists", {"pid": 1}, "title", "x", "entry", 0)',
     "must be a fraction in \\(0, 1\\]"),
    ('Graded("ehr.lists", {"pid": 1}, "title", "x", "entry", 1.5)',
     "must be a fraction in \\(0, 1\\]"),
    ('Graded("ehr.lists", {"pid": 1}, "colour", "x", "entry", 1)', "no column 'colour'"),
    ('Graded("ehr.lists", {"pid": 1}, "id", 5, "entry", 1)', "a primary key is not"),
    ('Graded("ehr.no_table", {"pid": 1}, "title", "x", "entry", 1)', "no table 'no_table'"),
    ('Graded("acme.members", {"id": 1}, "status", "x", "entry", 1)', "has no acme store"),
    ('Graded("ehr.lists", {}, "title", "x", "entry", 1)', "'where' must select a row"),
    ('Graded("ehr.lists", {"pid": 1}, "title", "x", "entry", 1, variants=("twin",))',
     "no variant 'twin'"),
], ids=["item", "zero", "above-one", "column", "key", "table", "store", "selector", "variant"])
def test_declarations_are_validated_when_the_checks_load(tmp_path, entry, message):
    spec = make_task(tmp_path, CHECKS + f"\nGRADED = [{entry}]\n", credit=CREDIT)
    with pytest.raises(VerifyError, match=message):
        load_checks(spec)


def test_ungraded_entries_are_validated_too(tmp_path):
    spec = make_task(tmp_path / "a", CHECKS + '\nUNGRADED = [Ungraded("ehr.lists", "colour", '
                                              '"why")]\n', credit=CREDIT)
    with pytest.raises(VerifyError, match="no column 'colour'"):
        load_checks(spec)
    spec = make_task(tmp_path / "b", CHECKS + '\nUNGRADED = [Ungraded("ehr.lists", "title", '
                                              '" ")]\n', credit=CREDIT)
    with pytest.raises(VerifyError, match="say why"):
        load_checks(spec)
    spec = make_task(tmp_path / "c", CHECKS + '\nUNGRADED = [Ungraded("ehr.lists", "title", '
                                              '"why", variants=("twin",))]\n', credit=CREDIT)
    with pytest.raises(VerifyError, match="no variant 'twin'"):
        load_checks(spec)


def test_the_command_line_prints_the_report(tmp_path, capsys):
    from verifier.cli import verify_main

    _, run_dir = task_and_run(tmp_path, CHECKS + GRADED + UNGRADED)
    status = verify_main(["ord-91", str(run_dir), "--sensitivity",
                          "--tasks-dir", str(tmp_path / "tasks")])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "4/4 graded values moved the score by their share" in out
    assert out.count("\n  ok    ehr.lists#1103 ") == 4
