"""Test support for the Acme portal: a logged-in browser-like client on a seeded run,
form helpers that post a page's own tokens, and read-only store queries."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from starlette.testclient import TestClient

from portal_web import create_app
from tests.portal_web.support import audit_mark, feedback, form_tokens_for, store_rows, tokens

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
        return self.client.post(action, data=as_form({**found}, data), files=files,
                                follow_redirects=follow)

    # -- the request wizard, as a user drives it -----------------------------------------
    def start_request(self, case_type: str, member_number: str) -> int:
        """New request: search the member by ID, select them; returns the draft case id."""
        page = self.client.get(f"/auth/requests/new?type={case_type}&member_id={member_number}")
        assert page.status_code == 200, page.text[:800]
        data = form_values(page.text, "/auth/requests/start")
        assert data.get("member_id"), "no member to select on the page"
        response = self.client.post("/auth/requests/start", data=data, follow_redirects=False)
        assert response.status_code == 303, response.text[:2000]
        return int(response.headers["location"].split("/")[3])

    def step(self, case_id: int, step: str, data: dict | list, action: str = "continue",
             expect: int = 303):  # noqa: ANN201 - httpx.Response
        url = f"/auth/requests/{case_id}/{step}"
        payload = ({**data, "action": action} if isinstance(data, dict)
                   else [*data, ("action", action)])
        response = self.submit(url, payload)
        assert response.status_code == expect, feedback(response.text) or response.text[:2000]
        return response

    def upload(self, case_id: int, name: str, content: bytes, document_type: str,
               description: str = "", expect: int = 303):  # noqa: ANN201
        page = self.client.get(f"/auth/requests/{case_id}/attachments")
        assert page.status_code == 200, page.text[:800]
        response = self.post_with(page.text, f"/auth/requests/{case_id}/attachments/upload",
                                  {"document_type": document_type, "description": description},
                                  files={"file": (name, content, "application/pdf")})
        assert response.status_code == expect, feedback(response.text) or response.text[:2000]
        return response

    def finish_attachments(self, case_id: int) -> None:
        self.step(case_id, "attachments", {})

    def submit_request(self, case_id: int, *, acknowledge_similar: bool = False,
                       expect: int = 303) -> str | None:
        """Review -> submit; returns the tracking reference from the confirmation page."""
        data = {"attest": "1"}
        if acknowledge_similar:
            data["acknowledge_similar"] = "1"
        response = self.submit(f"/auth/requests/{case_id}/review", data,
                               action=f"/auth/requests/{case_id}/submit")
        assert response.status_code == expect, feedback(response.text) or response.text[:3000]
        if expect != 303:
            return None
        page = self.client.get(response.headers["location"])
        match = re.search(r'id="tracking-reference">(PA26-\d{6})<', page.text)
        assert match, page.text[:2000]
        return match[1]

    # -- store reads (read-only, straight from SQLite) -----------------------------------
    def query(self, sql: str, *params: object, system: str = "acme") -> list[tuple]:
        return store_rows(self.run_dir, system, sql, *params)

    def count(self, table: str, where: str = "1=1", *params: object) -> int:
        return self.query(f"select count(*) from {table} where {where}", *params)[0][0]

    def audit_mark(self) -> int:
        return audit_mark(self.run_dir, "acme")

    def audit_since(self, mark: int) -> list[dict]:
        rows = self.query("select channel, episode_id, actor, action, table_name, row_pk, "
                          "before, after from audit_log where id > ? order by id", mark)
        return [{"channel": c, "episode_id": e, "actor": a, "action": act, "table": t,
                 "pk": json.loads(pk), "before": json.loads(b) if b else None,
                 "after": json.loads(after) if after else None}
                for c, e, a, act, t, pk, b, after in rows]


def as_form(base: dict, data: dict | list) -> dict:
    """Form fields for httpx: repeated names (a list of pairs) become lists of values."""
    body: dict = dict(base)
    pairs = data.items() if isinstance(data, dict) else data
    for key, value in pairs:
        if key in body and not isinstance(data, dict):
            current = body[key]
            body[key] = [*current, value] if isinstance(current, list) else [current, value]
        else:
            body[key] = value
    return body


def make_portal(run_dir: Path, episode_id: str = "ep-test") -> Portal:
    app = create_app({"run_dir": run_dir, "episode_id": episode_id, "sites": ["acme"]})
    return Portal(TestClient(app, base_url=HOST), run_dir)


class _FormParser(HTMLParser):
    """The current values of one form's fields (inputs, checked boxes, selects, textareas)."""

    def __init__(self, action: str):
        super().__init__(convert_charrefs=True)
        self.action = action
        self.inside = False
        self.values: dict[str, str] = {}
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag == "form":
            self.inside = a.get("action") == self.action
            return
        if not self.inside:
            return
        name = a.get("name")
        if tag == "input" and name and "disabled" not in a:
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.values[name] = a.get("value", "on")
            elif kind not in ("submit", "button", "file"):
                self.values[name] = a.get("value", "")
        elif tag == "select" and name:
            self._select = name
            self.values.setdefault(name, "")
        elif tag == "option" and self._select and "selected" in a:
            self.values[self._select] = a.get("value", "")
        elif tag == "textarea" and name:
            self._textarea = name
            self.values[name] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False
        elif tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self.values[self._textarea] += data


def form_values(html: str, action: str) -> dict[str, str]:
    """What the form posting to ``action`` would send as it stands (tokens included)."""
    parser = _FormParser(action)
    parser.feed(html)
    return parser.values
