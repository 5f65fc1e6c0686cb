"""Fuzz the GET query parameters and path parameters of every route of every site: the web
EHR and its FHIR API, the Workspace, the Acme portal, DME, ePA, the fax service, the state's
review portal and Acme's payer API. No input gives an HTTP 500 or shows a traceback.

Routes are read from each site's own route table (a new route is fuzzed without being listed
here); query parameter names from the sources of ``portal_web`` (every name a view reads),
with FHIR's search and control parameters. Each route gets a bounded, derandomized number of
examples, so the run time stays modest on CI.
"""

from __future__ import annotations

import inspect
import json
import logging
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from starlette.routing import Mount, Route
from starlette.testclient import TestClient

from portal_web import create_app
from tests.portal_web.support import PASSWORDS, SeedCache, tokens

EXAMPLES = 4  # generated per route, after the KNOWN_BAD ones
KNOWN_BAD = ["²", "99999999999999999999", "x" * 300]
REAL_IDS = {"pid": "1", "enc": "1001"}  # path parameters of rows the seeds hold (else 1001)
READS = re.compile(r"(?:query_params|params)(?:\.get|\.getlist)?[(\[]\s*[\"']([A-Za-z_][\w:.-]*)")
FHIR_PARAMS = ["_count", "_offset", "_sort", "_summary", "_format", "_include", "_id", "name",
               "name:contains", "name:exact", "family", "given", "identifier", "birthdate",
               "patient", "subject", "encounter", "date", "code", "category", "status",
               "clinical-status", "_elements", "_total"]
EPISODE = "ep-route-fuzz"
SKIP = re.compile(r"/(logout|log-out|sign-out)\b")  # would end the fuzzing client's session


def query_names(endpoint: object) -> tuple[str, ...]:
    """The parameter names the endpoint's module reads (FHIR's for the FHIR API)."""
    module = sys.modules.get(getattr(inspect.unwrap(endpoint), "__module__", ""), None)  # type: ignore[arg-type]
    names = set(READS.findall(inspect.getsource(module))) if module else set()
    if module and module.__name__.startswith("portal_web.fhir"):
        names.update(FHIR_PARAMS)
    return tuple(sorted(names)) or ("q",)

text = st.one_of(
    st.just(""),
    st.text(max_size=24),
    st.sampled_from(["1", "7", "120", "1001", "9001", "0", "-1", "+5", "²", "١٢", "1e9",
                     "99999999999999999999", "9223372036854775807", "9223372036854775808",
                     "-9223372036854775809", "nan", "inf", "0x10", "true", "../../etc/passwd",
                     "<script>", "\x00", "%00", "'; drop table x; --", "2026-02-30",
                     "2026-10-19", "gt2026-01-01", "Patient/1", "output", "documents",
                     "referral.txt", "a.csv\n", "xml", "json", "count", "-date", "name",
                     "Patient:patient", "x" * 300]),
)
path_values = st.one_of(
    st.sampled_from(["1", "2", "7", "12", "120", "1001", "1002", "9001", "0", "²",
                     "99999999999999999999", "9223372036854775808", "x", "..", "output",
                     "documents", "downloads", "referral.txt", "Patient", "Observation",
                     "ACM-PA-118204", "LBFjoint_inj", "LBFio"]),
    st.text(min_size=1, max_size=16))


@dataclass
class Target:
    """One site of a seeded run, with a client signed in as its user would be."""

    client: TestClient
    routes: list[tuple[str, tuple[str, ...], tuple[str, ...]]]  # GET path, its parameters,
    # the query parameters its module reads
    headers: dict[str, str]


def get_routes(app, prefix: str = "") -> Iterator[tuple[str, tuple[str, ...], tuple[str, ...]]]:  # noqa: ANN001
    for route in getattr(app, "routes", []):
        if isinstance(route, Mount):
            if route.path.startswith("/static"):
                continue
            yield from get_routes(route, prefix + route.path)
        elif isinstance(route, Route) and (route.methods is None or "GET" in route.methods):
            path = prefix + route.path_format
            if not SKIP.search(path):
                yield path, tuple(route.param_convertors), query_names(route.endpoint)


def _login(client: TestClient, fields: tuple[str, str], user: str, password: str) -> None:
    page = client.get("/login")
    response = client.post("/login", data={**tokens(page.text), fields[0]: user,
                                           fields[1]: password}, follow_redirects=False)
    assert response.status_code == 303, response.text[:400]


def _fhir_token(client: TestClient) -> dict[str, str]:
    token = client.post("/oauth2/default/token", data={
        "grant_type": "client_credentials", "client_id": "ord18-vitals-client-7d3f",
        "client_secret": "q8Zt4mW2-sandbox-RxV9pL6n"}).json()["access_token"]
    return {"Authorization": f"Bearer {token}"}


# site id -> (task, variant, sites served, host, login)
SITES = {
    "ehr": ("ord-01", None, ["ehr"], "emr.clinic.test",
            (("authUser", "clearPass"), "nurse.kelly", PASSWORDS["nurse.kelly"])),
    "fhir": ("ord-18", None, ["ehr"], "emr.clinic.test", None),
    "workspace": ("ord-01", None, ["workspace"], "workspace.local", None),
    "acme": ("pa-01", None, ["acme"], "portal.acmehealth.test",
             (("username", "password"), "riverside.pa", "AcmePortal#2026")),
    "dme": ("pa-04", "complete-docs", ["acme", "dme"], "dme.acmehealth.test",
            (("username", "password"), "riverside.pa", "AcmePortal#2026")),
    "epa": ("pa-20", None, ["epa"], "epa.covermymeds.test",
            (("username", "password"), "dwhitfield", "CoverRx#2026")),
    "fax": ("pa-07", None, ["fax"], "fax.betacare.test",
            (("username", "password"), "riverside.fax", "FaxDesk#2026")),
    "regulator": ("pa-12", None, ["regulator"], "review.insurance.state.test",
                  (("username", "password"), "dwhitfield.rfm", "StateReview#2026")),
    "payer-api": ("pa-18", None, ["acme_api"], "api.acmehealth.test", None),
}


@pytest.fixture(scope="module")
def route_seeds(tmp_path_factory: pytest.TempPathFactory) -> SeedCache:
    return SeedCache(tmp_path_factory.mktemp("route-fuzz-seeds"), EPISODE)


def target_for(seeds: SeedCache, site_id: str) -> Target:
    logging.getLogger("portal_web").setLevel(logging.CRITICAL)
    alias, variant, sites, host, login = SITES[site_id]
    run = seeds.run(alias, variant)
    episode = json.loads((run / "run.json").read_text())["episode_id"]
    app = create_app({"run_dir": run, "episode_id": episode, "sites": sites})
    client = TestClient(app, base_url=f"http://{host}", raise_server_exceptions=False)
    headers: dict[str, str] = {}
    if login:
        _login(client, *login)
    if site_id == "fhir":
        headers = _fhir_token(client)
    elif site_id == "payer-api":
        import base64

        secret = base64.b64encode(b"riverside-278-client:x12-7f3c9a51d2e84b06").decode()
        headers = {"Authorization": f"Basic {secret}"}
    routes = sorted(set(get_routes(app.sites[host])))
    if site_id == "fhir":
        routes = [r for r in routes if r[0].startswith("/apis/")]
    elif site_id == "ehr":
        routes = [r for r in routes if not r[0].startswith("/apis/")]
    assert routes, f"{site_id} has no GET routes"
    return Target(client, routes, headers)


def fill(path_format: str, values: dict[str, str]) -> str:
    return re.sub(r"{([^}:]+)(?::[^}]+)?}", lambda m: quote(values[m[1]], safe="") or "x",
                  path_format)


def fuzz_route(target: Target, path_format: str, names: tuple[str, ...],
               query_names: tuple[str, ...]) -> str | None:
    """The first failing request of a bounded, derandomized run on one route, if any: first
    every parameter at once set to each of the values that broke routes before, then
    generated ones."""
    failed: list[str] = []

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              phases=(Phase.explicit, Phase.generate), suppress_health_check=list(HealthCheck))
    @given(path=st.fixed_dictionaries({n: path_values for n in names}),
           query=st.fixed_dictionaries({}, optional={n: text for n in query_names}))
    def get(path: dict[str, str], query: dict[str, str]) -> None:
        url = fill(path_format, path)
        if query:
            url += "?" + urlencode(query)
        response = target.client.get(url, headers=target.headers, follow_redirects=False)
        if response.status_code >= 500 or "Traceback (most recent call last)" in response.text:
            failed.append(f"{response.status_code} GET {url[:200]}")
            raise AssertionError(failed[-1])

    for value in KNOWN_BAD:
        bad = {n: value for n in query_names}
        get = example(path={n: value for n in names}, query=bad)(get)
        if names:  # the same on a page that exists
            get = example(path={n: REAL_IDS.get(n, "1001") for n in names}, query=bad)(get)
    try:
        get()
    except AssertionError:
        return failed[0]
    return None


@pytest.mark.parametrize("site_id", list(SITES))
def test_get_parameters_of_every_route_never_fail(route_seeds, site_id):
    target = target_for(route_seeds, site_id)
    failures = [f for path_format, names, query_names in target.routes
                if (f := fuzz_route(target, path_format, names, query_names))]
    assert not failures, f"{len(failures)} of {len(target.routes)} routes failed:\n" + \
        "\n".join(failures)
