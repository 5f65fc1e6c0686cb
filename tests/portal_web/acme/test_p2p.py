"""Peer-to-peer through the portal's forms (and the EHR calendar form), graded with pa-05's
verifier: a free slot inside the window scores 1.0; a busy or late slot costs what the seed
says; booked slots cannot be taken twice."""

from __future__ import annotations

import re

import pytest

from tests.portal_web.acme.post_tasks import TaskRun, location_id, post_form, task_run
from tests.portal_web.acme.support import feedback

VALID, FREE, EVENT = 0.40, 0.30, 0.30
PAGE = "/p2p/case/1000"
GRANT, PATEL_MRN, P2P_CATEGORY = "20", "510262", "17"
SLOTS = {1003: ("2026-10-21", "08:00"), 1004: ("2026-10-22", "12:15"),
         1006: ("2026-10-26", "17:00"), 1011: ("2026-11-02", "12:00")}


@pytest.fixture
def pa05(seeds) -> TaskRun:
    return task_run(seeds, "pa-05")


def book(portal, slot_id: int, **extra: str):  # noqa: ANN001, ANN201
    return post_form(portal.client, PAGE, PAGE, {
        "slot_id": str(slot_id), "physician_name": "Dr. Test Grant",
        "physician_npi": "1546827399", "callback_phone": "217-555-0100",
        "notes": "Dr. Grant will call from clinic.", **extra})


def confirmation(portal, response) -> tuple[int, str]:  # noqa: ANN001
    request_id = location_id(response, r"/p2p/requests/(\d+)")
    page = portal.client.get(response.headers["location"]).text
    number = re.search(r'id="p2p-confirmation-number">(P2P-\d{6})<', page)
    assert number, page[:2000]
    return request_id, number[1]


def put_on_calendar(run: TaskRun, slot_id: int, number: str) -> None:
    """The EHR's calendar event on Dr. Grant's calendar, for Patel, carrying the number."""
    day, start = SLOTS[slot_id]
    ehr = run.ehr()
    response = post_form(ehr.client, "/calendar/event/new", "/calendar/event/new", {
        "pc_catid": P2P_CATEGORY, "pc_aid": GRANT, "mrn": PATEL_MRN,
        "pc_title": f"Peer-to-peer review {number}", "pc_eventDate": day,
        "pc_startTime": start, "duration": "30", "pc_apptstatus": "-", "pc_facility": "1",
        "pc_hometext": f"Acme Health P2P {number}, Dr. Alan Price", "allow_overlap": "1"})
    assert response.status_code == 303, feedback(response.text)


@pytest.mark.parametrize("slot_id", [1004, 1006])
def test_gold_booking_on_the_calendar_scores_one(pa05, slot_id):
    portal = pa05.portal()
    request_id, number = confirmation(portal, book(portal, slot_id))
    assert number.startswith("P2P-")
    assert portal.query("select status from p2p_slots where id = ?", slot_id) == [("booked",)]
    assert portal.query("select case_id, slot_id, physician_npi, callback_phone, status, "
                        "requested_by from p2p_requests where id = ?", request_id) == [
        (1000, slot_id, "1546827399", "217-555-0100", "scheduled", "riverside.pa")]
    put_on_calendar(pa05, slot_id, number)
    assert pa05.fractions() == [1.0, 1.0, 1.0]


def test_the_slot_shows_booked_afterwards(pa05):
    portal = pa05.portal()
    _, number = confirmation(portal, book(portal, 1004))
    page = portal.client.get(PAGE).text
    row = re.search(r'<tr class="slot-unavailable">\s*<td><input type="radio" name="slot_id" '
                    r'id="slot-1004"[^>]*disabled', page)
    assert row, "slot 1004 should be listed as unavailable"
    assert number in page and 'id="already-scheduled"' in page
    assert number in portal.client.get("/p2p").text


def test_busy_slot_inside_the_window_loses_no_conflict(pa05):
    """08:00 on 10/21 is Dr. Grant's staff meeting: the portal cannot know; the grade can."""
    portal = pa05.portal()
    _, number = confirmation(portal, book(portal, 1003))
    put_on_calendar(pa05, 1003, number)
    assert pa05.fractions() == [1.0, 0.0, 1.0]


def test_slot_after_the_window_is_booked_with_a_warning(pa05):
    portal = pa05.portal()
    response = book(portal, 1011)
    _, number = confirmation(portal, response)
    page = portal.client.get(response.headers["location"]).text
    assert 'id="outside-window"' in page and "10/30/2026" in page
    put_on_calendar(pa05, 1011, number)
    assert pa05.score() == pytest.approx(FREE + EVENT)


def test_a_booked_slot_cannot_be_taken(pa05):
    portal = pa05.portal()
    mark = portal.audit_mark()
    response = book(portal, 1007)  # seeded as booked
    assert response.status_code == 200
    assert any("booked" in m for m in feedback(response.text))
    assert portal.audit_since(mark) == []


def test_one_scheduled_review_per_case_and_cancel_frees_the_slot(pa05):
    portal = pa05.portal()
    request_id, first = confirmation(portal, book(portal, 1011))
    mark = portal.audit_mark()
    refused = book(portal, 1004)
    assert refused.status_code == 200 and "already scheduled" in refused.text
    assert portal.audit_since(mark) == []
    cancelled = post_form(portal.client, f"/p2p/requests/{request_id}",
                          f"/p2p/requests/{request_id}/cancel", {})
    assert cancelled.status_code == 303
    assert portal.query("select status from p2p_slots where id = 1011") == [("open",)]
    _, second = confirmation(portal, book(portal, 1004))
    assert second != first
    put_on_calendar(pa05, 1004, second)
    assert pa05.fractions() == [1.0, 1.0, 1.0]  # the cancelled request is not graded


def test_refused_booking_says_what_is_missing(pa05):
    portal = pa05.portal()
    response = post_form(portal.client, PAGE, PAGE, {
        "physician_name": "", "physician_npi": "1546827398", "callback_phone": "12"})
    messages = feedback(response.text)
    assert "Choose one of the offered times." in messages
    assert "Physician name is required." in messages
    assert any("not a valid NPI" in m for m in messages)
    assert any("not a US phone number" in m for m in messages)


def calendar_entry_without_number(run: TaskRun) -> None:
    """Dr. Grant's calendar entry for Patel at slot 1004's time, no P2P number on it."""
    ehr = run.ehr()
    response = post_form(ehr.client, "/calendar/event/new", "/calendar/event/new", {
        "pc_catid": P2P_CATEGORY, "pc_aid": GRANT, "mrn": PATEL_MRN,
        "pc_title": "Peer-to-peer review", "pc_eventDate": "2026-10-22",
        "pc_startTime": "12:15", "duration": "30", "pc_apptstatus": "-", "pc_facility": "1",
        "allow_overlap": "1"})
    assert response.status_code == 303


def test_calendar_part_needs_a_real_booking(pa05):
    """Dr. Grant's calendar entry for Patel with no peer-to-peer booking earns nothing: the
    "Dr. Grant's calendar" part needs the confirmation number of a real booking."""
    calendar_entry_without_number(pa05)
    assert pa05.score() == 0.0


def test_an_entry_without_the_confirmation_number_is_not_the_bookings(pa05):
    """Booked through the portal, then put on Dr. Grant's calendar at the slot's time but
    without the P2P number: only the time third of the event item is earned."""
    portal = pa05.portal()
    confirmation(portal, book(portal, 1004))
    calendar_entry_without_number(pa05)
    assert pa05.score() == pytest.approx(VALID + FREE + EVENT / 3)


def test_calendar_event_at_another_time_loses_that_part(pa05):
    """The booking is right; the EHR event is an hour late: one third of the event item."""
    portal = pa05.portal()
    _, number = confirmation(portal, book(portal, 1004))
    ehr = pa05.ehr()
    response = post_form(ehr.client, "/calendar/event/new", "/calendar/event/new", {
        "pc_catid": P2P_CATEGORY, "pc_aid": GRANT, "mrn": PATEL_MRN,
        "pc_title": f"Peer-to-peer review {number}", "pc_eventDate": "2026-10-22",
        "pc_startTime": "13:15", "duration": "30", "pc_apptstatus": "-", "pc_facility": "1",
        "allow_overlap": "1"})
    assert response.status_code == 303
    assert pa05.fractions() == pytest.approx([1.0, 1.0, 2 / 3])


def test_booking_without_the_calendar_event_earns_the_booking_only(pa05):
    portal = pa05.portal()
    confirmation(portal, book(portal, 1006))
    assert pa05.score() == pytest.approx(VALID + FREE)
