"""Screen checkpoints: a replayed input waits for the screen it was recorded on."""

import asyncio
import threading
import time

import pytest

from pixel_stream.checkpoints import (
    GRID,
    CheckpointError,
    cells_differing,
    decode_thumb,
    encode_thumb,
    matches,
    screen_thumb,
)
from pixel_stream.frames import Frame, FrameSlot, Rect
from pixel_stream.replay import ABANDON_AFTER_MISSES, ReplayError, ReplayReport, _await_checkpoint

W, H = 1280, 800


def frame(seq: int, grey: int, box: tuple[int, int, int, int] | None = None,
          box_grey: int = 0) -> Frame:
    """A flat ``grey`` screen, with an optional ``box`` (x, y, w, h) of ``box_grey``."""
    pixels = bytearray(bytes((grey, grey, grey, 0)) * (W * H))
    if box is not None:
        x, y, w, h = box
        row = bytes((box_grey, box_grey, box_grey, 0)) * w
        for line in range(y, y + h):
            start = (line * W + x) * 4
            pixels[start:start + len(row)] = row
    return Frame(seq, W, H, pixels, Rect(0, 0, W, H), time.monotonic(), time.monotonic())


class FakeCapture:
    def __init__(self, first: Frame) -> None:
        self.slot = FrameSlot()
        self.slot.publish(first)


def test_a_thumbnail_is_the_grid_of_grey_cells_and_survives_encoding():
    thumb = screen_thumb(frame(1, 200))
    assert len(thumb) == GRID[0] * GRID[1] and set(thumb) == {200}
    assert decode_thumb(encode_thumb(thumb)) == thumb
    assert len(encode_thumb(thumb)) < 100  # a flat screen compresses to almost nothing


@pytest.mark.parametrize("text", ["not base64!", "aGVsbG8=", encode_thumb(b"\x00" * 10)])
def test_a_damaged_checkpoint_is_refused_with_the_reason(text):
    with pytest.raises(CheckpointError, match="checkpoint"):
        decode_thumb(text)


def test_a_caret_or_a_typed_letter_matches_a_dialog_or_page_does_not():
    screen = screen_thumb(frame(1, 240))
    caret = screen_thumb(frame(2, 240, (300, 300, 2, 18), 0))
    letters = screen_thumb(frame(3, 240, (300, 300, 9, 14), 0))
    dialog = screen_thumb(frame(4, 240, (400, 250, 480, 300), 200))
    menu = screen_thumb(frame(5, 240, (100, 100, 160, 200), 255 - 60))
    assert matches(screen, caret) and matches(screen, letters)
    assert cells_differing(screen, dialog) > 100 and not matches(screen, dialog)
    assert not matches(screen, menu)


def test_the_input_waits_until_the_recorded_screen_arrives():
    capture = FakeCapture(frame(1, 255))  # a blank page while the next one loads
    event = {"n": 7, "screen": encode_thumb(screen_thumb(frame(9, 255, (0, 0, W, 600), 40)))}
    published = threading.Event()

    def page_arrives() -> None:
        capture.slot.publish(frame(2, 255, (0, 700, W, 100), 120))  # something else first
        time.sleep(0.2)
        published.set()
        capture.slot.publish(frame(3, 255, (0, 0, W, 600), 40))

    report = ReplayReport()
    threading.Timer(0.2, page_arrives).start()
    asyncio.run(_await_checkpoint(event, capture, 10.0, report))
    assert published.is_set()
    assert report.checkpoints == 1 and report.unmatched == [] and report.misses_in_row == 0


def test_a_screen_that_never_comes_is_reported_and_three_in_a_row_end_the_waiting():
    capture = FakeCapture(frame(1, 255))
    never = {"screen": encode_thumb(screen_thumb(frame(9, 0)))}
    report = ReplayReport()
    for n in range(1, ABANDON_AFTER_MISSES + 1):
        asyncio.run(_await_checkpoint({**never, "n": n}, capture, 0.05, report))
    assert report.unmatched == [(n, GRID[0] * GRID[1]) for n in range(1, 4)]
    assert report.checkpoints_abandoned_at == ABANDON_AFTER_MISSES
    report = ReplayReport()
    asyncio.run(_await_checkpoint({**never, "n": 1}, capture, 0.05, report))
    here = {"n": 2, "screen": encode_thumb(screen_thumb(frame(1, 255)))}
    asyncio.run(_await_checkpoint(here, capture, 0.05, report))
    assert report.misses_in_row == 0 and report.checkpoints_abandoned_at is None


def test_a_trace_line_with_a_damaged_checkpoint_stops_the_replay_with_its_line():
    capture = FakeCapture(frame(1, 255))
    with pytest.raises(ReplayError, match="trace line 4"):
        asyncio.run(_await_checkpoint({"n": 4, "screen": "###"}, capture, 0.05, ReplayReport()))
