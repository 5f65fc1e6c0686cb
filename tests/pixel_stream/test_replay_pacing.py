"""Replay pacing keeps multi-clicks as recorded."""

from pixel_stream.replay import _upcoming_press_times, is_press


def ev(at, kind, **body):
    return {"t": at, "kind": kind, "event": body}


def test_presses_are_recognised():
    assert is_press(ev(0, "action", action="left_click"))
    assert is_press(ev(0, "input", **{"t": "button", "down": True}))
    assert not is_press(ev(0, "input", **{"t": "button", "down": False}))
    assert not is_press(ev(0, "action", action="type", text="x"))


def test_upcoming_press_times():
    events = [
        ev(0.0, "input", **{"t": "button", "down": True}),
        ev(0.05, "input", **{"t": "button", "down": False}),
        ev(0.20, "input", **{"t": "button", "down": True}),
        ev(0.25, "input", **{"t": "button", "down": False}),
        ev(3.0, "action", action="type", text="x"),
    ]
    assert _upcoming_press_times(events) == [0.20, 0.20, None, None, None]
