"""A published app: a desktop app on its own display behind a pixel session in published
mode — the Citrix side of an episode. The app's process can be launched, reset to its start
screen through its inspector socket, or launched again when it cannot reset in place."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from episodes import prestart
from episodes.inspector import InspectorClient, InspectorError
from pixel_stream.procs import ManagedProcess, wait_until
from pixel_stream.xprops import wait_for_root_property

log = logging.getLogger(__name__)

# modules an app run as ``python -m MODULE`` imports before it can show a window: imported
# while its display starts and the run is seeded, then its ORM mappers are configured
# (episodes.prestart). ``{system}`` is the app's system: the desktop EHR's persona and
# its store's tables (0.2 s of imports when left until the window is built).
WARM_IMPORTS: dict[str, tuple[str, ...]] = {
    "desktop_ehr": ("PySide6.QtWidgets", "desktop_ehr.app", "desktop_ehr.main_window",
                    "desktop_ehr.session", "desktop_ehr.inspector", "sandbox.stores",
                    "sandbox.stores.{system}", "desktop_ehr.personas.{system}",
                    "sqlalchemy.dialects.sqlite", "sqlalchemy.orm:configure_mappers"),
}


def warm_imports(module: str, system: str) -> list[str]:
    """What the app ``python -m module`` publishing ``system`` imports (and calls) early."""
    return [name.format(system=system) for name in WARM_IMPORTS.get(module, ())]


@dataclass
class PublishedApp:
    """One system's app: its display, session, command and (once launched) its process."""

    system: str
    display: Any  # pixel_stream.display.Display
    argv: list[str]
    env: dict[str, str]
    log_path: Path
    inspector: Path | None  # the app's locator socket, when its command takes one
    session: Any = None  # pixel_stream.session.PixelSession, started before the app
    process: ManagedProcess | None = None
    session_ready: asyncio.Event = field(default_factory=asyncio.Event)
    _go: int | None = None  # the pipe a prestarted app waits on (episodes.prestart)

    def prestart(self, remember: Callable[[int], None]) -> bool:
        """Start the app's interpreter now, before its display and run are ready: it
        imports what it needs and waits for ``launch``. Only for an app run by this
        Python (``{python} -m MODULE`` or ``{python} SCRIPT``); False for any other."""
        if not self.argv or self.argv[0] != sys.executable or self.process is not None:
            return False
        if self.inspector is not None and self.inspector.exists():
            self.inspector.unlink()  # a stale socket would look ready at once
        command = self.argv[1:]
        module = command[1] if command[:1] == ["-m"] and len(command) > 1 else ""
        self.process, self._go = prestart.spawn(
            self.argv, warm_imports(module, self.system), name=f"{self.system} app", env=self.env,
            log_path=self.log_path)
        remember(self.process.pid)
        return True

    def _display_environment(self) -> None:
        self.env.update({"DISPLAY": self.display.name, "QT_QPA_PLATFORM": "xcb"})
        self.env.pop("WAYLAND_DISPLAY", None)

    @property
    def connection(self) -> dict[str, str]:
        return {"agent_url": self.session.agent_url, "token": self.session.token,
                "viewer_url": self.session.url}

    async def launch(self, timeout_s: float, remember: Callable[[int], None]) -> None:
        """Start the app (or let a prestarted one go on) on its display, which is up, and
        wait until its window is mapped and its inspector listens."""
        self._display_environment()
        if self._go is not None and self.process is not None:
            go, self._go = self._go, None
            prestart.go(go, {k: self.env[k] for k in ("DISPLAY", "QT_QPA_PLATFORM")})
            process = self.process
        else:
            if self.inspector is not None and self.inspector.exists():
                self.inspector.unlink()  # a stale socket would look ready at once
            process = ManagedProcess(self.argv, name=f"{self.system} app", env=self.env,
                                     log_path=self.log_path).start()
            self.process = process
            remember(process.pid)
        await asyncio.to_thread(wait_for_root_property, self.display.name, "_NET_CLIENT_LIST",
                                timeout_s, f"the {self.system} app's window", alive=process)
        if self.inspector is not None:
            await asyncio.to_thread(wait_until, self.inspector.exists, timeout_s,
                                    f"the {self.system} app's inspector socket", 0.02,
                                    process)

    async def reset(self, timeout_s: float, remember: Callable[[int], None]) -> None:
        """Back to the start screen through the inspector; launched again if it cannot."""
        if self.inspector is not None:
            try:
                await asyncio.to_thread(InspectorClient(self.inspector).reset)
                return
            except (InspectorError, OSError) as exc:
                log.info("%s app cannot reset in place (%s); restarting it", self.system, exc)
        await self.stop_process()
        await self.launch(timeout_s, remember)

    async def stop_process(self) -> None:
        if self._go is not None:  # a prestarted app that was never let go: it exits
            os.close(self._go)
            self._go = None
        process, self.process = self.process, None
        if process is not None:
            await asyncio.to_thread(process.stop)
