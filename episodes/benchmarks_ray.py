"""The Ray backend's dispatch overhead, for ``make bench`` (``--only ray``).

The same four cheap episodes (four copies of the demo task, ``--agent none``) run once with
``--backend local --parallel 2`` and once with ``--backend ray`` on a local one-node cluster
started for the run with two episode slots (so both hold two episodes at a time). An
episode's ``wall_s`` is, locally, its child process from start to row; on Ray, from
submitting the task to the row in ``results.jsonl`` (scheduling, a worker, the child, packing
and unpacking the run folder). The overhead is the difference of the means, per episode,
and their ratio; the cluster's start is in the total wall time only.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

import yaml

EPISODES = 4


def demo_pack(folder: Path, copies: int = EPISODES) -> list[Path]:
    """Copies of the demo task (demo-01, demo-02, …) as a task pack, so the jobs of a bench
    of cheap episodes are distinct."""
    from sandbox.paths import FIXTURES_DIR

    source = FIXTURES_DIR / "demo" / "DEMO-T01"
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(1, copies + 1):
        target = folder / f"DEMO-T{n:02d}"
        shutil.copytree(source, target, dirs_exist_ok=True)
        data = yaml.safe_load((target / "task.yaml").read_text())
        data.update(id=f"DEMO-T{n:02d}", alias=f"demo-{n:02d}")
        (target / "task.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return [folder]


async def _one(backend: str, jobs: list, tasks_dirs: list[Path], out: Path) -> dict[str, Any]:
    from episodes.agents import AgentSpec
    from episodes.bench_jobs import bench

    started = time.perf_counter()
    # both cold: a Ray task does not fork from a warm pool, so neither does the local side
    rows = await bench(jobs, AgentSpec("none"), out, parallel=2, tasks_dirs=tasks_dirs,
                       backend=backend, warm_pool=False)
    walls = [r["wall_s"] for r in rows if r.get("wall_s") is not None]
    return {"wall_s": round(time.perf_counter() - started, 2),
            "episode_wall_mean_s": round(statistics.mean(walls), 3) if walls else None,
            "statuses": sorted({str(r.get("status")) for r in rows}), "episodes": len(rows)}


def ray_overhead(workdir: Path) -> dict[str, Any]:
    """Both benches, one after the other; the per-episode overhead of Ray and its ratio."""
    from episodes.bench_jobs import bench_jobs
    from episodes.bench_ray import import_ray
    from episodes.runner import RunnerError
    from sandbox.catalog import load_catalog

    try:
        import_ray()
    except RunnerError as exc:
        return {"skipped": str(exc)}
    tasks_dirs = demo_pack(workdir / "ray-demo-pack")
    jobs = bench_jobs([s for s in load_catalog(tasks_dirs) if s.family == "demo"])
    os.environ["EHR_EPISODE_SLOTS"] = "2"  # the local one-node cluster's slots
    try:
        local = asyncio.run(_one("local", jobs, tasks_dirs, workdir / "ray-local"))
        ray = asyncio.run(_one("ray", jobs, tasks_dirs, workdir / "ray-ray"))
    finally:
        os.environ.pop("EHR_EPISODE_SLOTS", None)
    result: dict[str, Any] = {"episodes": len(jobs), "concurrency": 2, "local": local,
                              "ray": ray}
    if local["episode_wall_mean_s"] and ray["episode_wall_mean_s"]:
        result["overhead_per_episode_s"] = round(
            ray["episode_wall_mean_s"] - local["episode_wall_mean_s"], 3)
        result["ratio"] = round(ray["episode_wall_mean_s"] / local["episode_wall_mean_s"], 3)
        result["total_ratio"] = round(ray["wall_s"] / local["wall_s"], 3)
    return result


def summary_rows(entry: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    if not entry:
        return []
    if "skipped" in entry:
        return [("ray dispatch overhead", entry["skipped"], "")]
    n = entry["episodes"]
    return [
        (f"{n} episodes, local --parallel 2: mean episode wall s",
         entry["local"]["episode_wall_mean_s"], f"total {entry['local']['wall_s']} s"),
        (f"{n} episodes, ray 1 node x 2 slots: mean episode wall s",
         entry["ray"]["episode_wall_mean_s"], f"total {entry['ray']['wall_s']} s"),
        ("ray dispatch overhead per episode, s", entry.get("overhead_per_episode_s"),
         f"ratio {entry.get('ratio')} (total {entry.get('total_ratio')})"),
    ]
