"""An episode: one task, one variant, every process it needs, from seed to report.

``Episode.start()`` seeds a run directory (unless given a seeded one), starts the sandbox
clock, one ``portal_web`` server for all of the task's web systems, each published app (the
desktop EHR) on its own display behind a pixel session in published mode, and the
workstation — a display in desktop mode with the taskbar, the locked-down browser and, for
desktop tasks, the Citrix Workspace receiver window. The workstation's pixel session is
what agents and viewers connect to (``connection()``), and it records the trace.

``reset()`` puts the stores back from ``seed/`` in place, empties Output/Downloads/fax, starts
the clock again and brings the browser and each published app back to their start screen,
restarting only what cannot be reset otherwise. ``finish()`` takes the final screenshot,
closes the trace, extracts, grades and writes ``report.json``. ``stop()`` ends every process
of the episode; an unexpected exit of any of them marks the episode failed, with the tail of
its log, and stops the rest.

Its configuration is :mod:`episodes.config`; the run directory's files
:mod:`episodes.run_files`; the published apps :mod:`episodes.published_apps`.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import logging
import os
import secrets
import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from episodes import prestart
from episodes.config import (
    DESKTOP_SYSTEMS,
    EpisodeConfig,
    EpisodeError,
    Status,
    new_episode_id,
)
from episodes.driver import shared_playwright
from episodes.phases import Phases
from episodes.processes import (
    alive,
    http_answers,
    reap,
    with_argument_and_descendants,
)
from episodes.published_apps import PublishedApp
from episodes.result import FAILED, EpisodeResult, grade_extract
from episodes.run_files import (
    archive_attempt,
    count_steps,
    prepare_run_dir,
    reset_files_and_stores,
)
from episodes.settle import settle_workstation
from episodes.workstation import Workstation, task_sites, task_tabs
from sandbox.catalog import TaskSpec
from sandbox.clock import SharedClock
from sandbox.extract import extract_run
from sandbox.seeding import check_variant

log = logging.getLogger(__name__)

# what portal_web imports before it serves: imported by its interpreter while the run is
# seeded (episodes.prestart); each site also brings the module that builds its app (a
# site's own module imports it only when the site is built: the EHR's is 0.65 s of imports)
# and, for a site with view modules, their import (``warm``: 0.04 s for the EHR's with
# their bytecode, 0.14 s without); last, the ORM's mappers are configured (else the first
# query does it: 0.05 s)
PORTAL_WARM_IMPORTS = ("uvicorn", "uvicorn.server", "uvicorn.protocols.http.h11_impl",
                       "uvicorn.lifespan.on", "portal_web")
SITE_APP_MODULES = {"acme_api": "portal_web.payer_api.app",
                    "workspace": "portal_web.workspace.files",
                    "ehr": "portal_web.ehr.app:warm", "acme": "portal_web.acme.app:warm",
                    "dme": "portal_web.dme.app:warm", "epa": "portal_web.epa.app:warm"}
CONFIGURE_MAPPERS = "sqlalchemy.orm:configure_mappers"


def portal_warm_imports(sites: list[str]) -> list[str]:
    """The modules ``portal_web`` serving ``sites`` imports before it answers, and the
    functions it calls (``MODULE:FUNCTION``, see ``episodes.prestart``)."""
    return [*PORTAL_WARM_IMPORTS, *(module for site in sites for module in (
        f"portal_web.sites.{site}", SITE_APP_MODULES.get(site, f"portal_web.{site}.app"))),
        CONFIGURE_MAPPERS]

def warm_pool_modules() -> list[str]:
    """What a fork server (``episodes.forkserver``) for episodes imports: what
    ``portal_web`` serving every site, the taskbar and each published app run by this
    Python import."""
    from episodes.published_apps import WARM_IMPORTS, warm_imports
    from episodes.workstation import SITE_HOSTS, TASKBAR_WARM_IMPORTS

    modules = ["episodes.prestart", *portal_warm_imports(list(SITE_HOSTS)),
               *TASKBAR_WARM_IMPORTS]
    modules += [name for module in WARM_IMPORTS for system in DESKTOP_SYSTEMS
                for name in warm_imports(module, system)]
    # the calls after every import (the mappers of every store module imported)
    ordered = [m for m in modules if ":" not in m] + [m for m in modules if ":" in m]
    return list(dict.fromkeys(ordered))


__all__ = ["DESKTOP_SYSTEMS", "Episode", "EpisodeConfig", "EpisodeError", "new_episode_id"]

class Episode:
    """One run of a task (see the module docstring for the lifecycle)."""

    def __init__(self, spec: TaskSpec, variant: str | None = None, *,
                 run_dir: Path | None = None, config: EpisodeConfig | None = None,
                 episode_id: str | None = None, agent: str = "none"):
        self.spec = spec
        self.variant = check_variant(spec, variant)
        self.config = config or EpisodeConfig()
        self.episode_id = episode_id or new_episode_id()
        self._own_run_dir = run_dir is None
        self.run_dir = Path(run_dir) if run_dir else Path(tempfile.mkdtemp(prefix="ehr-run-"))
        self.status: Status = "new"
        self.failure: str | None = None
        self.token = secrets.token_urlsafe(24)
        self.started_at: float | None = None
        self.ready_s: float | None = None
        self.last_reset_s: float | None = None
        self.last_reset_settled_s: float | None = None  # until the screen settled
        self.settled: dict[str, Any] = {}  # what the last settle waited for
        self.attempt = 1
        self.agent = agent  # who works on it (the results' ``agent``)
        self.portal: Any = None
        self.portal_port: int | None = None
        self.display: Any = None
        self.session: Any = None
        self.workstation: Workstation | None = None
        self.apps: dict[str, PublishedApp] = {}
        self._playwright: Any = None
        self._portal_go: int | None = None  # the prestarted portal's pipe (episodes.prestart)
        self._sockets_dir: Path | None = None
        self._watchdog: asyncio.Task | None = None
        self._stopping = False
        self._stop_task: asyncio.Task | None = None
        self._known_pids: set[int] = set()
        self.listeners: list[Any] = []  # callables(episode) told about status changes
        self.timings: dict[str, float] = {}
        self._t0 = time.monotonic()
        self.phases = Phases(self._t0)  # where the start spent its time
        self.reset_phases = Phases()  # and the last reset

    # -- facts ----------------------------------------------------------------------------
    @property
    def desktop_systems(self) -> list[str]:
        return [s for s in self.spec.systems if s in DESKTOP_SYSTEMS]

    @property
    def logs_dir(self) -> Path:
        return self.run_dir / "logs"

    @property
    def clock_path(self) -> Path:
        return self.run_dir / "clock.json"

    def connection(self) -> dict[str, Any]:
        """How an agent or a viewer reaches the workstation (and each published app)."""
        if self.session is None:
            raise EpisodeError(f"episode {self.episode_id} is not running ({self.status})")
        return {
            "episode_id": self.episode_id,
            "agent_url": self.session.agent_url,
            "token": self.session.token,
            "viewer_url": self.session.url,
            "screen": list(self.config.screen),
            "published_apps": {s: a.connection for s, a in self.apps.items()},
        }

    def describe(self) -> dict[str, Any]:
        return {
            "episode_id": self.episode_id, "task": self.spec.id, "alias": self.spec.alias,
            "variant": self.variant, "status": self.status, "failure": self.failure,
            "run_dir": str(self.run_dir), "attempt": self.attempt,
            "ready_s": self.ready_s, "last_reset_s": self.last_reset_s,
            "last_reset_settled_s": self.last_reset_settled_s,
            "start_timings": dict(self.timings), "settled": dict(self.settled),
            "start_phases": self.phases.as_dict(),
            "reset_phases": self.reset_phases.as_dict(),
        }

    def _set_status(self, status: Status) -> None:
        self.status = status
        for listener in list(self.listeners):
            try:
                listener(self)
            except Exception:  # noqa: BLE001 - a listener must not break the episode
                log.exception("episode listener failed")

    # -- start ----------------------------------------------------------------------------
    async def start(self) -> Episode:
        """Seed (if needed) and start every process; returns when the workstation is up."""
        if self.status != "new":
            raise EpisodeError(f"episode {self.episode_id} was already started")
        self._set_status("starting")
        self._t0 = time.monotonic()
        self.phases = Phases(self._t0)
        try:
            await asyncio.wait_for(self._start_and_settle(), self.config.start_timeout_s)
        except BaseException as exc:
            reason = self.failure or _describe_error(exc, self.phases.cut)
            await self.stop()
            self.failure = reason
            self._set_status("failed")
            if isinstance(exc, asyncio.CancelledError | KeyboardInterrupt):
                raise
            raise EpisodeError(f"{self.spec.alias}: the episode did not start: {reason}") from exc
        self.started_at = time.monotonic()
        self.ready_s = self.started_at - self._t0
        self._watchdog = asyncio.create_task(self._watch(), name=f"watch-{self.episode_id}")
        self._set_status("running")
        return self

    async def _start_and_settle(self) -> None:
        await self._start_processes()
        self._mark("up")
        # the agent's first observation: the workstation once it has settled
        with self.phases.span("screen settled"):
            self.settled = await settle_workstation(self)
        self._mark("settled")

    def _mark(self, what: str) -> None:
        """When each part of the start was ready (seconds since start), for benchmarks."""
        self.timings[what] = round(time.monotonic() - self._t0, 3)

    async def _start_processes(self) -> None:
        """Everything in parallel where it can be. Before the run is seeded: Playwright's
        driver, the workstation display and each published app's display. Once it is
        seeded, side by side: the portal (its socket is bound first, so the browser can be
        launched and load its tabs while the portal starts), each published app (its pixel
        session first, so the Citrix window connects while the app starts up), the
        workstation's session and taskbar, the tab browser and the Citrix window."""
        from pixel_stream.display import Display

        # the first start in a process imports the pixel session and Playwright (about
        # 0.5 s): in a thread, beside the displays and the seeding, not on this loop
        imported = asyncio.ensure_future(asyncio.to_thread(importlib.import_module,
                                                           "pixel_stream.session"))
        self._sockets_dir = Path(tempfile.mkdtemp(prefix="ehr-ep-"))
        sites = task_sites(self.spec.systems)
        width, height = self.config.screen
        listener = _portal_listener() if sites else None
        if listener is not None:
            self.portal_port = listener.getsockname()[1]
        tasks: list[asyncio.Future] = []

        def spawn(coro: Any) -> asyncio.Future:
            task = asyncio.ensure_future(coro)
            tasks.append(task)
            return task

        # a desktop task's Citrix window is a WebRTC viewer of its app's session: WebRTC
        # and video are imported beside the start too (a browser task never needs them)
        webrtc = (spawn(asyncio.to_thread(importlib.import_module, "pixel_stream.viewers"))
                  if self.desktop_systems else None)

        async def receiver() -> None:
            if webrtc is not None:
                await webrtc
            await self._start_receiver(published, launches)

        async def playwright() -> None:
            # one driver for every episode of this loop (episodes.driver): only the first
            # start of a process (or one after the driver died) waits for Node.js
            with self.phases.span("playwright driver"):
                self._playwright = await shared_playwright()
            self._mark("playwright")

        async def workstation_display() -> None:
            display = Display(width, height)
            self.display = await asyncio.to_thread(display.start)
            self._display_phases("workstation", display)
            self._mark("workstation display")

        try:
            tasks.append(imported)
            self._prestart_portal(sites, listener)
            driver, display = spawn(playwright()), spawn(workstation_display())
            published = {s: spawn(self._publish(s)) for s in self.desktop_systems}
            with self.phases.span("seed run directory"):
                await asyncio.to_thread(prepare_run_dir, self.spec, self.variant,
                                        self.run_dir, self.episode_id)
            self._mark("seeded")
            portal = spawn(self._start_portal(listener))
            with self.phases.span("modules imported"):
                await imported
            launches = {s: spawn(self._launch_app(s, published[s])) for s in published}
            await display  # the taskbar and the workstation's session need no driver
            self._start_workstation()
            session = spawn(self._start_session())
            await driver
            # beside the session: the tab browser and, once its app's session listens, the
            # Citrix window (neither needs the workstation's session)
            await asyncio.gather(portal, session, spawn(self._start_browser()),
                                 spawn(receiver()), *launches.values())
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        finally:
            if listener is not None:
                listener.close()  # the portal holds its own copy
        with self.phases.span("browser processes found"):
            await asyncio.to_thread(self._remember_browsers)

    def _display_phases(self, label: str, display: Any) -> None:
        for name, (began, ended) in display.startup.items():
            self.phases.add(f"{label} display: {name}", began, ended)

    def _prestart_portal(self, sites: list[str], listener: socket.socket | None) -> None:
        """``portal_web``'s interpreter, started before the run is seeded: it imports uvicorn
        and the task's sites meanwhile and serves once told (``_start_portal``)."""
        if listener is None:
            return
        port, fd = listener.getsockname()[1], listener.fileno()
        self.logs_dir.mkdir(parents=True, exist_ok=True)
        with self.phases.span("portal_web: interpreter started (prestart)"):
            self.portal, self._portal_go = prestart.spawn(
                [sys.executable, "-m", "portal_web", "--run-dir", str(self.run_dir),
                 "--port", str(port), "--fd", str(fd), "--episode-id", self.episode_id,
                 "--sites", *sites],
                portal_warm_imports(sites),
                name="portal_web", env=_child_env(), log_path=self.logs_dir / "portal.log",
                pass_fds=(fd,))
        self._remember(self.portal.pid)

    async def _start_portal(self, listener: socket.socket | None) -> None:
        """The prestarted ``portal_web`` serving on the socket bound for it, once the run is
        seeded; ready when it answers."""
        if listener is None or self.portal is None or self._portal_go is None:
            return
        from pixel_stream.procs import wait_until

        port = listener.getsockname()[1]
        with self.phases.span("portal_web (start to first answer)"):
            go, self._portal_go = self._portal_go, None
            prestart.go(go)
            try:
                # a request waits in the socket's queue until the portal accepts it
                await asyncio.to_thread(
                    wait_until, lambda: http_answers(port, timeout=2.0),
                    self.config.start_timeout_s, f"portal_web to answer on port {port}",
                    0.01, self.portal)
            except Exception as exc:
                raise EpisodeError(f"portal_web did not start: {exc}") from exc
        self._mark("portal_web")

    async def _publish(self, system: str) -> PublishedApp:
        """A published app's display (it needs nothing of the seeded run); the app's
        interpreter is started first, to import what it needs meanwhile (prestart)."""
        from pixel_stream.display import Display

        command = self.config.published_apps.get(system)
        if not command:
            raise EpisodeError(f"no published app is configured for system {system!r}")
        width, height = self.config.published_screen
        assert self._sockets_dir is not None  # made first thing in _start_processes
        inspector = self._sockets_dir / f"{system}.sock"
        values = {"python": sys.executable, "system": system, "run_dir": str(self.run_dir),
                  "inspector": str(inspector), "episode_id": self.episode_id}
        env = _child_env()
        env.update({"HOME": str(self.run_dir / "home"), "EHR_SANDBOX_EPISODE": self.episode_id})
        app = PublishedApp(system, Display(width, height),
                           argv=[part.format(**values) for part in command],
                           env=env, log_path=self.logs_dir / f"{system}.log",
                           inspector=inspector if "{inspector}" in " ".join(command) else None)
        self.apps[system] = app
        self.logs_dir.mkdir(parents=True, exist_ok=True)
        with self.phases.span(f"{system} app: interpreter started (prestart)"):
            app.prestart(self._remember)
        await asyncio.to_thread(app.display.start)
        self._display_phases(system, app.display)
        return app

    async def _launch_app(self, system: str, published: asyncio.Future) -> None:
        """Once the run is seeded: the app's pixel session first (the Citrix window can
        connect while the app starts up), then the app."""
        from pixel_stream.session import PixelSession

        app: PublishedApp = await published
        with self.phases.span(f"{system} pixel session"):
            app.session = await PixelSession(
                app.display, host=self.config.listen_host, mode="published",
                clock=SharedClock(self.clock_path), name=f"{self.episode_id}-{system}").start()
        app.session_ready.set()
        with self.phases.span(f"{system} app (window and inspector)"):
            await app.launch(self.config.start_timeout_s, self._remember)
        self._mark(f"{system} app")

    async def _start_session(self) -> None:
        """The workstation's pixel session (agents and viewers connect here)."""
        from pixel_stream.session import PixelSession

        with self.phases.span("workstation pixel session"):
            # (a start cut short stops what it started: PixelSession.start)
            self.session = await PixelSession(
                self.display, host=self.config.listen_host, token=self.token, mode="desktop",
                record_dir=self.run_dir / "trace",
                record_screenshots=self.config.record_screenshots,
                clock=SharedClock(self.clock_path),
                name=f"{self.episode_id}-workstation").start()

    def _start_workstation(self) -> None:
        """The workstation (its browsers start later) and its taskbar."""
        system = self.desktop_systems[0] if self.desktop_systems else None
        self.workstation = Workstation(
            display=self.display, home=self.run_dir / "home",
            documents=self.run_dir / "input", downloads=self.run_dir / "downloads",
            portal_port=self.portal_port or 9, sites=task_sites(self.spec.systems),
            tabs=task_tabs(self.spec.systems, self.spec.instruction),
            clock_path=self.clock_path, logs_dir=self.logs_dir,
            receiver_title=f"Citrix Workspace – {system.capitalize()}" if system
            else "Citrix Workspace",
            chromium=self.config.chromium, on_crash=self._crashed, phases=self.phases)
        with self.phases.span("taskbar (launched)"):
            self.workstation.start_taskbar()
        for proc in self.workstation.processes():
            self._remember(proc.pid)

    async def _start_browser(self) -> None:
        assert self.workstation is not None  # _start_workstation came first
        await self.workstation.start_browser(self._playwright)
        self._mark("browser")

    async def _start_receiver(self, published: dict[str, asyncio.Future],
                              launches: dict[str, asyncio.Future]) -> None:
        """The Citrix window as soon as the first app's session listens."""
        if not self.desktop_systems:
            return
        system = self.desktop_systems[0]
        app: PublishedApp = await published[system]
        waiting = asyncio.ensure_future(app.session_ready.wait())
        try:
            await asyncio.wait([waiting, launches[system]],
                               return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiting.cancel()
        if app.session_ready.is_set() and self.workstation is not None:
            await self.workstation.start_receiver(self._playwright, app.session.port,
                                                  app.session.token)
            self._mark("citrix window")

    # -- supervision ----------------------------------------------------------------------
    def _remember(self, pid: int) -> None:
        self._known_pids.add(pid)

    def _remember_browsers(self) -> None:
        """Chromium and its helpers are children of Playwright's driver: find them by the
        episode's profile folder on their command line (and their children)."""
        marker = str(self.run_dir / "home" / ".config")
        self._known_pids.update(with_argument_and_descendants(marker))

    def process_ids(self) -> set[int]:
        """Every process this episode started that is still alive (for leak checks)."""
        self._remember_browsers()
        pids = set(self._known_pids)
        for display in [self.display, *(a.display for a in self.apps.values())]:
            if display is not None:
                pids.update(display.pids)
        return {p for p in pids if alive(p)}

    def _processes(self) -> list[tuple[str, Any]]:
        procs = [("portal_web", self.portal)] if self.portal else []
        for system, app in self.apps.items():
            if app.process is not None:
                procs.append((f"the {system} app", app.process))
        if self.workstation is not None:
            procs += [("the taskbar", p) for p in self.workstation.processes()]
        return procs

    async def _watch(self) -> None:
        while not self._stopping:
            lost = getattr(self.session, "recording_failure", None)
            if lost and not self._stopping:
                self._crashed(lost)
                return
            for name, proc in self._processes():
                code = proc.poll()
                if code is not None and not self._stopping:
                    self._crashed(f"{name} exited with status {code}{proc.stderr_tail(1500)}")
                    return
            displays = [("the workstation display", self.display)]
            displays += [(f"the {s} display", a.display) for s, a in self.apps.items()]
            for name, display in displays:
                if display is not None and not display.running and not self._stopping:
                    self._crashed(f"{name} (Xvfb) exited")
                    return
            await asyncio.sleep(0.5)

    def _crashed(self, reason: str) -> None:
        """An app died: the episode is failed; stop the rest (other episodes go on)."""
        if self._stopping or self.status in ("failed", "stopped"):
            return
        log.warning("episode %s failed: %s", self.episode_id, reason)
        self.failure = reason
        self._set_status("failed")
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().create_task(self.stop())

    def check_running(self, allow_finished: bool = False) -> None:
        if self.status != "running" and not (allow_finished and self.status == "finished"):
            detail = f": {self.failure}" if self.failure else ""
            raise EpisodeError(f"episode {self.episode_id} is {self.status}{detail}")

    # -- reset ----------------------------------------------------------------------------
    async def reset(self) -> float:
        """Back to the seeded start without restarting what need not restart; seconds."""
        self.check_running(allow_finished=True)
        started = time.monotonic()
        phases = self.reset_phases = Phases(started)
        with phases.span("trace closed"):
            await self._close_trace()
        with phases.span("attempt archived"):
            await asyncio.to_thread(self._archive_attempt)
        # the browser's tabs stopped first (nothing of the attempt reaches the stores
        # after they are restored), its state cleared beside the restoring
        browser = self.workstation.reset_steps(phases) if self.workstation else None
        try:
            if browser is not None:
                await browser.stop()
            restoring = asyncio.ensure_future(self._restore_files_and_stores(phases))

            async def browser_reset() -> None:
                if browser is not None:
                    await browser.clear()
                    await restoring
                    await browser.load()

            async def apps_reset() -> None:
                await restoring
                await asyncio.gather(*(self._reset_app(app) for app in self.apps.values()))

            await asyncio.gather(restoring, browser_reset(), apps_reset())
        finally:
            if browser is not None:
                await browser.close()
        workstation = self.workstation
        kept = await workstation.state_kept_by_the_browser() if workstation else None
        if workstation is not None and kept is not None:
            # what Chromium keeps while it runs goes only with it (Workstation)
            log.info("episode %s: the browser starts anew (the attempt left %s in it)",
                     self.episode_id, kept)
            with phases.span("browser: started anew (it kept a file chooser's folder or "
                             "its download button)"):
                try:
                    await workstation.restart_browser(self._playwright)
                except Exception as exc:
                    reason = f"the tab browser did not start again after the reset: {exc}"
                    self._crashed(reason)
                    raise EpisodeError(f"{self.spec.alias}: {reason}") from exc
                await asyncio.to_thread(self._remember_browsers)
        with phases.span("trace opened"):
            await self._open_trace()
        self.last_reset_s = time.monotonic() - started
        with phases.span("screen settled"):
            self.settled = await settle_workstation(self)
        if self.workstation is not None and not self.workstation.strip_as_at_start():
            # a tab pinned, grouped or moved: the tabs are made anew (episodes.tab_reset)
            again = time.monotonic()
            with phases.span("browser: tabs made anew (the tab strip was not the start's)"):
                await self.workstation.reset(phases, fresh=True)
            self.last_reset_s += time.monotonic() - again
            with phases.span("screen settled again"):
                self.settled = await settle_workstation(self)
        self.last_reset_settled_s = time.monotonic() - started
        self.started_at = time.monotonic()
        if self.status == "finished":
            self._set_status("running")
        return self.last_reset_s

    async def _restore_files_and_stores(self, phases: Phases) -> None:
        with phases.span("stores and files restored"):
            await asyncio.to_thread(reset_files_and_stores, self.spec, self.variant,
                                    self.run_dir)

    async def _reset_app(self, app: PublishedApp) -> None:
        with self.reset_phases.span(f"{app.system} app reset"):
            await app.reset(self.config.start_timeout_s, self._remember)

    # -- trace ----------------------------------------------------------------------------
    async def _close_trace(self) -> None:
        recorder = getattr(self.session, "recorder", None)
        if recorder is not None:
            self.session.recorder = None
            await recorder.close()

    async def _open_trace(self) -> None:
        from pixel_stream.recording import TraceRecorder

        if self.session is None or self.session.recorder is not None:
            return
        recorder = TraceRecorder(
            self.run_dir / "trace", self.session.capture, SharedClock(self.clock_path).now,
            screenshots=self.config.record_screenshots,
            header={"mode": "desktop", "display": self.session.display_name,
                    "episode_id": self.episode_id, "attempt": self.attempt},
            on_failure=self.session.recording_failed)
        await recorder.start()
        self.session.recorder = recorder

    def trace_path(self) -> Path:
        return self.run_dir / "trace" / "trace.jsonl"

    def steps(self) -> int:
        """Inputs of this attempt: agent actions, and presses (not motion) of viewers."""
        return count_steps(self.trace_path())

    def _archive_attempt(self) -> None:
        """Move the finished attempt's trace, report and extract under attempts/N/."""
        if archive_attempt(self.run_dir, self.attempt):
            self.attempt += 1

    # -- finish ---------------------------------------------------------------------------
    async def screenshot_png(self) -> bytes:
        from pixel_stream.imaging import encode_frame

        frame = await self.session.capture.fresh_frame()
        return await asyncio.to_thread(encode_frame, frame, "png")

    async def finish(self) -> EpisodeResult:
        """Final screenshot, trace, extract, grade, ``report.json``; the episode stays up."""
        self.check_running()
        self._set_status("finishing")
        duration = time.monotonic() - (self.started_at or time.monotonic())
        files: dict[str, str] = {}
        try:
            png = await self.screenshot_png()
            (self.run_dir / "final.png").write_bytes(png)
            files["final_screenshot"] = str(self.run_dir / "final.png")
        except Exception as exc:  # noqa: BLE001 - a missing screenshot must not lose the grade
            log.warning("no final screenshot: %s", exc)
        await self._close_trace()
        lost = getattr(self.session, "recording_failure", None)
        if lost:  # an unrecorded run is not graded as if it were recorded
            self._crashed(lost)
            raise EpisodeError(f"episode {self.episode_id} failed: {lost}")
        files["trace"] = str(self.trace_path())
        result = await asyncio.to_thread(self._grade, duration, files)
        self._set_status("finished")
        return result

    def _grade(self, duration: float, files: dict[str, str]) -> EpisodeResult:
        extract_dir = self.run_dir / "extract"
        extract_run(self.run_dir, extract_dir)
        files["extract"] = str(extract_dir)
        grading = grade_extract(self.spec, extract_dir, self.variant)
        if grading.report is not None:
            (self.run_dir / "report.json").write_text(grading.report.to_json_text() + "\n")
            files["report"] = str(self.run_dir / "report.json")
        result = EpisodeResult.from_grading(
            grading, **self._facts(), duration_s=round(duration, 3), files=files)
        (self.run_dir / "result.json").write_text(json.dumps(result.row(), indent=2) + "\n")
        return result

    def _facts(self) -> dict[str, Any]:
        """What every result of this episode says about the run."""
        return {"task": self.spec.id, "alias": self.spec.alias, "variant": self.variant,
                "episode_id": self.episode_id, "agent": self.agent,
                "reset_s": None if self.last_reset_s is None else round(self.last_reset_s, 3),
                "steps": self.steps(), "run_dir": str(self.run_dir),
                "ready_s": None if self.ready_s is None else round(self.ready_s, 3)}

    def failed_result(self, reason: str) -> EpisodeResult:
        """The result of an episode that ended before it could be graded."""
        return EpisodeResult(**self._facts(), status=FAILED, score=None, duration_s=0.0,
                             error=reason)

    # -- stop -----------------------------------------------------------------------------
    async def stop(self) -> None:
        """End every process of the episode (idempotent, and every caller waits for the
        same orderly stop); the run directory stays."""
        if self._stop_task is None:
            self._stop_task = asyncio.get_running_loop().create_task(self._stop())
        await asyncio.shield(self._stop_task)

    async def _stop(self) -> None:
        self._stopping = True
        if self._watchdog is not None and self._watchdog is not asyncio.current_task():
            self._watchdog.cancel()
        with contextlib.suppress(Exception):
            await self._close_trace()
        if self.workstation is not None:
            with contextlib.suppress(Exception):
                await self.workstation.stop()
        for session in [self.session, *(a.session for a in self.apps.values())]:
            if session is not None:
                with contextlib.suppress(Exception):
                    await session.stop()
        # the driver is shared (episodes.driver) and stays: what this episode launched
        # through it was closed above; what is left of its browsers (a close that failed,
        # a launch cut short) is found by its profile folder and killed below
        self._playwright = None
        for app in self.apps.values():
            await app.stop_process()
            await asyncio.to_thread(app.display.stop)
        if self._portal_go is not None:  # a prestarted portal never told to serve exits
            os.close(self._portal_go)
            self._portal_go = None
        if self.portal is not None:
            await asyncio.to_thread(self.portal.stop)
        if self.display is not None:
            await asyncio.to_thread(self.display.stop)
        if self._sockets_dir is not None:
            shutil.rmtree(self._sockets_dir, ignore_errors=True)
        with contextlib.suppress(Exception):
            await asyncio.to_thread(self._remember_browsers)  # one launched meanwhile
        await asyncio.to_thread(reap, self._known_pids)
        if self.status != "failed":
            self._set_status("stopped")

    async def __aenter__(self) -> Episode:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


# -- helpers ---------------------------------------------------------------------------------
def _child_env(base: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def _portal_listener() -> socket.socket:
    """The portal's listening socket, bound on a free port before the portal starts (it is
    passed to the portal as a file descriptor): the browser can be launched with the port in
    its resolver rules at once, and no other process can take the port meanwhile."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        sock.set_inheritable(True)
    except OSError:
        sock.close()
        raise
    return sock


def _describe_error(exc: BaseException, cut: list[str] | None = None) -> str:
    if isinstance(exc, asyncio.TimeoutError | TimeoutError):
        waiting = f" (still waiting for: {'; '.join(cut)})" if cut else ""
        return f"timed out while starting the episode's processes{waiting}"
    if isinstance(exc, asyncio.CancelledError | KeyboardInterrupt):
        return "interrupted"
    return str(exc) or type(exc).__name__
