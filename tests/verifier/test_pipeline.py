"""End to end with the real seeds: seed_task → writes as the apps make them → extract_run →
grade. Guards the contract between the seeder/extractor and the verifier."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select

from sandbox.catalog import load_catalog
from sandbox.clock import SandboxClock
from sandbox.extract import extract_run
from sandbox.seeding import seed_task
from sandbox.stores import Store, WriteContext
from sandbox.stores.ehr import Lists, PatientData
from verifier import grade

COMMENT = "Tolerated TMP-SMX 2025 per pharmacy"


@pytest.mark.parametrize("channel, expected", [("browser", 1.0), ("api", 0.1)])
def test_seeded_run_written_then_extracted_grades_as_expected(tmp_path, channel, expected):
    spec = load_catalog().get("ord-04")
    run_dir = seed_task(spec, None, tmp_path / "run", episode_id="ep-pipeline")
    store = Store("ehr", run_dir / "stores" / "ehr.sqlite",
                  SandboxClock.load(run_dir / "clock.json"))
    try:
        with store.writer(WriteContext(channel, "ep-pipeline", "nurse.kelly")) as s:
            pid = s.scalars(select(PatientData.pid).where(PatientData.pubpid == "402301")).one()
            s.add(Lists(date=dt.datetime(2026, 10, 19, 9, 5), type="allergy", pid=pid,
                        title="Penicillin", reaction="hives", severity_al="moderate",
                        begdate=dt.date(2026, 9, 30), user="nurse.kelly"))
            sulfa = s.scalars(select(Lists).where(Lists.pid == pid,
                                                  Lists.title == "Sulfa")).one()
            sulfa.enddate = dt.date(2026, 10, 19)
            sulfa.comments = f"{sulfa.comments} {COMMENT}"
    finally:
        store.dispose()
    extract = extract_run(run_dir, tmp_path / "extract")
    report = grade(spec, extract)
    assert report.complete and report.score == pytest.approx(expected)
    assert report.episode_id == "ep-pipeline"
