"""Playing a task through the Acme portals' HTTP forms and grading it with its verifier.

A :class:`TaskRun` is a fresh copy of the task's seeded run (``sandbox.seeding.seed_task``)
with TestClients that use the run's own episode id, so every row the forms write counts
under the channel rule exactly as an agent's browser writes would. ``grade()`` closes the
apps' stores (folding their WAL back) and grades the run with the task's ``verify.py``
(the deterministic rubric judge).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from starlette.testclient import TestClient

from portal_web import create_app
from sandbox.catalog import TaskSpec, load_catalog
from tests.portal_web.acme.support import HOST, PASSWORDS, Portal
from tests.portal_web.support import PASSWORDS as EHR_PASSWORDS
from tests.portal_web.support import Ehr, GradedRun, SeedCache, add_rows, form_tokens_for, tokens

DME_HOST = "http://dme.acmehealth.test"
EHR_HOST = "http://emr.clinic.test"


@dataclass
class TaskRun(GradedRun):
    """One seeded run of a task, its web apps, and the clients an agent would use."""

    spec: TaskSpec
    path: Path
    episode_id: str
    apps: list = field(default_factory=list)

    def _app(self, sites: list[str]):  # noqa: ANN202 - a HostDispatcher
        app = create_app({"run_dir": self.path, "episode_id": self.episode_id,
                          "sites": sites})
        self.apps.append(app)
        return app

    def portal(self, user: str | None = "riverside.pa") -> Portal:
        portal = Portal(TestClient(self._app(["acme"]), base_url=HOST), self.path)
        if user:
            portal.login(user)
        return portal

    def dme(self, user: str | None = "riverside.pa") -> Portal:
        """A client on the DME portal (``dme.acmehealth.test``), logged in there."""
        client = TestClient(self._app(["acme", "dme"]), base_url=DME_HOST)
        dme = Portal(client, self.path)
        if user:
            dme.login(user, PASSWORDS[user])
        return dme

    def ehr(self, user: str = "pa.coord") -> Ehr:
        ehr = Ehr(TestClient(self._app(["ehr"]), base_url=EHR_HOST), self.path)
        ehr.login(user, EHR_PASSWORDS[user])
        return ehr

    def add_seed_rows(self, system: str, rows_yaml: str) -> None:
        """Rows that belong to the starting state (written as seed rows, then snapshotted
        again), e.g. a claim still in process that no task seed holds."""
        add_rows(self.path, rows_yaml, system, starting_state=True)

    def close(self) -> None:
        for app in self.apps:
            for site in app.sites.values():
                for name in ("acme", "ehr"):
                    holder = getattr(site.state, name, None)
                    if holder is not None:
                        holder.stores.dispose()
        self.apps.clear()


def task_run(seeds: SeedCache, alias: str, variant: str | None = None) -> TaskRun:
    path = seeds.run(alias, variant)
    episode = json.loads((path / "run.json").read_text())["episode_id"]
    return TaskRun(load_catalog().get(alias), path, episode)


def ehr_document(ehr: Ehr, pid: int, doc_id: int) -> tuple[str, bytes]:
    """Download a chart document through the EHR (as the agent saves it to Downloads)."""
    response = ehr.client.get(f"/patient/{pid}/documents/{doc_id}/download")
    assert response.status_code == 200, response.text[:300]
    match = re.search(r'filename="([^"]+)"', response.headers.get("content-disposition", ""))
    return (match[1] if match else f"document-{doc_id}.pdf"), response.content


def post_form(client: TestClient, page_url: str, action: str, data: dict | list,
              files: dict | list | None = None, follow: bool = False):  # noqa: ANN201
    """GET ``page_url`` and POST the form that targets ``action`` with its tokens."""
    page = client.get(page_url)
    assert page.status_code == 200, page.text[:800]
    found = form_tokens_for(page.text, action)
    body = {**found, **data} if isinstance(data, dict) else [*found.items(), *data]
    return client.post(action, data=body, files=files, follow_redirects=follow)


def location_id(response, pattern: str) -> int:  # noqa: ANN001 - httpx.Response
    """The number a redirect's Location carries (``/appeals/(\\d+)/documents``)."""
    assert response.status_code == 303, response.text[:1500]
    match = re.search(pattern, response.headers["location"])
    assert match, response.headers["location"]
    return int(match[1])


__all__ = ["TaskRun", "ehr_document", "location_id", "post_form", "task_run", "tokens"]
