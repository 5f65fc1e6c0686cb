"""The hub's web app: task list, episode pages and their JSON API.

Routes are declared in :func:`create_hub`; all state lives in one :class:`Hub` object made
by the factory (no module globals), so tests build a hub on a temporary folder and drive it
with Starlette's ``TestClient``. Requests with a Host the hub does not answer to are
refused; every route but ``/signin`` needs a signed-in user (:mod:`episodes.hub.guard`);
actions are ``POST``s that carry the page's CSRF token and an Origin naming the hub.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import logging
import math
import time
from collections.abc import Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from episodes.driver import stop_driver
from episodes.episode import Episode, EpisodeConfig, EpisodeError
from episodes.hub.auth import SESSION_COOKIE, Accounts, SignInThrottle, User
from episodes.hub.guard import Guard, allowed_hosts, safe_next
from episodes.hub.records import GOLD_STATES, check_rows
from episodes.hub.review import review_routes
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
    accounts = Accounts(settings.runs_dir)
    templates = Jinja2Templates(directory=str(HERE / "templates"))

    def page(request: Request, name: str, status: int = 200, **context: Any) -> Response:
        user = getattr(request.state, "user", None)
        return templates.TemplateResponse(request, name, {"hub": hub, "user": user, **context},
                                          status_code=status)

    def problem(request: Request, exc: Exception, status: int = 400) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": str(exc)}, status_code=status)
        return page(request, "problem.html", status=status, message=str(exc))

    guard = Guard(accounts, settings.tls, problem)
    throttle = SignInThrottle()

    async def signin_page(request: Request) -> Response:
        token = guard.new_form_token()
        response = page(request, "signin.html", single_user=accounts.single_user,
                        next=safe_next(request.query_params.get("next", "/")),
                        secret=request.query_params.get("secret", ""), form_token=token)
        guard.set_form_token(response, token)
        return response

    async def signin(request: Request) -> Response:
        form = await request.form()
        try:
            guard.check_origin(request)
            guard.check_form_token(request, str(form.get("form_token", "")))
        except HubError as exc:
            return problem(request, exc, exc.status)
        name = "admin" if accounts.single_user else str(form.get("name", "")).strip()
        address = request.client.host if request.client else ""
        wait_s = throttle.retry_after(address, name)
        if wait_s > 0:
            refused = problem(request, HubError(
                f"too many failed sign-ins: try again in {math.ceil(wait_s)} s"), 429)
            refused.headers["Retry-After"] = str(math.ceil(wait_s))
            return refused
        user = accounts.sign_in(name, str(form.get("password", "")))
        if user is None:
            throttle.failed(address, name)
            return problem(request, HubError("wrong name or password (or start secret)"), 401)
        throttle.succeeded(address, name)
        response = RedirectResponse(safe_next(str(form.get("next", "/"))), 303)
        guard.set_session(response, user)
        return response

    async def signout(request: Request, user: User) -> Response:
        accounts.sign_out(user.session)
        response = RedirectResponse("/signin", 303)
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    async def tasks_page(request: Request, user: User) -> Response:
        q = request.query_params
        family, system = q.get("family", ""), q.get("system", "")
        difficulty, gold = q.get("difficulty", ""), q.get("gold", "")
        assignee = q.get("assignee", "")
        who = user.name if assignee == "me" else assignee
        text = q.get("q", "").strip().lower()
        assignments = hub.records.assignments()
        board = {(s.id, v): hub.records.gold_status(s, v, hub.task_folder(s))
                 for s in hub.catalog for v in s.variant_names}
        specs = [s for s in hub.catalog
                 if (not family or s.family == family)
                 and (not system or system in s.systems)
                 and (not difficulty or str(s.difficulty) == difficulty)
                 and (not gold or any(board[(s.id, v)] == gold for v in s.variant_names))
                 and (not who or any(assignments.get((s.id, v)) == who
                                     for v in s.variant_names))
                 and (not text or text in f"{s.id} {s.alias} {s.title}".lower())]
        return page(request, "tasks.html", specs=specs, filters={
            "family": family, "system": system, "difficulty": difficulty, "q": text,
            "gold": gold, "assignee": assignee},
            families=sorted({s.family for s in hub.catalog}),
            systems=sorted({x for s in hub.catalog for x in s.systems}),
            difficulties=sorted({s.difficulty for s in hub.catalog}),
            gold_states=GOLD_STATES, board=board, assignments=assignments,
            accounts=accounts.users(), episodes=hub.visible(user),
            past=[p for p in hub.records.past_episodes() if p["id"] not in hub.episodes
                  and (user.is_admin or p["owner"] == user.name)][-10:])

    async def task_page(request: Request, user: User) -> Response:
        key = request.path_params["key"]
        try:
            spec = hub.catalog.get(key)
        except CatalogError as exc:
            return page(request, "problem.html", status=404, message=str(exc),
                        suggestions=_suggest(hub.catalog, key))
        recordings = [r for r in hub.records.recordings(task=spec.id)
                      if user.is_reviewer or r["annotator"] == user.name]
        return page(request, "task.html", spec=spec, recordings=recordings)

    async def start(request: Request, user: User) -> Response:
        form = await request.form()
        try:
            entry = hub.start_episode(str(form.get("task", "")), str(form.get("variant", "")),
                                      owner=user.name)
        except CatalogError as exc:
            key = str(form.get("task", ""))
            return page(request, "problem.html", status=404, message=str(exc),
                        suggestions=_suggest(hub.catalog, key))
        except HubError as exc:
            return problem(request, exc, exc.status)
        return RedirectResponse(request.url_for("episode", episode_id=entry.id), 303)

    async def episode_page(request: Request, user: User) -> Response:
        episode_id = request.path_params["episode_id"]
        try:
            entry = hub.get(episode_id, user)
        except HubError as exc:
            past = hub.records.past_episode(episode_id)
            if past is not None and (user.is_admin or past["owner"] == user.name):
                return page(request, "past_episode.html", past=past,
                            recordings=hub.records.recordings(episode_id=episode_id))
            return problem(request, exc, exc.status)
        return page(request, "session.html", entry=entry, spec=entry.episode.spec,
                    state=hub.describe(entry, request))

    async def api_state(request: Request, user: User) -> Response:
        try:
            entry = hub.get(request.path_params["episode_id"], user)
        except HubError as exc:
            return problem(request, exc, exc.status)
        return JSONResponse(hub.describe(entry, request))

    async def api_list(request: Request, user: User) -> Response:
        return JSONResponse([hub.describe(e, request) for e in hub.visible(user)])

    def action(handler: Callable[[HubEpisode, dict[str, Any]], Any]):
        async def endpoint(request: Request, user: User) -> Response:
            try:
                entry = hub.get(request.path_params["episode_id"], user)
                body = await _json_body(request)
                extra = handler(entry, body)
                if asyncio.iscoroutine(extra):
                    extra = await extra
            except (HubError, EpisodeError) as exc:
                return problem(request, exc, getattr(exc, "status", 409))
            return JSONResponse({**hub.describe(entry, request), **(extra or {})})
        return guard.action(endpoint)

    def do_reset(entry: HubEpisode, _body: dict) -> None:
        entry.episode.check_running(allow_finished=True)
        if entry.busy is not None:
            raise HubError(f"the episode is busy ({entry.busy}); try again when it is done", 409)
        if entry.recording is not None:  # the page asked first; kept, marked partial
            hub.stop_recording(entry, partial=True)

        def done(seconds: float) -> None:
            entry.result = None
            entry.recording = None
            entry.message = f"reset in {seconds:.2f} s"

        hub.run_job(entry, "resetting", entry.episode.reset(), done)

    def do_finish(entry: HubEpisode, _body: dict) -> None:
        entry.episode.check_running()
        if entry.busy is not None:
            raise HubError(f"the episode is busy ({entry.busy}); try again when it is done", 409)
        if entry.recording is not None:
            hub.stop_recording(entry)

        def done(result: EpisodeResult) -> None:
            entry.result = result
            hub.records.episode_status(entry.id, "finished", result.score)
            if entry.last_recording is not None:
                hub.records.update(entry.last_recording, live_score=result.score,
                                   live_checks=json.dumps(check_rows(result.report_json)))
                entry.last_recording = None

        hub.run_job(entry, "grading", entry.episode.finish(), done)

    def do_oracle(entry: HubEpisode, _body: dict) -> None:
        from episodes.oracle import run_oracle

        entry.episode.check_running()
        if entry.recording is not None:
            raise HubError("the oracle does not run while you record: its inputs would be "
                           "in your trace; stop the recording first", 409)
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
        hub.start_recording(entry, entry.owner)

    def do_record_stop(entry: HubEpisode, _body: dict) -> dict[str, Any]:
        return {"saved": hub.stop_recording(entry)}

    async def do_stop(entry: HubEpisode, _body: dict) -> None:
        if entry.recording is not None:
            hub.stop_recording(entry, partial=True)
        if entry.job is not None and not entry.job.done():
            entry.job.cancel()
        await entry.episode.stop()
        hub.records.episode_status(entry.id, "stopped")

    @asynccontextmanager
    async def lifespan(_app: Starlette):
        try:
            yield
        finally:
            await hub.stop_all()
            await stop_driver()  # the Playwright driver its episodes shared (episodes.driver)

    routes = [
        Route("/signin", signin_page, name="signin"),
        Route("/signin", signin, methods=["POST"]),
        Route("/signout", guard.action(signout), methods=["POST"], name="signout"),
        Route("/", guard.page(tasks_page), name="tasks"),
        Route("/tasks/{key}", guard.page(task_page), name="task"),
        Route("/episodes", guard.action(start), methods=["POST"], name="start"),
        Route("/episodes/{episode_id}", guard.page(episode_page), name="episode"),
        Route("/api/episodes", guard.page(api_list), name="api_episodes"),
        Route("/api/episodes/{episode_id}", guard.page(api_state), name="api_episode"),
        Route("/api/episodes/{episode_id}/reset", action(do_reset), methods=["POST"]),
        Route("/api/episodes/{episode_id}/finish", action(do_finish), methods=["POST"]),
        Route("/api/episodes/{episode_id}/oracle", action(do_oracle), methods=["POST"]),
        Route("/api/episodes/{episode_id}/record", action(do_record), methods=["POST"]),
        Route("/api/episodes/{episode_id}/record/stop", action(do_record_stop),
              methods=["POST"]),
        Route("/api/episodes/{episode_id}/stop", action(do_stop), methods=["POST"]),
        *review_routes(hub, guard, page, problem),
        Mount("/static", app=StaticFiles(directory=str(HERE / "static")), name="static"),
    ]

    async def not_found(request: Request, exc: Exception) -> Response:
        return problem(request, HubError("there is no such page in the hub; go back to the "
                                         "task list"), 404)

    hosts = allowed_hosts(settings.host, settings.public_hosts)
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={404: not_found},
                    middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)])
    app.state.hub = hub
    app.state.accounts = accounts
    app.state.throttle = throttle
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


def pixel_listen_host(host: str) -> str:
    """Pixel sessions stay on loopback unless the hub itself is reachable from elsewhere."""
    if host in ("127.0.0.1", "localhost", "::1", ""):
        return "127.0.0.1"
    return host


def serve_hub(host: str = "127.0.0.1", port: int = 8600, tasks_dirs: list[Path] | None = None,
              runs_dir: Path = Path("runs/hub"), max_episodes: int = 4,
              public_hosts: list[str] | None = None, tls: bool = False) -> int:
    """Run the hub until Ctrl-C; every episode it started is stopped on the way out."""
    import uvicorn

    settings = HubSettings(runs_dir=runs_dir, tasks_dirs=tasks_dirs or [],
                           max_episodes=max_episodes, host=host,
                           public_hosts=public_hosts or [], tls=tls,
                           episode=EpisodeConfig(listen_host=pixel_listen_host(host)))
    app = create_hub(settings)
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    base = f"{'https' if tls else 'http'}://{(public_hosts or [shown])[0]}" + (
        "" if tls else f":{port}")
    print(f"EHR Sandbox hub on {base}/ — {len(app.state.hub.catalog)} tasks; "
          "Ctrl-C stops it and every episode it started", flush=True)
    accounts: Accounts = app.state.accounts
    if accounts.single_user:
        secret = accounts.new_start_secret()
        print("single-user mode (no accounts; add some with `ehr-sandbox hub-user add`): "
              f"sign in with the secret {secret}\n  or open {base}/signin?secret={secret}",
              flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0
