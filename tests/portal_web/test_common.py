"""The shared web plumbing: field validation, NPI/ICD-10 checks, sessions and form tokens."""

from __future__ import annotations

import datetime as dt

import pytest
import yaml

from portal_web.common.forms import FieldReader, icd10cm_normalise, npi_is_valid
from portal_web.common.sessions import SessionStore, TokenState
from sandbox.paths import WORLD_DIR


def test_npi_check_digit():
    assert npi_is_valid("1234567893")
    assert not npi_is_valid("1234567890")
    assert not npi_is_valid("3234567893")  # must start with 1 or 2
    assert not npi_is_valid("123456789")
    roster = yaml.safe_load((WORLD_DIR / "roster.yaml").read_text())
    for provider in roster["providers"]:
        assert npi_is_valid(provider["npi"]), provider["key"]


def test_npi_field_message_names_the_problem():
    reader = FieldReader({"npi": "1234567890"})
    assert reader.npi("npi", "Rendering NPI") is None
    assert "check digit" in reader.errors["npi"]


@pytest.mark.parametrize(("raw", "code"), [("E11.9", "E11.9"), ("e119", "E11.9"),
                                           ("ICD10:E78.5", "E78.5"), (" m17.11 ", "M17.11")])
def test_icd10_valid_codes_are_normalised(raw, code):
    reader = FieldReader({"dx": raw})
    assert reader.icd10("dx", "Diagnosis") == code
    assert reader.ok
    assert icd10cm_normalise(raw) == code


@pytest.mark.parametrize(("raw", "fragment"), [("E11", "category"), ("XYZ", "not a valid"),
                                               ("E11.99", "not a valid"), ("1234", "not a valid")])
def test_icd10_invalid_codes_fail_with_a_message(raw, fragment):
    reader = FieldReader({"dx": raw})
    assert reader.icd10("dx", "Diagnosis") is None
    assert fragment in reader.errors["dx"]


def test_number_range_units_and_decimals():
    reader = FieldReader({"a": "81.4", "b": "400", "c": "abc", "d": "1.234", "e": "nan",
                         "f": "1e999"})
    assert reader.number("a", "Weight", unit="kg", low=0.2, high=450) == 81.4
    assert reader.number("b", "Weight", unit="kg", low=0.2, high=350) is None
    assert "between 0.2 and 350 kg" in reader.errors["b"]
    assert reader.number("c", "Weight", unit="kg", low=0, high=1) is None
    assert "must be a number" in reader.errors["c"]
    assert reader.number("d", "Dose", low=0, high=10, decimals=2) is None
    assert reader.number("e", "X", low=0, high=10) is None
    assert reader.number("f", "X", low=0, high=10) is None


def test_dates_times_and_choices():
    reader = FieldReader({"d1": "2026-10-19", "d2": "10/19/2026", "d3": "2026-02-30",
                         "t1": "06:00", "t2": "25:00", "c": "urgent", "c2": "soon"})
    assert reader.date("d1", "Date") == dt.date(2026, 10, 19)
    assert reader.date("d2", "Date") is None and "YYYY-MM-DD" in reader.errors["d2"]
    assert reader.date("d3", "Date") is None
    assert reader.date("d1", "Date", latest=dt.date(2026, 10, 1)) is None
    assert reader.time("t1", "Time") == dt.time(6, 0)
    assert reader.time("t2", "Time") is None
    assert reader.choice("c", "Urgency", ["routine", "urgent"]) == "urgent"
    assert reader.choice("c2", "Urgency", ["routine", "urgent"]) is None


def test_text_strips_control_characters_and_limits_length():
    reader = FieldReader({"t": " a\x00b\x07c ", "long": "x" * 300})
    assert reader.text("t", "Text") == "abc"
    assert reader.text("long", "Text", max_len=255) is None
    assert "300 characters" in reader.errors["long"]


class FakeClock:
    def __init__(self) -> None:
        self.now = dt.datetime(2026, 10, 19, 9, 0)

    def __call__(self) -> dt.datetime:
        return self.now


class FakeRequest:
    def __init__(self, sid: str = "") -> None:
        self.cookies = {"S": sid} if sid else {}


def test_sessions_expire_after_idle_time_and_say_so():
    clock = FakeClock()
    store = SessionStore("S", ttl_s=1800, now=clock)
    anon, expired = store.load(FakeRequest())
    assert not expired and anon.principal is None
    from portal_web.common.sessions import Principal

    user = store.login(anon, Principal("dr.osei", 10, "Kwame Osei"))
    assert user.sid != anon.sid  # a new id at log-in
    clock.now += dt.timedelta(minutes=29)
    again, expired = store.load(FakeRequest(user.sid))
    assert again is user and not expired
    clock.now += dt.timedelta(minutes=31)
    fresh, expired = store.load(FakeRequest(user.sid))
    assert expired and fresh.principal is None and fresh.sid != user.sid


def test_form_tokens_allow_one_write():
    store = SessionStore("S", ttl_s=60, now=FakeClock())
    session, _ = store.load(FakeRequest())
    token = session.issue_form_token()
    assert session.claim_form_token(token) == (TokenState.FRESH, None)
    assert session.claim_form_token(token)[0] is TokenState.PENDING
    session.release_form_token(token)  # validation failed: usable again
    assert session.claim_form_token(token)[0] is TokenState.FRESH
    session.complete_form_token(token, "/patient/1")
    assert session.claim_form_token(token) == (TokenState.DONE, "/patient/1")
    assert session.claim_form_token("forged")[0] is TokenState.UNKNOWN


def test_a_host_without_a_site_module_stops_the_server_at_start(tmp_path):
    """A host whose site module is missing is an error, not a tab showing 'not found'."""
    import pytest

    from portal_web import SiteError, create_app

    with pytest.raises(SiteError, match="portal_web/sites/nowhere.py"):
        create_app({"run_dir": tmp_path, "hosts": {"x.test": "nowhere"}})
    with pytest.raises(SiteError, match="no host serves the site"):
        create_app({"run_dir": tmp_path, "sites": ["ehr", "nowhere"]})
    every_site = create_app({"run_dir": tmp_path})
    assert sorted(every_site.sites) == sorted(
        ["emr.clinic.test", "workspace.local", "portal.acmehealth.test", "dme.acmehealth.test",
         "api.acmehealth.test", "epa.covermymeds.test", "fax.betacare.test",
         "review.insurance.state.test"])
