"""The hub's web app: task list, episode pages and their JSON API.

Routes are declared in :func:`create_hub`; all state lives in one :class:`Hub` object made
by the factory (no module globals), so tests build a hub on a temporary folder and drive it
with Starlette's ``TestClient``. Actions are JSON ``POST``s under ``/api/episodes/{id}/``
and must come from the hub's own pages (same-origin check).
"""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import json
import logging
import re
import time
from collections.abc import Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from episodes.episode import Episode, EpisodeConfig, EpisodeError, new_episode_id
from episodes.result import EpisodeResult
from sandbox.catalog import Catalog, CatalogError, TaskSpec, load_catalog
from sandbox.seeding import SeedError, check_variant

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
ANNOTATOR_RE = re.compile(r"^[\w .'-]{1,60}$")


class HubSettings(BaseModel):
    """What one hub serves; unknown keys are refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    runs_dir: Path = Path("runs/hub")
    tasks_dirs: list[Path] = Field(default_factory=list)
    max_episodes: int = Field(default=4, ge=1, le=32)
    episode: EpisodeConfig = Field(default_factory=EpisodeConfig)


@dataclass
class HubEpisode:
    """An episode as the hub tracks it: background jobs, recording, last grade."""

    episode: Episode
    created: float = field(default_factory=time.time)
    busy: str | None = None  # what is running: starting, resetting, grading, oracle
    message: str = ""
    result: EpisodeResult | None = None
    recording: dict[str, Any] | None = None  # annotator, start line
    recordings: list[dict[str, Any]] = field(default_factory=list)
    oracle: dict[str, Any] | None = None
    job: asyncio.Task | None = None

    @property
    def id(self) -> str:
        return self.episode.episode_id


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
        self.episode_factory = episode_factory or Episode

    # -- episodes -------------------------------------------------------------------------
    def get(self, episode_id: str) -> HubEpisode:
        try:
            return self.episodes[episode_id]
        except KeyError:
            raise HubError(f"there is no episode {episode_id!r} (it may have been stopped); "
                           "start one from the task list", 404) from None

    def active(self) -> list[HubEpisode]:
        return [h for h in self.episodes.values()
                if h.episode.status in ("new", "starting", "running", "finishing",
                                        "finished")]

    def start_episode(self, task_key: str, variant: str | None) -> HubEpisode:
        spec = self.catalog.get(task_key)
        try:
            variant = check_variant(spec, variant or None)
        except SeedError as exc:
            raise HubError(str(exc)) from exc
        if len(self.active()) >= self.settings.max_episodes:
            raise HubError(f"{self.settings.max_episodes} episodes are already running; stop "
                           "one first (or start the hub with a larger --max-episodes)", 409)
        episode_id = new_episode_id()
        run_dir = self.settings.runs_dir / f"{spec.alias}-{variant}-{episode_id[3:]}"
        episode = self.episode_factory(spec, variant, run_dir=run_dir,
                                       config=self.settings.episode, episode_id=episode_id)
        episode.agent = "human"  # the annotator in the live view (until the oracle works)
        entry = HubEpisode(episode)
        self.episodes[episode_id] = entry
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

    async def stop_all(self) -> None:
        for entry in list(self.episodes.values()):
            if entry.job is not None and not entry.job.done():
                entry.job.cancel()
            with contextlib.suppress(Exception):
                await entry.episode.stop()

    # -- recording ------------------------------------------------------------------------
    def start_recording(self, entry: HubEpisode, annotator: str) -> None:
        annotator = annotator.strip()
        if not ANNOTATOR_RE.match(annotator):
            raise HubError("type your name (letters, digits, spaces, . ' -) before recording")
        entry.episode.check_running()
        if entry.recording is not None:
            raise HubError("already recording; stop the recording first")
        entry.recording = {"annotator": annotator, "from_line": _count_lines(
            entry.episode.trace_path()), "started": time.time()}

    def stop_recording(self, entry: HubEpisode) -> dict[str, Any]:
        """Cut the recorded stretch out of the episode's trace into a gold trace file."""
        if entry.recording is None:
            raise HubError("not recording")
        recording, entry.recording = entry.recording, None
        episode = entry.episode
        lines = episode.trace_path().read_text(encoding="utf-8").splitlines() \
            if episode.trace_path().exists() else []
        header = json.loads(lines[0]) if lines else {"kind": "header"}
        events = [json.loads(x) for x in lines[recording["from_line"]:] if x.strip()]
        events = [e for e in events if e.get("kind") != "header"]
        if events:  # time offsets relative to the recording's start
            t0 = events[0].get("t", 0.0)
            for n, event in enumerate(events, 1):
                event["n"] = n
                event["t"] = round(event.get("t", t0) - t0, 6)
        number = len(entry.recordings) + 1
        folder = episode.run_dir / "recordings" / f"{number}-{_slug(recording['annotator'])}"
        folder.mkdir(parents=True, exist_ok=True)
        header.update({"task": episode.spec.id, "alias": episode.spec.alias,
                       "variant": episode.variant, "annotator": recording["annotator"],
                       "episode_id": episode.episode_id, "purpose": "gold trace"})
        path = folder / "trace.jsonl"
        with open(path, "w", encoding="utf-8") as fh:
            for line in [header, *events]:
                fh.write(json.dumps(line, ensure_ascii=False) + "\n")
        saved = {"number": number, "annotator": recording["annotator"], "events": len(events),
                 "path": str(path)}
        entry.recordings.append(saved)
        return saved

    # -- views of an episode --------------------------------------------------------------
    def describe(self, entry: HubEpisode, request: Request | None = None) -> dict[str, Any]:
        episode = entry.episode
        data = {**episode.describe(), "busy": entry.busy, "message": entry.message,
                "title": episode.spec.title, "recording": entry.recording,
                "recordings": entry.recordings, "oracle": entry.oracle,
                "has_gold": bool(episode.spec.folder and (episode.spec.folder /
                                                          "gold.py").is_file())}
        if episode.status in ("running", "finishing", "finished") and episode.session:
            connection = episode.connection()
            if request is not None:
                connection = _for_client(connection, request)
            data["connection"] = connection
        if entry.result is not None:
            data["result"] = {**entry.result.row(), "report": entry.result.report_json}
        return data


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


# -- routes ------------------------------------------------------------------------------------
def create_hub(settings: HubSettings | dict[str, Any] | None = None,
               episode_factory: Callable[..., Episode] | None = None) -> Starlette:
    """The hub app; ``app.state.hub`` is its :class:`Hub`."""
    if not isinstance(settings, HubSettings):
        settings = HubSettings.model_validate(settings or {})
    hub = Hub(settings, episode_factory)
    templates = Jinja2Templates(directory=str(HERE / "templates"))

    def page(request: Request, name: str, status: int = 200, **context: Any) -> Response:
        return templates.TemplateResponse(request, name, {"hub": hub, **context},
                                          status_code=status)

    def problem(request: Request, exc: Exception, status: int = 400) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": str(exc)}, status_code=status)
        return page(request, "problem.html", status=status, message=str(exc))

    async def tasks_page(request: Request) -> Response:
        q = request.query_params
        family, system = q.get("family", ""), q.get("system", "")
        difficulty = q.get("difficulty", "")
        text = q.get("q", "").strip().lower()
        specs = [s for s in hub.catalog
                 if (not family or s.family == family)
                 and (not system or system in s.systems)
                 and (not difficulty or str(s.difficulty) == difficulty)
                 and (not text or text in f"{s.id} {s.alias} {s.title}".lower())]
        return page(request, "tasks.html", specs=specs, filters={
            "family": family, "system": system, "difficulty": difficulty, "q": text},
            families=sorted({s.family for s in hub.catalog}),
            systems=sorted({x for s in hub.catalog for x in s.systems}),
            difficulties=sorted({s.difficulty for s in hub.catalog}),
            episodes=list(hub.episodes.values()))

    async def task_page(request: Request) -> Response:
        key = request.path_params["key"]
        try:
            spec = hub.catalog.get(key)
        except CatalogError as exc:
            return page(request, "problem.html", status=404, message=str(exc),
                        suggestions=_suggest(hub.catalog, key))
        return page(request, "task.html", spec=spec)

    async def start(request: Request) -> Response:
        form = await request.form()
        try:
            _same_origin(request)
            entry = hub.start_episode(str(form.get("task", "")), str(form.get("variant", "")))
        except CatalogError as exc:
            key = str(form.get("task", ""))
            return page(request, "problem.html", status=404, message=str(exc),
                        suggestions=_suggest(hub.catalog, key))
        except HubError as exc:
            return problem(request, exc, exc.status)
        return RedirectResponse(request.url_for("episode", episode_id=entry.id), 303)

    async def episode_page(request: Request) -> Response:
        try:
            entry = hub.get(request.path_params["episode_id"])
        except HubError as exc:
            return problem(request, exc, exc.status)
        return page(request, "session.html", entry=entry, spec=entry.episode.spec,
                    state=hub.describe(entry, request))

    async def api_state(request: Request) -> Response:
        try:
            entry = hub.get(request.path_params["episode_id"])
        except HubError as exc:
            return problem(request, exc, exc.status)
        return JSONResponse(hub.describe(entry, request))

    async def api_list(request: Request) -> Response:
        return JSONResponse([hub.describe(e, request) for e in hub.episodes.values()])

    def action(handler: Callable[[HubEpisode, dict[str, Any]], Any]):
        async def endpoint(request: Request) -> Response:
            try:
                _same_origin(request)
                entry = hub.get(request.path_params["episode_id"])
                body = await _json_body(request)
                extra = handler(entry, body)
                if asyncio.iscoroutine(extra):
                    extra = await extra
            except (HubError, EpisodeError) as exc:
                return problem(request, exc, getattr(exc, "status", 409))
            return JSONResponse({**hub.describe(entry, request), **(extra or {})})
        return endpoint

    def do_reset(entry: HubEpisode, _body: dict) -> None:
        entry.episode.check_running(allow_finished=True)

        def done(seconds: float) -> None:
            entry.result = None
            entry.recording = None
            entry.message = f"reset in {seconds:.2f} s"

        hub.run_job(entry, "resetting", entry.episode.reset(), done)

    def do_finish(entry: HubEpisode, _body: dict) -> None:
        entry.episode.check_running()
        if entry.recording is not None:
            hub.stop_recording(entry)

        def done(result: EpisodeResult) -> None:
            entry.result = result

        hub.run_job(entry, "grading", entry.episode.finish(), done)

    def do_oracle(entry: HubEpisode, _body: dict) -> None:
        from episodes.oracle import run_oracle

        entry.episode.check_running()
        entry.episode.agent = "gold"
        entry.oracle = {"state": "running", "started": time.time()}

        async def watch() -> None:
            try:
                run = await run_oracle(entry.episode)
                entry.oracle = {"state": "done", "actions": run.actions,
                                "seconds": round(run.seconds, 2)}
            except Exception as exc:
                entry.oracle = {"state": "failed", "error": f"{type(exc).__name__}: {exc}"}
                raise

        hub.run_job(entry, "oracle", watch())

    def do_record(entry: HubEpisode, body: dict) -> None:
        hub.start_recording(entry, str(body.get("annotator", "")))

    def do_record_stop(entry: HubEpisode, _body: dict) -> dict[str, Any]:
        return {"saved": hub.stop_recording(entry)}

    async def do_stop(entry: HubEpisode, _body: dict) -> None:
        if entry.job is not None and not entry.job.done():
            entry.job.cancel()
        await entry.episode.stop()

    async def recording_file(request: Request) -> Response:
        try:
            entry = hub.get(request.path_params["episode_id"])
            number = int(request.path_params["number"])
            saved = next(r for r in entry.recordings if r["number"] == number)
        except (HubError, StopIteration, ValueError):
            return problem(request, HubError("no such recording"), 404)
        name = f"{entry.episode.spec.alias}-gold.trace.jsonl"
        return FileResponse(saved["path"], media_type="application/x-ndjson",
                            filename=name)

    @asynccontextmanager
    async def lifespan(_app: Starlette):
        try:
            yield
        finally:
            await hub.stop_all()

    routes = [
        Route("/", tasks_page, name="tasks"),
        Route("/tasks/{key}", task_page, name="task"),
        Route("/episodes", start, methods=["POST"], name="start"),
        Route("/episodes/{episode_id}", episode_page, name="episode"),
        Route("/episodes/{episode_id}/recordings/{number}", recording_file, name="recording"),
        Route("/api/episodes", api_list, name="api_episodes"),
        Route("/api/episodes/{episode_id}", api_state, name="api_episode"),
        Route("/api/episodes/{episode_id}/reset", action(do_reset), methods=["POST"]),
        Route("/api/episodes/{episode_id}/finish", action(do_finish), methods=["POST"]),
        Route("/api/episodes/{episode_id}/oracle", action(do_oracle), methods=["POST"]),
        Route("/api/episodes/{episode_id}/record", action(do_record), methods=["POST"]),
        Route("/api/episodes/{episode_id}/record/stop", action(do_record_stop),
              methods=["POST"]),
        Route("/api/episodes/{episode_id}/stop", action(do_stop), methods=["POST"]),
        Mount("/static", app=StaticFiles(directory=str(HERE / "static")), name="static"),
    ]

    async def not_found(request: Request, exc: Exception) -> Response:
        return problem(request, HubError("there is no such page in the hub; go back to the "
                                         "task list"), 404)

    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={404: not_found})
    app.state.hub = hub
    return app


def _suggest(catalog: Catalog, key: str) -> list[TaskSpec]:
    names = {s.alias: s for s in catalog} | {s.id: s for s in catalog}
    close = difflib.get_close_matches(key.lower(), list(names), n=3, cutoff=0.6)
    seen, out = set(), []
    for name in close:
        spec = names[name]
        if spec.id not in seen:
            seen.add(spec.id)
            out.append(spec)
    return out


def _same_origin(request: Request) -> None:
    origin = request.headers.get("origin") or request.headers.get("referer")
    if origin and urlsplit(origin).netloc != request.url.netloc:
        raise HubError("this action must come from the hub's own page", 403)


async def _json_body(request: Request) -> dict[str, Any]:
    if request.headers.get("content-type", "").startswith("application/json"):
        try:
            data = await request.json()
        except json.JSONDecodeError as exc:
            raise HubError(f"the request body is not JSON: {exc}") from exc
        if not isinstance(data, dict):
            raise HubError("the request body must be a JSON object")
        return data
    return {}


def serve_hub(host: str = "127.0.0.1", port: int = 8600, tasks_dirs: list[Path] | None = None,
              runs_dir: Path = Path("runs/hub"), max_episodes: int = 4) -> int:
    """Run the hub until Ctrl-C; every episode it started is stopped on the way out."""
    import uvicorn

    listen = "0.0.0.0" if host in ("0.0.0.0", "") else "127.0.0.1"
    settings = HubSettings(runs_dir=runs_dir, tasks_dirs=tasks_dirs or [],
                           max_episodes=max_episodes,
                           episode=EpisodeConfig(listen_host=listen))
    app = create_hub(settings)
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    print(f"EHR Sandbox hub on http://{shown}:{port}/ — {len(app.state.hub.catalog)} tasks; "
          "Ctrl-C stops it and every episode it started", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0
