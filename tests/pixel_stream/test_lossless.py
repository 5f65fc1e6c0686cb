"""Build to lossless, the parts without a display: which cells are due, tiles and their
chunks, frame stamps, the page's ordering of tiles against video frames, the title."""

import asyncio
import io
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from starlette.testclient import TestClient

from pixel_stream.frames import Frame, FrameSlot, Rect
from pixel_stream.lossless import LosslessFeed
from pixel_stream.policy import PolicyError, SessionPolicy
from pixel_stream.session import PixelSession, page_title
from pixel_stream.stamps import FrameStamper, log_entries
from pixel_stream.tiles import (
    CHUNK_BYTES,
    DamageMap,
    cells_to_rects,
    encode_tiles,
    tile_messages,
)

from .conftest import CHROMIUM, CHROMIUM_ARGS

RECEIVER = Path(__file__).parents[2] / "pixel_stream" / "receiver"


def frame(seq, width=320, height=200, fill=None, region=None):
    rng = np.random.default_rng(seq)
    pixels = rng.integers(0, 256, (height, width, 4), np.uint8) if fill is None else \
        np.full((height, width, 4), fill, np.uint8)
    return Frame(seq, width, height, bytearray(pixels.tobytes()),
                 region or Rect(0, 0, width, height), 0.0, 0.0)


# -- scheduling ----------------------------------------------------------------------------
def test_a_cell_is_due_once_quiet_for_the_delay_and_only_if_the_viewer_lacks_it():
    damage = DamageMap(320, 200, cell=32)
    sent = damage.new_sent()
    damage.note(1, None, now=0.0)
    due, wait = damage.due(sent, now=5.0, delay=0.15)
    assert due.all() and wait is None  # a new viewer's first refresh: the whole screen
    sent[due] = 1
    damage.note(2, Rect(40, 40, 10, 10), now=10.0)
    due, wait = damage.due(sent, now=10.05, delay=0.15)
    assert not due.any() and wait == pytest.approx(0.10)  # still changing: wait
    due, wait = damage.due(sent, now=10.2, delay=0.15)
    assert due.sum() == 1 and due[1, 1] and wait is None
    sent[due] = 2
    assert not damage.due(sent, now=11.0, delay=0.15)[0].any()
    damage.note(3, Rect(0, 0, 0, 0), now=12.0)  # an empty region changes nothing
    assert not damage.due(sent, now=13.0, delay=0.15)[0].any()


def test_cells_become_rects_that_cover_exactly_the_due_cells_within_the_screen():
    rng = np.random.default_rng(7)
    for _ in range(30):
        mask = rng.random((25, 40)) < 0.3
        mask[5:20, 10:30] = True
        rects = cells_to_rects(mask, 32, 1270, 790, max_side=256)
        covered = np.zeros((790, 1270), np.int32)
        for r in rects:
            assert r.width <= 256 and r.height <= 256
            covered[r.y:r.y + r.height, r.x:r.x + r.width] += 1
        assert covered.max() == 1  # no overlap
        want = np.kron(mask, np.ones((32, 32), np.int32))[:790, :1270]
        assert (covered == want).all()


def test_a_whole_screen_is_a_few_tiles():
    rects = cells_to_rects(np.ones((25, 40), bool), 32, 1280, 800)
    assert len(rects) == 20 and sum(r.area for r in rects) == 1280 * 800


def test_tiles_are_exact_pngs_chunked_under_the_message_limit():
    source = frame(3, 320, 200)
    rects = [Rect(0, 0, 320, 200), Rect(17, 33, 50, 40), Rect(300, 190, 20, 10)]
    for rect, data in zip(rects, encode_tiles(source, rects), strict=True):
        decoded = Image.open(io.BytesIO(data))
        assert decoded.mode == "RGB" and "icc_profile" not in decoded.info
        assert "gamma" not in decoded.info and "srgb" not in decoded.info
        whole = Image.frombuffer("RGB", (320, 200), source.pixels, "raw", "BGRX", 1280, 1)
        want = whole.crop((rect.x, rect.y, rect.x + rect.width, rect.y + rect.height))
        assert decoded.tobytes() == want.tobytes()
        messages = tile_messages(9, 3, rect, data)
        header = json.loads(messages[0])
        assert header == {"t": "tile", "id": 9, "seq": 3, "x": rect.x, "y": rect.y,
                          "w": rect.width, "h": rect.height, "size": len(data),
                          "chunks": len(messages) - 1}
        assert all(len(m) <= CHUNK_BYTES for m in messages[1:])
        assert b"".join(messages[1:]) == data
    assert len(tile_messages(1, 1, rects[0], encode_tiles(source, rects[:1])[0])) > 2


def test_the_damage_log_lists_each_frame_and_says_when_it_is_lost():
    slot = FrameSlot()
    for seq in range(1, 6):
        slot.publish(frame(seq, 64, 64, fill=seq, region=Rect(seq, 0, 1, 1)))
    assert slot.damage_log(3) == [(4, Rect(4, 0, 1, 1)), (5, Rect(5, 0, 1, 1))]
    assert slot.damage_log(5) == []
    for seq in range(6, 80):
        slot.publish(frame(seq, 64, 64, fill=1, region=Rect(0, 0, 1, 1)))
    assert slot.damage_log(3) is None
    assert log_entries(None, 79, 64, 64) == [[79, 0, 0, 64, 64]]
    assert log_entries([(8, Rect(0, 0, 0, 0)), (9, Rect(1, 2, 3, 4)), (10, Rect(0, 0, 1, 1))],
                       9, 64, 64) == [[9, 1, 2, 3, 4]]


class FakeSender:
    def __init__(self):
        self._RTCRtpSender__rtp_timestamp = 0


def test_frame_stamps_carry_the_rtp_timestamp_and_the_damage_log_since_the_last_stamp():
    slot = FrameSlot()
    for seq in range(1, 6):
        slot.publish(frame(seq, 64, 64, fill=seq, region=Rect(seq, 0, 1, 1)))
    sender = FakeSender()
    stamper = FrameStamper(sender, slot, start_seq=3)
    assert stamper.frame_out(1000, 3) == []  # the page's log starts after 3: nothing new
    assert stamper.frame_out(2000, 4) == []  # origin unknown until a frame went out
    sender._RTCRtpSender__rtp_timestamp = (0xFFFFFF00 + 2000) & 0xFFFFFFFF
    assert stamper.frame_out(4000, 5) == [
        {"t": "v", "rtp": (0xFFFFFF00 + 2000) & 0xFFFFFFFF, "seq": 4, "known": 5,
         "rects": [[4, 4, 0, 1, 1], [5, 5, 0, 1, 1]]},
        {"t": "v", "rtp": (0xFFFFFF00 + 4000) & 0xFFFFFFFF, "seq": 5, "known": 5,
         "rects": []},  # wraps at 2**32
    ]
    assert stamper.frame_out(5000, None) == []  # a frame the feed forgot: no stamp
    assert stamper.frame_out(6000, 5) == []  # a heartbeat of a stamped picture
    slot.publish(frame(6, 64, 64, fill=6, region=Rect(0, 0, 0, 0)))
    slot.publish(frame(7, 64, 64, fill=7, region=Rect(7, 7, 2, 2)))
    assert stamper.frame_out(7000, 6) == [
        {"t": "v", "rtp": (0xFFFFFF00 + 7000) & 0xFFFFFFFF, "seq": 6, "known": 6,
         "rects": []}]  # damage after the stamped frame waits for its own stamp
    assert not stamper.failed and not stamper.lost
    for seq in range(8, 90):
        slot.publish(frame(seq, 64, 64, fill=1, region=Rect(0, 0, 1, 1)))
    out = stamper.frame_out(9000, 89)
    assert out[0]["rects"] == [[89, 0, 0, 64, 64]] and stamper.lost  # the log was lost


def test_frames_waiting_for_the_origin_are_stamped_by_the_next_heartbeat():
    """A screen that goes quiet right after the first frames: the heartbeat that reveals
    the sender's timestamps sends the waiting stamps (no later change will)."""
    slot = FrameSlot()
    for seq in range(1, 3):
        slot.publish(frame(seq, 64, 64, fill=seq, region=Rect(seq, 0, 1, 1)))
    sender = FakeSender()
    stamper = FrameStamper(sender, slot, start_seq=0)
    assert stamper.frame_out(1000, 1) == []
    assert stamper.frame_out(2000, 2) == []  # the sender has not shown a timestamp yet
    sender._RTCRtpSender__rtp_timestamp = 77 + 2000
    assert stamper.frame_out(3000, 2) == [  # a heartbeat of frame 2
        {"t": "v", "rtp": 77 + 1000, "seq": 1, "known": 2,
         "rects": [[1, 1, 0, 1, 1], [2, 2, 0, 1, 1]]},
        {"t": "v", "rtp": 77 + 2000, "seq": 2, "known": 2, "rects": []},
    ]
    assert stamper.frame_out(4000, 2) == []  # nothing waits any more


def test_a_change_sent_as_tiles_only_gets_its_damage_log_without_a_video_stamp():
    slot = FrameSlot()
    for seq in range(1, 3):
        slot.publish(frame(seq, 64, 64, fill=seq, region=Rect(seq, 0, 1, 1)))
    sender = FakeSender()
    stamper = FrameStamper(sender, slot, start_seq=0)
    assert stamper.by_tiles(1) == []  # no origin yet: the log waits for the first stamp
    sender._RTCRtpSender__rtp_timestamp = 500
    assert stamper.frame_out(100, 1) == []  # already logged when it went as tiles
    assert stamper.frame_out(200, 2) == [  # the log of the tiles rides the first stamp
        {"t": "v", "rtp": 600, "seq": 2, "known": 2,
         "rects": [[1, 1, 0, 1, 1], [2, 2, 0, 1, 1]]}]
    slot.publish(frame(3, 64, 64, fill=3, region=Rect(3, 0, 1, 1)))
    assert stamper.by_tiles(3) == [{"t": "d", "known": 3, "rects": [[3, 3, 0, 1, 1]]}]
    assert stamper.by_tiles(3) == []  # once
    slot.publish(frame(4, 64, 64, fill=4, region=Rect(4, 0, 1, 1)))
    assert stamper.frame_out(300, 4) == [  # the next video stamp: only what came after
        {"t": "v", "rtp": 700, "seq": 4, "known": 4, "rects": [[4, 4, 0, 1, 1]]}]


def test_cells_of_a_change_sent_as_tiles_are_due_at_once():
    damage = DamageMap(64, 64, cell=32)
    damage.note(3, Rect(0, 0, 4, 4), now=10.0)
    damage.note(4, Rect(40, 40, 4, 4), now=10.0)
    sent = np.zeros_like(damage.changed_seq)  # the viewer has everything before frame 3
    due, _ = damage.due(sent, now=10.01, delay=0.15)
    assert not due.any()
    due, wait = damage.due(sent, now=10.01, delay=0.15, at_once_upto=3)
    assert due.tolist() == [[True, False], [False, False]] and wait is not None


def test_the_encoder_sends_small_changes_as_tiles_when_told_it_may():
    from pixel_stream.video import EncodedFeed

    slot = FrameSlot()
    slot.publish(frame(1, 64, 64, fill=1))
    slot.publish(frame(2, 64, 64, fill=2, region=Rect(0, 0, 8, 8)))
    feed = EncodedFeed(slot, "h264")
    assert not feed._send_as_tiles(slot.latest, 1)  # no hooks: video
    sent: list[int] = []
    feed.by_tiles = lambda dirty: dirty.area <= 100
    feed.on_tiles = sent.append
    assert feed._send_as_tiles(slot.latest, 1) and sent == [2]
    assert not feed._send_as_tiles(slot.latest, 2)  # nothing new since the last video frame
    slot.publish(frame(3, 64, 64, fill=3, region=Rect(0, 0, 64, 64)))
    assert not feed._send_as_tiles(slot.latest, 1)  # too large a change: video
    assert feed.frames_by_tiles == 1

    def broken(seq: int) -> None:
        raise RuntimeError("no channel")

    feed.on_tiles = broken
    feed.by_tiles = lambda dirty: True
    assert not feed._send_as_tiles(slot.latest, 1)  # then the video carries it


def test_a_change_sent_as_tiles_does_not_wake_the_encoder_thread():
    import threading
    import time

    from pixel_stream.video import EncodedFeed

    slot = FrameSlot()
    slot.publish(frame(1, 64, 64, fill=1))
    feed = EncodedFeed(slot, "H264")
    wakes: list[int] = []
    wait_next = slot.wait_next

    def counted(*args, **kwargs):
        result = wait_next(*args, **kwargs)
        wakes.append(result[0])
        return result

    slot.wait_next = counted  # type: ignore[method-assign]
    sent: list[int] = []
    tiles = threading.Event()
    feed.by_tiles = lambda dirty: dirty.area <= 100
    feed.on_tiles = lambda seq: (sent.append(seq), tiles.set())
    encoded = threading.Event()
    feed.subscribe(lambda packets, key: encoded.set())
    try:
        assert encoded.wait(10)  # the first frame: video (a keyframe)
        time.sleep(0.1)  # the thread is back waiting
        woken = len(wakes)
        for seq in range(2, 6):
            slot.publish(frame(seq, 64, 64, fill=seq, region=Rect(0, 0, 8, 8)))
        assert sent == [2, 3, 4, 5]  # sent as tiles on the publishing thread, in order
        assert feed.frames_by_tiles == 4
        time.sleep(0.1)
        assert len(wakes) == woken  # and the encoder thread slept through them
        encoded.clear()
        slot.heartbeat()  # the same picture again: the video catches up
        assert encoded.wait(10)
        assert feed.frames_encoded == 2 and sent == [2, 3, 4, 5]
        encoded.clear()
        slot.publish(frame(6, 64, 64, fill=6, region=Rect(0, 0, 64, 64)))  # too large
        assert encoded.wait(10) and sent == [2, 3, 4, 5]
    finally:
        feed.stop()


def test_changes_sent_as_tiles_still_keep_the_video_alive(monkeypatch):
    """A browser asks for a keyframe (30 kB) after 3 s without a video frame: while every
    change goes as tiles, one a second is also encoded, as a small P-frame."""
    import threading

    import pixel_stream.video as video
    from pixel_stream.video import EncodedFeed

    slot = FrameSlot()
    slot.publish(frame(1, 64, 64, fill=1))
    feed = EncodedFeed(slot, "H264")
    sent: list[int] = []
    feed.by_tiles = lambda dirty: dirty.area <= 100
    feed.on_tiles = sent.append
    encoded: list[bool] = []
    got = threading.Event()
    feed.subscribe(lambda packets, key: (encoded.append(key), got.set()))
    clock = {"now": 1000.0}
    try:
        assert got.wait(10) and encoded == [True]  # the first frame: a keyframe
        got.clear()
        monkeypatch.setattr(video.time, "monotonic", lambda: clock["now"])
        with feed._lock:
            feed._last_video_at = clock["now"]
        clock["now"] += video.VIDEO_KEEPALIVE_S / 2
        slot.publish(frame(2, 64, 64, fill=2, region=Rect(0, 0, 8, 8)))
        assert sent == [2] and not got.wait(0.3)  # tiles only: the video had a frame lately
        clock["now"] += video.VIDEO_KEEPALIVE_S
        slot.publish(frame(3, 64, 64, fill=3, region=Rect(0, 0, 8, 8)))
        assert sent == [2, 3]  # exact at once, as tiles
        assert got.wait(10) and encoded == [True, False]  # and a P-frame for the video
        assert feed.frames_encoded == 2 and feed.keyframes == 1
        got.clear()
        slot.publish(frame(4, 64, 64, fill=4, region=Rect(0, 0, 8, 8)))
        assert sent == [2, 3, 4] and not got.wait(0.3)  # the video just had one
    finally:
        feed.stop()


class FakeChannel:
    """The server's end of a page's ``lossless`` data channel."""

    def __init__(self):
        self.readyState = "open"
        self.bufferedAmount = 0
        self.sent: list[str | bytes] = []

    def on(self, event, handler=None):
        return handler if handler is not None else (lambda fn: fn)

    def send(self, message):
        self.sent.append(message)


def read_batch(message: bytes) -> tuple[dict, list[bytes]]:
    length = int.from_bytes(message[:4], "big")
    header = json.loads(message[4:4 + length])
    datas, offset = [], 4 + length
    for *_rect, size in header["tiles"]:
        datas.append(message[offset:offset + size])
        offset += size
    assert offset == len(message)
    return header, datas


def with_letter(base: Frame, seq: int, rect: Rect) -> Frame:
    """``base`` with random pixels in ``rect`` (a typed letter)."""
    pixels = np.frombuffer(base.pixels, np.uint8).reshape(base.height, base.width, 4).copy()
    rng = np.random.default_rng(seq)
    pixels[rect.y:rect.y + rect.height, rect.x:rect.x + rect.width] = rng.integers(
        0, 256, (rect.height, rect.width, 4), np.uint8)
    return Frame(seq, base.width, base.height, bytearray(pixels.tobytes()), rect, 0.0, 0.0)


async def settle(feed: LosslessFeed, viewer, seq: int) -> None:
    for _ in range(200):
        if viewer.exact == seq and not viewer.busy:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never exact at frame {seq}")


async def test_a_change_sent_as_tiles_only_is_one_message_of_the_changed_pixels():
    slot = FrameSlot()
    base = frame(1, 320, 200, fill=200)
    slot.publish(base)
    feed = LosslessFeed(slot, 320, 200, delay_s=0.15)
    channel = FakeChannel()
    viewer = feed.add(channel, 1)
    try:
        await settle(feed, viewer, 1)
        assert json.loads(channel.sent[0]) == {"t": "start", "seq": 1}
        # the first refresh: the whole (plain) screen in one message, with "exact"
        assert len(channel.sent) == 2
        header, datas = read_batch(channel.sent[1])
        assert header["exact"] == 1 and len(header["tiles"]) == 2
        assert sum(w * h for _s, _x, _y, w, h, _n in header["tiles"]) == 320 * 200
        channel.sent.clear()

        # a letter across two cells: its damage log, its pixels and "exact", one message
        letter = Rect(60, 36, 8, 14)
        slot.publish(with_letter(base, 2, letter))
        log = {"t": "d", "known": 2, "rects": [[2, *letter.as_list()]]}
        feed.send_change(2, {viewer: [log]})
        await asyncio.sleep(0.05)
        assert len(channel.sent) == 1 and isinstance(channel.sent[0], bytes)
        header, datas = read_batch(channel.sent[0])
        assert header == {"t": "b", "tiles": [[2, 60, 36, 8, 14, len(datas[0])]],
                          "d": {"known": 2, "rects": [[2, 60, 36, 8, 14]]}, "exact": 2}
        tile = Image.open(io.BytesIO(datas[0]))
        whole = Image.frombuffer("RGB", (320, 200), slot.latest.pixels, "raw", "BGRX", 1280, 1)
        assert tile.tobytes() == whole.crop((60, 36, 68, 50)).tobytes()
        # bytes bounded by the changed area (random pixels: PNG cannot compress them)
        assert len(channel.sent[0]) <= 3 * letter.area + 300

        # the same when the page was not told "exact" last (its cells are cut to the damage
        # since each cell's copy)
        channel.sent.clear()
        viewer.exact = None
        second = Rect(90, 60, 6, 10)
        slot.publish(with_letter(slot.latest, 3, second))
        feed.send_change(3, {viewer: []})
        header, datas = read_batch(channel.sent[0])
        assert len(channel.sent) == 1 and header["exact"] == 3
        assert [t[:5] for t in header["tiles"]] == [[3, 90, 60, 6, 10]]

        # where the page's copy is not known (it asked again), whole cells go
        channel.sent.clear()
        feed.resend(viewer, Rect(0, 0, 32, 32))
        await settle(feed, viewer, 3)
        await asyncio.sleep(0.05)
        assert [read_batch(m)[0]["tiles"][0][:5] for m in channel.sent] == [[3, 0, 0, 32, 32]]
    finally:
        await feed.stop()


def test_a_sender_that_never_shows_its_timestamps_makes_the_stamps_fail():
    slot = FrameSlot()
    stamper = FrameStamper(object(), slot, start_seq=0)
    for seq in range(1, 5):
        slot.publish(frame(seq, 64, 64, fill=seq))
        assert stamper.frame_out(seq * 3000, seq) == []
    assert stamper.failed


def test_the_policy_checks_the_size_of_changes_sent_as_tiles():
    assert SessionPolicy().tile_changes_px == 128 * 128
    assert SessionPolicy(tile_changes_px=None).tile_changes_px is None
    for bad in (0, -5, 1.5, 1 << 23):
        with pytest.raises(PolicyError, match="tile_changes_px"):
            SessionPolicy(tile_changes_px=bad)


def test_the_policy_checks_the_lossless_delay():
    assert SessionPolicy().lossless_delay_s == 0.15
    assert SessionPolicy(lossless_delay_s=None).lossless_delay_s is None
    with pytest.raises(PolicyError, match="lossless_delay_s"):
        SessionPolicy(lossless_delay_s=0)


# -- the page's ordering (lossless.js in headless Chromium) --------------------------------
ORDERING = """async (src) => {
  const { Lossless } = await import('data:text/javascript,' + encodeURIComponent(src));
  const canvas = document.createElement('canvas');
  canvas.width = 64; canvas.height = 32;
  document.body.append(canvas);
  const resends = [];
  const l = new Lossless(canvas, (r) => resends.push(r));
  const solid = async (w, h, rgb) => {
    const c = new OffscreenCanvas(w, h), g = c.getContext('2d');
    g.fillStyle = `rgb(${rgb})`; g.fillRect(0, 0, w, h);
    return await createImageBitmap(c);
  };
  const alpha = (x, y) => canvas.getContext('2d').getImageData(x, y, 1, 1).data[3];
  const out = {};
  const v = (rtp, seq, known, rects) => l.onMessage(JSON.stringify({t: 'v', rtp, seq, known, rects}));
  l.onMessage(JSON.stringify({t: 'start', seq: 9}));
  v(900, 10, 10, [[10, 0, 0, 64, 32]]);
  l.onVideoFrame(900);
  out.settled_before = l.settled;
  l.paint({seq: 10, x: 0, y: 0, w: 64, h: 32}, await solid(64, 32, '1,2,3'));
  out.painted = alpha(5, 5);
  l.onMessage(JSON.stringify({t: 'exact', seq: 10}));
  await l.chain;
  out.settled = l.settled;
  // damage at 11 (x 0..8) is known, but the video has not shown frame 11: keep the tile
  v(1000, 11, 11, [[11, 0, 0, 8, 8]]);
  out.kept_before_video = alpha(1, 1);
  out.settled_after_damage = l.settled;
  l.onVideoFrame(1000);
  out.cleared = alpha(1, 1); out.others_kept = alpha(20, 20);
  // presented frames whose stamp comes later wait for it (a heartbeat is never stamped)
  l.onVideoFrame(1100);
  l.onVideoFrame(1150);
  out.kept_unstamped = alpha(41, 1);
  v(1100, 12, 13, [[12, 40, 0, 8, 8], [13, 50, 20, 4, 4]]);
  out.cleared_12 = alpha(41, 1);
  // a tile older than the video is cut where the video shows later damage
  l.paint({seq: 11, x: 0, y: 0, w: 48, h: 8}, await solid(48, 8, '4,5,6'));
  out.old_tile_painted = alpha(1, 1); out.old_tile_cut = alpha(41, 1);
  // a tile newer than the video survives the video catching up to an older frame
  l.paint({seq: 13, x: 48, y: 16, w: 16, h: 16}, await solid(16, 16, '7,8,9'));
  v(1200, 13, 13, []);
  l.onVideoFrame(1200);
  out.newer_kept = alpha(51, 21);
  // a tile from before the damage log started is not painted but asked for again
  l.paint({seq: 2, x: 0, y: 0, w: 4, h: 4}, await solid(4, 4, '0,0,0'));
  out.resends = resends;
  v(1300, 14, 14, [[14, 50, 20, 2, 2]]);
  l.onVideoFrame(1300);
  out.cleared_14 = alpha(50, 20); out.presented = l.presented;
  // a change sent as tiles only (no video frame): its log comes as {t: 'd'}; the page is
  // settled once its tile is painted; a later video frame keeps the tile (not newer)
  l.onMessage(JSON.stringify({t: 'd', known: 15, rects: [[15, 30, 24, 4, 4]]}));
  out.settled_d_before_tile = l.settled;
  l.paint({seq: 15, x: 24, y: 16, w: 16, h: 16}, await solid(16, 16, '1,1,1'));
  l.onMessage(JSON.stringify({t: 'exact', seq: 15}));
  await l.chain;
  out.settled_d = l.settled;
  v(1400, 16, 16, [[16, 0, 24, 2, 2]]);
  l.onVideoFrame(1400);
  out.tile_only_kept = alpha(31, 25);
  return out;
}"""


def _run_with_lossless_js(script):
    """``script`` (a function of the receiver's lossless.js source) run in a fresh page of
    headless Chromium; what it returns."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            return browser.new_page().evaluate(script, (RECEIVER / "lossless.js").read_text())
        finally:
            browser.close()


@pytest.mark.slow
def test_the_page_orders_tiles_against_video_frames():
    out = _run_with_lossless_js(ORDERING)
    assert out == {
        "settled_before": False, "painted": 255, "settled": True,
        "kept_before_video": 255, "settled_after_damage": False, "cleared": 0,
        "others_kept": 255, "kept_unstamped": 255, "cleared_12": 0, "old_tile_painted": 255,
        "old_tile_cut": 0, "newer_kept": 255, "resends": [{"x": 0, "y": 0, "w": 4, "h": 4}],
        "cleared_14": 0, "presented": 14,
        "settled_d_before_tile": False, "settled_d": True, "tile_only_kept": 255,
    }


BATCH = """async (src) => {
  const { Lossless } = await import('data:text/javascript,' + encodeURIComponent(src));
  const canvas = document.createElement('canvas');
  canvas.width = 64; canvas.height = 32;
  document.body.append(canvas);
  const l = new Lossless(canvas, () => {});
  const png = async (w, h, rgb) => {
    const c = new OffscreenCanvas(w, h), g = c.getContext('2d');
    g.fillStyle = `rgb(${rgb})`; g.fillRect(0, 0, w, h);
    return new Uint8Array(await (await c.convertToBlob({ type: 'image/png' })).arrayBuffer());
  };
  const batch = (header, pngs) => {
    const head = new TextEncoder().encode(JSON.stringify(header));
    const size = 4 + head.length + pngs.reduce((n, p) => n + p.length, 0);
    const out = new Uint8Array(size);
    new DataView(out.buffer).setUint32(0, head.length);
    out.set(head, 4);
    let offset = 4 + head.length;
    for (const p of pngs) { out.set(p, offset); offset += p.length; }
    return out.buffer;
  };
  const pixel = (x, y) => Array.from(canvas.getContext('2d').getImageData(x, y, 1, 1).data);
  l.onMessage(JSON.stringify({t: 'start', seq: 9}));
  const whole = await png(64, 32, '10,20,30'), letter = await png(8, 14, '200,100,50');
  // a whole-screen refresh, then a change sent as tiles only: one message each
  l.onMessage(batch({t: 'b', tiles: [[9, 0, 0, 64, 32, whole.length]], exact: 9}, [whole]));
  await l.chain;
  const out = {settled_first: l.settled, first: pixel(40, 20)};
  l.onMessage(batch({t: 'b', tiles: [[10, 20, 4, 8, 14, letter.length]],
                     d: {known: 10, rects: [[10, 20, 4, 8, 14]]}, exact: 10}, [letter]));
  out.known = l.knownSeq;
  await l.chain;
  Object.assign(out, {settled: l.settled, letter: pixel(21, 5), beside: pixel(30, 5),
                      tiles: l.stats.tiles, log: l.log});
  return out;
}"""


@pytest.mark.slow
def test_the_page_paints_a_change_that_comes_as_one_message():
    out = _run_with_lossless_js(BATCH)
    assert out == {"settled_first": True, "first": [10, 20, 30, 255], "known": 10,
                   "settled": True, "letter": [200, 100, 50, 255], "beside": [10, 20, 30, 255],
                   "tiles": 2, "log": [[10, 20, 4, 8, 14]]}


# -- the page's title ----------------------------------------------------------------------
def test_the_title_is_checked():
    assert page_title(None) == page_title("") == "Pixel session"
    assert page_title("Citrix Workspace – Hyperspace") == "Citrix Workspace – Hyperspace"
    for bad in ("x" * 201, "a\nb", "tab\there", "\x85"):
        with pytest.raises(ValueError):
            page_title(bad)


def test_the_page_is_served_with_the_escaped_title_and_bad_titles_are_a_400():
    session = PixelSession(":0", token="title-token-1")
    client = TestClient(session._app())
    title = 'Citrix Workspace – Hyperspace <script>alert("x")</script> & co'
    page = client.get("/", params={"token": "title-token-1", "title": title})
    assert page.status_code == 200
    assert ("<title>Citrix Workspace – Hyperspace &lt;script&gt;alert(&quot;x&quot;)"
            "&lt;/script&gt; &amp; co</title>") in page.text
    assert "<script>alert" not in page.text
    assert "<title>Pixel session</title>" in client.get("/?token=title-token-1").text
    for bad in ("x" * 500, "two\nlines"):
        reply = client.get("/", params={"token": "title-token-1", "title": bad})
        assert reply.status_code == 400 and "title" in reply.text
    assert client.get("/", params={"title": "no token"}).status_code == 403
    assert client.get("/lossless.js").status_code == 200
