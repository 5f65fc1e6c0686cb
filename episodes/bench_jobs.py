"""A bench: many (task, variant) episodes with one agent, ``parallel`` at a time.

Each job runs in its own child process (``python -m episodes.bench_jobs job ...``),
appending one JSON line per finished job to ``results.jsonl`` and rewriting
``results.csv`` and the self-contained ``report.html`` (:mod:`episodes.result_files`).
Ctrl-C stops every child's process group (each child stops its episode: no Xvfb, Chromium
or app survives); ``--resume`` skips the jobs already in ``results.jsonl``.

A bench of ``WARM_POOL_MIN_JOBS`` jobs or more (or any, with ``warm_pool=True``) starts a
warm pool (:mod:`episodes.forkserver` with what a job's process and its episode's portal,
taskbar and desktop apps import) for its local jobs, unless one is in use already
(``EHR_SANDBOX_FORKSERVER``: the jobs then start anew and their episodes fork from it) or
``warm_pool=False`` (``--warm-pool off``): each job and its episode's interpreters are
forked from it instead of importing for a second of CPU each, which a machine running
several episodes at once is short of. Its jobs' starts are then warm starts (``bench.json``
says ``warm_pool``); the screens are the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import shutil
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from episodes import forkserver
from episodes.agents import AgentSpec
from episodes.episode import EpisodeConfig, warm_pool_modules
from episodes.jobs import Job, bench_jobs, job_argv, job_row, job_timeout, longest_first
from episodes.result_files import load_results, set_meta, write_tables
from episodes.runner import RunnerError, run_episode, run_until_signalled

log = logging.getLogger(__name__)

# The fork server costs about three CPU-seconds to start and saves about one and a half per
# episode: worth it from a few jobs on.
WARM_POOL_MIN_JOBS = 3
# What a job's own process imports (the runner, the episode, the agents, Playwright's
# client), so that a job forked from the bench's pool does not import it again
JOB_WARM_IMPORTS = ["episodes.bench_jobs", "episodes.runner", "episodes.oracle.driver",
                    "playwright.async_api"]


# -- the child process of a bench -------------------------------------------------------------
def job_main(argv: list[str] | None = None) -> int:
    """``python -m episodes.bench_jobs job``: one episode; prints its result row as JSON."""
    import argparse

    from sandbox.catalog import load_catalog

    parser = argparse.ArgumentParser(prog="python -m episodes.bench_jobs job")
    parser.add_argument("task")
    parser.add_argument("--variant")
    parser.add_argument("--agent", default="none")
    parser.add_argument("--run-dir", type=Path, required=True)
    parser.add_argument("--tasks-dir", action="append", default=[])
    parser.add_argument("--config", help="EpisodeConfig as JSON")
    parser.add_argument("--model-settings", help="a model agent's ModelSettings as JSON")
    args = parser.parse_args(argv)
    spec = load_catalog([Path(d) for d in args.tasks_dir]).get(args.task)
    config = EpisodeConfig.model_validate_json(args.config) if args.config else None
    agent = AgentSpec.parse(args.agent)
    if args.model_settings:
        from episodes.model_agents import ModelSettings

        agent = dataclasses.replace(
            agent, settings=ModelSettings(**json.loads(args.model_settings)))
    try:
        result = run_until_signalled(run_episode(spec, args.variant, agent, args.run_dir,
                                                 config))
    except (asyncio.CancelledError, KeyboardInterrupt):
        print("interrupted; the episode was stopped", file=sys.stderr)
        return 130
    print(json.dumps(result.row()), flush=True)
    return 0


# -- bench ------------------------------------------------------------------------------------
__all__ = ["Job", "bench", "bench_jobs", "job_main", "job_timeout"]


async def bench(jobs: list[Job], agent: AgentSpec, out: Path, *, parallel: int = 1,
                resume: bool = False, tasks_dirs: list[Path] | None = None,
                config: EpisodeConfig | None = None,
                on_event: Callable[[str, Job, dict[str, Any] | None], None] | None = None,
                backend: str = "local", address: str | None = None,
                artifacts: Path | None = None,
                warm_pool: bool | None = None) -> list[dict[str, Any]]:
    """Run every job, ``parallel`` at a time (child processes here, or Ray tasks across a
    cluster with ``backend="ray"``: :mod:`episodes.bench_ray`); returns every row of
    ``results.jsonl``. ``warm_pool``: the local jobs' episodes fork their interpreters from
    a fork server this bench starts (None: when there are ``WARM_POOL_MIN_JOBS`` jobs or
    more; see the module docstring)."""
    if parallel < 1:
        raise RunnerError("--parallel must be at least 1")
    if backend == "ray":
        if warm_pool:
            raise RunnerError("a warm pool goes with the local backend (a Ray task starts "
                              "its episode cold); drop --warm-pool on")
        from episodes.bench_ray import import_ray

        import_ray()  # says how to install it before anything is written
    elif address or artifacts:
        raise RunnerError("--address and --artifacts go with --backend ray")
    out.mkdir(parents=True, exist_ok=True)
    existing = load_results(out)
    if existing and not resume:
        raise RunnerError(f"{out} already holds results; add --resume to continue that "
                          "bench or choose a new --out folder")
    done = {(r.get("task"), r.get("variant"), r.get("agent")) for r in existing}
    todo = [j for j in jobs if (j.spec.id, j.variant, str(agent)) not in done]
    if parallel > 1 or backend == "ray":
        todo = longest_first(todo)  # the long ones do not run on alone at the end
    started = time.monotonic()
    semaphore = asyncio.Semaphore(parallel)
    children: set[asyncio.subprocess.Process] = set()
    lock = asyncio.Lock()

    def write_row(job: Job, row: dict[str, Any]) -> None:
        with open(out / "results.jsonl", "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")
        write_tables(out, tasks_dirs=tasks_dirs)
        if on_event:
            on_event("done", job, row)

    async def one(job: Job) -> None:
        async with semaphore:
            if on_event:
                on_event("start", job, None)
            row = await _run_job(job, agent, out, tasks_dirs or [], config, children, pool)
            async with lock:
                write_row(job, row)

    if backend == "ray":
        from episodes.bench_ray import bench_ray

        try:
            await bench_ray(todo, agent, out, tasks_dirs=tasks_dirs or [], config=config,
                            address=address, artifacts=artifacts,
                            parallel=parallel if parallel > 1 else None, write_row=write_row,
                            on_start=(lambda job: on_event("start", job, None))
                            if on_event else None)
        finally:
            write_tables(out, add_wall_s=time.monotonic() - started)
        return load_results(out)
    if warm_pool is None:
        warm_pool = len(todo) >= WARM_POOL_MIN_JOBS
    pool = await _start_warm_pool(out) if warm_pool and todo else None
    tasks = [asyncio.create_task(one(job)) for job in todo]
    try:
        await asyncio.gather(*tasks)
    except (asyncio.CancelledError, KeyboardInterrupt):
        for task in tasks:
            task.cancel()
        await _stop_children(children)
        raise
    finally:
        if pool is not None:  # after the jobs: it kills what it forked that still runs
            await asyncio.to_thread(pool.stop)
        write_tables(out, add_wall_s=time.monotonic() - started, tasks_dirs=tasks_dirs)
    return load_results(out)


async def _start_warm_pool(out: Path) -> forkserver.ForkServer | None:
    """A fork server for this bench's jobs, or None: one is in use already (its socket in
    ``EHR_SANDBOX_FORKSERVER``, which the jobs inherit), or it did not start (the jobs then
    start their interpreters themselves; the bench goes on). ``bench.json`` records which."""
    inherited = forkserver.current() is not None
    pool = None
    if not inherited:
        try:
            pool = await asyncio.to_thread(forkserver.ForkServer.start,
                                           [*warm_pool_modules(), *JOB_WARM_IMPORTS])
        except (OSError, RuntimeError, TimeoutError) as exc:  # ForkServerError, ProcessError
            log.warning("the warm pool did not start (%s); every episode starts cold", exc)
    set_meta(out, warm_pool=inherited or pool is not None)
    return pool


async def _run_job(job: Job, agent: AgentSpec, out: Path, tasks_dirs: list[Path],
                   config: EpisodeConfig | None, children: set,
                   pool: forkserver.ForkServer | None = None) -> dict[str, Any]:
    run_dir = out / "runs" / job.key
    if run_dir.exists():
        shutil.rmtree(run_dir)  # a job interrupted earlier starts over
    argv = job_argv(job, agent, run_dir, tasks_dirs, config)
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    log_path = out / "runs" / f"{job.key}.log"
    started = time.monotonic()
    with open(log_path, "wb") as log_file:
        proc: Any = None
        if pool is not None:
            try:
                proc = await _ForkedJob.spawn(pool, argv, job.key, log_path)
            except (forkserver.ForkServerError, OSError) as exc:
                log.warning("%s: not forked from the warm pool (%s); started anew", job.key,
                            exc)
        if proc is None:
            proc = await asyncio.create_subprocess_exec(
                *argv, stdout=asyncio.subprocess.PIPE, stderr=log_file,
                start_new_session=True)
        children.add(proc)
        try:
            stdout, _ = await asyncio.wait_for(proc.communicate(), job_timeout(agent))
        except TimeoutError:
            await _stop_children({proc})
            stdout = b""
        finally:
            children.discard(proc)
    row = job_row(job, stdout, proc.returncode, run_dir, time.monotonic() - started, log_path)
    row["agent"] = str(agent)
    row.setdefault("retries", 0)
    row["wall_s"] = round(time.monotonic() - started, 3)
    return row


class _ForkedJob:
    """A job's child forked from the bench's warm pool, with what ``_run_job`` and
    ``_stop_children`` use of an ``asyncio.subprocess.Process``: ``pid`` (its process group,
    a session of its own), ``returncode``, ``communicate()``, ``wait()``."""

    def __init__(self, forked: forkserver.ForkedProcess, output: asyncio.StreamReader,
                 transport: asyncio.BaseTransport):
        self._forked = forked
        self._output = output
        self._transport = transport
        self.pid = forked.pid
        self.returncode: int | None = None

    @classmethod
    async def spawn(cls, pool: forkserver.ForkServer, argv: list[str], key: str,
                    log_path: Path) -> _ForkedJob:
        """Fork ``argv`` (a job's command line; the parent-death wrapper is the server's
        own: its children get SIGTERM when it ends, and it kills a child whose connection
        closes) with its standard output in a pipe to this process."""
        argv = argv[argv.index(sys.executable):]
        env = {**os.environ, forkserver.ENV_SOCKET: pool.path}
        read_fd, write_fd = os.pipe()
        try:
            forked = await asyncio.to_thread(pool.spawn, argv, name=f"job {key}"[:15],
                                             env=env, log_path=log_path, stdout=write_fd)
        except BaseException:
            os.close(read_fd)
            raise
        finally:
            os.close(write_fd)
        loop = asyncio.get_running_loop()
        output = asyncio.StreamReader()
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(output), os.fdopen(read_fd, "rb"))
        return cls(forked, output, transport)

    async def wait(self) -> int:
        while self.returncode is None:
            self.returncode = self._forked.poll()
            if self.returncode is None:
                await asyncio.sleep(0.1)
        self._forked.stop()  # closes its connection; nothing is left of its group
        return self.returncode

    async def communicate(self) -> tuple[bytes, None]:
        try:
            output = await self._output.read()
            await self.wait()
        finally:
            self._transport.close()
        return output, None


async def _stop_children(children: set) -> None:
    """SIGTERM each child's process group, then SIGKILL what is left after a grace."""
    for proc in list(children):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + 25
    for proc in list(children):
        try:
            await asyncio.wait_for(proc.wait(), max(0.1, deadline - time.monotonic()))
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()




if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "job":
        logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
        sys.exit(job_main(sys.argv[2:]))
    print("usage: python -m episodes.bench_jobs job TASK --run-dir DIR [--agent A]",
          file=sys.stderr)
    sys.exit(2)
