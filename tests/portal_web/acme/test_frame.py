"""The Acme portal frame: log-in against portal_users, roles, idle time-out, CSRF, errors."""

from __future__ import annotations

import datetime as dt
import json

from tests.portal_web.acme.support import make_portal, tokens
from tests.portal_web.support import run_store


def test_login_wrong_password_stays_on_login(portal_for) -> None:
    portal = portal_for("pa-01", user=None)
    page = portal.client.get("/login")
    response = portal.client.post("/login", data={
        **tokens(page.text), "username": "riverside.pa", "password": "wrong"})
    assert response.status_code == 200
    assert "The user ID or password is incorrect" in response.text
    assert portal.client.get("/home", follow_redirects=False).status_code == 303


def test_anonymous_goes_to_login_and_back(portal_for) -> None:
    portal = portal_for("pa-01", user=None)
    response = portal.client.get("/home", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"].startswith("/login?next=/home")
    portal.login(next_path="/home")
    home = portal.client.get("/home")
    assert "Welcome, Dana Whitfield" in home.text
    assert "Authorizations &amp; Referrals" in home.text


def test_roles_decide_menu_and_access(portal_for) -> None:
    coordinator = portal_for("pa-01")
    assert "Claims &amp; Payments" not in coordinator.client.get("/home").text
    billing = portal_for("pa-01", user="riverside.billing")
    home = billing.client.get("/home").text
    assert "Claims &amp; Payments" in home
    assert "Authorizations &amp; Referrals" not in home


def test_login_needs_csrf(portal_for) -> None:
    portal = portal_for("pa-01", user=None)
    portal.client.get("/login")
    response = portal.client.post("/login", data={"username": "riverside.pa",
                                                  "password": "AcmePortal#2026"})
    assert response.status_code == 403
    assert "nothing was saved" in response.text


def test_idle_timeout_from_portal_settings(portal_for) -> None:
    portal = portal_for("pa-01")
    page = portal.client.get("/home").text
    assert 'data-idle-timeout="1800"' in page
    assert 'id="idle-warning"' in page
    # advance the sandbox clock past the 30 idle minutes: the session is gone
    clock_path = portal.run_dir / "clock.json"
    clock = json.loads(clock_path.read_text())
    from sandbox.clock import SandboxClock

    sandbox = SandboxClock.from_json(clock)
    sandbox.advance(dt.timedelta(minutes=31))
    sandbox.save(clock_path)
    response = portal.client.get("/home", follow_redirects=False)
    assert response.status_code == 303 and "expired=1" in response.headers["location"]
    login = portal.client.get(response.headers["location"])
    assert "Your session has expired" in login.text


def test_keepalive_reports_session(portal_for) -> None:
    portal = portal_for("pa-01")
    assert portal.client.post("/session/keepalive").json() == {"logged_in": True,
                                                                "remaining_s": 1800}


def test_logout(portal_for) -> None:
    portal = portal_for("pa-01")
    home = portal.client.get("/home").text
    response = portal.post_with(home, "/logout", {})
    assert response.status_code == 303
    assert portal.client.get("/home", follow_redirects=False).status_code == 303


def test_unknown_page_is_a_portal_error_page(portal_for) -> None:
    portal = portal_for("pa-01")
    response = portal.client.get("/no/such/page")
    assert response.status_code == 404
    assert "Page not found" in response.text and "Acme Health" in response.text


def test_site_is_served_by_create_app(seeds) -> None:
    portal = make_portal(seeds.run("pa-06"))
    assert portal.client.get("/login").status_code == 200


def test_a_login_without_this_portal_in_its_sites_is_refused(seeds):
    from sandbox.stores.acme import PortalUser

    run = seeds.run("pa-01")
    with run_store(run, "acme") as store, store.writer() as db:
        db.get(PortalUser, 1).sites = "dme"
    portal = make_portal(run)
    page = portal.client.get("/login")
    response = portal.client.post("/login", data={
        **tokens(page.text), "username": "riverside.pa", "password": "AcmePortal#2026"})
    assert "The user ID or password is incorrect" in response.text
