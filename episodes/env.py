"""A Gymnasium-shaped environment over one episode, and its wrappers.

    env = TimeLimit(RecordEpisode(EhrSandboxEnv("ord-01"), "runs/rec"), max_steps=50)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(
        {"action": "left_click", "coordinate": [640, 400]})
    ...
    obs, reward, terminated, truncated, info = env.step({"action": "done"})
    env.close()

* an **action** is one computer-use action of the agent API (``left_click``, ``type``,
  ``key``, ``scroll`` ...), or ``{"action": "done"}`` to end the episode and be graded;
* an **observation** is ``{"screenshot": PNG bytes, "width", "height", "seq"}`` — the
  workstation once the screen has settled after the action;
* the **reward** is 0 until the episode ends; then it is the verifier's score (``None``
  scores — could not grade — give 0 and say so in ``info``);
* ``reset()`` starts the episode the first time and resets it afterwards (stores restored,
  apps back at their start screens); ``info["reset_s"]`` says how long that took.

The episode and its pixel sessions live on an event loop in a background thread; the agent
side uses the same WebSocket agent API any external agent would. Time limits and recording
are wrappers, as in Gymnasium.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from pathlib import Path
from typing import Any

from episodes.driver import stop_driver
from episodes.episode import Episode, EpisodeConfig
from episodes.result import EpisodeResult
from sandbox.catalog import TaskSpec, load_catalog

DONE = "done"


class EnvError(RuntimeError):
    """The environment was used in a state that does not allow the call."""


class EhrSandboxEnv:
    """One task (and variant) as a Gymnasium-shaped environment."""

    metadata = {"render_modes": ["png"], "action_vocabulary": "anthropic computer-use"}

    def __init__(self, task: str | TaskSpec, variant: str | None = None, *,
                 tasks_dirs: list[Path] | None = None, config: EpisodeConfig | None = None,
                 run_dir: Path | None = None, quiet_ms: float = 300, timeout_ms: float = 5000):
        self.spec = task if isinstance(task, TaskSpec) else load_catalog(tasks_dirs).get(task)
        self.variant = variant
        self.config = config
        self.run_dir = Path(run_dir) if run_dir else None
        self.quiet_ms = quiet_ms
        self.timeout_ms = timeout_ms
        self.episode: Episode | None = None
        self.agent: Any = None
        self.result: EpisodeResult | None = None
        self.steps = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="ehr-env",
                                        daemon=True)
        self._thread.start()
        self._closed = False

    # -- plumbing --------------------------------------------------------------------------
    def _call(self, coro: Any, timeout: float = 300) -> Any:
        if self._closed:
            raise EnvError("the environment is closed")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def _episode(self) -> Episode:
        if self.episode is None:
            raise RuntimeError("call reset() first: there is no episode yet")
        return self.episode

    def _connect(self) -> None:
        from pixel_stream.client import AgentClient

        if self.agent is not None:
            self.agent.close()
        c = self._episode().connection()
        self.agent = AgentClient(c["agent_url"], c["token"], client_id="env", control="take")

    def _observe(self, reply: Any = None) -> dict[str, Any]:
        image = reply.image if reply is not None else self.agent.screenshot()
        return {"screenshot": image.data, "width": image.width, "height": image.height,
                "seq": image.seq}

    def _info(self, **extra: Any) -> dict[str, Any]:
        info = {"task": self.spec.id, "alias": self.spec.alias, "steps": self.steps}
        if self.episode is not None:
            info.update(episode_id=self.episode.episode_id, variant=self.episode.variant,
                        status=self.episode.status, connection=self.episode.connection()
                        if self.episode.session else None)
            if self.episode.failure:
                info["failure"] = self.episode.failure
        info.update(extra)
        return info

    # -- the Gymnasium contract ------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start (first call) or reset the episode; ``options={"variant": name}`` switches
        to another twin (a new episode). ``seed`` is recorded: tasks are deterministic."""
        options = dict(options or {})
        unknown = set(options) - {"variant"}
        if unknown:
            raise EnvError(f"unknown reset options {sorted(unknown)}; known: variant")
        variant = options.get("variant", self.variant)
        if self.episode is not None and variant != self.variant:
            self._call(self.episode.stop())
            self.episode = None
        self.variant = variant
        self.result = None
        self.steps = 0
        if self.episode is None or self.episode.status in ("failed", "stopped"):
            self.episode = Episode(self.spec, variant, run_dir=self.run_dir, config=self.config,
                                   agent="env")
            self._call(self.episode.start())
            reset_s = None
        else:
            reset_s = self._call(self.episode.reset())
        self._connect()
        return self._observe(), self._info(seed=seed, reset_s=reset_s,
                                           ready_s=self.episode.ready_s)

    def step(self, action: dict[str, Any]
             ) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self.episode is None:
            raise EnvError("call reset() before step()")
        if self.result is not None:
            raise EnvError("the episode has ended; call reset() to start again")
        if self.episode.status == "failed":
            return {}, 0.0, True, False, self._info()
        if isinstance(action, dict) and action.get("action") == DONE:
            return self.finish()
        self.steps += 1
        try:
            reply = self.agent.act_and_observe(action, quiet_ms=self.quiet_ms,
                                               timeout_ms=self.timeout_ms)
        except Exception as exc:  # the agent API refused it: tell the agent, keep going
            if self.episode.status == "failed":
                return {}, 0.0, True, False, self._info()
            return self._observe(), 0.0, False, False, self._info(error=str(exc))
        return self._observe(reply), 0.0, False, False, self._info(
            timings=reply.timings, changed=reply.get("changed"))

    def finish(self, truncated: bool = False
               ) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """End the episode now: grade it; reward = score."""
        obs = self._observe()
        self.result = self._call(self._episode().finish())
        score = self.result.score
        info = self._info(score=score, grade_status=self.result.status,
                          report=self.result.report_json, result=self.result.row())
        return obs, float(score or 0.0), not truncated, truncated, info

    def render(self) -> bytes:
        """The workstation screen as PNG."""
        return self._observe()["screenshot"]

    def close(self) -> None:
        if self._closed:
            return
        if self.agent is not None:
            try:
                self.agent.close()
            except Exception:  # noqa: BLE001 - the session may be gone
                pass
        if self.episode is not None:
            self._call(self.episode.stop())
        with contextlib.suppress(Exception):
            self._call(stop_driver(), timeout=30)  # the loop's shared Playwright driver
        self._closed = True
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    def __enter__(self) -> EhrSandboxEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Wrapper:
    """Passes everything through to the wrapped environment (Gymnasium's ``Wrapper``)."""

    def __init__(self, env: Any):
        self.env = env

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)

    def reset(self, **kwargs: Any):
        return self.env.reset(**kwargs)

    def step(self, action: dict[str, Any]):
        return self.env.step(action)

    def close(self) -> None:
        self.env.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class TimeLimit(Wrapper):
    """Ends (and grades) the episode after ``max_steps`` actions or ``max_seconds``."""

    def __init__(self, env: Any, max_steps: int | None = None, max_seconds: float | None = None):
        super().__init__(env)
        if max_steps is None and max_seconds is None:
            raise EnvError("give TimeLimit max_steps, max_seconds or both")
        self.max_steps = max_steps
        self.max_seconds = max_seconds
        self._steps = 0
        self._started = 0.0

    def reset(self, **kwargs: Any):
        self._steps = 0
        result = self.env.reset(**kwargs)
        self._started = time.monotonic()
        return result

    def step(self, action: dict[str, Any]):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._steps += 1
        if terminated or truncated:
            return obs, reward, terminated, truncated, info
        over_steps = self.max_steps is not None and self._steps >= self.max_steps
        over_time = (self.max_seconds is not None
                     and time.monotonic() - self._started >= self.max_seconds)
        if over_steps or over_time:
            obs, reward, _, _, info = self.env.finish(truncated=True)
            info["truncated_by"] = "steps" if over_steps else "time"
            return obs, reward, False, True, info
        return obs, reward, terminated, truncated, info


class RecordEpisode(Wrapper):
    """Writes ``steps.jsonl`` (action, reward, flags, timings) and a PNG per observation."""

    def __init__(self, env: Any, folder: Path | str):
        super().__init__(env)
        self.folder = Path(folder)
        self._episode = 0
        self._index = 0
        self._dir: Path | None = None

    def _write(self, line: dict[str, Any], obs: dict[str, Any]) -> None:
        if self._dir is None:
            raise RuntimeError("call reset() first: no episode is being recorded")
        if obs.get("screenshot"):
            name = f"{self._index:05d}.png"
            (self._dir / name).write_bytes(obs["screenshot"])
            line["screenshot"] = name
        with open(self._dir / "steps.jsonl", "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line, default=str) + "\n")
        self._index += 1

    def reset(self, **kwargs: Any):
        obs, info = self.env.reset(**kwargs)
        self._episode += 1
        self._index = 0
        self._dir = self.folder / f"episode-{self._episode:03d}"
        self._dir.mkdir(parents=True, exist_ok=True)
        self._write({"kind": "reset", "info": _plain(info)}, obs)
        return obs, info

    def step(self, action: dict[str, Any]):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._write({"kind": "step", "action": action, "reward": reward,
                     "terminated": terminated, "truncated": truncated,
                     "info": _plain(info)}, obs)
        return obs, reward, terminated, truncated, info


def _plain(info: dict[str, Any]) -> dict[str, Any]:
    """The info worth keeping per step (no report, no connection secrets)."""
    return {k: v for k, v in info.items() if k not in ("report", "connection")}
