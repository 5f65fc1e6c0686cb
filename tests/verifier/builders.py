"""Building run directories for verifier tests by writing rows directly.

A :class:`RunBuilder` lays out what ``sandbox.seeding.seed_task`` makes (run.json, clock.json,
stores/, seed/, input/, output/, downloads/, fax_sink/) without the YAML fixtures: seed rows
are written through ``Store.writer(SEED_CONTEXT)``, :meth:`snapshot` copies the stores to
``seed/``, and the "agent" writes through ``Store.writer(WriteContext(channel, episode,
actor))`` — exactly the audit trail the apps leave.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy.orm import Session

from sandbox.catalog import TaskSpec, load_task
from sandbox.clock import SandboxClock
from sandbox.paths import TASKS_DIR
from sandbox.stores import SEED_CONTEXT, Store, WriteContext

EPISODE = "ep-0001"
RUN_SUBDIRS = ("stores", "seed", "input", "output", "downloads", "fax_sink")


def task_spec(task_id: str) -> TaskSpec:
    """The real task spec of the catalog (its verify.py is what the tests grade with)."""
    return load_task(TASKS_DIR / task_id / "task.yaml")


def copy_store(src: Path, dst: Path) -> None:
    """A consistent single-file copy (SQLite backup API), as the extract does."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    source = sqlite3.connect(src)
    target = sqlite3.connect(dst)
    try:
        source.backup(target)
        target.execute("PRAGMA journal_mode=DELETE")
    finally:
        target.close()
        source.close()


class RunBuilder:
    """A run directory of one task, built row by row."""

    def __init__(self, root: Path, spec: TaskSpec, *, episode: str = EPISODE,
                 variant: str = "default", systems: list[str] | None = None):
        self.root = Path(root)
        self.spec = spec
        self.episode = episode
        for sub in RUN_SUBDIRS:
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self.clock = SandboxClock(start=spec.clock)
        self.clock.save(self.root / "clock.json")
        run = {"task": spec.id, "alias": spec.alias, "variant": variant,
               "episode_id": episode, "engine_version": "test"}
        (self.root / "run.json").write_text(json.dumps(run, indent=2))
        wanted = systems if systems is not None else [
            s for s in spec.systems if s != "workspace"]
        self.stores = {s: Store(s, self.root / "stores" / f"{s}.sqlite", self.clock).create()
                       for s in wanted}

    @contextmanager
    def seed(self, system: str = "ehr") -> Iterator[Session]:
        with self.stores[system].writer(SEED_CONTEXT) as session:
            yield session

    def snapshot(self) -> RunBuilder:
        """Copy every store to seed/ (the state the footprint diffs against)."""
        for system, store in self.stores.items():
            copy_store(store.path, self.root / "seed" / f"{system}.sqlite")
        return self

    @contextmanager
    def agent(self, system: str = "ehr", channel: str = "browser", episode: str | None = None,
              actor: str = "nurse.kelly") -> Iterator[Session]:
        ctx = WriteContext(channel, episode or self.episode, actor)
        with self.stores[system].writer(ctx) as session:
            yield session

    def close(self) -> Path:
        for store in self.stores.values():
            store.dispose()
        return self.root
