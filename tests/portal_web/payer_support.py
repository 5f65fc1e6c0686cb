"""Test support for Acme's API: seeded runs whose episode id matches the app, X12 checks.

``PayerRun`` wraps a TestClient on ``api.acmehealth.test`` (the EHR host is served too), reads
the acme store straight from SQLite, and grades the run with the task's verifier.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from starlette.testclient import TestClient

import verifier
from portal_web import create_app
from portal_web.payer_api.edi import read_interchange
from portal_web.payer_api.guides import guide_for
from portal_web.payer_api.rules import check_transaction
from tests.portal_web.payer_x12 import Document, questionnaire_document
from tests.portal_web.support import CATALOG, SeedCache, add_rows, store_rows

API = "http://api.acmehealth.test"
X12 = {"Content-Type": "application/EDI-X12"}
CLIENT = ("riverside-278-client", "x12-7f3c9a51d2e84b06")
EPISODE = "ep-payer-api"


@dataclass
class PayerRun:
    alias: str
    run_dir: Path
    client: TestClient

    def post(self, body: bytes, auth: tuple[str, str] | None = CLIENT):  # noqa: ANN201
        return self.client.post("/x12/278", content=body, headers=X12, auth=auth)

    def query(self, system: str, sql: str, *params: object) -> list[tuple]:
        return store_rows(self.run_dir, system, sql, *params)

    def cases(self) -> list[tuple]:
        return self.query("acme", "select id, reference_number, status, service_code, "
                                  "icd10_codes from pa_cases where created_at >= '2026-10-19'")

    def note(self, doc_id: int, report_type: str, control: str | None = None) -> Document:
        name, data = self.query("ehr", "select name, document_data from documents where id = ?",
                                doc_id)[0]
        return Document(control or f"RFM-DOC-{doc_id}", report_type, name, "application/pdf",
                        bytes(data), name.removesuffix(".pdf").upper())

    def gold_documents(self, answers: dict) -> list[Document]:
        return [questionnaire_document(answers), self.note(1002, "PN"), self.note(1003, "M1")]

    def write_output(self, name: str, text: str) -> None:
        (self.run_dir / "output" / name).write_text(text)

    def grade(self, alias: str | None = None) -> verifier.Report:
        return verifier.grade(CATALOG.get(alias or self.alias), self.run_dir)


def payer_run(seeds: SeedCache, alias: str = "pa-18", extra_acme: str | None = None) -> PayerRun:
    """A fresh copy of the task's seeded run, re-labelled with this app's episode id."""
    run_dir = seeds.run(alias)
    meta = json.loads((run_dir / "run.json").read_text())
    meta["episode_id"] = EPISODE
    (run_dir / "run.json").write_text(json.dumps(meta))
    if extra_acme:
        add_rows(run_dir, extra_acme, "acme", starting_state=True)
    app = create_app({"run_dir": run_dir, "episode_id": EPISODE, "sites": ["acme_api", "ehr"]})
    return PayerRun(alias, run_dir, TestClient(app, base_url=API))


def scores(report: verifier.Report) -> dict[str, float]:
    return {c.name: c.fraction for c in report.checks}


# -- reading replies ----------------------------------------------------------------------------
def segments(reply: str) -> list[str]:
    return [s.strip() for s in reply.split("~") if s.strip()]


def find(reply: str, prefix: str) -> list[str]:
    return [s for s in segments(reply) if s.startswith(prefix)]


def reference_of(reply: str) -> str:
    refs = [s.split("*")[2] for s in find(reply, "REF*NT*")]
    assert refs, reply
    return refs[0]


def assert_conforming_reply(reply: str) -> None:
    """The reply is one readable interchange with true counts, and each 278 in it passes
    the same 005010X217/X215 checks as a request (with the response guide)."""
    interchange = read_interchange(reply.encode("latin-1"))
    assert interchange.problems == [], interchange.problems
    for group in interchange.groups:
        assert group.problems == []
        assert group.header.value(8) in ("005010X231A1", "005010X217", "005010X215")
        for ts in group.transactions:
            assert ts.problems == [], (ts.ident, ts.problems)
            if ts.ident == "278":
                guide = guide_for("278", ts.version, ts.segments[1].value(2))
                assert guide is not None and guide.name.endswith("Response")
                errors = check_transaction(ts, guide)
                assert errors == [], [e.describe() for e in errors]
