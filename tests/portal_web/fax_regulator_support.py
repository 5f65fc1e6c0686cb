"""Test support for the Beta Care fax service and the state's external-review portal:
logged-in TestClients on seeded task runs, the sandbox clock moved forward, grading, and a
real Chromium serving several sites at once (each host mapped to one local server)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from portal_web import create_app
from sandbox.catalog import load_catalog
from sandbox.clock import SharedClock
from sandbox.extract import extract_run
from tests.portal_web.browser import headless_page
from tests.portal_web.support import PASSWORDS as EHR_PASSWORDS
from tests.portal_web.support import SeedCache, audit_mark, graded, store_rows, tokens

FAX = "http://fax.betacare.test"
REGULATOR = "http://review.insurance.state.test"
EHR = "http://emr.clinic.test"
FAX_LOGIN = ("riverside.fax", "FaxDesk#2026")
REGULATOR_LOGIN = ("dwhitfield.rfm", "StateReview#2026")
FEEDBACK = re.compile(r'class="[^"]*invalid-feedback[^"]*"[^>]*>([^<]+)<')
CATALOG = load_catalog()
EPISODE = "ep-payers"
ROSS_PA_FORM = {  # Beta Care's PA form for Hannah Ross as pa-07's gold fills it
    "patient_name": "Ross, Hannah", "patient_dob": "1983-06-25", "member_id": "BTC55120987",
    "ordering_provider": "Kwame Osei, MD", "ordering_npi": "1234567893",
    "provider_phone": "217-555-0100", "provider_fax": "217-555-0199", "cpt_code": "74160",
    "icd10_code": "R93.2", "service_date": "2026-10-27",
    "facility_name": "Springfield Imaging Center", "facility_npi": "1468205731",
    "symptom_onset": "2026-09-07", "prior_imaging_date": "2026-10-02"}


@pytest.fixture(scope="session")
def payer_seeds(tmp_path_factory: pytest.TempPathFactory) -> SeedCache:
    """Each (task, variant) seeded once with this suite's episode id; fresh copies."""
    return SeedCache(tmp_path_factory.mktemp("payer-seeds"), EPISODE)


def grade_run(alias: str, run_dir: Path, out: Path):  # noqa: ANN201 - verifier.Report
    """Extract the run as an episode ends, then grade the extract (rubric judge)."""
    return graded(CATALOG.get(alias), extract_run(run_dir, out))


def fractions(report) -> dict[str, float | None]:  # noqa: ANN001
    return {c.name: c.fraction for c in report.checks}


def feedback(html: str) -> list[str]:
    """The inline messages of a page, unescaped."""
    from html import unescape

    return [unescape(m) for m in FEEDBACK.findall(html)]


def form_tokens(html: str, form_id: str) -> dict[str, str]:
    """The tokens of the form with ``id=form_id``."""
    start = html.find(f'id="{form_id}"')
    assert start >= 0, f"no form {form_id}"
    return tokens(html[start:])


@dataclass
class Site:
    """A TestClient on one site of a run."""

    client: TestClient
    run_dir: Path
    system: str

    def login(self, username: str, password: str) -> None:
        page = self.client.get("/login")
        response = self.client.post("/login", data={**tokens(page.text), "username": username,
                                                    "password": password},
                                    follow_redirects=False)
        assert response.status_code == 303, response.text[:400]

    def post_form(self, page_url: str, form_id: str, data: dict, files=None,  # noqa: ANN001
                  follow: bool = False):  # noqa: ANN201 - httpx.Response
        """GET ``page_url``, POST its form ``form_id`` (its own action and tokens)."""
        page = self.client.get(page_url)
        assert page.status_code == 200, page.text[:400]
        start = page.text.find(f'id="{form_id}"')
        action = re.search(r'action="([^"]+)"', page.text[page.text.rfind("<form", 0, start):])
        assert action, f"form {form_id} has no action"
        return self.client.post(action.group(1), data={**form_tokens(page.text, form_id),
                                                       **data},
                                files=files, follow_redirects=follow)

    def query(self, sql: str, *params: object) -> list[tuple]:
        return store_rows(self.run_dir, self.system, sql, *params)

    def audit_mark(self) -> int:
        return audit_mark(self.run_dir, self.system)

    def audit_since(self, mark: int) -> list[tuple]:
        return self.query("select channel, episode_id, actor, action, table_name from "
                          "audit_log where id > ? order by id", mark)


def site_client(run_dir: Path, system: str, episode_id: str) -> Site:
    sites = {"fax": "fax", "regulator": "regulator", "ehr": "ehr"}
    app = create_app({"run_dir": run_dir, "episode_id": episode_id, "sites": [sites[system]]})
    base = {"fax": FAX, "regulator": REGULATOR, "ehr": EHR}[system]
    return Site(TestClient(app, base_url=base), run_dir, system)


def fax_client(run_dir: Path, episode_id: str, login: bool = True) -> Site:
    site = site_client(run_dir, "fax", episode_id)
    if login:
        site.login(*FAX_LOGIN)
    return site


def regulator_client(run_dir: Path, episode_id: str, login: bool = True) -> Site:
    site = site_client(run_dir, "regulator", episode_id)
    if login:
        site.login(*REGULATOR_LOGIN)
    return site


def ehr_client(run_dir: Path, episode_id: str, user: str = "pa.coord") -> Site:
    site = site_client(run_dir, "ehr", episode_id)
    page = site.client.get("/login")
    response = site.client.post("/login", data={**tokens(page.text), "authUser": user,
                                                "clearPass": EHR_PASSWORDS[user]},
                                follow_redirects=False)
    assert response.status_code == 303
    return site


def advance_clock(run_dir: Path, seconds: float) -> None:
    """Move the run's sandbox clock forward (as time passes in an episode)."""
    SharedClock(run_dir / "clock.json").advance(seconds)


PDF = "application/pdf"


def send_fax(fax: Site, *, to: str = "1-888-555-0142",
             files: Sequence[tuple[str, bytes]] = (), cover: bool = True,
             cover_to: str = "Beta Care Utilization Management", subject: str = "",
             message: str = "", action: str = "send", page: str = "/compose",
             **extra: str):  # noqa: ANN201 - httpx.Response
    """Fill the compose form of ``page`` and press ``action`` (Send fax by default)."""
    data = {"action": action, "to_number": to, "cover_to": cover_to,
            "cover_from": "Dana Whitfield, Riverside PA Desk", "cover_subject": subject,
            "cover_message": message, **extra}
    if cover:
        data["include_cover"] = "1"
    upload = [("files", (name, content, PDF)) for name, content in files] or None
    return fax.post_form(page, "compose-form", data, files=upload)


def deliver(fax: Site, seconds: float = 600) -> None:
    """Let sandbox time pass and look at the sent log (the service brings jobs up to date)."""
    advance_clock(fax.run_dir, seconds)
    assert fax.client.get("/sent").status_code == 200


# -- real Chromium ---------------------------------------------------------------------
HOSTS = ("fax.betacare.test", "review.insurance.state.test", "emr.clinic.test",
         "workspace.local")


def chromium_page(port: int) -> AbstractContextManager:
    """A Playwright page in headless Chromium at 1280x800 with the sandbox hosts mapped."""
    return headless_page(port, HOSTS)


def task(alias: str):  # noqa: ANN201 - a TaskSpec
    return CATALOG.get(alias)
