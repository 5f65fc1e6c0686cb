"""The hub's state: its settings, the episodes it runs and the jobs it keeps for them.

One :class:`Hub` object holds everything (no module globals); the web app
(:mod:`episodes.hub.app`) declares the routes that read and change it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import Request

from episodes.episode import Episode, EpisodeConfig, EpisodeError, new_episode_id
from episodes.hub.records import Records, check_rows
from episodes.result import EpisodeResult
from sandbox.catalog import Catalog, CatalogError, load_catalog
from sandbox.seeding import SeedError, check_variant

log = logging.getLogger(__name__)



ACTIVE = ("new", "starting", "running", "finishing", "finished")


class HubSettings(BaseModel):
    """What one hub serves; unknown keys are refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    runs_dir: Path = Path("runs/hub")
    tasks_dirs: list[Path] = Field(default_factory=list)
    max_episodes: int = Field(default=4, ge=1, le=32)
    episode: EpisodeConfig = Field(default_factory=EpisodeConfig)
    host: str = "127.0.0.1"  # where the hub listens (a Host name it answers to)
    public_hosts: list[str] = Field(default_factory=list)  # names users reach it by
    tls: bool = False  # behind a TLS terminator: Secure cookies, https Origins
    human_dir: Path | None = None  # accepted traces: <human_dir>/<task folder>/human/


@dataclass
class HubEpisode:
    """An episode as the hub tracks it: background jobs, recording, last grade."""

    episode: Episode
    owner: str = "admin"  # the account that started it
    created: float = field(default_factory=time.time)
    busy: str | None = None  # what is running: starting, resetting, grading, oracle
    message: str = ""
    result: EpisodeResult | None = None
    recording: dict[str, Any] | None = None  # annotator, start line
    last_recording: int | None = None  # the complete recording a grade belongs to
    oracle: dict[str, Any] | None = None
    job: asyncio.Task | None = None

    @property
    def id(self) -> str:
        return self.episode.episode_id

    @property
    def running(self) -> bool:
        """Holding processes (counted against ``max_episodes``)."""
        return self.episode.status in ACTIVE



class HubError(Exception):
    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


class Hub:
    """Every episode the hub started, and the catalog it starts them from."""

    def __init__(self, settings: HubSettings,
                 episode_factory: Callable[..., Episode] | None = None):
        self.settings = settings
        self.catalog: Catalog = load_catalog(settings.tasks_dirs)
        self.episodes: dict[str, HubEpisode] = {}
        settings.runs_dir.mkdir(parents=True, exist_ok=True)
        self.records = Records(settings.runs_dir / "hub.sqlite")
        self.records.end_orphans()
        self.checks: dict[int, asyncio.Task] = {}  # replay checks by recording number
        self.episode_factory = episode_factory or Episode

    # -- episodes -------------------------------------------------------------------------
    def get(self, episode_id: str, user: Any = None) -> HubEpisode:
        """The episode, if ``user`` may see it (its owner or an admin); else 404."""
        entry = self.episodes.get(episode_id)
        if entry is None or (user is not None and not self.may_see(user, entry)):
            raise HubError(f"there is no episode {episode_id!r} (it may have been stopped); "
                           "start one from the task list", 404)
        return entry

    @staticmethod
    def may_see(user: Any, entry: HubEpisode) -> bool:
        return bool(user.is_admin or entry.owner == user.name)

    def visible(self, user: Any) -> list[HubEpisode]:
        return [e for e in self.episodes.values() if self.may_see(user, e)]

    def active(self) -> list[HubEpisode]:
        return [h for h in self.episodes.values() if h.running]

    def start_episode(self, task_key: str, variant: str | None,
                      owner: str = "admin") -> HubEpisode:
        spec = self.catalog.get(task_key)
        try:
            variant = check_variant(spec, variant or None)
        except SeedError as exc:
            raise HubError(str(exc)) from exc
        if len(self.active()) + len(self.checks) >= self.settings.max_episodes:
            raise HubError(f"{self.settings.max_episodes} episodes are already running; stop "
                           "one first (or start the hub with a larger --max-episodes)", 409)
        episode_id = new_episode_id()
        run_dir = self.settings.runs_dir / f"{spec.alias}-{variant}-{episode_id[3:]}"
        episode = self.episode_factory(spec, variant, run_dir=run_dir,
                                       config=self.settings.episode, episode_id=episode_id)
        episode.agent = "human"  # the annotator in the live view (until the oracle works)
        entry = HubEpisode(episode, owner=owner)
        self.episodes[episode_id] = entry
        self.records.episode_started(episode_id, owner, spec.id, spec.alias, variant, run_dir)
        self.run_job(entry, "starting", episode.start())
        return entry

    def run_job(self, entry: HubEpisode, what: str, coro: Coroutine[Any, Any, Any],
                done: Callable[[Any], None] | None = None) -> None:
        """Run one background job of an episode; its outcome lands in ``message``."""
        if entry.busy is not None:
            with contextlib.suppress(Exception):
                coro.close()
            raise HubError(f"the episode is busy ({entry.busy}); try again when it is done",
                           409)
        entry.busy = what
        entry.message = ""

        async def job() -> None:
            try:
                value = await coro
                if done is not None:
                    done(value)
            except (EpisodeError, HubError, CatalogError) as exc:
                entry.message = str(exc)
            except Exception as exc:  # noqa: BLE001 - shown on the page, hub goes on
                log.exception("%s of %s failed", what, entry.id)
                entry.message = f"{what} failed: {type(exc).__name__}: {exc}"
            finally:
                entry.busy = None

        entry.job = asyncio.get_running_loop().create_task(job(), name=f"{what}-{entry.id}")

    def task_folder(self, spec: Any) -> Path:
        """Where a task's accepted human traces go (``human/`` inside it)."""
        if self.settings.human_dir is not None:
            return self.settings.human_dir / spec.folder.name
        return Path(spec.folder)

    async def stop_all(self) -> None:
        for task in list(self.checks.values()):
            task.cancel()
        if self.checks:
            await asyncio.gather(*self.checks.values(), return_exceptions=True)
        for entry in list(self.episodes.values()):
            if entry.job is not None and not entry.job.done():
                entry.job.cancel()
            with contextlib.suppress(Exception):
                await entry.episode.stop()

    # -- recording ------------------------------------------------------------------------
    def start_recording(self, entry: HubEpisode, annotator: str) -> None:
        """Reset to the task's start, then record the annotator's inputs from there."""
        entry.episode.check_running(allow_finished=True)
        if entry.recording is not None:
            raise HubError("already recording; stop the recording first")
        if entry.oracle is not None and entry.oracle.get("state") == "running":
            raise HubError("the oracle is working; wait for it before recording", 409)

        def done(_seconds: float) -> None:
            entry.result = None
            entry.oracle = None
            entry.recording = {"annotator": annotator, "from_line": _count_lines(
                entry.episode.trace_path()), "started": time.time()}
            entry.message = "recording from the task's start"

        self.run_job(entry, "resetting", entry.episode.reset(), done)

    def recording_inputs(self, entry: HubEpisode) -> int:
        if entry.recording is None:
            return 0
        path = entry.episode.trace_path()
        if not path.exists():
            return 0
        with open(path, encoding="utf-8") as fh:
            lines = fh.readlines()[entry.recording["from_line"]:]
        return sum(1 for x in lines if _is_step(_parse(x)))

    def stop_recording(self, entry: HubEpisode, partial: bool = False) -> dict[str, Any]:
        """Cut the recorded stretch out of the episode's trace into a trace file of its own
        (``partial`` when the recording was cut short by a reset or a stop)."""
        if entry.recording is None:
            raise HubError("not recording")
        recording, entry.recording = entry.recording, None
        episode = entry.episode
        lines = episode.trace_path().read_text(encoding="utf-8").splitlines() \
            if episode.trace_path().exists() else []
        header = json.loads(lines[0]) if lines else {"kind": "header"}
        events = [e for e in (_parse(x) for x in lines[recording["from_line"]:])
                  if e and e.get("kind") != "header"]
        if events:  # time offsets relative to the recording's start
            t0 = events[0].get("t", 0.0)
            for n, event in enumerate(events, 1):
                event["n"] = n
                event["t"] = round(event.get("t", t0) - t0, 6)
        header.update({"task": episode.spec.id, "alias": episode.spec.alias,
                       "variant": episode.variant, "annotator": recording["annotator"],
                       "episode_id": episode.episode_id, "purpose": "gold trace",
                       "partial": partial})
        inputs = sum(1 for e in events if _is_step(e))
        number = self.records.add_recording(
            episode_id=episode.episode_id, task=episode.spec.id, alias=episode.spec.alias,
            variant=episode.variant, annotator=recording["annotator"], path="",
            inputs=inputs, partial=int(partial))
        folder = episode.run_dir / "recordings" / f"{number}-{_slug(recording['annotator'])}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "trace.jsonl"
        with open(path, "w", encoding="utf-8") as fh:
            for line in [header, *events]:
                fh.write(json.dumps(line, ensure_ascii=False) + "\n")
        with self.records._db() as db:
            db.execute("UPDATE recordings SET path = ? WHERE n = ?", (str(path), number))
        entry.last_recording = None if partial else number
        saved = self.records.recording(number)
        assert saved is not None
        return saved

    # -- views of an episode --------------------------------------------------------------
    def describe(self, entry: HubEpisode, request: Request | None = None) -> dict[str, Any]:
        episode = entry.episode
        data = {**episode.describe(), "busy": entry.busy, "message": entry.message,
                "title": episode.spec.title, "recording": entry.recording,
                "recordings": self.records.recordings(episode_id=entry.id),
                "recording_inputs": self.recording_inputs(entry), "oracle": entry.oracle,
                "has_gold": bool(episode.spec.folder and (episode.spec.folder /
                                                          "gold.py").is_file())}
        user = getattr(request.state, "user", None) if request is not None else None
        if user is not None:
            data["running_count"] = sum(1 for e in self.visible(user) if e.running)
        if episode.status in ("running", "finishing", "finished") and episode.session:
            connection = episode.connection()
            if request is not None:
                connection = _for_client(connection, request)
            data["connection"] = connection
        if entry.result is not None:
            data["result"] = {**entry.result.row(), "report": entry.result.report_json,
                              "rows": check_rows(entry.result.report_json)}
        return data


def _parse(line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _is_step(entry: dict[str, Any]) -> bool:
    """An input the annotator made: an action, or a press (not motion) of a viewer."""
    event = entry.get("event") or {}
    if entry.get("kind") == "action":
        return event.get("action") != "mouse_move"
    return bool(entry.get("kind") == "input" and event.get("down")
                and event.get("t") in ("button", "key"))


def _count_lines(path: Path) -> int:
    if not path.exists():
        return 0
    with open(path, "rb") as fh:
        return sum(1 for _ in fh)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "annotator"


def _for_client(connection: dict[str, Any], request: Request) -> dict[str, Any]:
    """Session URLs with the host the browser used for the hub (they listen beside it)."""
    host = request.url.hostname or "127.0.0.1"

    def fix(url: str) -> str:
        parts = urlsplit(url)
        if parts.hostname in ("127.0.0.1", "0.0.0.0", "localhost") and host not in (
                "127.0.0.1", "localhost", "testserver"):
            netloc = f"{host}:{parts.port}" if parts.port else host
            return urlunsplit(parts._replace(netloc=netloc))
        return url

    fixed = {k: fix(v) if k.endswith("_url") else v for k, v in connection.items()}
    fixed["published_apps"] = {s: {k: fix(v) if k.endswith("_url") else v for k, v in a.items()}
                               for s, a in connection.get("published_apps", {}).items()}
    return fixed
