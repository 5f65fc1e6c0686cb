"""The hub against a network neighbour: Host allowlist, sign-in, CSRF, owners, accounts."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from episodes.hub.app import create_hub, pixel_listen_host
from episodes.hub.auth import Accounts, check_password
from tests.episodes.conftest import DEMO_DIR
from tests.episodes.hub_client import BASE, sign_in
from tests.episodes.test_hub_routes import QuietEpisode, _start, _wait

ATTACKER = {"host": "attacker.example:18600", "origin": "http://attacker.example:18600"}


def _hub(tmp_path: Path, **settings):
    app = create_hub({"runs_dir": tmp_path / "runs", "tasks_dirs": [DEMO_DIR],
                      "max_episodes": 4, **settings}, episode_factory=QuietEpisode)
    accounts = app.state.accounts
    accounts.add("dana", "annotator", "dana-password")
    accounts.add("eli", "annotator", "eli-password")
    accounts.add("root", "admin", "root-password")
    return app


@pytest.fixture
def app(tmp_path: Path):
    return _hub(tmp_path)


def test_foreign_host_header_is_refused(app):
    with TestClient(app, base_url=BASE) as client:
        sign_in(client, "dana", "dana-password")
        started = client.post("/episodes", data={"task": "demo-01", "variant": "default"},
                              headers=ATTACKER, follow_redirects=False)
        assert started.status_code == 400
        listed = client.get("/api/episodes", headers={"host": ATTACKER["host"]})
        assert listed.status_code == 400 and "token" not in listed.text
        assert app.state.hub.episodes == {}


def test_nothing_without_signing_in(app):
    with TestClient(app, base_url=BASE) as client:
        started = client.post("/episodes", data={"task": "demo-01", "variant": "default"},
                              headers={"origin": BASE}, follow_redirects=False)
        assert started.status_code == 401 and app.state.hub.episodes == {}
        assert client.get("/", follow_redirects=False).headers["location"].startswith(
            "/signin")
        sign_in(client, "dana", "dana-password")
        episode_id = _start(client)
        token = _wait(client, episode_id, lambda s: "connection" in s)["connection"]["token"]
        client.cookies.clear()
        for path in ("/api/episodes", f"/api/episodes/{episode_id}"):
            reply = client.get(path)
            assert reply.status_code == 401 and token not in reply.text
        page = client.get(f"/episodes/{episode_id}", follow_redirects=False)
        assert page.status_code == 303 and token not in page.text


def test_actions_need_origin_and_csrf_token(app):
    with TestClient(app, base_url=BASE) as client:
        csrf = sign_in(client, "dana", "dana-password")
        episode_id = _start(client)
        _wait(client, episode_id, lambda s: s["status"] == "running" and not s["busy"])
        api = f"/api/episodes/{episode_id}/stop"
        del client.headers["origin"]  # neither Origin nor Referer
        assert client.post(api).status_code == 403
        assert client.post(api, headers={"origin": "http://evil.example"}).status_code == 403
        assert client.post(api, headers={"origin": "https://127.0.0.1:8600"}).status_code == 403
        del client.headers["x-csrf-token"]
        refused = client.post(api, headers={"origin": BASE})
        assert refused.status_code == 403 and "CSRF" in refused.json()["error"]
        form = client.post("/episodes", data={"task": "demo-01", "variant": "default"},
                           headers={"origin": BASE})
        assert form.status_code == 403 and "CSRF" in form.text
        assert client.get(f"/api/episodes/{episode_id}").json()["status"] == "running"
        assert client.post(api, headers={"origin": BASE, "x-csrf-token": csrf}).status_code \
            == 200
        assert client.get(f"/api/episodes/{episode_id}").json()["status"] == "stopped"


def test_annotators_see_only_their_own_episodes(app):
    with TestClient(app, base_url=BASE) as dana, TestClient(app, base_url=BASE) as eli:
        sign_in(dana, "dana", "dana-password")
        sign_in(eli, "eli", "eli-password")
        mine = _start(dana)
        _wait(dana, mine, lambda s: s["status"] == "running" and not s["busy"])
        assert [e["episode_id"] for e in dana.get("/api/episodes").json()] == [mine]
        assert eli.get("/api/episodes").json() == []
        assert eli.get(f"/api/episodes/{mine}").status_code == 404
        assert eli.get(f"/episodes/{mine}").status_code == 404
        assert eli.post(f"/api/episodes/{mine}/stop").status_code == 404
        sign_in(eli, "root", "root-password")  # an admin sees and controls all
        assert [e["episode_id"] for e in eli.get("/api/episodes").json()] == [mine]
        assert eli.post(f"/api/episodes/{mine}/stop").status_code == 200


def test_sign_in_cookies_and_wrong_passwords(tmp_path: Path):
    app = _hub(tmp_path, tls=True, public_hosts=["hub.example.org"])
    with TestClient(app, base_url="https://hub.example.org") as client:
        form = client.get("/signin")
        token = re.search(r'name="form_token" value="([^"]+)"', form.text).group(1)
        data = {"name": "dana", "password": "wrong-password", "form_token": token}
        origin = {"origin": "https://hub.example.org"}
        assert client.post("/signin", data=data, headers=origin).status_code == 401
        data["password"] = "dana-password"
        assert client.post("/signin", data={**data, "form_token": "x"},
                           headers=origin).status_code == 403
        assert client.post("/signin", data=data, headers={
            "origin": "http://hub.example.org"}).status_code == 403
        done = client.post("/signin", data={**data, "next": "//evil.example/"},
                           headers=origin, follow_redirects=False)
        assert done.status_code == 303 and done.headers["location"] == "/"
        cookie = done.headers["set-cookie"]
        for flag in ("HttpOnly", "SameSite=strict", "Secure"):
            assert flag.lower() in cookie.lower()
    stored = Accounts(tmp_path / "runs")
    assert [(u.name, u.role) for u in stored.users()] == [
        ("dana", "annotator"), ("eli", "annotator"), ("root", "admin")]
    import sqlite3

    with sqlite3.connect(tmp_path / "runs" / "hub.sqlite") as db:
        stored_hash = db.execute("SELECT password_hash FROM users WHERE name='dana'").fetchone()
    assert stored_hash[0].startswith("scrypt$") and "dana-password" not in stored_hash[0]
    assert check_password("dana-password", stored_hash[0])


def test_single_user_mode_needs_the_start_secret(tmp_path: Path):
    app = create_hub({"runs_dir": tmp_path / "runs", "tasks_dirs": [DEMO_DIR]},
                     episode_factory=QuietEpisode)
    secret = app.state.accounts.new_start_secret()
    with TestClient(app, base_url=BASE) as client:
        form = client.get(f"/signin?secret={secret}")
        token = re.search(r'name="form_token" value="([^"]+)"', form.text).group(1)
        data = {"name": "admin", "password": "guess", "form_token": token}
        assert client.post("/signin", data=data, headers={"origin": BASE}).status_code == 401
        sign_in(client, "admin", secret)
        assert client.get("/api/episodes").status_code == 200
        app.state.accounts.new_start_secret()  # a restart: the old session ends
        assert client.get("/api/episodes").status_code == 401


def test_pixel_sessions_stay_on_loopback_unless_the_hub_is_exposed():
    assert pixel_listen_host("127.0.0.1") == "127.0.0.1"
    assert pixel_listen_host("localhost") == "127.0.0.1"
    assert pixel_listen_host("0.0.0.0") == "0.0.0.0"
    assert pixel_listen_host("10.1.2.3") == "10.1.2.3"


def test_hub_user_command(tmp_path: Path):
    def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "episodes.cli", "hub-user", *args,
                               "--runs-dir", str(tmp_path)], input=stdin, text=True,
                              capture_output=True, timeout=60)

    added = cli("add", "dana", "--role", "reviewer", stdin="a long password\n")
    assert added.returncode == 0, added.stderr
    assert cli("list").stdout.split() == ["dana", "reviewer"]
    short = cli("add", "eli", stdin="short\n")
    assert short.returncode == 2 and "at least 8" in short.stderr
    bad = cli("add", "Eli Smith", stdin="a long password\n")
    assert bad.returncode == 2 and "bad account name" in bad.stderr
    assert "Traceback" not in short.stderr + bad.stderr
    assert Accounts(tmp_path).sign_in("dana", "a long password") is not None
    assert cli("remove", "dana").returncode == 0 and cli("list").stdout == ""


def test_bad_requests_get_4xx_with_a_message(app):
    with TestClient(app, base_url=BASE, raise_server_exceptions=False) as client:
        sign_in(client, "dana", "dana-password")
        for path in ("/recordings/abc", "/recordings/99", "/api/recordings/99",
                     "/recordings/99/trace", "/episodes/ep-nope"):
            reply = client.get(path)
            assert reply.status_code == 404 and "no" in reply.text, path
        for body in ({"json": [1, 2]}, {"content": b"{", "headers": {
                "content-type": "application/json"}}, {"data": {"decision": "x"}}):
            reply = client.post("/recordings/1/review", **body)
            assert 400 <= reply.status_code < 500, (body, reply.text)
        assert client.post("/api/recordings/x/check").status_code == 404
        assert client.get("/signin?next=//evil.example").status_code == 200


def test_repeated_wrong_passwords_are_slowed_down(app):
    now = [1000.0]
    app.state.throttle._clock = lambda: now[0]
    with TestClient(app, base_url=BASE) as client:
        form = client.get("/signin")
        token = re.search(r'name="form_token" value="([^"]+)"', form.text).group(1)

        def attempt(name, password):
            return client.post("/signin", data={"name": name, "password": password,
                                                "form_token": token},
                               headers={"origin": BASE}, follow_redirects=False)

        assert [attempt("dana", f"guess-{i}").status_code for i in range(5)] == [401] * 5
        refused = attempt("dana", "dana-password")  # even the right one, for now
        assert refused.status_code == 429 and "too many failed sign-ins" in refused.text
        assert 0 < int(refused.headers["retry-after"]) <= 300
        assert attempt("eli", "eli-password").status_code == 429  # the same address
        now[0] += 301
        assert attempt("dana", "dana-password").status_code == 303
        assert attempt("eli", "wrong-password").status_code == 401  # forgotten on success
