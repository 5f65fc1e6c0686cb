"""A published app: a desktop app on its own display behind a pixel session in published
mode — the Citrix side of an episode. The app's process can be launched, reset to its start
screen through its inspector socket, or launched again when it cannot reset in place."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from episodes.inspector import InspectorClient, InspectorError
from episodes.processes import has_window
from pixel_stream.procs import ManagedProcess, wait_until

log = logging.getLogger(__name__)


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

    @property
    def connection(self) -> dict[str, str]:
        return {"agent_url": self.session.agent_url, "token": self.session.token,
                "viewer_url": self.session.url}

    async def launch(self, timeout_s: float, remember: Callable[[int], None]) -> None:
        """Start the app and wait until its window is mapped and its inspector listens."""
        if self.inspector is not None and self.inspector.exists():
            self.inspector.unlink()  # a stale socket would look ready at once
        process = ManagedProcess(self.argv, name=f"{self.system} app", env=self.env,
                                 log_path=self.log_path).start()
        self.process = process
        remember(process.pid)
        await asyncio.to_thread(wait_until, lambda: has_window(self.display.name), timeout_s,
                                f"the {self.system} app's window", 0.05, process)
        if self.inspector is not None:
            await asyncio.to_thread(wait_until, self.inspector.exists, timeout_s,
                                    f"the {self.system} app's inspector socket", 0.05,
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
        process, self.process = self.process, None
        if process is not None:
            await asyncio.to_thread(process.stop)
