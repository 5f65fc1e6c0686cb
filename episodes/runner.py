"""Running tasks: one episode with an agent (``run``), or many in parallel (``bench``).

Agents: ``none`` (does nothing; the episode is graded as seeded), ``gold`` (the task's
oracle, ``episodes.oracle``) and ``replay:PATH`` (re-injects a recorded ``trace.jsonl``
into the workstation, each input recorded again in the new trace).

A bench runs each (task, variant) in its own child process (``python -m episodes.runner
job ...``), at most ``--parallel`` at a time, appending one JSON line per finished job to
``results.jsonl`` and rewriting ``results.csv`` and the self-contained ``report.html``.
Ctrl-C stops every child's process group (each child stops its episode: no Xvfb, Chromium
or app survives); ``--resume`` skips the jobs already in ``results.jsonl``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import csv
import io
import json
import logging
import os
import shutil
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from episodes.episode import Episode, EpisodeConfig, EpisodeError, EpisodeResult
from sandbox.catalog import TaskSpec

log = logging.getLogger(__name__)

AGENT_KINDS = ("none", "gold", "replay")
RESULT_FIELDS = ("task", "alias", "variant", "agent", "status", "score", "duration_s",
                 "reset_s", "steps", "ready_s", "error", "run_dir")
JOB_TIMEOUT_S = 900.0


class RunnerError(ValueError):
    """A run or bench request that cannot be carried out (bad agent, bad folder...)."""


@dataclass(frozen=True)
class AgentSpec:
    kind: str
    path: Path | None = None

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        kind, _, rest = text.partition(":")
        if kind not in AGENT_KINDS:
            raise RunnerError(f"unknown agent {text!r}; use none, gold or replay:PATH "
                              "(a trace.jsonl or the folder holding it)")
        if kind == "replay":
            if not rest:
                raise RunnerError("replay needs a trace: --agent replay:PATH/trace.jsonl")
            path = Path(rest)
            if path.is_dir():
                path = path / "trace.jsonl"
            if not path.is_file():
                raise RunnerError(f"no trace at {path}; give a trace.jsonl recorded by an "
                                  "episode (its trace/ folder) or by the hub's Record")
            return cls(kind, path)
        if rest:
            raise RunnerError(f"agent {kind!r} takes no argument (got {text!r})")
        return cls(kind)

    def __str__(self) -> str:
        return f"{self.kind}:{self.path}" if self.path else self.kind


# -- one episode ------------------------------------------------------------------------------
async def run_episode(spec: TaskSpec, variant: str | None, agent: AgentSpec, run_dir: Path,
                      config: EpisodeConfig | None = None, *, measure_reset: bool = True,
                      on_started: Callable[[Episode], None] | None = None) -> EpisodeResult:
    """Start, (reset,) let the agent work, finish and stop; never leaves a process behind.

    An agent that raises is reported (``error``) and the episode is still graded; an
    episode whose app crashed is ``failed`` with the log tail and has no score.
    """
    episode = Episode(spec, variant, run_dir=run_dir, config=config)
    agent_error = None
    try:
        await episode.start()
        if on_started is not None:
            on_started(episode)
        if measure_reset:
            await episode.reset()
        try:
            await drive(episode, agent)
        except (asyncio.CancelledError, KeyboardInterrupt):
            raise
        except Exception as exc:  # noqa: BLE001 - the agent's failure is part of the result
            agent_error = f"{agent} agent: {type(exc).__name__}: {exc}"
            log.warning("%s: %s", spec.alias, agent_error)
        episode.check_running()
        result = await episode.finish()
        if agent_error:
            result.error = agent_error
    except (asyncio.CancelledError, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 - a crashed app surfaces as any error
        reason = episode.failure or (str(exc) if isinstance(exc, EpisodeError)
                                     else f"{type(exc).__name__}: {exc}")
        log.warning("%s: the episode failed: %s", spec.alias, reason)
        result = _failed(episode, reason)
    finally:
        await episode.stop()
    result.ready_s = None if episode.ready_s is None else round(episode.ready_s, 3)
    return result


def _failed(episode: Episode, reason: str) -> EpisodeResult:
    return EpisodeResult(
        task=episode.spec.id, alias=episode.spec.alias, variant=episode.variant,
        episode_id=episode.episode_id, status="failed", score=None, duration_s=0.0,
        reset_s=None if episode.last_reset_s is None else round(episode.last_reset_s, 3),
        steps=episode.steps(), run_dir=str(episode.run_dir),
        error=reason)


async def drive(episode: Episode, agent: AgentSpec) -> None:
    """Let one agent work on a running episode until it is done."""
    if agent.kind == "none":
        return
    if agent.kind == "gold":
        from episodes.oracle import run_oracle

        await run_oracle(episode)
    elif agent.kind == "replay":
        await replay_into(episode, agent.path)


async def replay_into(episode: Episode, trace: Path, quiet_ms: float = 200.0,
                      timeout_ms: float = 5000.0) -> int:
    """Re-inject a trace's inputs into the workstation session, as client ``replay``.

    Agent actions go through the agent API's action code, receiver input through the
    receiver's; both are recorded in the episode's own trace like live input. An input
    that changed the screen when recorded waits for the screen to settle before the next,
    and no input follows the one before it sooner than it did when recorded: whoever
    recorded the trace may have waited for a page that shows nothing until it arrives.
    """
    from pixel_stream.actions import parse_action, perform_action
    from pixel_stream.observe import wait_for_quiet
    from pixel_stream.recording import read_trace
    from pixel_stream.viewer_input import ViewerInput, parse_viewer_input

    session = episode.session
    header, events = read_trace(trace)
    size = (header.get("width"), header.get("height"))
    if size != (session.width, session.height):
        raise RunnerError(f"{trace} was recorded on a {size[0]}x{size[1]} screen; this "
                          f"workstation is {session.width}x{session.height}")
    viewer = ViewerInput(session.injector, session.run_input)
    previous: tuple[float, float] | None = None  # (recorded t, replayed at) of the last input
    for entry in events:
        episode.check_running()
        if previous is not None and "t" in entry:  # keep at least the recorded gap
            early = (entry["t"] - previous[0]) - (time.monotonic() - previous[1])
            if early > 0:
                await asyncio.sleep(early)
        previous = (entry.get("t", 0.0), time.monotonic())
        body = entry["event"]
        seq_before = session.capture.slot.latest.seq
        if entry["kind"] == "action":
            action = parse_action(body, session.width, session.height)
            await perform_action(action, session.injector, session.run_input)
            session.note_input("replay", "action", dict(action.raw), seq_before)
        else:
            event = parse_viewer_input(body, session.width, session.height)
            await viewer.apply(event)
            session.note_input("replay", "input", event, seq_before)
        if entry.get("seq_after", 0) != entry.get("seq_before", 0):
            await wait_for_quiet(session.capture, time.monotonic(), seq_before, quiet_ms,
                                 timeout_ms)
    await viewer.release_all()
    return len(events)


# -- the child process of a bench -------------------------------------------------------------
def job_main(argv: list[str] | None = None) -> int:
    """``python -m episodes.runner job``: one episode; prints its result row as JSON."""
    import argparse

    from sandbox.catalog import load_catalog

    parser = argparse.ArgumentParser(prog="python -m episodes.runner job")
    parser.add_argument("task")
    parser.add_argument("--variant")
    parser.add_argument("--agent", default="none")
    parser.add_argument("--run-dir", type=Path, required=True)
    parser.add_argument("--tasks-dir", action="append", default=[])
    parser.add_argument("--config", help="EpisodeConfig as JSON")
    args = parser.parse_args(argv)
    spec = load_catalog([Path(d) for d in args.tasks_dir]).get(args.task)
    config = EpisodeConfig.model_validate_json(args.config) if args.config else None
    agent = AgentSpec.parse(args.agent)
    try:
        result = run_until_signalled(run_episode(spec, args.variant, agent, args.run_dir,
                                                 config))
    except (asyncio.CancelledError, KeyboardInterrupt):
        print("interrupted; the episode was stopped", file=sys.stderr)
        return 130
    row = {**result.row(), "agent": str(agent)}
    print(json.dumps(row), flush=True)
    return 0


def run_until_signalled(coro: Any) -> Any:
    """``asyncio.run`` where SIGTERM, like Ctrl-C, cancels the work so it can clean up."""
    async def main() -> Any:
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, task.cancel)
        try:
            return await coro
        finally:
            loop.remove_signal_handler(signal.SIGTERM)

    return asyncio.run(main())


# -- bench ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Job:
    spec: TaskSpec
    variant: str

    @property
    def key(self) -> str:
        return f"{self.spec.alias}__{self.variant}"


def bench_jobs(specs: list[TaskSpec], variants: str = "default") -> list[Job]:
    jobs = []
    for spec in specs:
        names = spec.variant_names if variants == "all" else ["default"]
        jobs += [Job(spec, v) for v in names]
    return jobs


def load_results(out: Path) -> list[dict[str, Any]]:
    path = out / "results.jsonl"
    rows = []
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                with contextlib.suppress(json.JSONDecodeError):
                    rows.append(json.loads(line))
    return rows


async def bench(jobs: list[Job], agent: AgentSpec, out: Path, *, parallel: int = 1,
                resume: bool = False, tasks_dirs: list[Path] | None = None,
                config: EpisodeConfig | None = None,
                on_event: Callable[[str, Job, dict[str, Any] | None], None] | None = None,
                ) -> list[dict[str, Any]]:
    """Run every job, ``parallel`` at a time; returns every row of ``results.jsonl``."""
    if parallel < 1:
        raise RunnerError("--parallel must be at least 1")
    out.mkdir(parents=True, exist_ok=True)
    existing = load_results(out)
    if existing and not resume:
        raise RunnerError(f"{out} already holds results; add --resume to continue that "
                          "bench or choose a new --out folder")
    done = {(r.get("task"), r.get("variant"), r.get("agent")) for r in existing}
    todo = [j for j in jobs if (j.spec.id, j.variant, str(agent)) not in done]
    started = time.monotonic()
    semaphore = asyncio.Semaphore(parallel)
    children: set[asyncio.subprocess.Process] = set()
    lock = asyncio.Lock()

    async def one(job: Job) -> None:
        async with semaphore:
            if on_event:
                on_event("start", job, None)
            row = await _run_job(job, agent, out, tasks_dirs or [], config, children)
            async with lock:
                with open(out / "results.jsonl", "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(row) + "\n")
                write_tables(out)
            if on_event:
                on_event("done", job, row)

    tasks = [asyncio.create_task(one(job)) for job in todo]
    try:
        await asyncio.gather(*tasks)
    except (asyncio.CancelledError, KeyboardInterrupt):
        for task in tasks:
            task.cancel()
        await _stop_children(children)
        raise
    finally:
        write_tables(out, add_wall_s=time.monotonic() - started)
    return load_results(out)


async def _run_job(job: Job, agent: AgentSpec, out: Path, tasks_dirs: list[Path],
                   config: EpisodeConfig | None, children: set) -> dict[str, Any]:
    run_dir = out / "runs" / job.key
    if run_dir.exists():
        shutil.rmtree(run_dir)  # a job interrupted earlier starts over
    argv = [sys.executable, "-m", "episodes.runner", "job", job.spec.id, "--variant",
            job.variant, "--agent", str(agent), "--run-dir", str(run_dir)]
    for d in tasks_dirs:
        argv += ["--tasks-dir", str(d)]
    if config is not None:
        argv += ["--config", config.model_dump_json()]
    setpriv = shutil.which("setpriv")
    if setpriv:  # a bench killed hard still takes its children with it
        argv = [setpriv, "--pdeathsig", "TERM", "--", *argv]
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    log_path = out / "runs" / f"{job.key}.log"
    started = time.monotonic()
    with open(log_path, "wb") as log_file:
        proc = await asyncio.create_subprocess_exec(
            *argv, stdout=asyncio.subprocess.PIPE, stderr=log_file, start_new_session=True)
        children.add(proc)
        try:
            stdout, _ = await asyncio.wait_for(proc.communicate(), JOB_TIMEOUT_S)
        except TimeoutError:
            await _stop_children({proc})
            stdout = b""
        finally:
            children.discard(proc)
    last = stdout.decode("utf-8", "replace").strip().splitlines()[-1:] if stdout else []
    try:
        row = json.loads(last[0]) if last else None
    except json.JSONDecodeError:
        row = None
    if row is None:
        tail = _log_tail(log_path)
        row = {"task": job.spec.id, "alias": job.spec.alias, "variant": job.variant,
               "status": "failed", "score": None, "duration_s": round(time.monotonic() -
                                                                      started, 3),
               "reset_s": None, "steps": 0, "run_dir": str(run_dir),
               "error": f"the job exited with status {proc.returncode}: {tail}"}
    row["agent"] = str(agent)
    row["wall_s"] = round(time.monotonic() - started, 3)
    return row


def _log_tail(path: Path, limit: int = 1500) -> str:
    """The end of a job's log without the browser's routine complaints (D-Bus, GPU)."""
    noise = ("[pid=", "ERROR:dbus", "viz_main_impl", "command_buffer_proxy")
    lines = [line for line in path.read_text(errors="replace").splitlines()
             if not any(n in line for n in noise)]
    return "\n".join(lines)[-limit:].strip()


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


# -- results files ----------------------------------------------------------------------------
def write_tables(out: Path, add_wall_s: float | None = None) -> None:
    """``results.csv`` and ``report.html`` from ``results.jsonl`` (latest row per job)."""
    rows = latest_rows(load_results(out))
    with open(out / "results.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(RESULT_FIELDS), extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: row.get(k) for k in RESULT_FIELDS})
    meta_path = out / "bench.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    if add_wall_s is not None:  # a resumed bench adds its time to the earlier sessions'
        meta["wall_s"] = round(meta.get("wall_s", 0.0) + add_wall_s, 3)
        meta["sessions"] = meta.get("sessions", 0) + 1
        meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    (out / "report.html").write_text(render_report(rows, out, meta.get("wall_s")),
                                     encoding="utf-8")


def latest_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    latest: dict[tuple, dict[str, Any]] = {}
    for row in rows:
        latest[(row.get("task"), row.get("variant"), row.get("agent"))] = row
    return list(latest.values())


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    scores = [r["score"] for r in rows if r.get("score") is not None]
    statuses: dict[str, int] = {}
    for r in rows:
        statuses[r.get("status", "?")] = statuses.get(r.get("status", "?"), 0) + 1
    return {
        "jobs": len(rows),
        "mean_score": round(sum(scores) / len(scores), 4) if scores else None,
        "perfect": sum(1 for s in scores if s >= 0.9999),
        "statuses": statuses,
        "total_duration_s": round(sum(r.get("duration_s") or 0 for r in rows), 3),
    }


def _thumbnail(path: Path) -> str | None:
    """The final screenshot as a small JPEG data URL (keeps report.html self-contained)."""
    if not path.is_file():
        return None
    try:
        from PIL import Image

        with Image.open(path) as image:
            image = image.convert("RGB")
            image.thumbnail((640, 400))
            buf = io.BytesIO()
            image.save(buf, "JPEG", quality=70)
    except OSError:
        return None
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode()


def render_report(rows: list[dict[str, Any]], out: Path, wall_s: float | None) -> str:
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    templates = Path(__file__).parent / "hub" / "templates"
    env = Environment(loader=FileSystemLoader(str(templates)),
                      autoescape=select_autoescape(["html"]))
    entries = []
    for row in sorted(rows, key=lambda r: (r.get("alias") or "", r.get("variant") or "")):
        run_dir = Path(row.get("run_dir") or "")
        report_path = run_dir / "report.json"
        checks = row.get("checks") or []
        if report_path.is_file():
            with contextlib.suppress(ValueError, OSError):
                checks = json.loads(report_path.read_text()).get("checks", checks)
        entries.append({**row, "checks": checks,
                        "screenshot": _thumbnail(run_dir / "final.png")})
    return env.get_template("bench_report.html").render(
        rows=entries, summary=summarize(rows), wall_s=wall_s, out=str(out))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "job":
        logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
        sys.exit(job_main(sys.argv[2:]))
    print("usage: python -m episodes.runner job TASK --run-dir DIR [--agent A]", file=sys.stderr)
    sys.exit(2)
