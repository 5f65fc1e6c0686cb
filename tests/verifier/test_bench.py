"""The bench helper grades untouched extracts and reports per-task numbers (no thresholds)."""

from __future__ import annotations

import pytest

from tests.verifier import test_ord01_vitals, test_ord04_allergies
from verifier.bench import TARGET_S, grade_all_untouched


def test_grade_all_untouched_reports_each_extract(tmp_path):
    ord01 = test_ord01_vitals.seeded(tmp_path / "a").close()
    ord04 = test_ord04_allergies.seeded(tmp_path / "b").close()
    result = grade_all_untouched([ord01, ord04])
    assert result["extracts"] == 2 and result["target_s"] == TARGET_S
    assert [(t["alias"], t["score"]) for t in result["tasks"]] == [
        ("ord-01", pytest.approx(0.15)), ("ord-04", pytest.approx(0.10))]
    assert result["total_s"] == pytest.approx(sum(t["seconds"] for t in result["tasks"]),
                                              abs=1e-3)


def test_an_extract_that_cannot_be_graded_is_reported_not_raised(tmp_path):
    result = grade_all_untouched([tmp_path / "missing"])
    assert "run.json: missing" in result["tasks"][0]["error"]
    assert result["within_target"] is False
