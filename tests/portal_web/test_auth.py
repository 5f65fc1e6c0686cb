"""Log-in, CSRF, session expiry, double submits and error pages of the web EHR."""

from __future__ import annotations

from sandbox.clock import SharedClock
from tests.portal_web.support import form_tokens_for, tokens


def test_anonymous_requests_go_to_login_and_come_back(ehr_for):
    ehr = ehr_for("ord-01", user=None)
    response = ehr.client.get("/patient/1?x=1", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/login?next=/patient/1%3Fx%3D1"
    page = ehr.client.get("/login?next=/patient/1")
    done = ehr.client.post("/login", data={**tokens(page.text), "authUser": "nurse.kelly",
                                           "clearPass": "Riverside!Kelly26",
                                           "next": "/patient/1"}, follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"] == "/patient/1"
    assert "Whitaker" in ehr.client.get("/patient/1").text


def test_wrong_password_is_refused_without_writing(ehr_for):
    ehr = ehr_for("ord-01", user=None)
    mark = ehr.audit_mark()
    page = ehr.client.get("/login")
    response = ehr.client.post("/login", data={**tokens(page.text), "authUser": "nurse.kelly",
                                               "clearPass": "wrong"})
    assert response.status_code == 200
    assert "Invalid username or password" in response.text
    assert ehr.client.get("/patient/1", follow_redirects=False).status_code == 303
    assert ehr.audit_since(mark) == []


def test_login_changes_the_session_cookie(ehr_for):
    ehr = ehr_for("ord-01", user=None)
    ehr.client.get("/login")
    anonymous = ehr.client.cookies.get("OpenEMR")
    ehr.login("nurse.kelly")
    assert ehr.client.cookies.get("OpenEMR") not in (None, anonymous)


def test_post_without_csrf_token_is_refused(ehr_for):
    ehr = ehr_for("ord-01", user="nurse.kelly")
    mark = ehr.audit_mark()
    response = ehr.client.post("/patient/1/encounter/1001/vitals/new",
                               data={"bps": "120", "bpd": "80", "csrf_token": "forged"})
    assert response.status_code == 403
    assert "nothing was saved" in response.text
    assert ehr.audit_since(mark) == []


def test_logout_ends_the_session(ehr_for):
    ehr = ehr_for("ord-01", user="nurse.kelly")
    page = ehr.client.get("/main/calendar")
    response = ehr.client.post("/logout", data=form_tokens_for(page.text, "/logout"),
                               follow_redirects=False)
    assert response.headers["location"] == "/login?logged_out=1"
    assert ehr.client.get("/patient/1", follow_redirects=False).status_code == 303


def test_idle_session_expires_on_the_sandbox_clock(ehr_for):
    ehr = ehr_for("ord-01", user="nurse.kelly")
    assert ehr.client.get("/patient/1").status_code == 200
    SharedClock(ehr.run_dir / "clock.json").advance(31 * 60)  # the world's timeout is 1800 s
    response = ehr.client.get("/patient/1", follow_redirects=False)
    assert response.status_code == 303 and "expired=1" in response.headers["location"]
    assert "Your session expired" in ehr.client.get(response.headers["location"]).text


def test_double_submit_writes_once_and_lands_on_the_same_page(ehr_for):
    ehr = ehr_for("ord-01", user="nurse.kelly")
    url = "/patient/1/encounter/1001/vitals/new"
    page = ehr.client.get(url)
    data = {**form_tokens_for(page.text, url), "bps": "128", "bpd": "82",
            "date": "2026-10-19 09:00"}
    first = ehr.client.post(url, data=data, follow_redirects=False)
    second = ehr.client.post(url, data=data, follow_redirects=False)  # double click / back+resubmit
    assert first.status_code == second.status_code == 303
    assert first.headers["location"] == second.headers["location"]
    assert ehr.query("select count(*) from form_vitals where pid = 1 and bps = '128'") == [(1,)]


def test_a_failed_save_keeps_the_form_token_usable(ehr_for):
    ehr = ehr_for("ord-01", user="nurse.kelly")
    url = "/patient/1/encounter/1001/vitals/new"
    page = ehr.client.get(url)
    data = {**form_tokens_for(page.text, url), "date": "2026-10-19 09:00"}
    bad = ehr.client.post(url, data={**data, "pulse": "900"})
    assert bad.status_code == 200 and "between 10 and 300" in bad.text
    good = ehr.client.post(url, data={**data, "pulse": "76"}, follow_redirects=False)
    assert good.status_code == 303


def test_error_pages_say_what_to_do(ehr_for):
    ehr = ehr_for("ord-01", user="nurse.kelly")
    missing = ehr.client.get("/patient/99999")
    assert missing.status_code == 404 and "use Finder" in missing.text
    assert ehr.client.get("/patient/123456789012345").status_code == 404
    assert ehr.client.get("/no/such/page").status_code == 404
    wrong_method = ehr.client.delete("/patient/1")
    assert wrong_method.status_code == 405 and "What to do" in wrong_method.text


def test_a_site_without_its_store_says_so(tmp_path):
    from starlette.testclient import TestClient

    from portal_web import create_app
    from sandbox.clock import SandboxClock

    SandboxClock().save(tmp_path / "clock.json")
    client = TestClient(create_app({"run_dir": tmp_path, "sites": ["ehr"]}),
                        base_url="http://emr.clinic.test")
    page = client.get("/login")
    response = client.post("/login", data={**tokens(page.text), "authUser": "x",
                                           "clearPass": "y"})
    assert response.status_code == 503 and "no ehr system" in response.text
