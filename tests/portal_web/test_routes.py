"""Every page of the web EHR renders (200) on seeded task data, and needs a log-in."""

from __future__ import annotations

import pytest
from starlette.routing import Mount, Route

from portal_web.ehr.app import build_ehr_app
from portal_web.settings import PortalSettings
from tests.portal_web.support import PA_DESK

# route path -> a page of it, on the task whose seed has something to show there
PAGES: dict[str, list[tuple[str, str]]] = {
    "ord-02": [  # Okafor (pid 3): documents, a referral to write; dr.osei
        ("/", "/"),
        ("/main/calendar", "/main/calendar?date=2026-10-19"),
        ("/main/finder", "/main/finder?q=okafor"),
        ("/main/flow", "/main/flow"),
        ("/about", "/about"),
        ("/patient/{pid:id}", "/patient/3"),
        ("/patient/{pid:id}/demographics", "/patient/3/demographics"),
        ("/patient/{pid:id}/encounters", "/patient/3/encounters"),
        ("/patient/{pid:id}/encounter/new", "/patient/3/encounter/new"),
        ("/patient/{pid:id}/issues", "/patient/3/issues"),
        ("/patient/{pid:id}/issue/new", "/patient/3/issue/new?type=medical_problem"),
        ("/patient/{pid:id}/transactions", "/patient/3/transactions"),
        ("/patient/{pid:id}/transactions/new", "/patient/3/transactions/new?type=LBTref"),
        ("/patient/{pid:id}/documents", "/patient/3/documents"),
        ("/patient/{pid:id}/documents/{did:id}", "/patient/3/documents/1001"),
        ("/patient/{pid:id}/documents/{did:id}/file", "/patient/3/documents/1001/file"),
        ("/patient/{pid:id}/documents/{did:id}/download", "/patient/3/documents/1001/download"),
        ("/patient/{pid:id}/documents/{did:id}/page/{page:id}.png",
         "/patient/3/documents/1001/page/1.png"),
        ("/patient/{pid:id}/messages", "/patient/3/messages"),
        ("/patient/{pid:id}/encounter/{enc:id}", "/patient/3/encounter/1001"),
        ("/patient/{pid:id}/encounter/{enc:id}/esign", "/patient/3/encounter/1001/esign"),
        ("/patient/{pid:id}/encounter/{enc:id}/vitals/new", "/patient/3/encounter/1001/vitals/new"),
        ("/patient/{pid:id}/encounter/{enc:id}/soap/new", "/patient/3/encounter/1001/soap/new"),
        ("/patient/{pid:id}/encounter/{enc:id}/soap/{fid:id}",
         "/patient/3/encounter/1001/soap/1001"),
        ("/patient/{pid:id}/encounter/{enc:id}/lbf/{formdir:str}/new",
         "/patient/3/encounter/1001/lbf/LBFjoint_inj/new"),
        ("/directory", "/directory?q=cardio"),
        ("/directory/{uid:id}", "/directory/40"),
        ("/admin/globals", "/admin/globals"),
        ("/admin/users", "/admin/users"),
        ("/admin/practice", "/admin/practice"),
        ("/admin/layouts", "/admin/layouts"),
        ("/admin/lists", "/admin/lists"),
        ("/admin/logs", "/admin/logs?view=audit&mrn=402108"),
        ("/reports/patients", "/reports/patients"),
        ("/reports/prescriptions", "/reports/prescriptions"),
        ("/reports/referrals", "/reports/referrals"),
        ("/reports/immunizations", "/reports/immunizations"),
        ("/reports/appointments", "/reports/appointments"),
        ("/reports/encounters", "/reports/encounters"),
        ("/procedures/providers", "/procedures/providers"),
        ("/procedures/compendium", "/procedures/compendium"),
        ("/procedures/pending", "/procedures/pending"),
        ("/messages", "/messages?show=all"),
        ("/messages/new", "/messages/new?pid=3"),
        ("/tasks", "/tasks"),
        ("/tasks/new", "/tasks/new?pid=3"),
        ("/calendar/event/new", "/calendar/event/new?pid=3&date=2026-10-19&time=11:00"),
        ("/pa/worklists", "/pa/worklists"),
        ("/pa/authorizations", "/pa/authorizations"),
    ],
    "ord-03": [  # Brennan (pid 5), inpatient: results, prescriptions, orders
        ("/patient/{pid:id}/results", "/patient/5/results"),
        ("/patient/{pid:id}/rx", "/patient/5/rx"),
        ("/patient/{pid:id}/rx/new", "/patient/5/rx/new"),
        ("/patient/{pid:id}/rx/{rid:id}", "/patient/5/rx/1001"),
        ("/patient/{pid:id}/orders", "/patient/5/orders"),
        ("/patient/{pid:id}/orders/new", "/patient/5/orders/new"),
        ("/patient/{pid:id}/orders/{oid:id}", "/patient/5/orders/1001"),
    ],
    "ord-19": [  # Ellis (pid 17): yesterday's I&O flowsheet
        ("/patient/{pid:id}/encounter/{enc:id}/lbf/{formdir:str}/{fid:id}",
         "/patient/17/encounter/1001/lbf/LBFio/1001"),
        ("/patient/{pid:id}/immunizations", "/patient/17/immunizations"),
        ("/patient/{pid:id}/immunizations/new", "/patient/17/immunizations/new"),
    ],
    "ord-13": [  # Chen (pid 13): today's vitals
        ("/patient/{pid:id}/encounter/{enc:id}/vitals/{fid:id}",
         "/patient/13/encounter/1001/vitals/1001"),
        ("/patient/{pid:id}/issue/{iid:id}", "/patient/13/issue/60"),
        ("/patient/{pid:id}/issue/{iid:id}/delete", "/patient/13/issue/60/delete"),
        ("/patient/{pid:id}/immunizations/{iid:id}", "/patient/1/immunizations/3"),
    ],
    "pa-02": [  # the PA desk rows of support.PA_DESK
        ("/pa/worklist/{wid:id}", "/pa/worklist/1"),
        ("/patient/{pid:id}/authorizations", "/patient/120/authorizations"),
        ("/patient/{pid:id}/authorizations/new", "/patient/120/authorizations/new"),
        ("/patient/{pid:id}/authorizations/{aid:id}", "/patient/120/authorizations/9001"),
        ("/messages/{mid:id}", "/messages/9001"),
        ("/tasks/{tid:id}", "/tasks/9001"),
        ("/patient/{pid:id}/mar", "/patient/111/mar"),
    ],
    "ord-01": [  # Whitaker (pid 1): today's appointment
        ("/calendar/event/{eid:id}", "/calendar/event/1001"),
    ],
}
NEEDS_ROW = {  # pages a clinical test opens after writing their row (test_clinical.py)
    "/patient/{pid:id}/rx/{rid:id}/erx", "/patient/{pid:id}/rx/alert/{aid:id}",
    "/patient/{pid:id}/transactions/{tid:id}", "/tabs/close/{key:str}", "/login",
    "/patient/{pid:id}/rx/{rid:id}/discontinue",
}
EXTRA = {"pa-02": PA_DESK}


def get_routes() -> set[str]:
    app = build_ehr_app(PortalSettings(run_dir="/nonexistent"))
    paths = set()
    for route in app.routes:
        if isinstance(route, Route) and "GET" in (route.methods or set()) \
                and not route.path.startswith(("/apis/", "/oauth2/")):
            paths.add(route.path)
        assert isinstance(route, (Route, Mount))
    return paths


def test_every_page_is_covered_by_this_test():
    covered = {path for pages in PAGES.values() for path, _ in pages} | NEEDS_ROW
    missing = sorted(get_routes() - covered)
    assert not missing, f"add a sample URL for: {missing}"


@pytest.mark.parametrize("alias", sorted(PAGES))
def test_pages_render(ehr_for, alias):
    ehr = ehr_for(alias, user="dr.osei", extra=EXTRA.get(alias))
    for path, url in PAGES[alias]:
        response = ehr.client.get(url)
        assert response.status_code == 200, (path, url, response.text[-800:])
        assert "<html" in response.text or response.headers["content-type"] in (
            "application/pdf", "image/png"), url


def test_new_messages_and_tasks_open(ehr_for):
    ehr = ehr_for("pa-02", user="pa.coord")
    ehr.submit("/messages/new", {"title": "Prior Auth", "assigned_to": "dr.osei",
                                 "message_status": "New", "body": "Please review."})
    mid = ehr.query("select max(id) from pnotes")[0][0]
    assert ehr.client.get(f"/messages/{mid}").status_code == 200
    ehr.submit("/tasks/new", {"assigned_to": "10", "subject": "Sign order", "status": "Open",
                              "priority": "Normal"})
    tid = ehr.query("select max(id) from ehr_tasks")[0][0]
    assert ehr.client.get(f"/tasks/{tid}").status_code == 200
    response = ehr.client.get("/tabs/close/msg", follow_redirects=False)
    assert response.status_code == 303


def test_pages_need_a_login(ehr_for):
    ehr = ehr_for("ord-02", user=None)
    for pages in PAGES.values():
        for path, url in pages:
            if path == "/":
                continue
            response = ehr.client.get(url, follow_redirects=False)
            assert response.status_code == 303, url
            assert response.headers["location"].startswith("/login?next="), url
