"""Units of the post-decision pages: policy windows, the DME sign-on ticket, typed fields."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.datastructures import FormData

from portal_web.acme.deadlines import Deadline, window
from portal_web.acme.typed_fields import modifiers, money_cents, ndc, phone, us_date
from portal_web.common.forms import FieldReader
from portal_web.dme.sso import TicketError, make_ticket, read_ticket

NOW = dt.datetime(2026, 10, 19, 9, 0)
SECRET = "a-secret-of-sixteen-chars"


class FakePolicies:
    """Just enough of a session for :func:`window` (one policy row)."""

    def __init__(self, days: int, unit: str):
        from sandbox.stores.acme import Policy

        self.row = Policy(policy_key="p", title="P", category="appeals", body="",
                          deadline_days=days, deadline_unit=unit,
                          effective_from=dt.date(2026, 1, 1))

    def scalar(self, _query):  # noqa: ANN001, ANN202
        return self.row


@pytest.mark.parametrize("days, unit, basis, last", [
    (180, "calendar_days", dt.date(2026, 4, 22), dt.date(2026, 10, 19)),
    (14, "calendar_days", dt.date(2026, 10, 16), dt.date(2026, 10, 30)),
    (2, "business_days", dt.date(2026, 10, 16), dt.date(2026, 10, 20)),  # Fri -> Tue
])
def test_window_last_day(days, unit, basis, last):
    found = window(FakePolicies(days, unit), "p", basis, "denial")  # type: ignore[arg-type]
    assert isinstance(found, Deadline) and found.last_day == last
    assert not found.is_late(last) and found.is_late(last + dt.timedelta(days=1))


def test_ticket_signs_in_once_and_expires():
    used: set[str] = set()
    ticket = make_ticket(SECRET, "riverside.pa", NOW)
    assert read_ticket(SECRET, ticket, NOW + dt.timedelta(seconds=30), used) == "riverside.pa"
    with pytest.raises(TicketError, match="already used"):
        read_ticket(SECRET, ticket, NOW, used)
    with pytest.raises(TicketError, match="expired"):
        read_ticket(SECRET, make_ticket(SECRET, "riverside.pa", NOW),
                    NOW + dt.timedelta(minutes=3), set())
    with pytest.raises(TicketError, match="not valid"):
        read_ticket("another-secret-value", make_ticket(SECRET, "x", NOW), NOW, set())


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.text(max_size=300))
def test_any_ticket_text_is_refused_cleanly(text):
    with pytest.raises(TicketError):
        read_ticket(SECRET, text, NOW, set())


def reader(**values: str) -> FieldReader:
    return FieldReader(FormData(list(values.items())))


def test_typed_fields_normalise_and_explain():
    r = reader(p="(217) 555-0100 ext 12", m="$1,860.5", mods="jz, 59", n="55513-0710-01",
               d="10/22/2026", bad_p="555-0100", bad_m="12.345", bad_mods="JZZ", bad_n="123")
    assert phone(r, "p", "Phone") == "217-555-0100 x12"
    assert money_cents(r, "m", "Charge") == 186050
    assert modifiers(r, "mods", "Modifiers") == "JZ,59"
    assert ndc(r, "n", "NDC") == "55513071001"
    assert us_date(r, "d", "Date") == dt.date(2026, 10, 22)
    assert r.ok
    assert phone(r, "bad_p", "Phone") is None
    assert money_cents(r, "bad_m", "Charge") is None
    assert modifiers(r, "bad_mods", "Modifiers") == ""
    assert ndc(r, "bad_n", "NDC") is None
    assert set(r.errors) == {"bad_p", "bad_m", "bad_mods", "bad_n"}
