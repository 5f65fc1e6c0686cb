"""The FHIR API against the R4 HTTP and search specification: paging with ``_count`` and
links in a stable order, ``name:contains``, ``_sort`` on the documented parameters,
``Prefer: handling=strict``, JSON only (406 for XML), 415 for a body that is not FHIR JSON,
and every error of the router an OperationOutcome."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

BASE = "/apis/default/fhir"
CLIENT = {"client_id": "ord18-vitals-client-7d3f",
          "client_secret": "q8Zt4mW2-sandbox-RxV9pL6n"}
STRICT = {"Prefer": "handling=strict"}


@pytest.fixture(scope="module")
def api(seeds):
    from tests.portal_web.support import make_client

    ehr = make_client(seeds.run("ord-18"))
    token = ehr.client.post("/oauth2/default/token", data={
        "grant_type": "client_credentials", **CLIENT}).json()["access_token"]
    ehr.client.headers["Authorization"] = f"Bearer {token}"
    return ehr.client


def bundle(api, path: str, headers: dict | None = None, **params: str) -> dict:
    response = api.get(f"{BASE}{path}", params=params, headers=headers or {})
    assert response.status_code == 200, response.text[:500]
    assert response.headers["content-type"].startswith("application/fhir+json")
    return response.json()


def matches(found: dict) -> list[dict]:
    return [e["resource"] for e in found["entry"] if e["search"]["mode"] == "match"]


def is_outcome(response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, (response.status_code, response.text[:300])
    assert response.headers["content-type"].startswith("application/fhir+json")
    body = response.json()
    assert body["resourceType"] == "OperationOutcome"
    assert body["issue"] and all(i["severity"] in ("error", "fatal") for i in body["issue"])
    if code:
        assert {i["code"] for i in body["issue"]} == {code}
    return body


def test_count_pages_through_every_result_once_in_a_stable_order(api):
    everything = bundle(api, "/Observation", _count="200")
    total = everything["total"]
    assert total > 20 and len(matches(everything)) == total
    seen, url = [], f"{BASE}/Observation?_count=20"
    while url:
        page = api.get(url).json()
        links = {link["relation"]: link["url"] for link in page["link"]}
        assert "self" in links and len(matches(page)) <= 20
        assert ("previous" in links) == bool(seen)
        seen += [r["id"] for r in matches(page)]
        url = links.get("next")
        if url:
            url = urlsplit(url)._replace(scheme="", netloc="").geturl()
    assert seen == [r["id"] for r in matches(everything)]


def test_name_contains_filters(api):
    assert bundle(api, "/Patient", **{"name:contains": "zzzz"})["total"] == 0
    every = matches(bundle(api, "/Patient", _count="200"))
    family = every[0]["name"][0]["family"]
    part = family[1:4].lower()
    found = matches(bundle(api, "/Patient", **{"name:contains": part}))
    assert found and len(found) < len(every)
    assert all(any(part in (n.get("family", "") + " ".join(n.get("given", []))).lower()
                   for n in r["name"]) for r in found)


def test_sort_on_documented_parameters(api):
    ascending = matches(bundle(api, "/Patient", _sort="birthdate", _count="200"))
    dates = [r["birthDate"] for r in ascending]
    assert dates == sorted(dates) and len(set(dates)) > 1
    descending = matches(bundle(api, "/Patient", _sort="-birthdate", _count="200"))
    assert [r["birthDate"] for r in descending] == sorted(dates, reverse=True)
    by_date = matches(bundle(api, "/Encounter", _sort="-date,_id", _count="200"))
    starts = [r["period"]["start"] for r in by_date]
    assert starts == sorted(starts, reverse=True)
    first = bundle(api, "/Patient", _sort="-birthdate", _count="3")
    assert "_sort=-birthdate" in next(x["url"] for x in first["link"] if x["relation"] == "next")


def test_unsupported_sort_and_params_warn_or_fail_under_strict(api):
    lenient = bundle(api, "/Patient", _sort="shoe-size", colour="blue")
    warnings = [i["diagnostics"] for e in lenient["entry"] if e["search"]["mode"] == "outcome"
                for i in e["resource"]["issue"]]
    assert any("shoe-size" in w for w in warnings) and any("colour" in w for w in warnings)
    for params in ({"colour": "blue"}, {"_sort": "shoe-size"}):
        refused = api.get(f"{BASE}/Patient", params=params, headers=STRICT)
        body = is_outcome(refused, 400)
        assert any(next(iter(params.values())) in i["diagnostics"] or
                   next(iter(params)) in i["diagnostics"] for i in body["issue"])
    assert bundle(api, "/Patient", headers=STRICT, name="a", _count="2")["resourceType"] == \
        "Bundle"


@pytest.mark.parametrize(("query", "accept"), [
    ("?_format=xml", None), ("?_format=application/fhir%2Bxml", None), ("", "application/fhir+xml"),
    ("", "application/xml, text/xml"), ("", "text/turtle")])
def test_xml_is_not_acceptable(api, query, accept):
    headers = {"Accept": accept} if accept else {}
    for path in ("/Patient", "/metadata"):
        is_outcome(api.get(f"{BASE}{path}{query}", headers=headers), 406, "not-supported")


def test_json_formats_are_served(api):
    for fmt in ("json", "application/fhir+json", "application/json"):
        bundle(api, "/Patient", _format=fmt, _count="1")
    for accept in ("application/fhir+json", "application/json", "*/*",
                   "application/fhir+xml;q=0.9, application/fhir+json"):
        bundle(api, "/Patient", headers={"Accept": accept}, _count="1")


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded",
                                          "application/fhir+xml", None])
def test_a_body_that_is_not_fhir_json_is_unsupported_media(api, content_type):
    headers = {"Content-Type": content_type} if content_type else {}
    created = api.post(f"{BASE}/Observation", content=b'{"resourceType": "Observation"}',
                       headers=headers)
    is_outcome(created, 415, "not-supported")
    put = api.put(f"{BASE}/Patient/1", content=b"{}", headers=headers)
    is_outcome(put, 415, "not-supported")


@pytest.mark.parametrize(("method", "path", "status"), [
    ("GET", "/Patient/1/_history/2", 404), ("GET", "/", 404), ("DELETE", "/metadata", 405),
    ("POST", "/metadata", 405), ("GET", "/Observation/x/y/z", 404)])
def test_router_errors_are_operation_outcomes(api, method, path, status):
    is_outcome(api.request(method, f"{BASE}{path}"), status)
