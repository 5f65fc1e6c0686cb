"""The channel rule (which writes count) and the footprint (what changed, and what is stray)."""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox.stores.ehr import FormVitals, Lists, PatientData
from tests.verifier.builders import RunBuilder, make_task, seed_patients
from verifier import grade

NOW = dt.datetime(2026, 10, 19, 9, 30)
SEEN = '''
from sandbox.stores.ehr import Lists
from verifier import Result, check

@check("rows seen")
def seen(ex):
    mine = ex.rows(Lists, Lists.pid == 1001)
    latex = [r for r in mine if r.id == 1101]
    return Result.passed(
        titles=sorted(r.title for r in mine),
        latex_reaction=latex[0].reaction if latex else None,
        created=sorted(r.title for r in ex.created(Lists)),
        stored=sorted(r.title for r in ex.all_rows(Lists)),
        seeded=sorted(r.title for r in ex.seed_rows(Lists)),
        provenance=[e.channel for r in ex.all_rows(Lists, Lists.id == 1101)
                    for e in ex.provenance(r)],
    )
'''


def task(tmp_path, channel="browser", may_touch=None):
    return make_task(tmp_path / "tasks", SEEN, credit=[("rows seen", 100)], channel=channel,
                     may_touch=may_touch or {"ehr": ["lists"]})


def run_with(tmp_path, spec, *writes):
    run = RunBuilder(tmp_path / "run", spec)
    seed_patients(run)
    run.snapshot()
    for channel, episode, action in writes:
        with run.agent(channel=channel, episode=episode) as s:
            action(s)
    return run.close()


def latex_rash(s):
    s.get(Lists, 1101).reaction = "rash"


def add_penicillin(s):
    s.add(Lists(date=NOW, type="allergy", title="Penicillin", reaction="hives", pid=1001))


def evidence(report):
    return report.checks[0].evidence


def test_accepted_writes_are_seen_as_stored(tmp_path):
    spec = task(tmp_path)
    ev = evidence(grade(spec, run_with(tmp_path, spec, ("browser", None, latex_rash),
                                       ("desktop", None, add_penicillin))))
    assert ev["titles"] == ["Latex", "Penicillin"] and ev["latex_reaction"] == "rash"
    assert ev["created"] == ["Penicillin"]
    assert ev["provenance"] == ["browser"]


def test_api_writes_in_a_gui_task_are_seen_as_seeded_and_counted(tmp_path):
    spec = task(tmp_path)
    report = grade(spec, run_with(tmp_path, spec, ("api", None, latex_rash),
                                  ("api", None, add_penicillin)))
    ev = evidence(report)
    assert ev["titles"] == ["Latex"] and ev["latex_reaction"] == "hives"
    assert ev["created"] == []
    assert ev["stored"] == ["Codeine", "Latex", "Penicillin"]  # all_rows ignores the rule
    assert ev["seeded"] == ["Codeine", "Latex"]
    [exclusion] = report.channel["exclusions"]
    assert (exclusion["table"], exclusion["rows"], exclusion["entries"]) == ("lists", 2, 2)
    assert exclusion["reason"] == ("written through api; ord-01 accepts browser, desktop, fax")
    assert {e["row"] for e in report.checks[0].excluded} == {"ehr.lists#1101", "ehr.lists#1103"}


def test_a_row_touched_by_any_forbidden_write_counts_as_seeded(tmp_path):
    spec = task(tmp_path)

    def comment(s):
        s.get(Lists, 1101).comments = "checked"

    ev = evidence(grade(spec, run_with(tmp_path, spec, ("browser", None, latex_rash),
                                       ("api", None, comment))))
    assert ev["latex_reaction"] == "hives"


def test_writes_of_another_episode_do_not_count(tmp_path):
    spec = task(tmp_path)
    report = grade(spec, run_with(tmp_path, spec, ("browser", "ep-earlier", add_penicillin)))
    assert evidence(report)["created"] == []
    assert "episode ep-earlier, not this run's ep-0001" in report.channel["exclusions"][0]["reason"]


def test_an_api_task_accepts_api_writes_only(tmp_path):
    spec = task(tmp_path, channel="api")
    report = grade(spec, run_with(tmp_path, spec, ("api", None, add_penicillin),
                                  ("browser", None, latex_rash)))
    ev = evidence(report)
    assert ev["created"] == ["Penicillin"] and ev["latex_reaction"] == "hives"
    assert report.channel["rule"]["accepted"] == ["api", "fax"]


def test_footprint_lists_every_change_with_flags(tmp_path):
    spec = task(tmp_path)

    def collateral(s):
        s.delete(s.get(Lists, 1102))                        # the look-alike's allergy
        s.get(PatientData, 1).phone_home = "217-555-0111"   # outside may_touch
        s.add(Lists(date=NOW, type="allergy", title="Penicillin", reaction="hives", pid=1001))

    report = grade(spec, run_with(tmp_path, spec, ("browser", None, latex_rash),
                                  ("browser", None, add_penicillin), ("api", None, collateral)))
    fp = report.footprint
    assert fp["counts"] == {"insert": 2, "update": 2, "delete": 1, "stray": 4}
    by_row = {c["row"]: c for c in fp["changes"]}
    assert set(by_row) == {"ehr.lists#1101", "ehr.lists#1102", "ehr.lists#1103",
                           "ehr.lists#1104", "ehr.patient_data#1"}
    assert "audit_log" not in {c["row"].split("#")[0].split(".")[1] for c in fp["changes"]}
    assert by_row["ehr.lists#1101"]["changed"] == {"reaction": {"before": "hives",
                                                                "after": "rash"}}
    assert by_row["ehr.lists#1101"]["writers"] == ["browser/ep-0001/nurse.kelly"]
    assert by_row["ehr.lists#1102"]["action"] == "delete"
    assert by_row["ehr.lists#1102"]["before"]["title"] == "Codeine"
    assert "other patient" in by_row["ehr.lists#1102"]["flags"]
    assert "outside may_touch" in by_row["ehr.patient_data#1"]["flags"]
    assert by_row["ehr.patient_data#1"]["counted"] is False
    assert "duplicate" in by_row["ehr.lists#1104"]["flags"]
    assert "duplicate" in by_row["ehr.lists#1103"]["flags"]
    assert "flags" not in by_row["ehr.lists#1101"]
    assert fp["other_patient"] == ["ehr.lists#1102"]


def test_footprint_is_empty_for_an_untouched_extract(tmp_path):
    spec = task(tmp_path)
    report = grade(spec, run_with(tmp_path, spec))
    assert report.footprint["changes"] == [] and report.channel["exclusions"] == []


def test_a_task_patient_missing_from_the_seed_flags_every_patient_write(tmp_path):
    spec = make_task(tmp_path / "tasks", SEEN, credit=[("rows seen", 100)], alias="ord-02",
                     id="R09.03.01.02-T02", may_touch={"ehr": ["lists"]})
    report = grade(spec, run_with(tmp_path, spec, ("browser", None, add_penicillin)))
    assert report.footprint["other_patient"] == ["ehr.lists#1103"]
    assert any("MRN 402108 not found" in n for n in report.footprint["notes"])


def test_verify_py_can_name_the_patient(tmp_path):
    spec = make_task(tmp_path / "tasks", SEEN + "\nPATIENTS = {'ehr': ['402051']}\n",
                     credit=[("rows seen", 100)], may_touch={"ehr": ["lists"]})
    report = grade(spec, run_with(tmp_path, spec, ("browser", None, add_penicillin)))
    assert report.footprint["other_patient"] == ["ehr.lists#1103"]
    assert "402051" in report.footprint["changes"][0]["flags"]["other patient"]


@pytest.mark.parametrize("pulse", ["76", 76])
def test_numeric_text_in_a_float_column_is_not_mistaken_for_tampering(tmp_path, pulse):
    spec = task(tmp_path, may_touch={"ehr": ["form_vitals"]})

    def vitals(s):
        s.add(FormVitals(date=NOW, pid=1001, pulse=pulse))

    report = grade(spec, run_with(tmp_path, spec, ("browser", None, vitals)))
    assert report.footprint["counts"]["insert"] == 1


def test_an_untouched_store_is_recognised_by_its_pages(tmp_path):
    from verifier.storepair import same_pages

    spec = task(tmp_path)
    path = run_with(tmp_path, spec)
    store, seed = path / "stores" / "ehr.sqlite", path / "seed" / "ehr.sqlite"
    assert same_pages(store, seed)
    wal = store.with_name("ehr.sqlite-wal")
    wal.write_bytes(b"pending")  # a WAL with content may hold writes: never skip the diff
    assert not same_pages(store, seed)
    wal.unlink()
    written = run_with(tmp_path / "b", spec, ("browser", None, latex_rash))
    assert not same_pages(written / "stores" / "ehr.sqlite", written / "seed" / "ehr.sqlite")


def test_a_write_reverted_in_the_same_run_leaves_no_footprint(tmp_path):
    spec = task(tmp_path)

    def revert(s):
        s.get(Lists, 1101).reaction = "hives"

    report = grade(spec, run_with(tmp_path, spec, ("browser", None, latex_rash),
                                  ("api", None, revert)))
    assert report.footprint["changes"] == []
    assert report.channel["exclusions"][0]["reason"].startswith("written through api")


def test_document_views_are_reads_not_stray_writes(tmp_path):
    from sandbox.stores.ehr import Log

    spec = task(tmp_path)

    def view_document(s):
        s.add(Log(date=NOW, event="document-view", user="nurse.kelly", patient_id=1001,
                  comments="viewed document 7"))

    report = grade(spec, run_with(tmp_path, spec, ("browser", None, view_document)))
    [change] = report.footprint["changes"]
    assert change["row"].startswith("ehr.log#") and "flags" not in change


def test_reads_repeated_are_not_duplicates_and_are_not_writes(tmp_path):
    from sandbox.stores.ehr import Log

    spec = task(tmp_path)

    def view_twice(s):
        for _ in range(2):
            s.add(Log(date=NOW, event="document-view", user="nurse.kelly", patient_id=1001,
                      comments="viewed document 7"))

    report = grade(spec, run_with(tmp_path, spec, ("browser", None, view_twice),
                                  ("browser", None, add_penicillin)))
    assert report.footprint["duplicates"] == [] and report.footprint["counts"]["stray"] == 0
    assert len(report.footprint["reads"]) == 2
    assert all(c.get("read") for c in report.footprint["changes"]
               if c["row"].startswith("ehr.log#"))


@pytest.mark.parametrize(("system", "table", "action", "read"), [
    ("ehr", "log", "insert", True), ("acme", "rule_lookups", "insert", True),
    ("acme", "claim_inquiries", "insert", True), ("acme", "claim_inquiries", "update", False),
    ("acme", "rule_lookups", "delete", False), ("acme", "pa_cases", "insert", False),
    ("ehr", "rule_lookups", "insert", False)])
def test_only_new_rows_of_the_read_record_tables_are_reads(system, table, action, read):
    from verifier.footprint import is_read_record

    assert is_read_record(system, table, action) is read


def test_orders_for_different_times_are_not_duplicates_but_double_submits_are(tmp_path):
    spec = task(tmp_path)
    later = NOW + dt.timedelta(minutes=2)

    def two_allergies(s):
        s.add(Lists(date=NOW, type="allergy", title="Penicillin", reaction="hives", pid=1001,
                    begdate=dt.date(2026, 9, 30)))
        s.add(Lists(date=later, type="allergy", title="Penicillin", reaction="hives", pid=1001,
                    begdate=dt.date(2026, 9, 30)))   # the same entry saved twice
        s.add(Lists(date=NOW, type="allergy", title="Penicillin", reaction="hives", pid=1001,
                    begdate=dt.date(2026, 10, 1)))   # a different onset: not a copy

    report = grade(spec, run_with(tmp_path, spec, ("browser", None, two_allergies)))
    flagged = sorted(c["row"] for c in report.footprint["changes"]
                     if "duplicate" in c.get("flags", {}))
    assert flagged == ["ehr.lists#1103", "ehr.lists#1104"]


def test_rows_of_a_natural_key_table_are_not_copies_of_each_other():
    from sandbox.stores.ehr import Base
    from verifier.footprint import _signature_columns

    assert "field_id" in _signature_columns(Base.metadata.tables["lbf_data"])
    assert "id" not in _signature_columns(Base.metadata.tables["lists"])
