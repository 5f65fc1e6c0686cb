"""Test support for the web EHR: seeded runs, a logged-in browser-like client, audit reads.

Runs are seeded once per task (``seed_task`` into a per-session cache) and copied for each
test, so every test starts from the task's exact seeded state. The run-level pieces (the
seed cache, read-only store queries, the audit mark, grading with the task's verifier) serve
the payer sites' test support too.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from starlette.testclient import TestClient

from portal_web import create_app
from sandbox.catalog import TaskSpec, load_catalog
from sandbox.seeding import seed_task
from sandbox.stores import Store, open_store
from verifier import Report, grade

HOST = "http://emr.clinic.test"
PASSWORDS = {"dr.osei": "Riverside!Osei26", "nurse.kelly": "Riverside!Kelly26",
             "pa.coord": "Riverside!Coord26"}
TOKEN = re.compile(r'name="(csrf_token|form_token)" value="([^"]+)"')
FEEDBACK = re.compile(r'class="invalid-feedback"[^>]*>([^<]+)<')
CATALOG = load_catalog()


PA_DESK = """
prior_authorizations:
  - {id: 9001, pid: 120, date: "2026-10-12 09:00:00", payer_id: 1, service: "MRI lumbar spine w/o contrast", cpt: "72148", diagnosis: "ICD10:M54.16", provider_id: 10, status: "Submitted", portal_reference: "ACM-PA-118204", submitted_date: "2026-10-12", init_units: 1}
  - {id: 9002, pid: 115, date: "2026-10-14 09:00:00", payer_id: 1, service: "Knee arthroscopy", cpt: "29881", provider_id: 20, status: "Not submitted"}
pa_worklist_items:
  - {id: 9001, worklist_id: 1, seq: 1, pid: 120, service: "MRI lumbar spine w/o contrast", cpt: "72148", category: "imaging", payer_id: 1, provider_id: 10, authorization_id: 9001, status: "In progress", outcome: "submitted", reference: "ACM-PA-118204"}
  - {id: 9002, worklist_id: 2, seq: 1, pid: 115, service: "Knee arthroscopy", cpt: "29881", category: "procedure", payer_id: 1, provider_id: 20, authorization_id: 9002, date_of_service: "2026-11-02"}
ehr_tasks:
  - {id: 9001, pid: 115, assigned_to: 20, created_by: 12, subject: "Sign knee arthroscopy order", status: "Open", created: "2026-10-15 10:00:00"}
pnotes:
  - {id: 9001, date: "2026-10-16 11:00:00", body: "Acme asked for the last two PT notes.", pid: 115, user: "pa.coord", title: "Prior Auth", assigned_to: "dr.osei", message_status: "New"}
medication_administration:
  - {id: 9001, pid: 111, drug: "denosumab 60 mg/mL prefilled syringe", hcpcs_code: "J0897", dose: 60, dose_unit: "mg", billing_units: 60, route: "SC", site: "abdomen", administered_at: "2026-09-03 10:15:00", administered_by: 11}
"""


@contextmanager
def run_store(run_dir: Path, system: str) -> Iterator[Store]:
    """The run's ``system`` store on the run's sandbox clock, disposed on leaving (for rows
    a test sets up before an app opens the store)."""
    from sandbox.clock import SandboxClock

    store = open_store(system, run_dir / "stores" / f"{system}.sqlite",
                       SandboxClock.load(run_dir / "clock.json"))
    try:
        yield store
    finally:
        store.dispose()


def add_rows(run_dir: Path, rows_yaml: str, system: str = "ehr", *,
             starting_state: bool = False) -> None:
    """Insert extra rows (as seed rows) into a run's ``system`` store before the app starts.

    With ``starting_state`` they belong to the task's starting state too: the store is
    checkpointed and snapshotted again as the seed (what a reset returns to).
    """
    from sandbox.seeding import checkpoint, load_rows, snapshot

    path = run_dir / f"extra-{system}.yaml"
    path.write_text(rows_yaml)
    with run_store(run_dir, system) as store:
        load_rows(store, path)
    if starting_state:
        checkpoint(run_dir / "stores" / f"{system}.sqlite")
        snapshot(run_dir)


class SeedCache:
    """Seeds each (task, variant) once into ``root`` and hands out fresh copies.

    ``episode_id`` is the seeds' episode id (``seed_task``'s default when None): a suite
    whose apps run under that id has every write it makes counted as the episode's.
    """

    def __init__(self, root: Path, episode_id: str | None = None):
        self.root = root
        self.episode_id = episode_id
        self.count = 0

    def run(self, alias: str, variant: str | None = None) -> Path:
        key = f"{alias}-{variant or 'default'}"
        template = self.root / "templates" / key
        if not template.exists():
            episode = {} if self.episode_id is None else {"episode_id": self.episode_id}
            seed_task(CATALOG.get(alias), variant, template, **episode)
        self.count += 1
        copy = self.root / "runs" / f"{key}-{self.count}"
        shutil.copytree(template, copy)
        return copy


def store_rows(run_dir: Path, system: str, sql: str, *params: object) -> list[tuple]:
    """A read-only query on the run's ``system`` store, straight from SQLite."""
    conn = sqlite3.connect(f"file:{run_dir / 'stores' / f'{system}.sqlite'}?mode=ro", uri=True)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def audit_mark(run_dir: Path, system: str) -> int:
    """The id of the store's last audit entry (what a test's actions write comes after)."""
    return store_rows(run_dir, system, "select coalesce(max(id), 0) from audit_log")[0][0]


def graded(spec: TaskSpec, run: Path) -> Report:
    """``run`` (a run directory or its extract) graded with the task's verifier and the
    deterministic rubric judge; every check must have been graded."""
    report = grade(spec, run, judge="rubric")
    assert report.complete, [(c.name, c.status, c.evidence) for c in report.checks]
    return report


class GradedRun(ABC):
    """A task run graded as an episode ends: the apps' stores closed (their WAL folded
    back), then the task's verifier on the run directory."""

    spec: TaskSpec
    path: Path

    @abstractmethod
    def close(self) -> None:
        """Close the run's apps and stores, as an episode does before it grades."""

    def grade(self) -> Report:
        self.close()
        return graded(self.spec, self.path)

    def fractions(self) -> list[float | None]:
        return [c.fraction for c in self.grade().checks]

    def score(self) -> float:
        score = self.grade().score
        assert score is not None
        return score


def tokens(html: str) -> dict[str, str]:
    """The CSRF and one-time form tokens of the first form on a page."""
    found: dict[str, str] = {}
    for name, value in TOKEN.findall(html):
        found.setdefault(name, value)
    return found


def form_tokens_for(html: str, action: str) -> dict[str, str]:
    """The tokens of the form posting to ``action``."""
    start = html.find(f'action="{action}"')
    assert start >= 0, f"no form posts to {action}"
    return tokens(html[start:])


def feedback(html: str) -> list[str]:
    return FEEDBACK.findall(html)


@dataclass
class Ehr:
    """A TestClient on one run, with helpers for forms."""

    client: TestClient
    run_dir: Path

    def login(self, username: str = "dr.osei", password: str | None = None) -> None:
        page = self.client.get("/login")
        response = self.client.post("/login", data={
            **tokens(page.text), "authUser": username,
            "clearPass": password or PASSWORDS[username]}, follow_redirects=False)
        assert response.status_code == 303, response.text[:500]

    def submit(self, page_url: str, data: dict[str, str], action: str | None = None,
               follow: bool = False):  # noqa: ANN201 - httpx.Response
        """GET the page, POST its form (with its tokens) to ``action`` (default: the page)."""
        page = self.client.get(page_url)
        assert page.status_code == 200, page.text[:500]
        target = action or page_url.split("?")[0]
        return self.client.post(target, data={**form_tokens_for(page.text, target), **data},
                                follow_redirects=follow)

    # -- store reads (read-only, straight from SQLite) -----------------------------------
    def query(self, sql: str, *params: object) -> list[tuple]:
        return store_rows(self.run_dir, "ehr", sql, *params)

    def audit_mark(self) -> int:
        return audit_mark(self.run_dir, "ehr")

    def audit_since(self, mark: int) -> list[dict]:
        rows = self.query("select channel, episode_id, actor, action, table_name, row_pk, after "
                          "from audit_log where id > ? order by id", mark)
        return [{"channel": c, "episode_id": e, "actor": a, "action": act, "table": t,
                 "pk": json.loads(pk), "after": json.loads(after) if after else None}
                for c, e, a, act, t, pk, after in rows]


def make_client(run_dir: Path, episode_id: str = "ep-test") -> Ehr:
    app = create_app({"run_dir": run_dir, "episode_id": episode_id, "sites": ["ehr"]})
    return Ehr(TestClient(app, base_url=HOST), run_dir)


def changes(entries: list[dict]) -> list[tuple[str, str]]:
    """(action, table) of audit entries, in order."""
    return [(e["action"], e["table"]) for e in entries]
