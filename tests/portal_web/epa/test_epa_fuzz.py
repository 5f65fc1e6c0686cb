"""Fuzz every POST of the ePA portal: no input gives an HTTP 500, a refused form (re-drawn
with its messages, or a JSON refusal from the per-answer save) writes nothing, and what is
written is written through the browser channel."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.portal_web.epa.support import (
    GOLD_ANSWERS,
    JOY,
    tokens,
)

NAMES = re.compile(r'name="([A-Za-z0-9_]+)"')
SKIP = {"csrf_token", "form_token"}
EXAMPLES = 25
KEYS = sorted(GOLD_ANSWERS) + ["metformin_contraindication", "weight_comorbidity",
                               "mtc_men2_details", "pancreatitis_date", "other_glp1_name"]

values = st.one_of(
    st.just(""),
    st.text(max_size=30),
    st.from_regex(r"\A-?[0-9]{1,7}(\.[0-9]{1,5})?\Z"),
    st.dates().map(lambda d: d.strftime("%m/%d/%Y")),
    st.dates().map(lambda d: d.isoformat()),
    st.sampled_from(["yes", "no", "YES", "t2dm", "weight", "other", "none", "osa",
                     "hypertension", "egfr_below_30", "1", "0", "on", "save", "send",
                     "BX7Q-4KTM", "bx7q4ktm", "Turner", "02/22/1977", "1e9", "nan", "inf",
                     "<script>", "'; drop table epa_answers; --", "\x00", "02/30/2026",
                     "99999999999999999999", "8.4", "34.2", "1000 mg twice daily"]),
    st.text(min_size=200, max_size=1200),
)
field_values = st.one_of(values, st.lists(values, min_size=2, max_size=3))


def form_fields(html: str, action: str) -> list[str]:
    start = html.find(f'action="{action}"')
    end = html.find("</form>", start)
    assert start >= 0, f"no form posts to {action}"
    return sorted({n for n in NAMES.findall(html[start:end]) if n not in SKIP})


def check_outcome(epa, response, mark: int, refused: tuple[int, ...] = (200,)) -> None:  # noqa: ANN001
    assert response.status_code < 500, response.text[:300]
    entries = epa.audit_since(mark)
    if response.status_code in refused:
        assert entries == [], "a refused form wrote rows"
    else:
        assert response.status_code in (200, 303), response.status_code
        assert all(e["channel"] == "browser" for e in entries)


def one_of_or_junk(*good: str) -> st.SearchStrategy:
    """Mostly values the form expects, sometimes anything."""
    return st.one_of(st.sampled_from(good), values)


# plausible answers per question (valid and invalid mixed), so saves really write
ANSWERS = {key: one_of_or_junk(value, "") for key, value in GOLD_ANSWERS.items()}
ANSWERS.update(diagnosis=one_of_or_junk("t2dm", "weight", "other"),
               metformin_trial=one_of_or_junk("yes", "no"),
               mtc_men2=one_of_or_junk("yes", "no"),
               metformin_contraindication=one_of_or_junk("intolerance", "egfr_below_30"),
               weight_comorbidity=st.one_of(st.lists(st.sampled_from(
                   ["hypertension", "osa", "none", "cvd", "x"]), max_size=3), values))

# (page to open, form action, strategies for its fields beyond the generic values)
FORMS = [
    ("/dashboard", "/key", {"key": one_of_or_junk(JOY, "bx7q 4ktm", "BX7Q-4KMT"),
                            "last_name": one_of_or_junk("Turner", "turner"),
                            "dob": one_of_or_junk("02/22/1977", "1977-02-22")}),
    (f"/request/{JOY}", f"/request/{JOY}",
     {**{f"a_{k}": v for k, v in ANSWERS.items()},
      "action": one_of_or_junk("save", "send")}),
    (f"/request/{JOY}/send", f"/request/{JOY}/send", {"attest": one_of_or_junk("1", "on")}),
    (f"/request/{JOY}", f"/request/{JOY}/archive", {"archive": one_of_or_junk("1", "0")}),
]


@pytest.mark.parametrize(("page", "action", "strategies"), FORMS, ids=[a for _, a, _ in FORMS])
def test_posted_forms_never_fail_and_refusals_write_nothing(epa_for, page, action,
                                                            strategies):
    epa = epa_for()
    if action.endswith("/send"):  # some sends can succeed: answer the questions first
        epa.save_answers(JOY, GOLD_ANSWERS)
    fields = form_fields(epa.page(page), action)
    optional = {name: field_values for name in fields if name not in strategies}
    outcomes: list[int] = []

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=st.fixed_dictionaries(strategies, optional=optional),
           asked=st.one_of(st.just(KEYS), st.lists(st.sampled_from(KEYS + ["junk", ""]),
                                                   max_size=8)),
           junk=st.dictionaries(st.text(min_size=1, max_size=8), values, max_size=2))
    def post(data, asked, junk):
        html = epa.client.get(page).text
        start = html.find(f'action="{action}"')
        found = tokens(html[start:]) if start >= 0 else tokens(html)
        mark = epa.audit_mark()
        body = {**junk, **data, "asked": asked, **found}
        response = epa.client.post(action, data=body, follow_redirects=False)
        # a locked request (sent, archived) re-draws with a message; 409 if a race lost
        check_outcome(epa, response, mark, refused=(200, 409))
        outcomes.append(response.status_code)

    post()
    assert 200 in outcomes or action == "/key"  # something was refused (with a message)


def test_per_answer_save_never_fails_and_refusals_write_nothing(epa_for):
    epa = epa_for()
    csrf = tokens(epa.page(f"/request/{JOY}"))["csrf_token"]

    @settings(max_examples=60, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(question=st.one_of(st.sampled_from(KEYS), values), value=field_values)
    def post(question, value):
        mark = epa.audit_mark()
        field = f"a_{question}"
        response = epa.client.post(f"/request/{JOY}/autosave",
                                   data={"csrf_token": csrf, "question": question,
                                         field: value})
        assert response.status_code in (200, 409, 422), response.status_code
        assert response.headers["content-type"].startswith("application/json")
        check_outcome(epa, response, mark, refused=(409, 422))
        if response.status_code == 200:
            assert response.json()["ok"] is True

    post()


def test_uploads_never_fail_and_refusals_write_nothing(epa_for):
    epa = epa_for()
    action = f"/request/{JOY}/attachments"

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(name=st.one_of(st.text(max_size=40), st.sampled_from(
               ["note.pdf", "../../etc/passwd", "a" * 400 + ".pdf", "x.PDF", ".pdf",
                "C:\\Users\\me\\scan.png", "no-suffix", "na\x00me.pdf"])),
           content=st.binary(max_size=2048),
           junk=st.dictionaries(st.text(min_size=1, max_size=8), values, max_size=2))
    def post(name, content, junk):
        html = epa.client.get(f"/request/{JOY}").text
        found = tokens(html[html.find(f'action="{action}"'):])
        mark = epa.audit_mark()
        response = epa.client.post(action, data={**junk, **found},
                                   files={"file": (name, content, "application/octet-stream")},
                                   follow_redirects=False)
        check_outcome(epa, response, mark)
        if response.status_code == 303:
            stored = epa.query("select content from epa_attachments order by id desc limit 1")
            assert stored[0][0] == content  # byte for byte

    post()


def test_clear_and_remove_never_fail(epa_for):
    epa = epa_for()
    epa.autosave(JOY, "mtc_men2", "yes")
    epa.autosave(JOY, "mtc_men2_details", "x")
    epa.autosave(JOY, "mtc_men2", "no")

    @settings(max_examples=15, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(question=st.one_of(st.sampled_from(KEYS), st.text(min_size=1, max_size=20)),
           attachment=st.integers(min_value=0, max_value=10**12))
    def post(question, attachment):
        found = tokens(epa.client.get(f"/request/{JOY}").text)
        for url in (f"/request/{JOY}/answers/{quote(question, safe='')}/clear",
                    f"/request/{JOY}/attachments/{attachment}/remove"):
            mark = epa.audit_mark()
            response = epa.client.post(url, data=found, follow_redirects=False)
            assert response.status_code in (200, 303, 404), (url, response.status_code)
            check_outcome(epa, response, mark, refused=(200, 404))

    post()


def test_login_and_query_strings_never_fail(epa_for):
    epa = epa_for(login=False)

    @settings(max_examples=10, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(user=values, password=values)
    def login(user, password):
        page = epa.client.get("/login").text
        response = epa.client.post("/login", data={**tokens(page), "username": user,
                                                   "password": password, "next": user})
        assert response.status_code in (200, 303)

    login()
    epa.login()

    @settings(max_examples=15, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(args=st.lists(values, min_size=4, max_size=4))
    def search(args):
        show, query, sort, direction = (quote(a, safe="") for a in args)
        response = epa.client.get(f"/dashboard?show={show}&q={query}&sort={sort}"
                                  f"&dir={direction}")
        assert response.status_code == 200
        assert epa.client.get(f"/request/{quote(args[0], safe='')}").status_code in (200,
                                                                                     404)

    search()


def test_posts_without_the_session_token_are_refused_and_write_nothing(epa_for):
    epa = epa_for()
    mark = epa.audit_mark()
    for action in ("/key", f"/request/{JOY}", f"/request/{JOY}/autosave",
                   f"/request/{JOY}/send", f"/request/{JOY}/archive",
                   f"/request/{JOY}/attachments", "/logout"):
        response = epa.client.post(action, data={"a_diagnosis": "t2dm", "question": "diagnosis",
                                                 "attest": "1", "archive": "1"})
        assert response.status_code == 403, action
        assert "nothing was saved" in response.text
    assert epa.audit_since(mark) == []
