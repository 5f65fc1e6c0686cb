"""How episodes run on this machine (:class:`EpisodeConfig`), and their vocabulary."""

from __future__ import annotations

import secrets
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DESKTOP_SYSTEMS = ("hyperspace", "powerchart")
Status = Literal["new", "starting", "running", "finishing", "finished", "failed", "stopped"]


class EpisodeError(RuntimeError):
    """The episode could not start, or was used in a state that does not allow it."""


class EpisodeConfig(BaseModel):
    """How episodes are run on this machine; unknown keys are refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    screen: tuple[int, int] = (1280, 800)
    # fits the Citrix window's page under its title bar and borders without scrolling
    published_screen: tuple[int, int] = (1272, 720)
    listen_host: str = "127.0.0.1"  # where pixel sessions listen (the hub may use 0.0.0.0)
    chromium: str | None = None
    record_screenshots: bool = False
    # A start on a loaded machine is slow, not stuck: on 2 shared cores, 20 starts of ord-01
    # took p50 12.6 s, p95 23.3 s, max 38.6 s with no other episode of ours running, and
    # other episodes beside it add their own start-up; 45 s made such starts fail.
    start_timeout_s: float = Field(default=120.0, gt=0)
    # system -> command of its published app; {python} {system} {run_dir} {inspector}
    # {episode_id} are filled in. The desktop EHR is the default for both personas.
    published_apps: dict[str, list[str]] = Field(default_factory=lambda: {
        system: ["{python}", "-m", "desktop_ehr", "--persona", "{system}",
                 "--run-dir", "{run_dir}", "--inspector-socket", "{inspector}"]
        for system in DESKTOP_SYSTEMS})


def new_episode_id() -> str:
    return "ep-" + secrets.token_hex(6)
