"""Acceptance: a freshly seeded, untouched run of every task with checks grades below 0.5.

Doing nothing earns only the credit the seed gives for *not* doing things (no stray writes,
nothing deleted). Tasks whose verify.py is not written yet are listed, not graded.
"""

from __future__ import annotations

import pytest

from sandbox.catalog import load_catalog
from sandbox.seeding import seed_task
from verifier import grade

TASKS = [spec for spec in load_catalog() if (spec.folder / "verify.py").is_file()]


@pytest.mark.parametrize("spec", TASKS, ids=lambda s: s.alias)
def test_untouched_run_scores_below_half(tmp_path, spec):
    run_dir = seed_task(spec, None, tmp_path / spec.alias)
    report = grade(spec, run_dir, judge="rubric")
    not_graded = {c.name: c.evidence.get("reason") for c in report.checks if c.status != "graded"}
    assert not not_graded, f"{spec.alias}: untouched run not fully graded: {not_graded}"
    assert report.score < 0.5, report.render_text()
    assert report.footprint["changes"] == []
