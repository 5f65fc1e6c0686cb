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


def make_task(root: Path, verify_src: str, *, base: str = "R09.03.01.02-T01",
              credit: list[tuple[str, int]] | None = None, **fields) -> TaskSpec:
    """A task folder under ``root``: the ``base`` task's yaml with ``fields`` replaced, and
    ``verify_src`` as its verify.py (for engine tests with checks of their own)."""
    import textwrap

    import yaml

    data = yaml.safe_load((TASKS_DIR / base / "task.yaml").read_text())
    data.pop("variants", None)
    data.pop("seed", None)
    data.pop("inputs", None)
    data.update(fields)
    if credit is not None:
        data["credit"] = [{"name": name, "percent": percent} for name, percent in credit]
    folder = Path(root) / data["id"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "task.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    (folder / "verify.py").write_text(textwrap.dedent(verify_src).lstrip())
    return load_task(folder / "task.yaml")


def seed_patients(run: RunBuilder) -> None:
    """Two look-alike EHR patients (pid 1001 = MRN 402015, the task's; 1002 = 402051) and
    one allergy each."""
    import datetime as dt

    from sandbox.stores.ehr import Lists, PatientData

    with run.seed() as s:
        s.add_all([
            PatientData(id=1, pid=1001, pubpid="402015", fname="Harold", lname="Whitaker",
                        DOB=dt.date(1961, 3, 14), sex="Male"),
            PatientData(id=2, pid=1002, pubpid="402051", fname="Harold", lname="Whitacre",
                        DOB=dt.date(1961, 3, 14), sex="Male"),
        ])
        s.flush()
        s.add_all([
            Lists(id=1101, date=dt.datetime(2020, 1, 2, 9), type="allergy", title="Latex",
                  reaction="hives", pid=1001),
            Lists(id=1102, date=dt.datetime(2020, 1, 2, 9), type="allergy", title="Codeine",
                  reaction="nausea", pid=1002),
        ])
