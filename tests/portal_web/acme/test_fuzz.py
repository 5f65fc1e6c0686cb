"""Fuzz every POST form of the Acme portal: no input gives an HTTP 500, a refused form
(re-rendered with messages) writes nothing, and whatever is written is the browser's."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.portal_web.acme.support import Portal, form_tokens_for
from tests.portal_web.acme.test_pa13_extension import start_extension
from tests.portal_web.acme.test_pa19_session_timeout import PROVIDERS, SERVICE
from tests.portal_web.test_fuzz import values

NAMES = re.compile(r'name="([A-Za-z0-9_]+)"')
SKIP = {"csrf_token", "form_token"}
EXAMPLES = 15
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))


def form_fields(html: str, action: str) -> list[str]:
    start = html.find(f'action="{action}"')
    end = html.find("</form>", start)
    assert start >= 0, f"no form posts to {action}"
    return sorted({n for n in NAMES.findall(html[start:end]) if n not in SKIP})


def draft(portal: Portal, case_type: str, member: str, upto: str) -> int:
    case_id = portal.start_request(case_type, member)
    if upto != "provider":
        portal.step(case_id, "provider", {**PROVIDERS, "facility_npi": "1659378461",
                                          "facility_name": "Riverside Memorial Hospital"})
    if upto in ("questionnaire", "attachments", "review"):
        portal.step(case_id, "service", SERVICE)
    return case_id


# (task, member, request type, step the draft is at, step page, form action)
STEP_FORMS = [
    ("pa-19", "ACM610283559", "outpatient", "provider", "provider"),
    ("pa-19", "ACM610283559", "outpatient", "service", "service"),
    ("pa-19", "ACM610283559", "outpatient", "questionnaire", "questionnaire"),
    ("pa-09", "ACM774310582", "pharmacy", "drug", "drug"),
    ("pa-08", "ACM619027734", "inpatient_notification", "admission", "admission"),
    ("pa-16", "ACM933016274", "network_exception", "exception", "exception"),
    ("pa-19", "ACM610283559", "outpatient", "review", "review"),
]


def fuzz_form(portal: Portal, page: str, action: str, extra_fields: tuple = ()) -> None:
    fields = sorted({*form_fields(portal.client.get(page).text, action), *extra_fields})
    assert fields, "the form has no fields"

    @FUZZ
    @given(data=st.fixed_dictionaries({}, optional={name: values for name in fields}),
           junk=st.dictionaries(st.text(min_size=1, max_size=8), values, max_size=2))
    def post(data, junk):
        html = portal.client.get(page, follow_redirects=True).text
        mark = portal.audit_mark()
        body = {**junk, **data}
        if action in html:
            body.update(form_tokens_for(html, action))
        response = portal.client.post(action, data=body, follow_redirects=False)
        assert response.status_code in (200, 303, 403), (response.status_code, data)
        if response.status_code != 303:
            assert portal.audit_since(mark) == [], "a refused form wrote rows"
        else:
            assert {e["channel"] for e in portal.audit_since(mark)} <= {"browser"}

    post()


@pytest.mark.parametrize(("alias", "member", "case_type", "step", "page"), STEP_FORMS,
                         ids=[f"{c}:{s}" for _, _, c, s, _ in STEP_FORMS])
def test_wizard_steps_never_fail_and_refusals_write_nothing(portal_for, alias, member,
                                                            case_type, step, page):
    portal = portal_for(alias)
    upto = "questionnaire" if step == "review" else step
    case_id = draft(portal, case_type, member, upto)
    if step == "review":
        portal.step(case_id, "questionnaire", {"q_primary_diagnosis": "I42.0"},
                    action="save_exit")
        action = f"/auth/requests/{case_id}/submit"
    else:
        action = f"/auth/requests/{case_id}/{page}"
    fuzz_form(portal, f"/auth/requests/{case_id}/{page}", action,
              ("action",) if step != "review" else ("attest", "acknowledge_similar"))


def test_extension_step_never_fails(portal_for):
    portal = portal_for("pa-13")
    case_id = start_extension_of(portal)
    fuzz_form(portal, f"/auth/requests/{case_id}/extension",
              f"/auth/requests/{case_id}/extension", ("action",))


def start_extension_of(portal: Portal) -> int:
    class Run:  # start_extension only needs .portal
        pass

    run = Run()
    run.portal = portal  # type: ignore[attr-defined]
    return start_extension(run)  # type: ignore[arg-type]


def test_edit_and_resubmit_never_fails(portal_for):
    portal = portal_for("pa-10")
    fuzz_form(portal, "/auth/cases/1000/edit", "/auth/cases/1000/edit", ("action", "attest"))


def test_lookup_and_start_never_fail(portal_for):
    portal = portal_for("pa-06")
    fuzz_form(portal, "/auth/lookup", "/auth/lookup")
    fuzz_form(portal, "/auth/requests/new?type=outpatient&member_id=ACM402918331",
              "/auth/requests/start")


files = st.one_of(
    st.binary(max_size=64),
    st.binary(max_size=64).map(lambda b: b"%PDF-1.4\n" + b),
    st.binary(max_size=64).map(lambda b: b"\x89PNG\r\n\x1a\n" + b),
    st.just(b""))
names = st.one_of(st.text(max_size=40), st.sampled_from(
    ["note.pdf", "../../etc/passwd", "C:\\fakepath\\scan.jpg", "a" * 300 + ".pdf", "\x00.pdf"]))


def test_uploads_never_fail(portal_for):
    """Uploads to a draft and to a submitted case: any file, name and type."""
    portal = portal_for("pa-02")
    case_id = draft(portal, "outpatient", "ACM700110201", "provider")
    targets = [(f"/auth/requests/{case_id}/attachments",
                f"/auth/requests/{case_id}/attachments/upload"),
               ("/auth/cases/1003", "/auth/cases/1003/documents")]
    for target in targets:
        fuzz_upload(portal, *target)


def fuzz_upload(portal: Portal, page: str, action: str) -> None:
    @FUZZ
    @given(content=files, name=names, kind=values, description=values)
    def post(content, name, kind, description):
        html = portal.client.get(page).text
        mark = portal.audit_mark()
        response = portal.client.post(
            action, data={**form_tokens_for(html, action), "document_type": kind,
                          "description": description},
            files={"file": (name, content, "application/octet-stream")},
            follow_redirects=False)
        assert response.status_code in (200, 303), response.status_code
        if response.status_code == 200:
            assert portal.audit_since(mark) == []

    post()


@FUZZ
@given(user=values, password=values)
def test_login_form_never_fails(portal_for, user, password):
    portal = portal_for("pa-01", user=None)
    page = portal.client.get("/login")
    response = portal.client.post("/login", data={**form_tokens_for(page.text, "/login"),
                                                  "username": user, "password": password,
                                                  "next": user})
    assert response.status_code in (200, 303)


SEARCHES = ["/eligibility?member_id={}&last_name={}&first_name={}&dob={}",
            "/auth/requests/new?type={}&member={}&last_name={}&dob={}",
            "/auth/cases?q={}&status={}&type={}&sort={}",
            "/auth/lookup?plan_id={}&place_of_service={}",
            "/auth/codes/icd10?q={}", "/auth/codes/procedures?q={}",
            "/resources/{}", "/auth/requests/1/{}", "/auth/cases/{}"]


def test_search_parameters_never_fail(portal_for):
    portal = portal_for("pa-02")

    @FUZZ
    @given(args=st.lists(values, min_size=4, max_size=4))
    def search(args):
        for template in SEARCHES:
            url = template.format(*(quote(a, safe="") or "x" for a in args))
            response = portal.client.get(url)
            assert response.status_code in (200, 303, 404), (url, response.status_code)

    search()
