"""A bench of several jobs forks its episodes' interpreters from a warm pool it starts and
stops; a short bench, ``warm_pool=False`` or a pool already in use start none, and a pool
that does not start leaves the bench to cold starts."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from pathlib import Path

import pytest

from episodes import bench_jobs as bench_module
from episodes import forkserver
from episodes.agents import AgentSpec
from episodes.jobs import bench_jobs
from episodes.runner import RunnerError
from sandbox.catalog import load_catalog

CATALOG = load_catalog()
THREE = ("ord-01", "ord-02", "ord-03")


def _bench(monkeypatch, out: Path, aliases=THREE, **options) -> list[dict]:
    """Run a bench whose jobs only record what they were given (their environment, and
    whether the socket it names answers while they run)."""
    seen: list[dict] = []

    async def fake_run_job(job, agent, out, tasks_dirs, config, children, pool=None):
        socket = pool.path if pool is not None else None
        seen.append({"socket": socket, "exists": bool(socket) and os.path.exists(socket)})
        return {"task": job.spec.id, "alias": job.spec.alias, "variant": job.variant,
                "agent": str(agent), "status": "graded", "score": 1.0}

    monkeypatch.setattr(bench_module, "_run_job", fake_run_job)
    monkeypatch.setattr(bench_module, "warm_pool_modules", lambda: [])  # a quick server
    monkeypatch.setattr(bench_module, "JOB_WARM_IMPORTS", [])
    jobs = bench_jobs([CATALOG.get(a) for a in aliases])
    asyncio.run(bench_module.bench(jobs, AgentSpec("none"), out, parallel=2, **options))
    return seen


def _meta(out: Path) -> dict:
    return json.loads((out / "bench.json").read_text())


@pytest.fixture
def no_pool_in_use(monkeypatch):
    monkeypatch.delenv(forkserver.ENV_SOCKET, raising=False)
    monkeypatch.setattr(forkserver, "_current", None)


def test_a_bench_of_three_jobs_forks_from_a_pool_it_starts_and_stops(
        tmp_path, monkeypatch, no_pool_in_use):
    seen = _bench(monkeypatch, tmp_path / "out")
    sockets = {s["socket"] for s in seen}
    assert len(seen) == 3 and len(sockets) == 1 and None not in sockets, seen
    assert all(s["exists"] for s in seen), seen  # it served while they ran
    assert not os.path.exists(sockets.pop())  # stopped with the bench
    assert _meta(tmp_path / "out")["warm_pool"] is True


def test_a_short_bench_or_warm_pool_false_starts_cold_and_true_always_forks(
        tmp_path, monkeypatch, no_pool_in_use):
    seen = _bench(monkeypatch, tmp_path / "two", aliases=THREE[:2])
    assert [s["socket"] for s in seen] == [None, None]
    assert "warm_pool" not in _meta(tmp_path / "two")
    seen = _bench(monkeypatch, tmp_path / "off", warm_pool=False)
    assert [s["socket"] for s in seen] == [None, None, None]
    seen = _bench(monkeypatch, tmp_path / "one", aliases=THREE[:1], warm_pool=True)
    assert seen[0]["socket"] and seen[0]["exists"], seen
    assert _meta(tmp_path / "one")["warm_pool"] is True


def test_a_warm_pool_is_refused_with_ray(tmp_path):
    with pytest.raises(RunnerError, match="local backend"):
        asyncio.run(bench_module.bench(bench_jobs([CATALOG.get("ord-01")]),
                                       AgentSpec("none"), tmp_path / "out", backend="ray",
                                       warm_pool=True))
    assert not (tmp_path / "out").exists()


def test_a_pool_in_use_is_inherited_not_started_again(tmp_path, monkeypatch,
                                                      no_pool_in_use):
    socket = tmp_path / "theirs.sock"
    socket.touch()
    monkeypatch.setenv(forkserver.ENV_SOCKET, str(socket))
    started = []
    monkeypatch.setattr(forkserver.ForkServer, "start",
                        classmethod(lambda cls, warm, timeout=60.0: started.append(warm)))
    seen = _bench(monkeypatch, tmp_path / "out")
    # not started again, and the jobs start as new interpreters that inherit its socket
    assert started == [] and [s["socket"] for s in seen] == [None] * 3
    assert _meta(tmp_path / "out")["warm_pool"] is True


def test_a_pool_that_does_not_start_leaves_cold_starts_and_says_so(
        tmp_path, monkeypatch, no_pool_in_use, caplog):
    def fails(cls, warm, timeout=60.0):
        raise forkserver.ForkServerError("no room")

    monkeypatch.setattr(forkserver.ForkServer, "start", classmethod(fails))
    with caplog.at_level(logging.WARNING, logger=bench_module.__name__):
        seen = _bench(monkeypatch, tmp_path / "out")
    assert [s["socket"] for s in seen] == [None] * 3
    assert _meta(tmp_path / "out")["warm_pool"] is False
    assert "the warm pool did not start (no room)" in caplog.text


JOB = """import json, os, sys
print("a job's log line", file=sys.stderr)
print(json.dumps({"task": "T", "status": "graded", "score": 1.0, "parent": os.getppid(),
                  "argv": sys.argv[1:]}))
"""


@pytest.fixture
def fake_job(tmp_path, monkeypatch):
    """A job whose child is a tiny module printing its row (and its parent's pid)."""
    (tmp_path / "mod").mkdir()
    (tmp_path / "mod" / "fake_bench_job.py").write_text(JOB)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "mod"))
    monkeypatch.setattr(bench_module, "job_argv", lambda *a: [
        "setpriv", "--pdeathsig", "TERM", "--", sys.executable, "-m", "fake_bench_job", "x"])
    return bench_jobs([CATALOG.get("ord-01")])[0]


def test_a_job_is_forked_from_the_pool_and_started_anew_when_the_pool_is_gone(
        tmp_path, fake_job):
    pool = forkserver.ForkServer.start([])
    try:
        row = asyncio.run(bench_module._run_job(fake_job, AgentSpec("none"), tmp_path / "out",
                                                [], None, set(), pool))
        assert row["parent"] == pool.process.pid and row["argv"] == ["x"], row
        assert "a job's log line" in (tmp_path / "out" / "runs" /
                                      f"{fake_job.key}.log").read_text()
    finally:
        pool.stop()
    row = asyncio.run(bench_module._run_job(fake_job, AgentSpec("none"), tmp_path / "out",
                                            [], None, set(), pool))
    assert row["status"] == "graded" and row["parent"] == os.getpid(), row  # a cold start
