"""Capture scheduling and snapshot buffers, without a display (clock values are given)."""

from pixel_stream.capture import FrameSchedule, ScreenCapture
from pixel_stream.frames import Frame, Rect

FPS = 30
TICK = 1 / FPS


def test_an_isolated_change_after_a_quiet_period_is_read_at_once():
    schedule = FrameSchedule(FPS)
    assert schedule.delay(100.0) == 0.0
    schedule.took(100.0)
    # a click half a second later: no waiting for a frame tick
    assert schedule.delay(100.5) == 0.0


def test_a_change_within_the_frame_interval_waits_for_it():
    schedule = FrameSchedule(FPS)
    schedule.took(10.0)
    assert schedule.delay(10.004) > 0.0
    assert schedule.delay(10.004 + schedule.delay(10.004)) == 0.0


def test_continuous_damage_is_capped_at_max_fps():
    schedule = FrameSchedule(FPS)
    now, frames = 0.0, 0
    while now < 2.0:
        now += schedule.delay(now)
        schedule.took(now)
        frames += 1
        now += 0.001  # damage keeps coming
    assert frames <= 2 * FPS + 1


def _capture_with_canvas(width=8, height=6) -> ScreenCapture:
    capture = ScreenCapture(":0")
    capture.width, capture.height = width, height
    capture._canvas = bytearray(width * height * 4)
    return capture


def _paint(capture: ScreenCapture, rect: Rect, value: int) -> None:
    stride = capture.width * 4
    for y in range(rect.y, rect.y + rect.height):
        start = y * stride + rect.x * 4
        capture._canvas[start : start + rect.width * 4] = bytes([value]) * (rect.width * 4)


def _publish_change(capture: ScreenCapture, rect: Rect, value: int) -> Frame:
    _paint(capture, rect, value)
    return capture._publish(capture._snapshot(rect), rect, 0.0)


def test_snapshots_equal_the_canvas_and_are_never_changed_while_held():
    capture = _capture_with_canvas()
    held = []
    for i, rect in enumerate([Rect(0, 0, 8, 1), Rect(2, 3, 2, 2), Rect(0, 5, 8, 1),
                              Rect(1, 1, 1, 1), Rect(0, 0, 8, 6), Rect(4, 2, 3, 1)]):
        frame = _publish_change(capture, rect, 10 + i)
        assert frame.pixels == capture._canvas
        held.append((frame, bytes(frame.pixels)))
        for old, content in held:
            assert old.pixels == content  # a frame someone holds keeps its pixels


def test_a_released_buffer_is_reused_and_brought_up_to_date():
    capture = _capture_with_canvas()
    first = _publish_change(capture, Rect(0, 0, 8, 1), 1)
    first_buffer = id(first.pixels)
    del first
    capture.slot.publish(_publish_change(capture, Rect(0, 2, 8, 1), 2))  # slot drops frame 1
    # nobody holds frame 1's buffer any more: the next frame reuses it, with both changes
    third = _publish_change(capture, Rect(0, 4, 8, 1), 3)
    assert id(third.pixels) == first_buffer
    assert third.pixels == capture._canvas


def test_a_buffer_someone_still_reads_is_not_reused():
    capture = _capture_with_canvas()
    first = _publish_change(capture, Rect(0, 0, 8, 1), 1)
    view = memoryview(first.pixels)
    content = bytes(view)
    del first
    for value in range(2, 2 + 2 * capture._pool.maxlen):
        _publish_change(capture, Rect(0, value % 6, 8, 1), value)
    assert bytes(view) == content


class FakeScreen:
    """MIT-SHM reads of a screen held in memory (BGRX rows), as ``ShmScreen.read``."""

    def __init__(self, width: int, height: int, screen: bytearray) -> None:
        self.width, self.height, self.screen = width, height, screen

    def read(self, x: int, y: int, w: int, h: int) -> memoryview:
        rows = [self.screen[(y + r) * self.width * 4 + x * 4:(y + r) * self.width * 4
                            + (x + w) * 4] for r in range(h)]
        return memoryview(b"".join(rows))


def test_a_repainted_widget_becomes_a_frame_of_the_pixels_that_changed():
    """A toolkit reports its whole widget as damaged for one typed letter: the frame's
    region is the letter's box, and a repaint with the same pixels is no frame at all."""
    capture = _capture_with_canvas(128, 64)
    screen = bytearray(capture._canvas)
    grabber = FakeScreen(128, 64, screen)
    widget = Rect(2, 4, 60, 20)  # what DAMAGE reports
    for row in range(10, 17):  # the letter (and caret) drawn at x 20..27
        screen[row * 512 + 20 * 4: row * 512 + 28 * 4] = b"\x10\x20\x30\x00" * 8
    pixels, region = capture._grab_region(grabber, widget)
    assert region == Rect(20, 10, 8, 7)
    assert pixels == capture._canvas == screen  # the snapshot is the whole screen as read
    assert capture._grab_region(grabber, widget) is None  # painted again, unchanged
    assert capture._grab_region(grabber, Rect(100, 100, 5, 5)) is None  # off screen
