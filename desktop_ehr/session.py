"""The client's connection to its run: store, sandbox clock, episode and logged-in user.

Every write the client makes goes through :meth:`EhrContext.write`: one audited SQLite
transaction with channel ``desktop``, the run's episode id and the logged-in user as actor.
A user action (Sign, Mark as Reviewed, File) is one ``write()`` block, so cancelling writes
nothing and a process killed mid-action leaves either all of the action or none of it.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from types import ModuleType

from sqlalchemy.orm import Session

from sandbox.clock import SharedClock
from sandbox.stores import Store, WriteContext, open_store

PERSONA_SYSTEMS = {"hyperspace": "hyperspace", "powerchart": "powerchart"}


class RunDirError(RuntimeError):
    """The run directory lacks what the client needs (store, clock, run.json)."""


@dataclass(frozen=True)
class UserInfo:
    """The logged-in training user."""

    id: int
    username: str
    display_name: str
    role: str
    provider_id: int | None
    can_sign_orders: bool


class EhrContext:
    """Store + clock + episode of one run, and (after log-in) the user."""

    def __init__(self, system: str, store: Store, clock, episode_id: str,
                 run_dir: Path | None = None) -> None:
        self.system = system
        self.store = store
        self.clock = clock
        self.episode_id = episode_id
        self.run_dir = run_dir
        self.user: UserInfo | None = None
        self.models: ModuleType = importlib.import_module(f"sandbox.stores.{system}")

    # -- opening -------------------------------------------------------------------------
    @classmethod
    def from_run_dir(cls, persona: str, run_dir: Path | str) -> EhrContext:
        """Open the persona's store in a seeded run directory."""
        if persona not in PERSONA_SYSTEMS:
            raise RunDirError(f"unknown persona {persona!r}; choose one of: "
                              f"{', '.join(PERSONA_SYSTEMS)}")
        system = PERSONA_SYSTEMS[persona]
        run_dir = Path(run_dir)
        store_path = run_dir / "stores" / f"{system}.sqlite"
        clock_path = run_dir / "clock.json"
        if not store_path.exists():
            raise RunDirError(f"{run_dir} has no {system} store at {store_path}; seed the "
                              "task first (ehr-sandbox seed <task> --out DIR)")
        if not clock_path.exists():
            raise RunDirError(f"{run_dir} has no clock.json; it is not a seeded run directory")
        episode_id = "local"
        run_json = run_dir / "run.json"
        if run_json.exists():
            try:
                episode_id = str(json.loads(run_json.read_text()).get("episode_id") or "local")
            except json.JSONDecodeError as exc:
                raise RunDirError(f"{run_json} is not JSON: {exc}") from exc
        clock = SharedClock(clock_path)
        store = open_store(system, store_path, clock)
        return cls(system, store, clock, episode_id, run_dir)

    def reopen(self) -> None:
        """Drop every connection and open the store file again (after a restore in place)."""
        path = self.store.path
        self.store.dispose()
        self.store = open_store(self.system, path, self.clock)
        if self.run_dir is not None:
            run_json = self.run_dir / "run.json"
            if run_json.exists():
                data = json.loads(run_json.read_text())
                self.episode_id = str(data.get("episode_id") or self.episode_id)

    def close(self) -> None:
        self.store.dispose()

    # -- time ----------------------------------------------------------------------------
    def now(self) -> datetime:
        """Naive sandbox-local now (the only "now" the client knows)."""
        return self.clock.now_local().replace(microsecond=0)

    def today(self) -> date:
        return self.now().date()

    # -- sessions ------------------------------------------------------------------------
    def reader(self) -> Session:
        return self.store.reader()

    @contextmanager
    def write(self) -> Iterator[Session]:
        """One audited desktop transaction as the logged-in user."""
        if self.user is None:
            raise PermissionError("no user is logged in; log in before charting")
        ctx = WriteContext(channel="desktop", episode_id=self.episode_id,
                           actor=self.user.username)
        with self.store.writer(ctx) as session:
            yield session
