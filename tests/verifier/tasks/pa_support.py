"""Grading real task seeds with rows written as the apps write them.

A task is seeded once per test module with :func:`sandbox.seeding.seed_task` (the real
world and task fixtures); each test case works on a copy of that run directory, writes rows
through ``Store.writer(WriteContext(channel, episode, actor))`` exactly as a portal or the
web EHR would, and grades the copy with the task's ``verify.py``.

The payer portals are not built yet, so these tests and the store schemas together define
how a portal records what the agent did: a request is one ``pa_cases`` row (plus its detail
row and ``pa_answers``), attachments keep the uploaded bytes, statuses are the schema's
lower-case tokens, times come from the sandbox clock.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from sandbox.catalog import TaskSpec, load_catalog
from sandbox.clock import SandboxClock
from sandbox.seeding import seed_task
from sandbox.stores import Store, WriteContext
from verifier import Report, grade

EPISODE = "ep-pa-test"
NOW = dt.datetime(2026, 10, 19, 9, 40)  # during the episode (sandbox start 09:00)


def spec_of(alias: str) -> TaskSpec:
    return load_catalog().get(alias)


def seed_once(spec: TaskSpec, root: Path, variant: str | None = None) -> Path:
    """The task seeded into ``root/seeded`` with this module's episode id."""
    return seed_task(spec, variant, root / "seeded", episode_id=EPISODE)


class Run:
    """A copy of a seeded run directory that a test writes to and grades."""

    def __init__(self, spec: TaskSpec, seeded: Path, path: Path):
        shutil.copytree(seeded, path)
        self.spec = spec
        self.path = path
        self.clock = SandboxClock.load(path / "clock.json")
        self.episode = json.loads((path / "run.json").read_text())["episode_id"]
        self._stores: dict[str, Store] = {}

    @contextmanager
    def write(self, system: str, *, channel: str = "browser", episode: str | None = None,
              actor: str = "pa.coord") -> Iterator[Session]:
        """An audited write session on one live store, as an app of that channel writes.

        Stores stay open between writes (as an app's do) and are closed before grading.
        """
        if system not in self._stores:
            self._stores[system] = Store(system, self.path / "stores" / f"{system}.sqlite",
                                         self.clock)
        with self._stores[system].writer(WriteContext(channel, episode or self.episode,
                                                      actor)) as s:
            yield s

    def close(self) -> None:
        """Close the live stores (their WAL is folded back) so the run can be graded."""
        for store in self._stores.values():
            store.dispose()
        self._stores.clear()

    def seeded(self, system: str, model: type, key: Any) -> Any:
        """A row of the seeded snapshot (detached), e.g. an EHR document's bytes."""
        store = Store(system, self.path / "seed" / f"{system}.sqlite", self.clock,
                      readonly=True)
        try:
            with store.reader() as s:
                row = s.get(model, key)
                if row is not None:
                    s.expunge(row)
                return row
        finally:
            store.dispose()

    def seeded_where(self, system: str, model: type, *where: Any) -> list[Any]:
        store = Store(system, self.path / "seed" / f"{system}.sqlite", self.clock,
                      readonly=True)
        try:
            with store.reader() as s:
                rows = list(s.scalars(select(model).where(*where)))
                for row in rows:
                    s.expunge(row)
                return rows
        finally:
            store.dispose()

    def input_bytes(self, name: str) -> bytes:
        return (self.path / "input" / name).read_bytes()

    def output(self, name: str, text: str) -> None:
        target = self.path / "output" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)

    def grade(self, **kwargs: Any) -> Report:
        self.close()
        return grade(self.spec, self.path, **kwargs)

    def score(self) -> float:
        """The score of a completely graded report (fails the test otherwise)."""
        report = self.grade()
        assert report.complete, [(c.name, c.status, c.evidence) for c in report.checks]
        return report.score

    def fractions(self) -> list[float | None]:
        return [c.fraction for c in self.grade().checks]


def sink_receives(run: Run, job_id: int, *, episode: str | None = None) -> bytes:
    """The fax sink delivering a job: the received PDF the web fax service's sink builds
    (cover sheet if the job has one, then each document, transmit header on every page),
    kept as a ``received_faxes`` row (channel ``fax``) and as ``fax_sink/<confirmation>.pdf``.
    """
    from portal_web.fax.sink import received_pdf, received_row, write_sink_file
    from sandbox.stores.fax import FaxAccount, FaxDocument, FaxJob

    with run.write("fax", channel="fax", actor="fax-sink", episode=episode) as s:
        job = s.get(FaxJob, job_id)
        documents = list(s.scalars(select(FaxDocument).where(FaxDocument.job_id == job_id)))
        data = received_pdf(job, documents, s.get(FaxAccount, job.account_id))
        s.add(received_row(job, data, NOW))
        write_sink_file(run.path, job, data)
    return data


def fill_pdf(data: bytes, values: dict[str, str]) -> bytes:
    """A fillable PDF with its fields set, as the Workspace's PDF form filler saves it."""
    import io

    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    for page in writer.pages:
        writer.update_page_form_field_values(page, values, auto_regenerate=False)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def blank_form(names: list[str]) -> bytes:
    """A fillable PDF with one text field per name (a downloadable form of a portal)."""
    from sandbox.catalog import InputFile
    from sandbox.inputs import render

    return render(InputFile(path="form.pdf", kind="pdf",
                            fields=[{"name": n, "label": n} for n in names]))
