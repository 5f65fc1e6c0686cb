"""Running one episode with an agent: start, (reset,) let the agent work, finish, stop.

Many episodes in parallel are :mod:`episodes.bench_jobs`; the files a bench writes are
:mod:`episodes.result_files`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from episodes.agents import AgentSpec
from episodes.episode import Episode, EpisodeConfig, EpisodeError
from episodes.oracle import run_oracle
from episodes.result import EpisodeResult
from sandbox.catalog import TaskSpec

log = logging.getLogger(__name__)


class RunnerError(ValueError):
    """A run or bench request that cannot be carried out (bad folder, bad numbers...)."""


# -- one episode ------------------------------------------------------------------------------
async def run_episode(spec: TaskSpec, variant: str | None, agent: AgentSpec, run_dir: Path,
                      config: EpisodeConfig | None = None, *, measure_reset: bool = True,
                      on_started: Callable[[Episode], None] | None = None) -> EpisodeResult:
    """Start, (reset,) let the agent work, finish and stop; never leaves a process behind.

    An agent that raises is reported (``error``) and the episode is still graded; an
    episode whose app crashed is ``failed`` with the log tail and has no score. An episode
    that does not come up (a loaded machine can keep Chromium from opening in time) is
    started once more before the agent sees anything: that failure is the machine's, not the
    agent's; the first attempt's files are kept beside the run as ``<run>.failed-start``.
    """
    episode = Episode(spec, variant, run_dir=run_dir, config=config, agent=str(agent))
    agent_error = None
    try:
        try:
            await episode.start()
        except EpisodeError as exc:
            interruption.check()  # a start that failed because of Ctrl-C is not retried
            log.warning("%s: starting again: %s", spec.alias, exc)
            await asyncio.to_thread(_set_aside, run_dir)
            episode = Episode(spec, variant, run_dir=run_dir, config=config, agent=str(agent))
            await episode.start()
        if on_started is not None:
            on_started(episode)
        if measure_reset:
            await episode.reset()
        totals = None
        try:
            totals = await drive(episode, agent)
        except (asyncio.CancelledError, KeyboardInterrupt):
            raise
        except Exception as exc:  # noqa: BLE001 - the agent's failure is part of the result
            agent_error = f"{agent} agent: {type(exc).__name__}: {exc}"
            log.warning("%s: %s", spec.alias, agent_error)
        interruption.check()  # an interrupted agent's work is not graded
        episode.check_running()
        result = await episode.finish()
        if agent_error:
            result.error = agent_error
        if agent.is_model:
            if totals is None:  # the agent raised before it could count anything
                from episodes.model_agents import Totals
                totals = Totals(ended_by="error")
            settings = agent.settings
            result.add_model_run(str(agent), settings.observe if settings else "screenshot",
                                 totals)
        if agent_error or agent.is_model:
            await asyncio.to_thread(write_result, run_dir, result)
    except (asyncio.CancelledError, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 - a crashed app surfaces as any error
        interruption.check()
        reason = episode.failure or (str(exc) if isinstance(exc, EpisodeError)
                                     else f"{type(exc).__name__}: {exc}")
        if agent_error:
            reason = f"{reason} (before that, the {agent_error})"
        log.warning("%s: the episode failed: %s", spec.alias, reason)
        result = episode.failed_result(reason)
        await asyncio.to_thread(write_result, run_dir, result)
    finally:
        await episode.stop()
    return result


def write_result(run_dir: Path, result: EpisodeResult) -> None:
    """``result.json`` (the row as it ends), and for an episode that ended without a grade
    a ``report.json`` saying so: a run folder always tells how its episode ended."""
    run_dir.mkdir(parents=True, exist_ok=True)
    row = result.row()
    (run_dir / "result.json").write_text(json.dumps(row, indent=2) + "\n")
    if result.report is None:
        report: dict[str, Any] = {
            "task": result.task, "alias": result.alias, "variant": result.variant,
            "episode_id": result.episode_id, "status": result.status, "score": None,
            "error": result.error, "checks": []}
        (run_dir / "report.json").write_text(json.dumps(report, indent=2) + "\n")


def _set_aside(run_dir: Path) -> None:
    """Keep a failed start's files as ``<run>.failed-start`` (replacing an older one)."""
    aside = run_dir.with_name(run_dir.name + ".failed-start")
    if aside.exists():
        shutil.rmtree(aside)
    if run_dir.exists():
        run_dir.rename(aside)


async def drive(episode: Episode, agent: AgentSpec) -> Any:
    """Let one agent work on a running episode until it is done; a model agent returns its
    :class:`~episodes.model_agents.Totals`."""
    if agent.kind == "none":
        return None
    if agent.is_model:
        from episodes.model_agents import ModelSettings
        from episodes.model_agents.driver import run_model_agent

        assert agent.model is not None
        return await run_model_agent(episode, agent.kind, agent.model,
                                     agent.settings or ModelSettings())
    if agent.kind == "gold":
        await run_oracle(episode)
    elif agent.kind == "replay" and agent.path is not None:
        await replay_into(episode, agent.path)
    return None


async def replay_into(episode: Episode, trace: Path) -> int:
    """Re-inject a trace's inputs into the workstation session, as client ``replay``, each
    recorded in the episode's own trace like live input (:func:`pixel_stream.replay.
    replay_into`, settle pacing that waits for each input's recorded screen and keeps at
    least each recorded gap). How the replay went is kept in the run's ``logs/replay.json``
    (inputs, screens waited for, any that never came)."""
    from pixel_stream.replay import ReplayTarget
    from pixel_stream.replay import replay_into as replay

    session = episode.session
    target = ReplayTarget(session.capture, session.injector, session.run_input,
                          on_input=session.note_input, check=episode.check_running)
    report = await replay(trace, target, keep_gaps=True)
    logs = episode.run_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    (logs / "replay.json").write_text(json.dumps({"trace": str(trace), **report.to_dict()},
                                                 indent=1) + "\n")
    if report.unmatched:
        log.warning("%s: replay of %s: %d recorded screens never came (inputs %s; off its "
                    "recorded screens at %s, found again at %s)", episode.spec.alias,
                    trace.name, len(report.unmatched), [n for n, _ in report.unmatched][:10],
                    report.lost_at, report.found_again_at)
    return report.events


class _Interruption:
    """Whether Ctrl-C (SIGINT) or SIGTERM asked the running work to stop.

    A cancellation alone can be lost: ``asyncio.wait_for`` (Python 3.11) returns the inner
    result or error when the inner work finished at the moment of the cancel, which is just
    what a terminal's Ctrl-C causes (it also reaches the Playwright driver and Chromium,
    whose calls then fail at once). So the request is remembered here, checked where the
    runner would otherwise go on (a second start, grading), and turned into
    ``KeyboardInterrupt`` once the work has cleaned up."""

    def __init__(self) -> None:
        self.requested = False

    def check(self) -> None:
        if self.requested:
            raise asyncio.CancelledError("interrupted")


interruption = _Interruption()


def run_until_signalled(coro: Any) -> Any:
    """``asyncio.run`` where Ctrl-C and SIGTERM cancel the work so it can clean up, and then
    raise ``KeyboardInterrupt`` (even if the cancellation was lost on the way); a second
    signal while cleaning up is ignored, so the cleanup finishes."""
    seen: list[bool] = []  # stays set: failed futures are collected after the run

    def quiet(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        # Once interrupted, a future nobody awaits any more that failed because a child died
        # of the same Ctrl-C (the Playwright driver's "Connection closed while reading from
        # the driver") is not printed after the line that says the run was interrupted.
        if seen and "never retrieved" in str(context.get("message", "")):
            log.debug("after the interruption: %s: %r", context.get("message"),
                      context.get("exception"))
            return
        loop.default_exception_handler(context)

    async def main() -> Any:
        task = asyncio.current_task()
        assert task is not None  # we are inside asyncio.run
        loop = asyncio.get_running_loop()

        def interrupt() -> None:
            if not interruption.requested:
                interruption.requested = True
                seen.append(True)
                task.cancel()

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, interrupt)
        loop.set_exception_handler(quiet)
        try:
            result = await coro
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)
        if interruption.requested:
            raise KeyboardInterrupt
        return result

    interruption.requested = False
    try:
        return asyncio.run(main())
    except asyncio.CancelledError:
        if interruption.requested:
            raise KeyboardInterrupt from None
        raise
    finally:
        interruption.requested = False
