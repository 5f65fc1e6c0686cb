"""The hub's web app: task list, episode pages and their JSON API.

Routes are declared in :func:`create_hub`; all state lives in one :class:`Hub` object made
by the factory (no module globals), so tests build a hub on a temporary folder and drive it
with Starlette's ``TestClient``. Actions are JSON ``POST``s under ``/api/episodes/{id}/``
and must come from the hub's own pages (same-origin check).
"""

from __future__ import annotations

import asyncio
import difflib
import json
import logging
import time
from collections.abc import Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from episodes.episode import Episode, EpisodeConfig, EpisodeError
from episodes.hub.state import Hub, HubEpisode, HubError, HubSettings
from episodes.result import EpisodeResult
from sandbox.catalog import Catalog, CatalogError, TaskSpec

log = logging.getLogger(__name__)

HERE = Path(__file__).parent


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
