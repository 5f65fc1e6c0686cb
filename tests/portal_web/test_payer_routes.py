"""Every page of the fax service and the external review portal renders (200) for a
logged-in user on seeded data and sends an anonymous visitor to the log-in page."""

from __future__ import annotations

import pytest
from starlette.routing import Route

from portal_web.fax.app import build_fax_app
from portal_web.regulator.app import build_regulator_app
from portal_web.settings import PortalSettings
from tests.portal_web.fax_regulator_support import (  # noqa: F401 - payer_seeds is a fixture
    EPISODE,
    fax_client,
    payer_seeds,
    regulator_client,
    send_fax,
)

PUBLIC = {"/login", "/forms/external-review-request-form.pdf"}
FAX_PAGES = {  # route path -> a page of it (job 1 is sent, job 2 a draft; see below)
    "/": "/", "/sent": "/sent?sort=pages&dir=asc&show=all", "/drafts": "/drafts",
    "/compose": "/compose?number=2", "/compose/{job_id:id}": "/compose/2",
    "/jobs/{job_id:id}": "/jobs/1", "/jobs/{job_id:id}/fax.pdf": "/jobs/1/fax.pdf",
    "/jobs/{job_id:id}/documents/{doc_id:id}": "/jobs/1/documents/1",
    "/directory": "/directory?q=beta", "/resources": "/resources",
    "/resources/bulletins/{key}": "/resources/bulletins/beta-appeals-level-1",
}
REGULATOR_PAGES = {
    "/": "/", "/requests/new": "/requests/new", "/requests/import": "/requests/import",
    "/requests/{review_id:id}": "/requests/1",
    "/requests/{review_id:id}/edit": "/requests/2/edit",
    "/requests/{review_id:id}/withdraw": "/requests/1/withdraw",
    "/requests/{review_id:id}/documents/{doc_id:id}": "/requests/1/documents/1",
    "/forms": "/forms",
}


def get_routes(app) -> set[str]:  # noqa: ANN001
    return {r.path for r in app.routes if isinstance(r, Route) and "GET" in (r.methods or ())}


def test_every_fax_page_is_listed_renders_and_needs_a_log_in(payer_seeds):  # noqa: F811
    run = payer_seeds.run("pa-17")
    app = build_fax_app(PortalSettings(run_dir=run, episode_id=EPISODE))
    assert get_routes(app) - PUBLIC == set(FAX_PAGES)
    fax = fax_client(run, EPISODE)
    send_fax(fax, files=[("note.txt", b"Appeal letter, claim BC-26071583.\n")])
    send_fax(fax, action="save")
    for route, url in FAX_PAGES.items():
        response = fax.client.get(url)
        assert response.status_code == 200, (route, response.status_code)
    anonymous = fax_client(run, EPISODE, login=False)
    for url in set(FAX_PAGES.values()) - {"/"}:  # "/" is the sent log's address
        response = anonymous.client.get(url, follow_redirects=False)
        assert response.status_code == 303 and "/login" in response.headers["location"], url


def test_every_regulator_page_is_listed_renders_and_needs_a_log_in(payer_seeds):  # noqa: F811
    from tests.portal_web.test_regulator import GOLD, REST

    run = payer_seeds.run("pa-12")
    app = build_regulator_app(PortalSettings(run_dir=run, episode_id=EPISODE))
    assert get_routes(app) - PUBLIC == set(REGULATOR_PAGES)
    portal = regulator_client(run, EPISODE)
    letter = (run / "input" / "dosimetry_plan.pdf").read_bytes()
    portal.post_form("/requests/new", "request-form", {
        **GOLD, **REST, "document_type": "denial_letter", "action": "submit"},
        files=[("documents", ("letter.pdf", letter, "application/pdf"))])
    portal.post_form("/requests/new", "request-form", {"action": "save"})
    for route, url in REGULATOR_PAGES.items():
        response = portal.client.get(url)
        assert response.status_code == 200, (route, response.status_code)
    anonymous = regulator_client(run, EPISODE, login=False)
    for url in REGULATOR_PAGES.values():
        response = anonymous.client.get(url, follow_redirects=False)
        assert response.status_code == 303 and "/login" in response.headers["location"], url
    assert anonymous.client.get("/forms/external-review-request-form.pdf").status_code == 200


@pytest.mark.parametrize("site", ["fax", "regulator"])
def test_static_files_are_served(payer_seeds, site):  # noqa: F811
    run = payer_seeds.run("pa-07" if site == "fax" else "pa-12")
    client = (fax_client if site == "fax" else regulator_client)(run, EPISODE, login=False)
    name = "fax" if site == "fax" else "regulator"
    for suffix in ("css", "js"):
        assert client.client.get(f"/static/{name}.{suffix}").status_code == 200
