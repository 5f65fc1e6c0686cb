"""Signing in to a hub under Starlette's TestClient, as a browser on the hub's page would."""

from __future__ import annotations

import re

from starlette.testclient import TestClient

BASE = "http://127.0.0.1:8600"


def sign_in(client: TestClient, name: str, password: str) -> str:
    """Sign in; the client then sends the hub's Origin and the session's CSRF token."""
    client.cookies.clear()
    form = client.get("/signin")
    token = re.search(r'name="form_token" value="([^"]+)"', form.text).group(1)
    done = client.post("/signin", data={"name": name, "password": password,
                                         "form_token": token, "next": "/"},
                       headers={"origin": BASE}, follow_redirects=False)
    assert done.status_code == 303, done.text
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/").text).group(1)
    client.headers.update({"origin": BASE, "x-csrf-token": csrf})
    return csrf
