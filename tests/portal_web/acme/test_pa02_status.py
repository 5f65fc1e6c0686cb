"""pa-02 with the portal: each pending authorization looked up on its case page and its
decision copied into the EHR record (40% cases 1-2, 40% cases 3-4, 20% case 5)."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from tests.portal_web.acme.tasks import TaskRun

RECORDS = {"PA26-041187": (120, 1001), "PA26-041352": (121, 1002),
           "PA26-041690": (122, 1003), "PA26-041775": (123, 1004),
           "PA26-041802": (124, 1005)}
FIELD = r'id="{}">([^<]*)<'


def decision_on_portal(run: TaskRun, reference: str) -> dict[str, str]:
    """Search the case list for the reference, open the case, read the decision."""
    found = run.portal.client.get(f"/auth/cases?q={reference}").text
    link = re.search(r'href="(/auth/cases/\d+)"><b>' + reference, found)
    assert link, found[:1500]
    page = run.portal.client.get(link[1]).text
    facts = {}
    for key in ("decision-status", "auth-number", "approved-units", "approved-from",
                "approved-to"):
        match = re.search(FIELD.format(key), page)
        facts[key] = match[1].strip() if match else ""
    return facts


def iso(us_date: str) -> str:
    try:
        return dt.datetime.strptime(us_date, "%m/%d/%Y").date().isoformat()
    except ValueError:
        return ""


def record(run: TaskRun, reference: str, facts: dict[str, str]) -> None:
    pid, record_id = RECORDS[reference]
    approved = facts["auth-number"] != "Not issued"
    run.ehr_edit(f"/patient/{pid}/authorizations/{record_id}", {
        "status": facts["decision-status"].split(" \u2013 ")[0],  # the EHR's list: Pended
        "auth_num": facts["auth-number"] if approved else "",
        "units_approved": facts["approved-units"] if approved else "",
        "start_date": iso(facts["approved-from"]) if approved else "",
        "end_date": iso(facts["approved-to"]) if approved else "",
        "decision_date": "2026-10-19"})


@pytest.fixture
def run(task_seeds) -> TaskRun:
    return task_seeds.logged_in("pa-02")


def test_gold_path_scores_one(run):
    for reference in RECORDS:
        record(run, reference, decision_on_portal(run, reference))
    assert run.fractions() == [1.0, 1.0, 1.0]


def test_shown_decisions_match_the_seed(run):
    assert decision_on_portal(run, "PA26-041775") == {
        "decision-status": "Approved", "auth-number": "A260419907", "approved-units": "2",
        "approved-from": "10/16/2026", "approved-to": "01/13/2027"}
    assert decision_on_portal(run, "PA26-041690")["decision-status"] == \
        "Pended \u2013 information requested"


def test_requested_instead_of_approved_range_and_units(run):
    for reference in RECORDS:
        facts = decision_on_portal(run, reference)
        if reference == "PA26-041802":
            facts["approved-to"] = "12/31/2026"      # the requested end date
        if reference == "PA26-041775":
            facts["approved-units"] = "3"            # the requested injections
        record(run, reference, facts)
    assert run.fractions() == [1.0, 0.5, 0.0]
