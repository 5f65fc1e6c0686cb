"""The benchmark module runs and reports what it claims (no timing thresholds here)."""

from __future__ import annotations

import pytest

from desktop_ehr import bench


def test_cold_start_reports_time_and_memory(pc_run):
    result = bench.cold_start("powerchart", pc_run)
    assert set(result) == {"cold_start_s", "rss_mb", "peak_rss_mb"}
    assert result["cold_start_s"] > 0 and result["rss_mb"] > 0
    assert result["peak_rss_mb"] >= result["rss_mb"]


def test_table_has_a_row_per_persona():
    text = bench.table({"hyperspace": {"cold_start_s": 0.7, "sign_7_orders_ms": 10.0,
                                       "rss_mb": 130, "peak_rss_mb": 131}})
    header, row = text.splitlines()
    assert "cold start (s)" in header and row.split()[:3] == ["hyperspace", "0.70", "10.0"]


def test_repeat_must_be_positive():
    with pytest.raises(SystemExit):
        bench.main(["--repeat", "0"])
