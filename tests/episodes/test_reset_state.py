"""reset() restores a run exactly: the stores from seed/, the files, the clock (no GUI)
(``episodes.run_files``, which the episode calls)."""

from __future__ import annotations

import json
from pathlib import Path

from episodes.episode import Episode
from episodes.run_files import prepare_run_dir, reset_files_and_stores
from sandbox.catalog import load_catalog
from sandbox.clock import SandboxClock
from sandbox.fingerprint import fingerprint
from sandbox.stores import WriteContext, model_for, open_store


def test_reset_restores_the_fingerprint_exactly(tmp_path: Path):
    spec = load_catalog().get("ord-01")  # the web EHR's store
    episode = Episode(spec, run_dir=tmp_path / "run", episode_id="ep-reset-test")
    prepare_run_dir(episode.spec, episode.variant, episode.run_dir, episode.episode_id)
    run = episode.run_dir
    seeded, _ = fingerprint(run)
    assert json.loads((run / "run.json").read_text())["episode_id"] == "ep-reset-test"

    # an app writes through the audit, the agent saves and downloads files, and an input
    # file is damaged by something outside the rules
    store = open_store("ehr", run / "stores" / "ehr.sqlite", SandboxClock().run())
    try:
        with store.writer(WriteContext("browser", "ep-reset-test", "nurse.kelly")) as session:
            patient = session.query(model_for("ehr", "patient_data")).first()
            patient.fname = patient.fname + "x"
    finally:
        store.dispose()
    (run / "output" / "vitals.csv").write_text("x\n")
    (run / "downloads" / "form.pdf").write_bytes(b"%PDF")
    (run / "downloads" / "nested").mkdir()
    (run / "input" / "vitals_note.txt").write_text("tampered")
    (run / "input" / "extra.txt").write_text("not an input")
    changed, _ = fingerprint(run)
    assert changed != seeded

    reset_files_and_stores(spec, episode.variant, run)
    assert fingerprint(run)[0] == seeded
    assert list((run / "output").iterdir()) == []
    assert list((run / "downloads").iterdir()) == []
    clock = SandboxClock.load(run / "clock.json")
    assert clock.running and clock.start == spec.clock and clock.offset_s == 0


def test_archive_moves_a_graded_attempt_aside(tmp_path: Path, demo_catalog):
    episode = Episode(demo_catalog.get("demo-01"), run_dir=tmp_path / "run")
    prepare_run_dir(episode.spec, episode.variant, episode.run_dir, episode.episode_id)
    run = episode.run_dir
    (run / "report.json").write_text("{}")
    (run / "trace" / "trace.jsonl").write_text("{}\n")
    episode._archive_attempt()
    assert (run / "attempts" / "1" / "report.json").exists()
    assert (run / "attempts" / "1" / "trace" / "trace.jsonl").exists()
    assert (run / "trace").is_dir() and not (run / "report.json").exists()
    assert episode.attempt == 2


def test_steps_count_actions_and_presses_not_motion(tmp_path: Path, demo_catalog):
    episode = Episode(demo_catalog.get("demo-01"), run_dir=tmp_path / "run")
    (tmp_path / "run" / "trace").mkdir(parents=True)
    lines = [{"kind": "header"},
             {"kind": "action", "event": {"action": "mouse_move", "coordinate": [1, 1]}},
             {"kind": "action", "event": {"action": "left_click", "coordinate": [1, 1]}},
             {"kind": "input", "event": {"t": "move", "x": 1, "y": 1}},
             {"kind": "input", "event": {"t": "button", "button": 1, "down": True}},
             {"kind": "input", "event": {"t": "button", "button": 1, "down": False}},
             {"kind": "input", "event": {"t": "key", "key": "a", "down": True}}]
    episode.trace_path().write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    assert episode.steps() == 3
