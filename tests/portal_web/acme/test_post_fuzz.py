"""Fuzz every POST form of the appeal, peer-to-peer, claim, correction and DME pages: no
input gives an HTTP 500, a refused form (re-rendered with messages) writes nothing at all,
and whatever is written is written through the browser channel."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.portal_web.acme.post_tasks import TaskRun, location_id, post_form, task_run
from tests.portal_web.acme.steps import appeal_details, start_appeal
from tests.portal_web.support import form_tokens_for

NAMES = re.compile(r'name="([A-Za-z0-9_\-]+)"')
SKIP = {"csrf_token", "form_token"}
EXAMPLES = 20
LETTER = ("We appeal this denial because the enclosed records document the medical "
          "necessity of the service requested for the patient.")

values = st.one_of(
    st.just(""),
    st.text(max_size=30),
    st.from_regex(r"\A-?[0-9]{1,7}(\.[0-9]{1,5})?\Z"),
    st.dates().map(lambda d: d.isoformat()),
    st.dates().map(lambda d: d.strftime("%m/%d/%Y")),
    st.sampled_from(["1", "7", "8", "yes", "no", "on", "K0823", "E0260", "I69.351", "I69",
                     "1546827399", "1546827398", "217-555-0100", "ACM892003416",
                     "26249001873", "1004", "1007", "1011", "99999999999", "1e9", "nan",
                     "inf", "-0", "$1,860.00", "JZ,59", "55513-0710-01", "<script>", "\x00",
                     "'; drop table appeals; --", "2026-02-30", "13/45/2026",
                     "medical_necessity", "clinical_note", "continue", "save"]),
    st.text(min_size=200, max_size=600),
)
files = st.sampled_from([None, ("a.pdf", b"%PDF-1.4\n%fuzz\n"), ("b.txt", b"not a pdf"),
                         ("c.pdf", b""), ("../../x.png", b"\x89PNG\r\n\x1a\n..")])


def form_fields(html: str, action: str) -> list[str]:
    start = html.find(f'action="{action}"')
    assert start >= 0, f"no form posts to {action}"
    end = html.find("</form>", start)
    return sorted({n for n in NAMES.findall(html[start:end]) if n not in SKIP})


def _appeal_draft(run: TaskRun, client) -> str:  # noqa: ANN001
    from tests.portal_web.acme.support import Portal

    appeal_id = start_appeal(Portal(client, run.path), "/appeals/new/case/1000",
                             appeal_details(LETTER, "Approve the service."))
    return str(appeal_id)


def _dme_draft(run: TaskRun, client) -> str:  # noqa: ANN001
    response = post_form(client, "/orders/new?member=4", "/orders/new?member=4",
                         {"hcpcs": "K0823", "action": "save"})
    return str(location_id(response, r"/orders/(\d+)/edit"))


# (task, variant, user, portal, page, action, setup giving {key} for the urls, multipart)
Setup = Callable[[TaskRun, object], str] | None
FORMS: list[tuple[str, str | None, str, str, str, str, Setup, bool]] = [
    ("pa-03", None, "riverside.pa", "acme", "/appeals/new/case/1000", None, None, False),
    ("pa-12", None, "riverside.pa", "acme", "/appeals/1000/level2", None, None, False),
    ("pa-17", None, "riverside.pa", "acme", "/appeals/new/claim/1003", None, None, False),
    ("pa-03", None, "riverside.pa", "acme", "/appeals/{key}/edit", None, _appeal_draft, False),
    ("pa-03", None, "riverside.pa", "acme", "/appeals/{key}/documents", None, _appeal_draft,
     True),
    ("pa-03", None, "riverside.pa", "acme", "/appeals/{key}/review", "/appeals/{key}/submit",
     _appeal_draft, False),
    ("pa-05", None, "riverside.pa", "acme", "/p2p/case/1000", None, None, False),
    ("pa-11", None, "riverside.billing", "acme", "/claims/status?by=patient", "/claims/status",
     None, False),
    ("pa-11", None, "riverside.billing", "acme", "/claims/status?by=claim", "/claims/status",
     None, False),
    ("pa-11", None, "riverside.billing", "acme", "/claims/1000/correct", None, None, False),
    ("pa-04", None, "riverside.pa", "dme", "/orders/new?member=4", None, None, False),
    ("pa-04", None, "riverside.pa", "dme", "/orders/{key}/edit", None, _dme_draft, False),
    ("pa-04", None, "riverside.pa", "dme", "/orders/{key}/documents", None, _dme_draft, True),
    ("pa-04", None, "riverside.pa", "dme", "/orders/{key}/review", "/orders/{key}/submit",
     _dme_draft, False),
]


@pytest.mark.parametrize(("alias", "variant", "user", "portal", "page", "action", "setup",
                          "multipart"), FORMS, ids=[f"{f[0]}:{f[4]}" for f in FORMS])
def test_posted_forms_never_fail_and_refusals_write_nothing(seeds, alias, variant, user, portal,
                                                            page, action, setup, multipart):
    run = task_run(seeds, alias, variant)
    client = (run.dme(user) if portal == "dme" else run.portal(user))
    key = setup(run, client.client) if setup else ""
    page = page.format(key=key)
    target = (action or page.split("?")[0]).format(key=key)
    if target.startswith("/orders/new"):
        target = page
    fields = form_fields(client.client.get(page).text, target)
    assert fields, "the form has no fields"

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=st.fixed_dictionaries({}, optional={name: values for name in fields}),
           junk=st.dictionaries(st.text(min_size=1, max_size=8), values, max_size=2),
           upload=files)
    def post(data, junk, upload):
        html = client.client.get(page).text
        if f'action="{target}"' not in html:  # an earlier example submitted it for good
            return
        mark = client.audit_mark()
        body = {**junk, **data, **form_tokens_for(html, target)}
        extra = {"files": {"file": upload}} if multipart and upload else {}
        response = client.client.post(target, data=body, follow_redirects=False, **extra)
        assert response.status_code in (200, 303, 404, 409), (response.status_code, data)
        written = client.audit_since(mark)
        if response.status_code != 303:
            assert written == [], "a refused form wrote rows"
        else:
            assert all(e["channel"] == "browser" for e in written)

    post()


# (task, user, portal, path, query parameters)
SEARCHES = [
    ("pa-12", "riverside.pa", "acme", "/appeals", ("status", "level", "q", "sort", "dir")),
    ("pa-12", "riverside.pa", "acme", "/appeals/new", ("claim_number", "reference", "case")),
    ("pa-05", "riverside.pa", "acme", "/p2p/new", ("case",)),
    ("pa-11", "riverside.billing", "acme", "/claims/status", ("by",)),
    ("pa-11", "riverside.billing", "acme", "/claims/corrections/new", ("claim_number",)),
    ("pa-04", "riverside.pa", "dme", "/members", ("member_id", "last_name", "dob", "start")),
    ("pa-04", "riverside.pa", "dme", "/orders", ("show",)),
    ("pa-04", "riverside.pa", "dme", "/orders/new", ("member",)),
]


@pytest.mark.parametrize(("alias", "user", "portal", "path", "params"), SEARCHES,
                         ids=[f"{s[0]}:{s[3]}" for s in SEARCHES])
def test_searches_and_links_never_fail(seeds, alias, user, portal, path, params):
    run = task_run(seeds, alias)
    client = (run.dme(user) if portal == "dme" else run.portal(user))

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(query=st.fixed_dictionaries({}, optional={name: values for name in params}))
    def get(query):
        mark = client.audit_mark()
        response = client.client.get(path, params=query, follow_redirects=False)
        assert response.status_code in (200, 303, 404), (response.status_code, query)
        assert client.audit_since(mark) == []

    get()


@settings(max_examples=10, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(user=values, password=values)
def test_dme_log_in_never_fails(seeds, user, password):
    run = task_run(seeds, "pa-04")
    dme = run.dme(user=None)
    page = dme.client.get("/login").text
    response = dme.client.post("/login", data={**form_tokens_for(page, "/login"),
                                               "username": user, "password": password,
                                               "next": user}, follow_redirects=False)
    assert response.status_code in (200, 303)
