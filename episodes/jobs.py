"""A bench's jobs: what one is, the command line of its child process, how long it may take,
and the row of one that left none. Shared by the local backend (:mod:`episodes.bench_jobs`)
and the Ray backend (:mod:`episodes.bench_ray`)."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from episodes.agents import AgentSpec
from episodes.episode import EpisodeConfig
from sandbox.catalog import TaskSpec

JOB_TIMEOUT_S = 900.0
START_AND_GRADE_S = 300.0  # beyond a model's own time budget: start, retries, grading


def job_timeout(agent: AgentSpec) -> float | None:
    """How long a job may take: a model agent's time budget (its own limit) and then some;
    None (no limit) for a model run without one."""
    settings = agent.settings
    budget = settings.max_seconds if settings is not None else None
    if agent.is_model and settings is not None and budget is None:
        return None
    if agent.is_model and settings is None:
        from episodes.model_agents import ModelSettings

        budget = ModelSettings().max_seconds
    return max(JOB_TIMEOUT_S, (budget or 0.0) + START_AND_GRADE_S)


@dataclass(frozen=True)
class Job:
    spec: TaskSpec
    variant: str

    @property
    def key(self) -> str:
        return f"{self.spec.alias}__{self.variant}"


def gold_seconds(job: Job) -> float:
    """How long the job's recorded gold trace took (its last input's time), 0 without
    one: the bench's estimate of how long the job runs."""
    from episodes.oracle.guard import gold_trace_path

    if job.spec.folder is None:
        return 0.0
    path = gold_trace_path(job.spec.folder, job.variant)
    try:
        with open(path, "rb") as fh:
            fh.seek(max(0, path.stat().st_size - 65536))
            last = fh.read().splitlines()[-1]
        return float(json.loads(last).get("t", 0.0))
    except (OSError, IndexError, ValueError, AttributeError):
        return 0.0


def longest_first(jobs: list[Job]) -> list[Job]:
    """``jobs`` ordered by their gold trace's length, longest first (ties keep their
    order): with several at a time, a long job started last would run on alone at the
    end (pa-14's gold run is over six minutes, most others under one)."""
    return sorted(jobs, key=lambda job: -gold_seconds(job))


def bench_jobs(specs: list[TaskSpec], variants: str = "default") -> list[Job]:
    jobs = []
    for spec in specs:
        names = spec.variant_names if variants == "all" else ["default"]
        jobs += [Job(spec, v) for v in names]
    return jobs


def job_argv(job: Job, agent: AgentSpec, run_dir: Path, tasks_dirs: list[Path],
             config: EpisodeConfig | None) -> list[str]:
    """The command line of one job's child process (this bench's, or a Ray task's)."""
    argv = [sys.executable, "-m", "episodes.bench_jobs", "job", job.spec.id, "--variant",
            job.variant, "--agent", str(agent), "--run-dir", str(run_dir)]
    for d in tasks_dirs:
        argv += ["--tasks-dir", str(d)]
    if config is not None:
        argv += ["--config", config.model_dump_json()]
    if agent.settings is not None:
        argv += ["--model-settings", json.dumps(dataclasses.asdict(agent.settings))]
    setpriv = shutil.which("setpriv")
    if setpriv:  # a bench killed hard still takes its children with it
        argv = [setpriv, "--pdeathsig", "TERM", "--", *argv]
    return argv


def failed_row(job: Job, run_dir: Path, seconds: float, error: str) -> dict[str, Any]:
    """The row of a job that ended without one of its own."""
    return {"task": job.spec.id, "alias": job.spec.alias, "variant": job.variant,
            "status": "failed", "score": None, "duration_s": round(seconds, 3),
            "reset_s": None, "steps": 0, "run_dir": str(run_dir), "retries": 0,
            "error": error}


def job_row(job: Job, stdout: bytes | None, returncode: int | None, run_dir: Path,
            seconds: float, log_path: Path) -> dict[str, Any]:
    """The row a job's child printed last, or a failed row with its exit status and the end
    of its log."""
    last = stdout.decode("utf-8", "replace").strip().splitlines()[-1:] if stdout else []
    try:
        row = json.loads(last[0]) if last else None
    except json.JSONDecodeError:
        row = None
    if isinstance(row, dict):
        return row
    return failed_row(job, run_dir, seconds, f"the job exited with status {returncode}: "
                                             f"{log_tail(log_path)}")


def log_tail(path: Path, limit: int = 1500) -> str:
    """The end of a job's log without the browser's routine complaints (D-Bus, GPU)."""
    noise = ("[pid=", "ERROR:dbus", "viz_main_impl", "command_buffer_proxy")
    lines = [line for line in path.read_text(errors="replace").splitlines()
             if not any(n in line for n in noise)]
    return "\n".join(lines)[-limit:].strip()
