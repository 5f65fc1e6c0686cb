"""Fuzz every POST form of the fax service and the external review portal: no input gives
an HTTP 500, a refused form (re-rendered with messages) writes nothing, and what is written
is the browser session's."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.portal_web.fax_regulator_support import (  # noqa: F401 - payer_seeds is a fixture
    EPISODE,
    fax_client,
    form_tokens,
    payer_seeds,
    regulator_client,
)
from tests.portal_web.support import tokens

NAMES = re.compile(r'name="([A-Za-z0-9_]+)"')
SKIP = {"csrf_token", "form_token", "action", "q", "show", "files", "documents"}
EXAMPLES = 30

values = st.one_of(
    st.just(""), st.text(max_size=30),
    st.from_regex(r"\A[0-9 ()+.\-]{0,16}\Z"),
    st.dates().map(lambda d: d.isoformat()),
    st.dates().map(lambda d: d.strftime("%m/%d/%Y")),
    st.sampled_from(["1", "on", "1-888-555-0142", "18885550177", "217-555-0188", "C50.412",
                     "77525", "1617283944", "Acme Health", "provider", "group_insured",
                     "medical_necessity", "form", "denial_letter", "\x00", "<script>",
                     "9999999999999999999999", "2026-02-30", "../../etc/passwd", "nan"]),
    st.text(min_size=200, max_size=2200),
)
PDF_HEAD = b"%PDF-1.4\n"
files = st.lists(st.tuples(
    st.sampled_from(["form.pdf", "scan.png", "note.txt", "x.docx", "", "../a.pdf",
                     "very" * 80 + ".pdf"]),
    st.one_of(st.binary(max_size=300), st.binary(max_size=200).map(lambda b: PDF_HEAD + b),
              st.just(b"\x89PNG\r\n\x1a\n" + b"0" * 40), st.just(b"plain text\n"))),
    max_size=3)


def fields_of(html: str, form_id: str) -> list[str]:
    start = html.find(f'id="{form_id}"')
    end = html.find("</form>", start)
    assert start >= 0, f"no form {form_id}"
    return sorted({n for n in NAMES.findall(html[start:end]) if n not in SKIP})


FORMS = [  # (task, system, page, form id, actions)
    ("pa-07", "fax", "/compose", "compose-form",
     ["send", "attach", "save", "use_directory", "discard", "remove:1", "remove:x", "bogus"]),
    ("pa-12", "regulator", "/requests/new", "request-form",
     ["submit", "attach", "save", "discard", "remove:1", "bogus"]),
    ("pa-12", "regulator", "/requests/import", "import-form", [""]),
]


@pytest.mark.parametrize(("alias", "system", "page", "form_id", "actions"), FORMS,
                         ids=[f"{s}:{p}" for _, s, p, _, _ in FORMS])
def test_posted_forms_never_fail_and_refusals_write_nothing(payer_seeds, alias, system,  # noqa: F811
                                                            page, form_id, actions):
    run = payer_seeds.run(alias)
    site = (fax_client if system == "fax" else regulator_client)(run, EPISODE)
    html = site.client.get(page).text
    names = fields_of(html, form_id)
    file_field = "files" if system == "fax" else "documents"
    assert names or f'name="{file_field}"' in html, "the form has no fields"

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=st.fixed_dictionaries({}, optional={name: values for name in names}),
           action=st.sampled_from(actions), uploads=files,
           junk=st.dictionaries(st.text(min_size=1, max_size=8), values, max_size=2))
    def post(data, action, uploads, junk):
        html = site.client.get(page).text
        start = html.rfind("<form", 0, html.find(f'id="{form_id}"'))
        target = re.search(r'action="([^"]+)"', html[start:])[1]
        mark = site.audit_mark()
        upload = [(file_field, (name, content, "application/octet-stream"))
                  for name, content in uploads] or None
        response = site.client.post(target, data={**junk, **data, "action": action,
                                                  **form_tokens(html, form_id)},
                                    files=upload, follow_redirects=False)
        assert response.status_code in (200, 303), (response.status_code, data, action)
        written = site.audit_since(mark)
        if response.status_code == 200:
            assert written == [], "a refused form wrote rows"
        else:
            assert {c for c, *_ in written} <= {"browser"}, written

    post()


@pytest.mark.parametrize("system", ["fax", "regulator"])
def test_login_form_never_fails(payer_seeds, system):  # noqa: F811
    run = payer_seeds.run("pa-07" if system == "fax" else "pa-12")
    site = (fax_client if system == "fax" else regulator_client)(run, EPISODE, login=False)

    @settings(max_examples=12, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(user=values, password=values)
    def post(user, password):
        page = site.client.get("/login")
        response = site.client.post("/login", data={**tokens(page.text), "username": user,
                                                    "password": password, "next": user},
                                    follow_redirects=False)
        assert response.status_code in (200, 303)
        assert response.status_code == 200 or response.headers["location"] == "/" or \
            response.headers["location"].startswith("/")

    post()


SEARCHES = {
    "fax": ["/sent?sort={}&dir={}&show={}&q={}", "/directory?q={}&draft={}",
            "/compose?number={}", "/resources/bulletins/{}", "/jobs/{}", "/compose/{}"],
    "regulator": ["/requests/{}", "/requests/{}/edit", "/?x={}"],
}


@pytest.mark.parametrize("system", ["fax", "regulator"])
def test_query_parameters_never_fail(payer_seeds, system):  # noqa: F811
    run = payer_seeds.run("pa-07" if system == "fax" else "pa-12")
    site = (fax_client if system == "fax" else regulator_client)(run, EPISODE)

    @settings(max_examples=15, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(args=st.lists(values, min_size=4, max_size=4))
    def search(args):
        for template in SEARCHES[system]:
            url = template.format(*(quote(a, safe="") or "x" for a in args))
            response = site.client.get(url)
            assert response.status_code in (200, 400, 404), (url, response.status_code)

    search()
