"""Desktop-EHR task runs for verifier tests: seed once, copy per case, write like the client.

A :class:`SeededTask` seeds a task's real fixtures once (``sandbox.seeding.seed_task``) into a
template run directory; each case copies it (:meth:`SeededTask.run`) and writes rows through
``Store.writer(WriteContext('desktop', <run.json episode>, <training user>))`` — the audit
trail the desktop client leaves (``desktop_ehr/session.py``: one ``write()`` per user action).

:func:`sign_orders` mirrors the client's Sign (``desktop_ehr/services/signing.py``): every
order written ``signed`` with entered/signed times and the user, admission orders first, the
others linked to the admission order signed with them or already on the encounter, scale
bands and Cerner-style details as child rows. Expected scores in the tests are the seeds'
arithmetic, never recorded numbers.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from sandbox.catalog import TaskSpec, load_catalog
from sandbox.clock import SandboxClock
from sandbox.seeding import seed_task
from sandbox.stores import Store, WriteContext
from sandbox.stores import hyperspace as hyperspace_models
from sandbox.stores import powerchart as powerchart_models
from tests.requirements import import_or_missing
from verifier import Report, grade

EPISODE = "ep-desktop-1"
USERS = {"hyperspace": "EPICTRN01", "powerchart": "PCTRAIN01"}
PASSWORDS = {"hyperspace": "Hyperspace#2026", "powerchart": "PowerChart#2026"}  # creds.txt
MODELS: dict[str, ModuleType] = {"hyperspace": hyperspace_models,
                                 "powerchart": powerchart_models}
NOW = dt.datetime(2026, 10, 19, 9, 0)  # the sandbox clock's start: what the client stamps


class DesktopRun:
    """One case's run directory of a desktop task."""

    def __init__(self, root: Path, spec: TaskSpec):
        self.root = root
        self.spec = spec
        self.system = next(s for s in spec.systems if s in MODELS)
        self.m = MODELS[self.system]
        self.user = USERS[self.system]
        self.clock = SandboxClock.load(root / "clock.json")
        self.episode = json.loads((root / "run.json").read_text())["episode_id"]

    @contextmanager
    def write(self, channel: str = "desktop", episode: str | None = None,
              actor: str | None = None) -> Iterator[Session]:
        """One audited transaction, as the client's ``EhrContext.write()``."""
        store = Store(self.system, self.root / "stores" / f"{self.system}.sqlite", self.clock)
        ctx = WriteContext(channel, episode or self.episode, actor or self.user)
        try:
            with store.writer(ctx) as session:
                yield session
        finally:
            store.dispose()

    @contextmanager
    def read(self) -> Iterator[Session]:
        store = Store(self.system, self.root / "stores" / f"{self.system}.sqlite", self.clock)
        try:
            with store.reader() as session:
                yield session
        finally:
            store.dispose()

    def user_row(self, s: Session) -> Any:
        return s.scalars(select(self.m.User).where(self.m.User.username == self.user)).one()

    @contextmanager
    def client(self) -> Iterator[tuple[Any, Any]]:
        """The desktop client's own services on this run, logged in as the training user
        (``EhrContext``, ``Reference``); a ``desktop_ehr`` that cannot be imported (no Qt
        library) skips the test locally and fails it under CI=true.
        Used to check that the client's writes grade as the rows written here do."""
        session = import_or_missing("desktop_ehr.session")
        auth = import_or_missing("desktop_ehr.services.auth")
        catalog = import_or_missing("desktop_ehr.services.catalog")
        ctx = session.EhrContext.from_run_dir(self.system, self.root)
        try:
            ctx.user = auth.authenticate(ctx, self.user, PASSWORDS[self.system])
            yield ctx, catalog.load_reference(ctx)
        finally:
            ctx.close()

    def grade(self) -> Report:
        report = grade(self.spec, self.root, judge="rubric")
        assert report.complete, [(c.name, c.status, c.evidence) for c in report.checks]
        return report


class SeededTask:
    """A task seeded once (module scope); :meth:`run` gives each case its own copy."""

    def __init__(self, alias: str, root: Path):
        self.spec = load_catalog().get(alias)
        self.template = seed_task(self.spec, None, root / "template", episode_id=EPISODE)
        self._cases = 0
        self._root = root

    def run(self) -> DesktopRun:
        self._cases += 1
        dest = self._root / f"case{self._cases}"
        shutil.copytree(self.template, dest)
        return DesktopRun(dest, self.spec)


def seeded(alias: str, tmp_path_factory: pytest.TempPathFactory) -> SeededTask:
    return SeededTask(alias, tmp_path_factory.mktemp(alias))


def sign_orders(run: DesktopRun, s: Session, patient_id: int, encounter_id: int | None,
                orders: list[dict[str, Any]]) -> list[Any]:
    """Write orders as one Sign: admit orders first, the rest linked to the admission.

    Each dict holds ``orders`` columns, plus optional ``scale`` (``[(low, high, units)]`` or
    with an instruction as a fourth item) and ``details`` (``{field: value}``).
    """
    m = run.m
    user = run.user_row(s)
    written = []
    specs = sorted(orders, key=lambda o: o.get("order_type") != "admit")
    admission_id = None
    for spec in specs:
        spec = dict(spec)
        scale = spec.pop("scale", [])
        details = spec.pop("details", {})
        values = {"patient_id": patient_id, "encounter_id": encounter_id, "status": "signed",
                  "priority": "routine", "prn": False, "occurrences": 1, "start_at": NOW,
                  "ordering_user_id": user.id, "ordering_provider_id": user.provider_id,
                  "entered_at": NOW, "signed_at": NOW, "signed_by_user_id": user.id, **spec}
        if values["order_type"] != "admit" and "admission_order_id" not in spec:
            if admission_id is None and encounter_id is not None:
                admission_id = s.scalars(
                    select(m.Order.id).where(m.Order.patient_id == patient_id,
                                             m.Order.encounter_id == encounter_id,
                                             m.Order.order_type == "admit",
                                             m.Order.status == "signed")
                    .order_by(m.Order.signed_at.desc(), m.Order.id.desc())).first()
            values["admission_order_id"] = admission_id
        order = m.Order(**values)
        s.add(order)
        s.flush()
        if values["order_type"] == "admit" and admission_id is None:
            admission_id = order.id
        for sort, band in enumerate(scale, start=1):
            low, high, units, *rest = band
            s.add(m.OrderScaleRange(order_id=order.id, sort=sort, low=low, high=high,
                                    units=units, instruction=rest[0] if rest else None))
        for name, value in details.items():
            s.add(m.OrderDetail(order_id=order.id, field=name, value=str(value)))
        written.append(order)
    s.flush()
    return written


def flagged(report: Report, flag: str) -> list[str]:
    """Footprint rows carrying a flag ('other patient', 'outside may_touch', …)."""
    return [c["row"] for c in report.footprint["changes"] if flag in c.get("flags", {})]
