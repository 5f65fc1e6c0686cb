"""run/bench plumbing without displays: agents, results files, report.html, resume."""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path

import pytest

from episodes import bench_jobs as bench_module
from episodes.agents import AgentSpec, AgentSpecError
from episodes.bench_jobs import Job, bench, bench_jobs
from episodes.result_files import load_results, write_tables
from episodes.runner import RunnerError


def test_agent_spec_parsing(tmp_path: Path):
    assert AgentSpec.parse("none").kind == "none"
    assert str(AgentSpec.parse("gold")) == "gold"
    trace = tmp_path / "trace.jsonl"
    header = {"kind": "header", "version": 2, "width": 1280, "height": 800}
    trace.write_text(json.dumps(header) + "\n")
    assert AgentSpec.parse(f"replay:{tmp_path}").path == trace
    for bad, message in [("claude", "unknown agent"), ("replay:", "needs a trace"),
                         (f"replay:{tmp_path}/nope.jsonl", "no trace at"),
                         ("gold:x", "takes no argument")]:
        with pytest.raises(AgentSpecError, match=message):
            AgentSpec.parse(bad)


def test_bench_jobs_cover_variants(demo_catalog):
    spec = demo_catalog.get("demo-01")
    assert [j.key for j in bench_jobs([spec])] == ["demo-01__default"]
    assert [j.key for j in bench_jobs([spec], "all")] == ["demo-01__default", "demo-01__twin"]


def _row(job: Job, score: float | None, status: str = "graded") -> dict:
    return {"task": job.spec.id, "alias": job.spec.alias, "variant": job.variant,
            "status": status, "score": score, "duration_s": 1.5, "reset_s": 0.2,
            "steps": 3, "run_dir": "/nowhere", "error": None,
            "checks": [{"name": "codes", "percent": 40, "status": "graded", "fraction": 1.0}]}


def test_bench_writes_results_and_resumes(tmp_path: Path, demo_catalog, monkeypatch):
    jobs = bench_jobs([demo_catalog.get("demo-01")], "all")
    ran: list[str] = []

    async def fake_job(job, agent, out, tasks_dirs, config, children, pool=None):
        ran.append(job.key)
        if job.variant == "twin" and ran.count(job.key) == 1:
            raise KeyboardInterrupt  # Ctrl-C while the second job runs
        return {**_row(job, 1.0 if job.variant == "default" else 0.5), "agent": str(agent)}

    monkeypatch.setattr(bench_module, "_run_job", fake_job)
    out = tmp_path / "bench"
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(bench(jobs, AgentSpec("gold"), out, parallel=1))
    rows = load_results(out)
    assert [r["variant"] for r in rows] == ["default"]
    with pytest.raises(RunnerError, match="--resume"):
        asyncio.run(bench(jobs, AgentSpec("gold"), out))
    rows = asyncio.run(bench(jobs, AgentSpec("gold"), out, resume=True))
    assert ran == ["demo-01__default", "demo-01__twin", "demo-01__twin"]
    assert sorted(r["variant"] for r in rows) == ["default", "twin"]
    for row in rows:
        assert {"task", "variant", "agent", "status", "score", "duration_s", "reset_s",
                "steps"} <= set(row)
    table = list(csv.DictReader((out / "results.csv").open()))
    assert {r["variant"]: r["score"] for r in table} == {"default": "1.0", "twin": "0.5"}
    meta = json.loads((out / "bench.json").read_text())
    assert meta["sessions"] == 2 and meta["wall_s"] >= 0


def test_report_html_is_self_contained(tmp_path: Path, demo_catalog):
    from PIL import Image

    job = bench_jobs([demo_catalog.get("demo-01")])[0]
    run_dir = tmp_path / "runs" / job.key
    run_dir.mkdir(parents=True)
    Image.new("RGB", (1280, 800), "#25405f").save(run_dir / "final.png")
    rows = [{**_row(job, 0.75), "agent": "gold", "run_dir": str(run_dir)},
            {**_row(job, None, "failed"), "variant": "twin", "agent": "gold",
             "error": "the demo app exited with status 3"}]
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    write_tables(tmp_path)
    html = (tmp_path / "report.html").read_text()
    assert "0.750" in html and "the demo app exited with status 3" in html
    assert "data:image/jpeg;base64," in html  # the final screenshot is inside the page
    assert "<link" not in html and "src=\"http" not in html and "<script src" not in html
    assert "2 episodes" in html and "mean score" in html


def test_benchmarks_record_an_episode_that_did_not_start_and_go_on(tmp_path, demo_catalog,
                                                                   monkeypatch):
    import episodes.episode as episode_module
    from episodes import benchmarks
    from episodes.episode import EpisodeError

    started: list[str] = []

    class Flaky:
        """Every third episode does not come up, as on a loaded machine."""

        def __init__(self, spec, run_dir, **kwargs):
            self.name = run_dir.name

        async def start(self):
            started.append(self.name)
            if len(started) % 3 == 0:
                raise EpisodeError(f"{self.name}: the episode did not start: timed out while "
                                   "starting the episode's processes")
            return self

        async def stop(self):
            pass

        def process_ids(self):  # the start's CPU is read from these
            return set()

    monkeypatch.setattr(episode_module, "Episode", Flaky)
    spec = demo_catalog.get("demo-01")
    cold = asyncio.run(benchmarks._cold_starts(spec, 4, tmp_path))
    assert cold["starts"] == "3/4" and cold["cold_start_s"]["n"] == 3
    assert [f["run"] for f in cold["failed_starts"]] == [2]
    assert cold["failed_starts"][0]["status"] == "failed"
    assert "timed out while starting" in cold["failed_starts"][0]["error"]

    started.clear()
    load = asyncio.run(benchmarks._starts_under_load(spec, 5, 2, tmp_path))
    assert load["others"] == 2 and load["starts"] == "3/5"  # starts 3 and 6 failed
    assert len(started) == 7
    rows = dict((name, value) for name, value, _target in benchmarks.summary_rows(
        {"starts_under_load": load, "episodes": {"browser": {"task": "demo-01", **cold}}}))
    assert rows["episode starts with 2 others running"] == "3/5"
    assert rows["cold starts that started, browser"] == "3/4"
