"""The episode's stores as a site sees them: opened lazily, written with the caller's context.

Every write a site makes goes through :meth:`EpisodeStores.writer` with the principal of the
request. The channel of the :class:`WriteContext` is the principal's, which the site's
authentication layer set (``browser`` for a session cookie, ``api`` for a bearer token);
nothing the caller sends can change it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime

from sqlalchemy.orm import Session

from portal_web.common.sessions import Principal
from portal_web.settings import PortalSettings
from sandbox.clock import SharedClock
from sandbox.stores import Store, WriteContext, open_store


class StoreUnavailable(RuntimeError):
    """The episode has no store for this system (the site is not part of the task)."""


class EpisodeStores:
    """Lazily opened stores of one episode, plus its shared sandbox clock."""

    def __init__(self, settings: PortalSettings):
        self.settings = settings
        self._clock: SharedClock | None = None
        self._stores: dict[str, Store] = {}
        self._lock = threading.Lock()

    # -- time ---------------------------------------------------------------------------
    @property
    def clock(self) -> SharedClock:
        if self._clock is None:
            self._clock = SharedClock(self.settings.clock_path)
        return self._clock

    def now(self) -> datetime:
        """Naive sandbox-local now (how the stores keep times)."""
        return self.clock.now_local()

    # -- stores -------------------------------------------------------------------------
    def store(self, system: str) -> Store:
        with self._lock:
            if system not in self._stores:
                path = self.settings.stores_dir / f"{system}.sqlite"
                if not path.exists():
                    raise StoreUnavailable(
                        f"This episode has no {system} system (no store at {path}).")
                self._stores[system] = open_store(system, path, self.clock)
            return self._stores[system]

    def reader(self, system: str) -> Session:
        return self.store(system).reader()

    @contextmanager
    def writer(self, system: str, principal: Principal) -> Iterator[Session]:
        """One audited transaction on behalf of ``principal``."""
        ctx = WriteContext(channel=principal.channel, episode_id=self.settings.episode_id,
                           actor=principal.username)
        with self.store(system).writer(ctx) as session:
            yield session

    def dispose(self) -> None:
        with self._lock:
            for store in self._stores.values():
                store.dispose()
            self._stores.clear()
