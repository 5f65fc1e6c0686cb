"""A bench with several episodes at a time starts the longest jobs first (by their gold
trace's length), so a long one does not run on alone at the end."""

import asyncio

from episodes import bench_jobs as bench_module
from episodes.agents import AgentSpec
from episodes.jobs import Job, bench_jobs, gold_seconds, longest_first
from sandbox.catalog import load_catalog

CATALOG = load_catalog()


def test_jobs_are_ordered_by_their_gold_trace_longest_first(tmp_path):
    jobs = bench_jobs([CATALOG.get(a) for a in ("ord-15", "pa-07", "ord-18", "pa-14")])
    assert gold_seconds(jobs[3]) > gold_seconds(jobs[1]) > gold_seconds(jobs[0]) > 0
    assert gold_seconds(Job(CATALOG.get("ord-01"), "no-such-variant")) == 0.0
    assert [j.spec.alias for j in longest_first(jobs)] == ["pa-14", "pa-07", "ord-15",
                                                           "ord-18"]


def _started(monkeypatch, tmp_path, parallel):
    order = []

    async def fake_run_job(job, agent, out, tasks_dirs, config, children, pool=None):
        return {"task": job.spec.id, "alias": job.spec.alias, "variant": job.variant,
                "agent": str(agent), "status": "graded", "score": 1.0}

    monkeypatch.setattr(bench_module, "_run_job", fake_run_job)
    jobs = bench_jobs([CATALOG.get(a) for a in ("ord-15", "pa-14", "pa-07")])
    asyncio.run(bench_module.bench(
        jobs, AgentSpec("none"), tmp_path / f"out{parallel}", parallel=parallel,
        warm_pool=False,
        on_event=lambda kind, job, row: order.append(job.spec.alias) if kind == "start"
        else None))
    return order


def test_a_parallel_bench_starts_the_longest_first_and_one_at_a_time_keeps_the_order(
        monkeypatch, tmp_path):
    assert _started(monkeypatch, tmp_path, 2) == ["pa-14", "pa-07", "ord-15"]
    assert _started(monkeypatch, tmp_path, 1) == ["ord-15", "pa-14", "pa-07"]
