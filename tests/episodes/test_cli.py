"""The ehr-sandbox CLI: JSON listing, seed/fingerprint/audit round trip, bad input."""

import json
import sqlite3
import subprocess
import sys

import pytest

from episodes.cli import main


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_tasks_json_lists_the_catalog(capsys):
    code, out, _ = run_cli(capsys, "tasks", "--json")
    assert code == 0
    entries = json.loads(out)
    assert entries
    for entry in entries:
        assert {"id", "alias", "title", "systems", "difficulty", "variants", "channel",
                "credit"} <= set(entry)
        assert abs(sum(c["weight"] for c in entry["credit"]) - 1.0) < 1e-9


def test_unknown_task_is_one_line_with_close_matches(capsys):
    code, _, err = run_cli(capsys, "seed", "ord-1", "--out", "/tmp/never")
    assert code == 2
    assert err.count("\n") == 1
    assert "unknown task 'ord-1'" in err and "did you mean" in err


def test_bad_arguments_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["seed"])
    assert exc.value.code == 2
    code, _, err = run_cli(capsys, "fingerprint", "/nonexistent/dir")
    assert code == 2 and "no stores/ folder" in err
    code, _, err = run_cli(capsys, "audit", "verify", "/nonexistent/dir")
    assert code == 2 and "no stores" in err


def test_an_out_folder_that_cannot_be_used_is_one_line(tmp_path, capsys):
    """run, serve, bench and extract say why their --out cannot be used: a file, a folder
    that cannot be made, an earlier run's folder; nothing is started or written."""
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    no_parent = a_file / "run"  # a folder cannot be made inside a file
    used = tmp_path / "used"
    used.mkdir()
    (used / "run.json").write_text("{}")
    cases = [
        (("run", "ord-01", "--out", str(a_file)), "is a file, not a folder"),
        (("run", "ord-01", "--out", str(no_parent)), "cannot write to"),
        (("run", "ord-01", "--out", str(used)), "is not empty"),
        (("serve", "ord-01", "--out", str(a_file)), "is a file, not a folder"),
        (("bench", "--tasks", "ord-01", "--out", str(a_file)), "is a file, not a folder"),
        (("bench", "--tasks", "ord-01", "--out", str(no_parent)), "cannot write to"),
        (("bench", "--tasks", "ord-01", "--parallel", "0", "--out", str(tmp_path / "b")),
         "--parallel must be at least 1"),
        (("extract", str(used), "--out", str(a_file)), "cannot extract into"),
    ]
    for argv, message in cases:
        code, _, err = run_cli(capsys, *argv)
        assert code == 2, (argv, err)
        assert message in err and err.count("\n") == 1 and "Traceback" not in err, (argv, err)
    assert not (tmp_path / "b").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "used"]


def _seedable_alias():
    from sandbox.catalog import load_catalog

    for spec in load_catalog():
        if any(s != "workspace" for s in spec.systems):
            return spec.alias
    pytest.fail("no task uses a store")


def test_seed_fingerprint_and_audit_verify_round_trip(tmp_path, capsys):
    alias = _seedable_alias()
    code, out, _ = run_cli(capsys, "seed", alias, "--out", str(tmp_path / "run"))
    assert code == 0
    seeded_digest = out.strip().splitlines()[-1]
    code, out, _ = run_cli(capsys, "fingerprint", str(tmp_path / "run"))
    assert code == 0 and out.strip().splitlines()[-1] == seeded_digest
    code, out, _ = run_cli(capsys, "audit", "verify", str(tmp_path / "run"))
    assert code == 0 and "BROKEN" not in out

    store = next((tmp_path / "run" / "stores").glob("*.sqlite"))
    conn = sqlite3.connect(store)
    conn.execute("update audit_log set actor='intruder' where id=3")
    conn.commit()
    conn.close()
    code, out, _ = run_cli(capsys, "audit", "verify", str(tmp_path / "run"))
    assert code == 1
    assert f"BROKEN  {store.name}: audit entry #3" in out


def test_audit_verify_names_a_hand_edited_data_row(tmp_path, capsys):
    alias = _seedable_alias()
    run_cli(capsys, "seed", alias, "--out", str(tmp_path / "run"))
    store = next((tmp_path / "run" / "stores").glob("*.sqlite"))
    conn = sqlite3.connect(store)
    table, pk = conn.execute(
        "select table_name, row_pk from audit_log where action='insert' order by id desc "
        "limit 1").fetchone()
    column = json.loads(pk)
    (key, value), = column.items()
    cols = [r[1] for r in conn.execute(f"pragma table_info({table})")]
    target = next(c for c in cols if c != key)
    conn.execute(f"update {table} set {target} = 'edited by hand' where {key} = ?", (value,))
    conn.commit()
    conn.close()
    code, out, _ = run_cli(capsys, "audit", "verify", str(tmp_path / "run"))
    assert code == 1
    assert f"row {table}" in out and "audit entry #" in out


def test_audit_verify_names_a_data_row_deleted_by_hand(tmp_path, capsys):
    """A row deleted with raw SQL (no audit entry) is named by table and key."""
    alias = _seedable_alias()
    run_cli(capsys, "seed", alias, "--out", str(tmp_path / "run"))
    store = next((tmp_path / "run" / "stores").glob("*.sqlite"))
    conn = sqlite3.connect(store)
    inserts = conn.execute("select count(*) from audit_log where action='insert'").fetchone()[0]
    table, pk = conn.execute(
        "select table_name, row_pk from audit_log where action='insert' order by id "
        "limit 1 offset ?", (inserts // 2,)).fetchone()
    (key, value), = json.loads(pk).items()
    entries = conn.execute("select count(*) from audit_log").fetchone()[0]
    assert conn.execute(f"delete from {table} where {key} = ?", (value,)).rowcount == 1
    conn.commit()
    assert conn.execute("select count(*) from audit_log").fetchone()[0] == entries
    conn.close()
    code, out, _ = run_cli(capsys, "audit", "verify", str(tmp_path / "run"))
    assert code == 1
    assert f"BROKEN  {store.name}: audit entry #" in out
    assert f"row {table} {pk} is missing from the store" in out


def test_console_script_is_installed():
    result = subprocess.run([sys.executable, "-m", "episodes.cli", "--version"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0 and "ehr-sandbox" in result.stdout
