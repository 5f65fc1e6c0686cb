"""pa-05: a peer-to-peer slot booked and on the EHR calendar (40% valid P2P slot; 30% no
calendar conflict; 30% EHR event with confirmation, three equal parts, each needing a real
booking: its "Dr. Grant's calendar" part needs the booking's confirmation number too)."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select

from sandbox.stores.acme import P2pRequest, P2pSlot
from sandbox.stores.ehr import CalendarEvent
from tests.verifier.tasks.pa_support import NOW, Run, seed_once, spec_of

SPEC = spec_of("pa-05")
VALID, FREE, EVENT = 0.40, 0.30, 0.30
PATEL, OTHER_PID = 106, 101
CONFIRMATION = "P2P-004512"


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return seed_once(SPEC, tmp_path_factory.mktemp("pa05"))


@pytest.fixture
def run(seeded, tmp_path):
    return Run(SPEC, seeded, tmp_path / "run")


def book(run: Run, slot_id: int, **write) -> dt.datetime:
    """The portal's P2P request: a confirmed request and the slot marked booked."""
    with run.write("acme", **write) as s:
        slot = s.get(P2pSlot, slot_id)
        slot.status = "booked"
        s.add(P2pRequest(confirmation_number=CONFIRMATION, case_id=1000, slot_id=slot_id,
                         physician_name="Dr. Test Grant", physician_npi="1546827399",
                         callback_phone="217-555-0100", requested_by="riverside.pa",
                         requested_at=NOW))
        return slot.start_at


def calendar(run: Run, start: dt.datetime, *, title: str = f"Peer-to-peer {CONFIRMATION}",
             pid: int | None = PATEL, aid: int = 20, **write) -> None:
    """The EHR calendar's new event (Peer-to-Peer Review category)."""
    with run.write("ehr", **write) as s:
        s.add(CalendarEvent(pc_catid=17, pc_aid=aid, pc_pid=pid, pc_title=title,
                            pc_time=NOW, pc_hometext="Acme Health, Dr. Alan Price",
                            pc_informant="12", pc_eventDate=start.date(),
                            pc_endDate=start.date(), pc_duration=1800,
                            pc_startTime=start.time(),
                            pc_endTime=(start + dt.timedelta(minutes=30)).time()))


@pytest.mark.parametrize("slot_id", [1004, 1006])
def test_valid_slot_on_the_calendar_scores_one(run, slot_id):
    calendar(run, book(run, slot_id))
    assert run.fractions() == [1.0, 1.0, 1.0]


def test_untouched_scores_zero(run):
    assert run.score() == 0.0


@pytest.mark.parametrize("slot_id", [1003, 1009])  # 08:00 meeting; overlaps 13:15
def test_busy_slot_inside_the_window_conflicts(run, slot_id):
    calendar(run, book(run, slot_id))
    assert run.fractions() == [1.0, 0.0, 1.0]


def test_free_slot_outside_the_window_is_not_valid(run):
    calendar(run, book(run, 1011))
    assert run.score() == pytest.approx(FREE + EVENT)


@pytest.mark.parametrize("change, parts", [
    ({"title": "Peer-to-peer review"}, 1),   # no confirmation number: not the booking's entry
    ({"at": dt.timedelta(minutes=30)}, 2),                   # not the slot's time
    ({"pid": None}, 2),                                      # not linked to Patel
])
def test_each_event_part(run, change, parts):
    start = book(run, 1004)
    calendar(run, start + change.pop("at", dt.timedelta()), **change)
    assert run.score() == pytest.approx(VALID + FREE + EVENT * parts / 3)


def test_event_for_another_patient_earns_nothing(run):
    calendar(run, book(run, 1004), pid=OTHER_PID)
    assert run.score() == pytest.approx(VALID + FREE)


def test_no_event_loses_the_event(run):
    book(run, 1006)
    assert run.fractions() == [1.0, 1.0, 0.0]


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}])
def test_writes_of_another_channel_or_episode_do_not_count(run, write):
    calendar(run, book(run, 1004, **write), **write)
    report = run.grade()
    assert report.score == 0.0
    assert {e["table"] for e in report.channel["exclusions"]} == {
        "p2p_requests", "p2p_slots", "openemr_postcalendar_events"}


def test_an_event_without_any_booking_earns_nothing(run):
    """Dr. Grant's calendar entry for Patel at a free slot's time, but nothing was booked."""
    calendar(run, dt.datetime(2026, 10, 22, 12, 15), title="Peer-to-peer review")
    report = run.grade()
    assert report.score == 0.0
    assert "no peer-to-peer request" in report.checks[2].evidence["found"]


def test_an_event_carrying_a_cancelled_bookings_number_earns_nothing(run):
    start = book(run, 1004)
    with run.write("acme") as s:
        s.scalars(select(P2pRequest).where(
            P2pRequest.confirmation_number == CONFIRMATION)).one().status = "cancelled"
        s.get(P2pSlot, 1004).status = "open"
    calendar(run, start)
    assert run.score() == 0.0


def test_a_booking_made_outside_the_browser_gives_the_event_nothing_to_carry(run):
    calendar(run, book(run, 1004, channel="api"))
    assert run.score() == 0.0
