"""The demo task grades like any task, and the catalog keeps the 40 tasks' rules for ids."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from sandbox.catalog import Catalog, CatalogError, load_task


def _grade(spec, run_dir: Path, variant: str = "default"):
    import verifier

    return verifier.grade(spec, run_dir, variant)


def test_untouched_demo_scores_zero_and_the_gold_csv_scores_one(demo_catalog, demo_run):
    spec = demo_catalog.get("demo-01")
    assert _grade(spec, demo_run).score == 0
    (demo_run / "output" / "referral_summary.csv").write_text(
        'mrn,patient,cpt,icd10\n480117,"Nakamura, Ellen",72148,M54.16\n')
    assert _grade(spec, demo_run).score == 1
    (demo_run / "output" / "referral_summary.csv").write_text(
        'mrn,patient,cpt,icd10\n480117,"Nakamura, Ellen",72148,M54.17\n')
    assert _grade(spec, demo_run).score == pytest.approx(0.8)


def test_twin_variant_has_other_facts(demo_catalog, tmp_path: Path):
    from sandbox.seeding import seed_task

    spec = demo_catalog.get("demo-01")
    run = seed_task(spec, "twin", tmp_path / "twin")
    assert "MRN 480233" in (run / "input" / "referral.txt").read_text()
    (run / "output" / "referral_summary.csv").write_text(
        'mrn,patient,cpt,icd10\n480117,"Nakamura, Ellen",72148,M54.16\n')
    assert _grade(spec, run, "twin").score == pytest.approx(0.2)


def _write_task(folder: Path, **changes) -> Path:
    source = Path(__file__).parents[2] / "fixtures" / "demo" / "DEMO-T01" / "task.yaml"
    data = yaml.safe_load(source.read_text())
    data.update(changes)
    task_dir = folder / data["id"]
    task_dir.mkdir(parents=True)
    (task_dir / "task.yaml").write_text(yaml.safe_dump(data))
    return task_dir / "task.yaml"


@pytest.mark.parametrize("changes, message", [
    ({"alias": "pa-01"}, "does not match id"),
    ({"family": "orders"}, "family must be 'demo'"),
    ({"id": "DEMO-01"}, "must be a seed id"),
    ({"id": "R09.03.01.04-T77", "alias": "demo-77"}, "does not match id"),
    ({"id": "R09.03.01.04-T77", "alias": "pa-77", "family": "demo"}, "family must be"),
])
def test_demo_ids_do_not_loosen_the_rules(tmp_path: Path, changes, message):
    path = _write_task(tmp_path, **changes)
    with pytest.raises(CatalogError, match=message):
        load_task(path)


def test_demo_catalog_selects_by_alias(demo_catalog: Catalog):
    assert [s.alias for s in demo_catalog.select("all")] == ["demo-01"]
    with pytest.raises(CatalogError, match="did you mean demo-01"):
        demo_catalog.get("demo-1")
