"""Where a start or a reset spends its time (``episodes.phases``) and how the benchmark
reports it: phase spans, their medians over runs, the tables, the gold run's concurrency."""

from __future__ import annotations

import asyncio

import pytest

from episodes import benchmarks
from episodes.phases import Phases, format_phases, summarize


def test_spans_are_kept_from_the_beginning_in_the_order_they_began():
    phases = Phases(t0=100.0)
    phases.add("browser", 100.5, 101.25)
    phases.add("display", 100.0, 100.2)

    async def timed():
        with phases.span("awaited"):
            await asyncio.sleep(0)

    asyncio.run(timed())
    with pytest.raises(RuntimeError), phases.span("raised"):
        raise RuntimeError("kept all the same")
    spans = phases.as_dict()
    assert list(spans)[:2] == ["display", "browser"]
    assert spans["browser"] == {"start": 0.5, "end": 1.25, "s": 0.75}
    assert {"awaited", "raised"} <= set(spans)


def test_the_medians_of_each_phase_over_runs_ordered_by_start():
    runs = [{"portal": {"start": 0.2, "end": 1.0, "s": 0.8},
             "seed": {"start": 0.0, "end": 0.2, "s": 0.2}},
            {"portal": {"start": 0.3, "end": 1.4, "s": 1.1},
             "seed": {"start": 0.0, "end": 0.3, "s": 0.3}},
            {"portal": {"start": 0.1, "end": 0.9, "s": 0.8},
             "seed": {"start": 0.0, "end": 0.1, "s": 0.1},
             "app": {"start": 0.1, "end": 2.0, "s": 1.9}}]
    rows = summarize(runs)
    assert [r["phase"] for r in rows] == ["seed", "app", "portal"]
    portal = rows[2]
    assert (portal["n"], portal["start_p50"], portal["end_p50"], portal["s_p50"]) == (
        3, 0.2, 1.0, 0.8)
    assert rows[1]["n"] == 1
    table = format_phases("cold start", rows)
    assert table.splitlines()[0] == "cold start"
    assert "portal" in table and "1.000" in table
    assert "no phases" in format_phases("reset", [])


def test_the_benchmark_prints_the_phases_and_the_gold_runs_concurrency():
    cold = [{"phase": "tab browser: Chromium launch", "n": 2, "start_p50": 0.4,
             "end_p50": 1.1, "s_p50": 0.7}]
    results = {"episodes": {
        "browser": {"task": "ord-01", "cold_start_s": {"n": 2, "p50": 1.2},
                    "first_settled_s": {"n": 2, "p50": 1.4}, "reset_s": {"n": 2, "p50": 0.1},
                    "reset_settled_s": {"n": 2, "p50": 0.3},
                    "cold_start_phases": cold, "reset_phases": []},
        "concurrency": {"max_concurrent_p95_under_100ms": 3, "levels": [],
                        "limit_tried": 8, "task": "ord-01"},
        "gold_all": {"wall_s": 420.0, "parallel": 3, "mean_score": 1.0}}}
    rows = {name: (value, target) for name, value, target in benchmarks.summary_rows(results)}
    assert rows["first settled screenshot p50, browser s"][0] == 1.4
    assert rows["bench --agent gold --tasks all --parallel 3, wall s"] == (
        420.0, "< 600; mean score 1.0")
    assert rows["cold start p50, browser (ord-01) s"][1] == "<= 1.5"
    assert rows["reset p50, browser (ord-01) s"][1] == "<= 0.2"
    # the reset's own work and, beside it, until the agent's next observation
    assert rows["  reset to its settled first observation p50, browser s"][0] == 0.3
    tables = benchmarks.format_phase_tables(results)
    assert "cold start, browser (ord-01)" in tables
    assert "tab browser: Chromium launch" in tables


def test_the_gold_run_uses_the_concurrency_the_machine_held_unless_told():
    held = {"max_concurrent_p95_under_100ms": 3}
    assert benchmarks.gold_parallel(None, held)[0] == 3
    assert benchmarks.gold_parallel(None, {"max_concurrent_p95_under_100ms": 0})[0] == 1
    assert benchmarks.gold_parallel(4, held) == (4, "--parallel")
    assert benchmarks.gold_parallel(None, None)[0] == 2


def test_only_lifecycle_measures_starts_and_resets_without_the_concurrency(monkeypatch,
                                                                          tmp_path):
    spec = type("Spec", (), {"alias": "ord-01"})()
    calls = []

    async def part(name, result):
        calls.append(name)
        return result

    monkeypatch.setattr(benchmarks, "pick_task", lambda candidates: spec)
    monkeypatch.setattr(benchmarks, "_cold_starts",
                        lambda *a: part("starts", {"cold_start_p50_s": 1.0}))
    monkeypatch.setattr(benchmarks, "_resets_and_grading",
                        lambda *a: part("resets", {"reset_p50_s": 0.1}))
    monkeypatch.setattr(benchmarks.bench_starts, "warm_pool_starts",
                        lambda *a: part("warm pool", {}))
    monkeypatch.setattr(benchmarks.bench_capacity, "concurrency",
                        lambda *a, **k: part("concurrency", {}))
    monkeypatch.setattr(benchmarks, "_say", lambda text: None)
    out = tmp_path / "results.json"
    benchmarks.main(["--quick", "--only", "lifecycle", "--out", str(out)])
    # browser and desktop: cold starts, starts from a warm pool, resets; nothing else
    assert calls == ["starts", "warm pool", "resets"] * 2
    calls.clear()
    benchmarks.main(["--quick", "--only", "episodes", "--out", str(out)])
    assert calls.count("concurrency") == 1


def test_the_benchmark_reports_a_starts_cpu_and_the_warm_pool_apart():
    from episodes import bench_starts

    cpu = bench_starts.summarize_cpu([{"portal_web": 1.2, "Xvfb": 0.1, "openbox": 0.001},
                                      {"portal_web": 1.0, "Xvfb": 0.1}])
    assert cpu == {"p50": 1.2, "n": 2, "by_kind_p50": {"portal_web": 1.1, "Xvfb": 0.1}}
    pool = [{"phase": "portal_web (start to first answer)", "n": 2, "start_p50": 0.1,
             "end_p50": 0.3, "s_p50": 0.2}]
    results = {"episodes": {"desktop": {
        "task": "ord-06", "cold_start_s": {"n": 2, "p50": 3.0}, "cold_start_cpu_s": cpu,
        "warm_pool": {"prepared": bench_starts.WARM_POOL, "fork_server_start_s": 0.9,
                      "cold_start_s": {"n": 2, "p50": 2.0},
                      "cold_start_cpu_s": {"n": 2, "p50": 0.8, "by_kind_p50": {}},
                      "cold_start_phases": pool}}}}
    rows = {name: (value, target) for name, value, target in benchmarks.summary_rows(results)}
    assert rows["cold start p50, desktop (ord-06) s"] == (3.0, "<= 1.5")
    assert rows["  CPU-seconds of a cold start p50, desktop"] == (
        1.2, "portal_web 1.1, Xvfb 0.1")
    assert rows["start p50 from a warm pool (not cold), desktop s"] == (
        2.0, "fork server started before (took 0.9 s)")
    assert rows["  CPU-seconds of a start from the warm pool p50, desktop"][0] == 0.8
    assert "start from a warm pool, desktop (ord-06)" in benchmarks.format_phase_tables(results)


def test_a_start_that_times_out_says_which_phases_it_was_still_waiting_for():
    import asyncio

    from episodes.episode import _describe_error

    phases = Phases()

    async def start():
        with phases.span("portal_web (start to first answer)"):
            pass
        with phases.span("tab browser"), phases.span("tabs loaded"):
            await asyncio.sleep(5)

    async def main():
        await asyncio.wait_for(start(), 0.05)

    try:
        asyncio.run(main())
    except TimeoutError as exc:
        message = _describe_error(exc, phases.cut)
    assert phases.cut == ["tabs loaded", "tab browser"]
    assert message == ("timed out while starting the episode's processes (still waiting "
                       "for: tabs loaded; tab browser)")
    assert "portal_web" in "".join(phases.spans)  # finished phases are kept, not listed
