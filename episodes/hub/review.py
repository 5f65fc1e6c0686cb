"""Recordings after Stop: download, check by replay, review (accept or reject), assignment.

``POST /api/recordings/{n}/check`` replays the trace in a fresh episode of the same task
and variant (counted against ``--max-episodes``) and keeps its score and checks beside the
live grade; a reviewer (another account than the annotator) accepts or rejects a checked
recording with a note; accepting copies it into the task's ``human/`` folder.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from episodes.hub.auth import User
from episodes.hub.guard import Guard
from episodes.hub.records import check_rows
from episodes.hub.state import Hub, HubError

log = logging.getLogger(__name__)


def review_routes(hub: Hub, guard: Guard, page: Callable[..., Response],
                  problem: Callable[[Request, Exception, int], Response]) -> list[Route]:
    records = hub.records

    def visible(n: int, user: User) -> dict[str, Any]:
        rec = records.recording(n)
        if rec is None or not (user.is_reviewer or rec["annotator"] == user.name):
            raise HubError(f"there is no recording {n}", 404)
        return rec

    def number(request: Request) -> int:
        try:
            return int(request.path_params["n"])
        except ValueError:
            raise HubError("a recording number is a whole number", 404) from None

    async def recording_page(request: Request, user: User) -> Response:
        try:
            rec = visible(number(request), user)
        except HubError as exc:
            return problem(request, exc, exc.status)
        spec = hub.catalog.get(rec["task"])
        return page(request, "recording.html", rec=rec, spec=spec,
                    checking=rec["n"] in hub.checks, single_user=guard.accounts.single_user)

    async def download(request: Request, user: User) -> Response:
        try:
            rec = visible(number(request), user)
        except HubError as exc:
            return problem(request, exc, exc.status)
        return FileResponse(rec["path"], media_type="application/x-ndjson",
                            filename=rec["download"])

    async def api_recording(request: Request, user: User) -> Response:
        try:
            rec = visible(number(request), user)
        except HubError as exc:
            return problem(request, exc, exc.status)
        return JSONResponse({**rec, "checking": rec["n"] in hub.checks})

    async def check(request: Request, user: User) -> Response:
        try:
            rec = visible(number(request), user)
            start_check(hub, rec)
        except HubError as exc:
            return problem(request, exc, exc.status)
        return JSONResponse({**records.recording(rec["n"]), "checking": True})  # type: ignore[dict-item]

    async def review(request: Request, user: User) -> Response:
        form = await request.form()
        try:
            rec = visible(number(request), user)
            decision, note = str(form.get("decision", "")), str(form.get("note", "")).strip()
            if not user.is_reviewer:
                raise HubError("only a reviewer or an admin accepts or rejects recordings", 403)
            if rec["annotator"] == user.name and not guard.accounts.single_user:
                raise HubError("a recording is reviewed by another account than its "
                               "annotator's", 403)
            if rec["partial"]:
                raise HubError("a partial recording cannot be accepted", 409)
            if rec["status"] not in ("checked", "rejected", "accepted"):
                raise HubError("check the recording by replay before reviewing it", 409)
            if decision == "accept":
                folder = hub.task_folder(hub.catalog.get(rec["task"]))
                records.accept(rec["n"], folder, user.name, note)
            elif decision == "reject":
                if not note:
                    raise HubError("say why in the note when rejecting", 400)
                records.update(rec["n"], status="rejected", reviewer=user.name, note=note)
            else:
                raise HubError("decision is accept or reject", 400)
        except HubError as exc:
            return problem(request, exc, exc.status)
        return RedirectResponse(f"/recordings/{rec['n']}", 303)

    async def assign(request: Request, user: User) -> Response:
        form = await request.form()
        try:
            if not user.is_admin:
                raise HubError("only an admin assigns tasks", 403)
            spec = hub.catalog.get(str(form.get("task", "")))
            variant = str(form.get("variant", ""))
            if variant not in spec.variant_names:
                raise HubError(f"{spec.alias} has no variant {variant!r}", 400)
            annotator = str(form.get("annotator", ""))
            names = {u.name for u in guard.accounts.users()}
            if annotator and annotator not in names:
                raise HubError(f"there is no account {annotator!r}", 400)
            records.assign(spec.id, variant, annotator)
        except HubError as exc:
            return problem(request, exc, exc.status)
        except Exception as exc:  # noqa: BLE001 - an unknown task from the catalog
            return problem(request, exc, 404)
        return RedirectResponse("/", 303)

    return [
        Route("/recordings/{n}", guard.page(recording_page), name="recording"),
        Route("/recordings/{n}/trace", guard.page(download), name="recording_file"),
        Route("/api/recordings/{n}", guard.page(api_recording), name="api_recording"),
        Route("/api/recordings/{n}/check", guard.action(check), methods=["POST"]),
        Route("/recordings/{n}/review", guard.action(review), methods=["POST"],
              name="review"),
        Route("/assign", guard.action(assign), methods=["POST"], name="assign"),
    ]


def start_check(hub: Hub, rec: dict[str, Any]) -> None:
    if rec["partial"]:
        raise HubError("a partial recording is not checked; record the task again", 409)
    if rec["n"] in hub.checks:
        raise HubError("this recording is being checked already", 409)
    if len(hub.active()) + len(hub.checks) >= hub.settings.max_episodes:
        raise HubError(f"{hub.settings.max_episodes} episodes are already running; stop one "
                       "first", 409)
    run_dir = hub.settings.runs_dir / "checks" / f"{rec['alias']}-{rec['variant']}-{rec['n']}"
    hub.records.update(rec["n"], status="checking", replay_error=None)
    hub.checks[rec["n"]] = asyncio.get_running_loop().create_task(
        replay_check(hub, rec, run_dir), name=f"check-{rec['n']}")


async def replay_check(hub: Hub, rec: dict[str, Any], run_dir: Path) -> None:
    """Replay a recording in a fresh episode; its score and checks go to the recording."""
    from episodes.agents import AgentSpec
    from episodes.runner import run_episode

    records = hub.records
    try:
        spec = hub.catalog.get(rec["task"])
        result = await run_episode(spec, rec["variant"],
                                   AgentSpec("replay", Path(rec["path"])), run_dir,
                                   hub.settings.episode, measure_reset=False)
        records.update(rec["n"], status="checked", replay_score=result.score,
                       replay_checks=json.dumps(check_rows(result.report_json)),
                       replay_error=result.error or (None if result.score is not None
                                                     else result.status))
    except asyncio.CancelledError:
        records.update(rec["n"], status="recorded", replay_error="the check was cancelled")
        raise
    except Exception as exc:  # noqa: BLE001 - shown on the recording's page
        log.exception("replay check of recording %s failed", rec["n"])
        records.update(rec["n"], status="recorded",
                       replay_error=f"{type(exc).__name__}: {exc}")
    finally:
        hub.checks.pop(rec["n"], None)
