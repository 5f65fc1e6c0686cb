from datetime import date, datetime, timedelta

import pytest

from sandbox.clock import (
    DEFAULT_START,
    SANDBOX_TZ,
    ClockError,
    SandboxClock,
    SharedClock,
    business_days_after,
    parse_sandbox_time,
)


def test_default_start_is_monday_morning_new_york():
    assert DEFAULT_START == datetime(2026, 10, 19, 9, 0, tzinfo=SANDBOX_TZ)
    assert DEFAULT_START.weekday() == 0
    assert DEFAULT_START.utcoffset() == timedelta(hours=-4)  # still daylight time


def test_seed_dates_fit_the_default_start():
    today = DEFAULT_START.date()
    # pa-08: admitted Saturday, notify within 2 business days -> due Tuesday, not yet past
    saturday = date(2026, 10, 17)
    assert saturday.weekday() == 5
    assert business_days_after(saturday, 2) == date(2026, 10, 20) >= today
    # ord-20 colonoscopy 2026-10-26: day -5 .. day -1 all still ahead
    assert date(2026, 10, 26) - timedelta(days=5) > today
    # ord-09 future lab date, ord-15 past note, ord-02 past stress ECG
    assert date(2026, 10, 28) > today > date(2026, 10, 10) > date(2026, 10, 8)
    # pa-11 date of service is in the past
    assert date(2026, 9, 3) < today


def test_frozen_clock_does_not_move():
    clock = SandboxClock()
    assert clock.now() == DEFAULT_START
    assert clock.now() == DEFAULT_START
    assert not clock.running


def test_running_clock_advances_with_monotonic_time(monkeypatch):
    fake = [1000.0]
    monkeypatch.setattr("sandbox.clock.time.monotonic", lambda: fake[0])
    clock = SandboxClock().run()
    fake[0] += 90
    assert clock.now() == DEFAULT_START + timedelta(seconds=90)
    clock.freeze()
    fake[0] += 1000
    assert clock.now() == DEFAULT_START + timedelta(seconds=90)


def test_advance_explicitly_and_never_backward():
    clock = SandboxClock()
    assert clock.advance(timedelta(days=3)) == DEFAULT_START + timedelta(days=3)
    with pytest.raises(ClockError, match="only moves forward"):
        clock.advance(-5)


def test_override_start_and_naive_local_time():
    clock = SandboxClock(start="2026-10-26T07:30:00")
    assert clock.now().tzinfo is not None
    assert clock.now_local() == datetime(2026, 10, 26, 7, 30)


def test_bad_time_text_is_a_clear_error():
    with pytest.raises(ClockError, match="not an ISO date-time"):
        parse_sandbox_time("next tuesday")


def test_shared_clock_sees_advances_from_other_holders(tmp_path):
    path = tmp_path / "clock.json"
    SandboxClock().save(path)
    a, b = SharedClock(path), SharedClock(path)
    a.advance(3600)
    assert b.now() == DEFAULT_START + timedelta(hours=1)


def test_clock_file_errors(tmp_path):
    with pytest.raises(ClockError, match="no clock file"):
        SandboxClock.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"start": "2026-10-19T09:00:00", "speed": 2}')
    with pytest.raises(ClockError, match="unknown clock keys: speed"):
        SandboxClock.load(bad)
