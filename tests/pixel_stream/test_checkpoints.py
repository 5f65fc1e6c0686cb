"""Screen checkpoints: a replayed input waits for the screen it was recorded on."""

import asyncio
import json
import threading
import time
import types

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
from pixel_stream.replay import LOST_AFTER_MISSES, ReplayError, ReplayReport, _await_checkpoint

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


def test_three_screens_in_a_row_that_never_come_make_the_replay_lost_until_one_comes():
    capture = FakeCapture(frame(1, 255))
    never = {"screen": encode_thumb(screen_thumb(frame(9, 0)))}
    report = ReplayReport()
    for n in range(1, LOST_AFTER_MISSES + 1):
        assert not report.lost
        asyncio.run(_await_checkpoint({**never, "n": n}, capture, 0.05, report))
    assert report.unmatched == [(n, GRID[0] * GRID[1]) for n in range(1, 4)]
    assert report.lost and report.lost_at == [LOST_AFTER_MISSES]
    asyncio.run(_await_checkpoint({**never, "n": 4}, capture, 0.05, report))
    assert report.lost_at == [3]  # still the same loss
    here = {"n": 5, "screen": encode_thumb(screen_thumb(frame(1, 255)))}
    asyncio.run(_await_checkpoint(here, capture, 0.05, report))
    assert not report.lost and report.found_again_at == [5] and report.misses_in_row == 0
    # two misses, then a match: never lost
    report = ReplayReport()
    asyncio.run(_await_checkpoint({**never, "n": 1}, capture, 0.05, report))
    asyncio.run(_await_checkpoint({**never, "n": 2}, capture, 0.05, report))
    asyncio.run(_await_checkpoint({**here, "n": 3}, capture, 0.05, report))
    assert report.lost_at == [] and report.found_again_at == [] and report.misses_in_row == 0


def test_a_trace_line_with_a_damaged_checkpoint_stops_the_replay_with_its_line():
    capture = FakeCapture(frame(1, 255))
    with pytest.raises(ReplayError, match="trace line 4"):
        asyncio.run(_await_checkpoint({"n": 4, "screen": "###"}, capture, 0.05, ReplayReport()))


def test_a_lost_replay_waits_briefly_for_each_screen_until_one_comes(tmp_path, monkeypatch):
    from pixel_stream import replay

    capture = FakeCapture(frame(1, 255))
    capture.width, capture.height = W, H
    never = encode_thumb(screen_thumb(frame(9, 0)))
    here = encode_thumb(screen_thumb(frame(1, 255)))
    screens = [never, never, never, never, here, never]
    trace = tmp_path / "trace.jsonl"
    lines = [{"kind": "header", "version": 2, "width": W, "height": H}]
    lines += [{"n": n, "t": n * 0.01, "client": "agent", "kind": "action", "seq_before": 1,
               "seq_after": 1, "screen": screen,
               "event": {"action": "mouse_move", "coordinate": [10 * n, 10]}}
              for n, screen in enumerate(screens, start=1)]
    trace.write_text("".join(json.dumps(line) + "\n" for line in lines))
    waits = []
    real = replay._await_checkpoint

    async def checkpoint(event, capture, timeout, report):
        waits.append(timeout)
        await real(event, capture, min(timeout, 0.05), report)

    class Injector:  # nothing is injected: only the waits are looked at
        def move(self, x, y):
            pass

    async def run(fn, *args):
        return fn(*args)

    async def quiet(capture, *args):
        return types.SimpleNamespace(frame=capture.slot.latest, timed_out=False)

    monkeypatch.setattr(replay, "_await_checkpoint", checkpoint)
    monkeypatch.setattr(replay, "wait_for_quiet", quiet)
    report = asyncio.run(replay.replay_into(
        trace, replay.ReplayTarget(capture, Injector(), run), checkpoint_timeout_ms=15000))
    # three full waits, then lost: a short wait each until the fifth screen comes, then
    # full waits again
    assert waits == [15.0, 15.0, 15.0, replay.LOST_WAIT_S, replay.LOST_WAIT_S, 15.0]
    assert report.lost_at == [3] and report.found_again_at == [5]
    assert [n for n, _ in report.unmatched] == [1, 2, 3, 4, 6]
