"""The controller seat: one controller, viewers, reconnect grace."""

from pixel_stream.control import CONTROLLER, VIEWER, ControlSeat


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_first_client_controls_others_view():
    seat = ControlSeat(grace_s=180, now=FakeClock())
    assert seat.connect("a", "viewer") == CONTROLLER
    assert seat.connect("b", "viewer") == VIEWER
    assert seat.connect("c", "agent", wants_control=False) == VIEWER
    assert seat.may_input("a") and not seat.may_input("b")


def test_controller_keeps_seat_through_grace_and_reconnects():
    clock = FakeClock()
    seat = ControlSeat(grace_s=180, now=clock)
    seat.connect("a", "viewer")
    seat.connect("b", "viewer")
    seat.disconnect("a")
    clock.now += 179
    assert seat.holder == "a" and not seat.may_input("b")
    assert seat.connect("a", "viewer") == CONTROLLER


def test_seat_passes_on_after_grace():
    clock = FakeClock()
    seat = ControlSeat(grace_s=180, now=clock)
    seat.connect("a", "viewer")
    seat.connect("b", "viewer")
    seat.disconnect("a")
    clock.now += 181
    seat.check()
    assert seat.holder == "b"
    # the old controller coming back late is a viewer now
    assert seat.connect("a", "viewer") == VIEWER


def test_take_and_release():
    seat = ControlSeat(grace_s=0, now=FakeClock())
    seat.connect("a", "viewer")
    seat.connect("b", "agent")
    assert seat.take("b") == CONTROLLER
    assert seat.role("a") == VIEWER
    seat.release("b")
    assert seat.holder == "a"


def test_no_grace_frees_the_seat_at_once():
    seat = ControlSeat(grace_s=0, now=FakeClock())
    seat.connect("a", "viewer")
    seat.connect("b", "viewer")
    seat.disconnect("a")
    assert seat.holder == "b"
