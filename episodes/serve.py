"""Bring your own agent: an episode that waits for an outside agent.

:func:`serve_episode` starts the episode, hands out how to reach it (the agent API's URL
and token, the viewer's URL, the instruction), waits until the agent sends ``done`` on the
agent API (or ``max_seconds`` pass), grades and stops. The agent is anything that speaks
the agent API (docs/agent-api.md); ``examples/simple_agent.py`` is one.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from episodes.episode import Episode, EpisodeConfig
from episodes.result import EpisodeResult
from sandbox.catalog import TaskSpec

log = logging.getLogger(__name__)

AGENT = "external"  # the results' ``agent`` of a served episode
WATCH_S = 1.0


async def serve_episode(spec: TaskSpec, variant: str | None, run_dir: Path, *,
                        on_ready: Callable[[dict[str, Any]], None],
                        max_seconds: float | None = None,
                        config: EpisodeConfig | None = None) -> EpisodeResult:
    """Run one episode for an outside agent; never leaves a process behind."""
    episode = Episode(spec, variant, run_dir=run_dir, config=config, agent=AGENT)
    try:
        await episode.start()
        connection = episode.connection()
        on_ready({"task": spec.id, "alias": spec.alias, "variant": episode.variant,
                  "agent_url": connection["agent_url"], "token": connection["token"],
                  "viewer_url": connection["viewer_url"], "screen": connection["screen"],
                  "instruction": spec.instruction, "episode_id": episode.episode_id,
                  "run_dir": str(run_dir)})
        ended_by = await _wait_for_done(episode, max_seconds)
        episode.check_running()
        result = await episode.finish()
        result.ended_by = ended_by
        (run_dir / "result.json").write_text(json.dumps(result.row(), indent=2) + "\n")
        done_by = episode.session.agent_done_by or {}
        log.info("%s: the agent %s said done: %s", spec.alias, done_by.get("client_id"),
                 done_by.get("message"))
        return result
    finally:
        await episode.stop()


async def _wait_for_done(episode: Episode, max_seconds: float | None) -> str:
    """``done`` when the agent said so, ``max_seconds`` when the time ran out; a crashed
    app raises (the episode cannot be graded)."""
    loop = asyncio.get_running_loop()
    deadline = None if max_seconds is None else loop.time() + max_seconds
    done = episode.session.agent_done
    while not done.is_set():
        episode.check_running()
        wait = WATCH_S if deadline is None else min(WATCH_S, deadline - loop.time())
        if wait <= 0:
            return "max_seconds"
        try:
            await asyncio.wait_for(done.wait(), wait)
        except TimeoutError:
            continue
    return "done"
