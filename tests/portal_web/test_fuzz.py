"""Fuzz every POST form of the web EHR: no input gives an HTTP 500, and a refused form
(re-rendered with messages) writes nothing at all."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.portal_web.support import PA_DESK, tokens

NAMES = re.compile(r'name="([A-Za-z0-9_]+)"')
SKIP = {"csrf_token", "form_token", "q", "kind", "view", "mrn_filter"}

# (task, user, page to open, form action, extra rows)
FORMS = [
    ("ord-01", "nurse.kelly", "/patient/1/encounter/1001/vitals/new", None, None),
    ("ord-01", "nurse.kelly", "/patient/1/encounter/new", None, None),
    ("ord-05", "dr.osei", "/patient/8/encounter/1001/soap/new", None, None),
    ("ord-05", "dr.osei", "/patient/8/encounter/1001/vitals/1001", None, None),
    ("ord-04", "nurse.kelly", "/patient/7/issue/new?type=allergy", "/patient/7/issue/new", None),
    ("ord-04", "nurse.kelly", "/patient/7/issue/1001", None, None),
    ("ord-08", "dr.osei", "/patient/9/rx/new", None, None),
    ("ord-14", "dr.osei", "/patient/14/rx/1001", None, None),
    ("ord-09", "dr.osei", "/patient/10/orders/new", None, None),
    ("ord-11", "nurse.kelly", "/patient/12/immunizations/new", None, None),
    ("ord-02", "dr.osei", "/patient/3/transactions/new?type=LBTref",
     "/patient/3/transactions/new", None),
    ("ord-13", "dr.osei", "/patient/13/encounter/1001/lbf/LBFjoint_inj/new", None, None),
    ("ord-19", "nurse.kelly", "/patient/17/encounter/1001/lbf/LBFio/new", None, None),
    ("pa-02", "pa.coord", "/pa/worklist/1", "/pa/worklist/item/9001", PA_DESK),
    ("pa-02", "pa.coord", "/patient/120/authorizations/9001", None, PA_DESK),
    ("pa-02", "pa.coord", "/patient/120/authorizations/new", None, PA_DESK),
    ("pa-02", "pa.coord", "/messages/new", None, PA_DESK),
    ("pa-02", "pa.coord", "/messages/9001", None, PA_DESK),
    ("pa-02", "pa.coord", "/tasks/new", None, PA_DESK),
    ("pa-02", "pa.coord", "/tasks/9001", None, PA_DESK),
    ("ord-01", "dr.osei", "/calendar/event/new", None, None),
    ("ord-01", "dr.osei", "/calendar/event/1001", None, None),
]
EXAMPLES = 25

values = st.one_of(
    st.just(""),
    st.text(max_size=30),
    st.from_regex(r"\A-?[0-9]{1,7}(\.[0-9]{1,5})?\Z"),
    st.dates().map(lambda d: d.isoformat()),
    st.from_regex(r"\A[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}\Z"),
    st.from_regex(r"\A[0-9]{1,2}:[0-9]{2}\Z"),
    st.sampled_from(["1", "10", "YES", "NO", "mL", "IM", "knee", "urgent", "E11.9",
                     "J01.90, E78.5", "1e9", "nan", "inf", "0x10", "../../etc", "<script>",
                     "'; drop table lists; --", "\x00", "2026-02-30", "99999999999999999999"]),
    st.text(min_size=200, max_size=600),
)


def form_fields(html: str, action: str) -> list[str]:
    start = html.find(f'action="{action}"')
    end = html.find("</form>", start)
    assert start >= 0, f"no form posts to {action}"
    return sorted({n for n in NAMES.findall(html[start:end]) if n not in SKIP})


@pytest.mark.parametrize(("alias", "user", "page", "action", "extra"), FORMS,
                         ids=[f"{a}:{p}" for a, _, p, _, _ in FORMS])
def test_posted_forms_never_fail_and_refusals_write_nothing(ehr_for, alias, user, page,
                                                            action, extra):
    ehr = ehr_for(alias, user=user, extra=extra)
    target = action or page.split("?")[0]
    fields = form_fields(ehr.client.get(page).text, target)
    assert fields, "the form has no fields"

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=st.fixed_dictionaries({}, optional={name: values for name in fields}),
           junk=st.dictionaries(st.text(min_size=1, max_size=8), values, max_size=2))
    def post(data, junk):
        html = ehr.client.get(page).text
        start = html.find(f'action="{target}"')
        mark = ehr.audit_mark()
        response = ehr.client.post(target, data={**junk, **data, **tokens(html[start:])},
                                   follow_redirects=False)
        assert response.status_code in (200, 303), (response.status_code, data)
        if response.status_code == 200:
            assert ehr.audit_since(mark) == [], "a refused form wrote rows"
        else:
            assert all(e["channel"] == "browser" for e in ehr.audit_since(mark))

    post()


@settings(max_examples=8, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(user=values, password=values)
def test_login_form_never_fails(ehr_for, user, password):
    ehr = ehr_for("ord-01", user=None)
    page = ehr.client.get("/login")
    response = ehr.client.post("/login", data={**tokens(page.text), "authUser": user,
                                               "clearPass": password, "next": user})
    assert response.status_code in (200, 303)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                max_size=4),
    max_leaves=20)


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(body=st.fixed_dictionaries({"resourceType": st.just("Observation")},
                                  optional={"status": json_values, "code": json_values,
                                            "category": json_values, "subject": json_values,
                                            "encounter": json_values,
                                            "effectiveDateTime": json_values,
                                            "valueQuantity": json_values,
                                            "component": json_values}))
def test_fhir_observation_create_never_fails(ehr_for, body):
    ehr = ehr_for("ord-18", user=None)
    token = ehr.client.post("/oauth2/default/token", data={
        "grant_type": "client_credentials", "client_id": "ord18-vitals-client-7d3f",
        "client_secret": "q8Zt4mW2-sandbox-RxV9pL6n"}).json()["access_token"]
    mark = ehr.audit_mark()
    response = ehr.client.post("/apis/default/fhir/Observation", content=json.dumps(body),
                               headers={"Authorization": f"Bearer {token}",
                                        "Content-Type": "application/fhir+json"})
    assert response.status_code in (201, 400, 422), response.text
    if response.status_code != 201:
        assert ehr.audit_since(mark) == []


SEARCHES = ["/main/finder?q={}", "/main/calendar?date={}&provider={}", "/admin/logs?view={}&mrn={}",
            "/pa/authorizations?status={}", "/directory?q={}&kind={}", "/messages?show={}",
            "/tasks?show={}", "/patient/7/issues?type={}", "/patient/7/issue/new?type={}",
            "/patient/3/transactions/new?type={}", "/patient/12/immunizations/new?encounter={}",
            "/calendar/event/new?pid={}&date={}&time={}&provider={}"]



def test_search_parameters_never_fail(ehr_for):
    from urllib.parse import quote

    ehr = ehr_for("ord-02", user="dr.osei")

    @settings(max_examples=20, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(args=st.lists(values, min_size=4, max_size=4))
    def search(args):
        for template in SEARCHES:
            url = template.format(*(quote(a, safe="") for a in args))
            response = ehr.client.get(url)
            assert response.status_code in (200, 400, 404), (url, response.status_code)

    search()


def test_fhir_search_parameters_never_fail(ehr_for):
    from urllib.parse import quote

    ehr = ehr_for("ord-18", user=None)
    token = ehr.client.post("/oauth2/default/token", data={
        "grant_type": "client_credentials", "client_id": "ord18-vitals-client-7d3f",
        "client_secret": "q8Zt4mW2-sandbox-RxV9pL6n"}).json()["access_token"]
    headers = {"Authorization": f"Bearer {token}"}

    @settings(max_examples=20, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(args=st.lists(values, min_size=3, max_size=3))
    def search(args):
        for resource, names in (("Patient", ("identifier", "name", "birthdate")),
                                ("Encounter", ("patient", "date", "_id")),
                                ("Observation", ("patient", "date", "code"))):
            params = dict(zip(names, args, strict=True))
            response = ehr.client.get(f"/apis/default/fhir/{resource}", params=params,
                                      headers=headers)
            assert response.status_code in (200, 400), (resource, params, response.text)
            rid = quote(args[0][:80], safe="") or "x"
            response = ehr.client.get(f"/apis/default/fhir/{resource}/{rid}", headers=headers)
            assert response.status_code in (200, 404)

    search()
