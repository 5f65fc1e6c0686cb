"""Task runs for the Acme portal's gold-path tests: a seeded task (with its own episode
id), one app serving the portal, the web EHR and the Workspace, a client per host, and the
task's verifier on the run directory.

The seed is made once per task (per test session) and copied for each test.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from starlette.testclient import TestClient

from portal_web import create_app
from sandbox.catalog import load_catalog
from tests.portal_web.acme.support import HOST, Portal, form_values
from tests.portal_web.support import Ehr, GradedRun, SeedCache, feedback, store_rows

EPISODE = "ep-acme-gold"
EHR_HOST = "http://emr.clinic.test"
WORKSPACE_HOST = "http://workspace.local"
CATALOG = load_catalog()


class TaskSeeds:
    """Each task seeded once (episode ``EPISODE``); :meth:`run` hands out fresh copies."""

    def __init__(self, root: Path):
        self.seeds = SeedCache(root, EPISODE)

    def run(self, alias: str) -> TaskRun:
        return TaskRun(alias, self.seeds.run(alias))

    def logged_in(self, alias: str, *, ehr: bool = True) -> TaskRun:
        """A fresh run with the portal logged in (riverside.pa) and, unless ``ehr`` is
        False, the EHR too (pa.coord)."""
        run = self.run(alias)
        run.portal.login()
        if ehr:
            run.ehr.login("pa.coord")
        return run


@dataclass
class TaskRun(GradedRun):
    """One run of a task served to three clients (portal, EHR, Workspace)."""

    alias: str
    path: Path

    def __post_init__(self) -> None:
        self.spec = CATALOG.get(self.alias)
        self.app = create_app({"run_dir": self.path, "episode_id": EPISODE,
                               "sites": ["acme", "ehr", "workspace"]})
        self.portal = Portal(TestClient(self.app, base_url=HOST), self.path)
        self.ehr = Ehr(TestClient(self.app, base_url=EHR_HOST), self.path)
        self.workspace = TestClient(self.app, base_url=WORKSPACE_HOST)

    # -- EHR side ------------------------------------------------------------------------
    def ehr_document(self, doc_id: int) -> tuple[str, bytes]:
        """Download an EHR document as the user does (Documents > Download)."""
        ((name, pid),) = store_rows(self.path, "ehr", "select name, foreign_id from documents "
                                                      "where id = ?", doc_id)
        response = self.ehr.client.get(f"/patient/{pid}/documents/{doc_id}/download")
        assert response.status_code == 200 and response.content.startswith(b"%PDF"), \
            "log in to the EHR before downloading its documents"
        return name, response.content

    def ehr_edit(self, url: str, changes: dict[str, str], action: str | None = None) -> None:
        """Open an EHR form, change some fields, save it (as a user would)."""
        page = self.ehr.client.get(url)
        assert page.status_code == 200, page.text[:500]
        target = action or url.split("?")[0]
        data = {**form_values(page.text, target), **changes}
        response = self.ehr.client.post(target, data=data, follow_redirects=False)
        assert response.status_code == 303, feedback(response.text) or response.text[:1500]

    def attach_from_ehr(self, case_id: int, documents: Iterable[int],
                        document_type: str = "clinical_note") -> None:
        """Download each EHR document and upload it to the draft ``case_id``."""
        for doc in documents:
            name, content = self.ehr_document(doc)
            self.portal.upload(case_id, name, content, document_type)

    def send(self, case_id: int, documents: Iterable[int] = (),
             document_type: str = "clinical_note") -> str:
        """Attach ``documents`` from the EHR, finish the attachments step and submit the
        request; returns its tracking reference."""
        self.attach_from_ehr(case_id, documents, document_type)
        self.portal.finish_attachments(case_id)
        reference = self.portal.submit_request(case_id)
        assert reference
        return reference

    def input_file(self, name: str) -> bytes:
        return (self.path / "input" / name).read_bytes()

    def write_output(self, name: str, text: str) -> None:
        """Create and save an Output file through the Workspace's forms."""
        origin = {"origin": WORKSPACE_HOST}
        created = self.workspace.post("/new", data={"kind": name.rsplit(".", 1)[1],
                                                    "name": name}, headers=origin,
                                      follow_redirects=False)
        assert created.status_code == 303, created.text[:500]
        saved = self.workspace.post(f"/edit/{name}", data={"text": text}, headers=origin,
                                    follow_redirects=False)
        assert saved.status_code == 303, saved.text[:500]

    # -- grading ---------------------------------------------------------------------------
    def close(self) -> None:
        for app in set(self.app.sites.values()):
            for attr in ("acme", "ehr"):
                site = getattr(app.state, attr, None)
                if site is not None:
                    site.stores.dispose()
