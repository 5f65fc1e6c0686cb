"""Test support for the Acme portal: a logged-in browser-like client on a seeded run,
form helpers that post a page's own tokens, and read-only store queries."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from starlette.testclient import TestClient

from portal_web import create_app
from tests.portal_web.support import feedback, form_tokens_for, tokens

HOST = "http://portal.acmehealth.test"
PASSWORDS = {"riverside.pa": "AcmePortal#2026", "riverside.billing": "AcmeBilling#2026"}

__all__ = ["HOST", "PASSWORDS", "Portal", "feedback", "make_portal", "tokens"]


@dataclass
class Portal:
    """A TestClient on one run's Acme portal, with helpers for forms and store reads."""

    client: TestClient
    run_dir: Path

    def login(self, username: str = "riverside.pa", password: str | None = None,
              next_path: str = "") -> None:
        page = self.client.get("/login" + (f"?next={next_path}" if next_path else ""))
        response = self.client.post("/login", data={
            **tokens(page.text), "username": username,
            "password": password or PASSWORDS[username], "next": next_path},
            follow_redirects=False)
        assert response.status_code == 303, response.text[:500]

    def submit(self, page_url: str, data: dict | list, action: str | None = None,
               follow: bool = False, files: dict | list | None = None):  # noqa: ANN201
        """GET ``page_url``, POST its form (with its tokens) to ``action`` (default: page)."""
        page = self.client.get(page_url)
        assert page.status_code == 200, page.text[:800]
        target = action or page_url.split("?")[0]
        return self.post_with(page.text, target, data, follow=follow, files=files)

    def post_with(self, html: str, action: str, data: dict | list, follow: bool = False,
                  files: dict | list | None = None):  # noqa: ANN201
        """POST to ``action`` with the tokens of that form on ``html``."""
        found = form_tokens_for(html, action)
        if isinstance(data, dict):
            body: dict | list = {**found, **data}
        else:
            body = [*found.items(), *data]
        return self.client.post(action, data=body, files=files, follow_redirects=follow)

    # -- store reads (read-only, straight from SQLite) -----------------------------------
    def query(self, sql: str, *params: object, system: str = "acme") -> list[tuple]:
        path = self.run_dir / "stores" / f"{system}.sqlite"
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.close()

    def count(self, table: str, where: str = "1=1", *params: object) -> int:
        return self.query(f"select count(*) from {table} where {where}", *params)[0][0]

    def audit_mark(self) -> int:
        return self.query("select coalesce(max(id), 0) from audit_log")[0][0]

    def audit_since(self, mark: int) -> list[dict]:
        rows = self.query("select channel, episode_id, actor, action, table_name, row_pk, "
                          "before, after from audit_log where id > ? order by id", mark)
        return [{"channel": c, "episode_id": e, "actor": a, "action": act, "table": t,
                 "pk": json.loads(pk), "before": json.loads(b) if b else None,
                 "after": json.loads(after) if after else None}
                for c, e, a, act, t, pk, b, after in rows]


def make_portal(run_dir: Path, episode_id: str = "ep-test") -> Portal:
    app = create_app({"run_dir": run_dir, "episode_id": episode_id, "sites": ["acme"]})
    return Portal(TestClient(app, base_url=HOST), run_dir)
