"""The task conformance suite, over every task folder of the catalog (no hand-kept lists).

For each task: the spec loads, its checks match its credit items, its oracle obeys the
oracle's rules and (for a screen task) has a recorded trace; for each variant: seeding is
deterministic, and the untouched run grades exactly as ``task.yaml`` declares
(``untouched: {variant: score}``), fully graded, with no footprint, and below one half for
the default fixture; every task with a gold declares what its checks grade (``GRADED`` /
``UNGRADED`` in verify.py, which the sensitivity suite exercises on the gold's extract in
``test_gold_episodes.py``, the slow half: gold in a real episode).
"""

from __future__ import annotations

import json

import pytest

from episodes.oracle import check_gold_source, gold_trace_path
from sandbox.catalog import load_catalog
from sandbox.fingerprint import fingerprint
from sandbox.seeding import seed_task
from sandbox.stores import open_store
from verifier import grade
from verifier.taskmodule import load_checks

CATALOG = load_catalog()
SPECS = list(CATALOG)
CASES = [(spec, variant) for spec in SPECS for variant in spec.variant_names]


def _id(value: object) -> str:
    return getattr(value, "alias", str(value))


def test_the_catalog_holds_the_forty_tasks_of_the_seeds():
    aliases = [spec.alias for spec in SPECS]
    assert len(set(aliases)) == len(aliases)
    assert sorted(a for a in aliases if a.startswith("pa-")) == [f"pa-{n:02d}" for n in
                                                                range(1, 21)]
    assert sorted(a for a in aliases if a.startswith("ord-")) == [f"ord-{n:02d}" for n in
                                                                  range(1, 21)]


@pytest.mark.parametrize("spec", SPECS, ids=_id)
def test_checks_match_the_credit_items(spec):
    checks = load_checks(spec)
    assert [c.name for c in checks.checks] == [item.name for item in spec.credit]


@pytest.mark.parametrize("spec", SPECS, ids=_id)
def test_every_variant_declares_its_untouched_score(spec):
    assert sorted(spec.untouched) == sorted(spec.variant_names), (
        f"{spec.folder / 'task.yaml'}: declare 'untouched:' for {spec.variant_names}")
    assert spec.untouched["default"] < 0.5


@pytest.mark.parametrize("spec", [s for s in SPECS if (s.folder / "gold.py").is_file()],
                         ids=_id)
def test_the_oracle_acts_only_through_the_agent_api_and_left_a_trace(spec):
    gold = spec.folder / "gold.py"
    assert check_gold_source(gold.read_text(), str(gold)) == []
    trace = gold_trace_path(spec.folder)
    if spec.channel == "api":  # the API control pairs act over HTTP: nothing on the screen
        assert not trace.exists()
        return
    assert trace.is_file(), f"record it: ehr-sandbox run {spec.alias} --agent gold " \
                            "--save-gold-trace"
    header, *events = [json.loads(line) for line in trace.read_text().splitlines()]
    assert (header["width"], header["height"]) == (1280, 800)
    assert events and {e["client"] for e in events} == {"oracle"}
    # screen checkpoints let a replay on a loaded machine wait for each recorded screen
    assert header.get("version", 1) >= 2 and any("screen" in e for e in events), \
        f"{trace.name} has no screen checkpoints: record it again (--save-gold-trace)"


@pytest.mark.parametrize("spec", [s for s in SPECS if (s.folder / "gold.py").is_file()],
                         ids=_id)
def test_every_task_with_a_gold_declares_what_its_checks_grade(spec):
    graded = load_checks(spec).graded
    assert graded, f"{spec.folder / 'verify.py'}: declare GRADED (and UNGRADED): every value " \
                   "its checks grade, with a wrong value and the credit it moves"


@pytest.mark.parametrize(("spec", "variant"), CASES, ids=_id)
def test_seeding_twice_gives_the_same_fingerprint(tmp_path, spec, variant):
    a = seed_task(spec, variant, tmp_path / "a")
    b = seed_task(spec, variant, tmp_path / "b")
    digest_a, parts_a = fingerprint(a)
    digest_b, parts_b = fingerprint(b)
    assert parts_a == parts_b
    assert digest_a == digest_b
    stores = sorted(p.name for p in (a / "stores").glob("*.sqlite"))
    assert stores == sorted(f"{s}.sqlite" for s in spec.systems if s != "workspace")
    run = json.loads((a / "run.json").read_text())
    assert run["task"] == spec.id and run["variant"] == variant
    for path in (a / "stores").glob("*.sqlite"):
        store = open_store(path.stem, path, readonly=True)
        try:
            assert store.verify_audit().ok, path
        finally:
            store.dispose()


@pytest.mark.parametrize(("spec", "variant"), CASES, ids=_id)
def test_the_untouched_run_grades_as_declared(tmp_path, spec, variant):
    run_dir = seed_task(spec, variant, tmp_path / spec.alias)
    report = grade(spec, run_dir, variant, judge="rubric")
    not_graded = {c.name: c.evidence.get("reason") for c in report.checks
                  if c.status != "graded"}
    assert not not_graded, f"{spec.alias}: untouched run not fully graded: {not_graded}"
    assert report.score == pytest.approx(spec.untouched[variant], abs=1e-6), \
        report.render_text()
    assert report.footprint["changes"] == []
