"""Run directories of real task seeds for verifier tests, written to as the web EHR writes.

A task is seeded once per test module (:func:`seeded_task`, through
``sandbox.seeding.seed_task``); each test copies that run directory and writes rows through
``Store.writer(WriteContext(channel, episode, actor))`` — the audit trail the web EHR and
its FHIR API leave — then grades the copy with the task's real ``verify.py``.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from sandbox.catalog import TaskSpec, load_catalog
from sandbox.clock import SandboxClock
from sandbox.seeding import seed_task
from sandbox.stores import Store, WriteContext
from sandbox.stores.ehr import PatientData
from verifier import Report, grade

EPISODE = "ep-web-orders"


class Run:
    """A copy of a seeded run directory that a test writes to and grades."""

    def __init__(self, path: Path, spec: TaskSpec):
        self.path = path
        self.spec = spec
        self.store = Store("ehr", path / "stores" / "ehr.sqlite",
                           SandboxClock.load(path / "clock.json"))

    @contextmanager
    def write(self, actor: str = "dr.osei", *, channel: str = "browser",
              episode: str = EPISODE) -> Iterator[Session]:
        """A write session as the app makes it: one audited transaction."""
        with self.store.writer(WriteContext(channel, episode, actor)) as session:
            yield session

    def pid(self, mrn: str) -> int:
        with self.store.reader() as session:
            return session.scalars(select(PatientData.pid)
                                   .where(PatientData.pubpid == mrn)).one()

    def grade(self) -> Report:
        """The report of the task's verify.py (deterministic rubric judge); complete."""
        self.store.dispose()
        report = grade(self.spec, self.path, judge="rubric")
        assert report.complete, [(c.name, c.status, c.evidence) for c in report.checks]
        return report

    def score(self) -> float:
        score = self.grade().score
        assert score is not None
        return score


class SeededTask:
    """One task (and variant) seeded once; :meth:`run` hands out fresh copies."""

    def __init__(self, alias: str, root: Path, variant: str | None = None):
        self.spec = load_catalog().get(alias)
        self.source = seed_task(self.spec, variant, root / "seeded", episode_id=EPISODE)
        self._copies = 0

    def run(self, tmp_path: Path) -> Run:
        self._copies += 1
        dest = tmp_path / f"run{self._copies}"
        shutil.copytree(self.source, dest)
        return Run(dest, self.spec)


def seeded_task(alias: str, variant: str | None = None):  # noqa: ANN201 - a pytest fixture
    """A module-scoped fixture seeding ``alias`` once."""

    @pytest.fixture(scope="module")
    def fixture(tmp_path_factory: pytest.TempPathFactory) -> SeededTask:
        return SeededTask(alias, tmp_path_factory.mktemp(alias), variant)

    return fixture
