"""Test support for the ePA portal: a logged-in client on a seeded pa-20 run, form helpers,
store reads and grading with pa-20's verify.py (fixtures in this package's conftest)."""

from __future__ import annotations

import html
import json
import re
import sqlite3
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from starlette.testclient import TestClient

from portal_web import create_app
from sandbox.catalog import load_catalog
from sandbox.clock import SandboxClock
from sandbox.extract import extract_run
from tests.portal_web.support import audit_mark, form_tokens_for, graded, store_rows, tokens
from verifier import Report

HOST = "http://epa.covermymeds.test"
USER, PASSWORD = "dwhitfield", "CoverRx#2026"
JOY, JOYCE, JOY_ARCHIVED = "BX7Q-4KTM", "BX7Q-4KMT", "KQ2M-7HWD"
FEEDBACK = re.compile(r'class="invalid-feedback"[^>]*>([^<]+)<')
GOLD_ANSWERS = {  # pa-20's gold path as typed into the portal (dates as the page shows them)
    "diagnosis": "t2dm", "icd10_code": "E11.65", "a1c_recent": "8.4",
    "a1c_recent_date": "09/15/2026", "a1c_prior": "9.2", "a1c_prior_date": "08/04/2025",
    "metformin_trial": "yes", "metformin_current": "yes",
    "metformin_dose": "1000 mg twice daily", "metformin_months": "14", "bmi": "34.2",
    "mtc_men2": "no", "pancreatitis": "no", "other_glp1": "no",
}


def feedback(page: str) -> list[str]:
    """The inline messages of a page, as the user reads them."""
    return [html.unescape(m.strip()) for m in FEEDBACK.findall(page) if m.strip()]


@dataclass
class Epa:
    """A TestClient on one seeded run's ePA portal."""

    client: TestClient
    run_dir: Path
    extracts: int = 0

    def login(self, username: str = USER, password: str = PASSWORD) -> None:
        page = self.client.get("/login")
        response = self.client.post("/login", data={**tokens(page.text), "username": username,
                                                    "password": password},
                                    follow_redirects=False)
        assert response.status_code == 303, response.text[:500]

    def page(self, url: str) -> str:
        response = self.client.get(url)
        assert response.status_code == 200, (url, response.status_code, response.text[:300])
        return response.text

    def post_form(self, page_url: str, action: str, data: dict | list, *, files=None,
                  follow: bool = False):  # noqa: ANN001, ANN201 - httpx types
        """GET ``page_url``, then POST the form with ``action`` with its tokens and ``data``."""
        html = self.page(page_url)
        fields = list(form_tokens_for(html, action).items())
        fields += list(data.items()) if isinstance(data, dict) else list(data)
        return self.client.post(action, data=_as_multidict(fields), files=files,
                                follow_redirects=follow)

    def save_answers(self, key: str, answers: dict[str, str | list[str]],
                     action: str = "save"):  # noqa: ANN201 - httpx.Response
        """The whole question form with ``answers`` (as the page without script posts it)."""
        fields: list[tuple[str, str]] = [("action", action)]
        fields += [("asked", k) for k in answers]
        for k, v in answers.items():
            for item in (v if isinstance(v, list) else [v]):
                fields.append((f"a_{k}", item))
        return self.post_form(f"/request/{key}", f"/request/{key}", fields)

    def autosave(self, key: str, question: str, value: str | list[str]):  # noqa: ANN201
        """What the page script posts when one answer changes."""
        html = self.page(f"/request/{key}")
        csrf = tokens(html)["csrf_token"]
        fields = [("csrf_token", csrf), ("question", question)]
        fields += [(f"a_{question}", v) for v in (value if isinstance(value, list) else [value])]
        return self.client.post(f"/request/{key}/autosave", data=_as_multidict(fields),
                                headers={"Accept": "application/json"})

    def send(self, key: str, attest: bool = True):  # noqa: ANN201 - httpx.Response
        data = {"attest": "1"} if attest else {}
        return self.post_form(f"/request/{key}/send", f"/request/{key}/send", data)

    # -- store reads (read-only, straight from SQLite) ---------------------------------
    def query(self, sql: str, *params: object) -> list[tuple]:
        return store_rows(self.run_dir, "epa", sql, *params)

    def answers(self, request_id: int = 1000) -> dict[str, str]:
        return dict(self.query("select question_key, answer_value from epa_answers where "
                               "request_id = ?", request_id))

    def request_row(self, key: str) -> dict:
        conn = sqlite3.connect(f"file:{self.run_dir / 'stores' / 'epa.sqlite'}?mode=ro",
                               uri=True)
        conn.row_factory = sqlite3.Row
        try:
            row = conn.execute("select * from epa_requests where request_key = ?",
                               (key,)).fetchone()
            return dict(row)
        finally:
            conn.close()

    def audit_mark(self) -> int:
        return audit_mark(self.run_dir, "epa")

    def audit_since(self, mark: int) -> list[dict]:
        rows = self.query("select channel, episode_id, actor, action, table_name, after "
                          "from audit_log where id > ? order by id", mark)
        return [{"channel": c, "episode_id": e, "actor": a, "action": act, "table": t,
                 "after": json.loads(after) if after else None}
                for c, e, a, act, t, after in rows]

    def grade(self) -> Report:
        """pa-20's verify.py over an extract of the run, taken while the portal is live (as
        an episode ends)."""
        self.extracts += 1
        return graded(PA20, extract_run(self.run_dir, self.run_dir.with_name(
            f"{self.run_dir.name}-extract{self.extracts}")))

    def fractions(self) -> list[float | None]:
        return [c.fraction for c in self.grade().checks]

    def advance_clock(self, **delta: float) -> None:
        """Move the episode's sandbox clock forward (as the episode runner does)."""
        path = self.run_dir / "clock.json"
        clock = SandboxClock.load(path)
        clock.advance(timedelta(**delta))
        clock.save(path)


def _as_multidict(fields: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Form fields as httpx takes repeated names (a list per name)."""
    out: dict[str, list[str]] = {}
    for name, value in fields:
        out.setdefault(name, []).append(value)
    return out


def make_epa(run_dir: Path) -> Epa:
    """A client on ``run_dir`` whose episode id is the run's own (so the verifier counts it)."""
    episode = json.loads((run_dir / "run.json").read_text())["episode_id"]
    app = create_app({"run_dir": run_dir, "episode_id": episode, "sites": ["epa"]})
    return Epa(TestClient(app, base_url=HOST), run_dir)


PA20 = load_catalog().get("pa-20")
EPISODE = "ep-epa-test"

