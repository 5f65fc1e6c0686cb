"""Our encoder: partial YUV updates equal a full conversion; packets decode."""

import random
import time

import av

from pixel_stream.frames import Frame, FrameSlot, Rect
from pixel_stream.video import VideoEncoder

W, H = 640, 256


def frame(seq: int, pixels: bytearray, region: Rect) -> Frame:
    now = time.monotonic()
    return Frame(seq=seq, width=W, height=H, pixels=bytearray(pixels), region=region,
                 damaged_at=now, captured_at=now)


def planes(yuv: av.VideoFrame) -> list[bytes]:
    out = []
    for index, div in ((0, 1), (1, 2), (2, 2)):
        plane = yuv.planes[index]
        view = memoryview(plane)
        out.append(b"".join(bytes(view[r * plane.line_size : r * plane.line_size + W // div])
                            for r in range(H // div)))
    return out


def paint(pixels: bytearray, rect: Rect, rng: random.Random) -> None:
    for y in range(rect.y, rect.y + rect.height):
        start = (y * W + rect.x) * 4
        pixels[start : start + rect.width * 4] = rng.randbytes(rect.width * 4)


def test_tile_updates_match_a_full_conversion():
    rng = random.Random(3)
    pixels = bytearray(rng.randbytes(W * H * 4))
    encoder = VideoEncoder("H264", W, H)
    reference = VideoEncoder("H264", W, H)
    encoder.encode(frame(1, pixels, Rect(0, 0, W, H)), 0, True)
    for seq, rect in enumerate([Rect(5, 7, 30, 9), Rect(600, 240, 40, 16), Rect(130, 31, 2, 2),
                                Rect(0, 0, W, 1), Rect(333, 100, 200, 100)], start=2):
        paint(pixels, rect, rng)
        current = frame(seq, pixels, rect)
        encoder.encode(current, seq * 3000, False, dirty=rect)
        assert planes(encoder._yuv_frame) == planes(reference._yuv(current, None))


def test_packets_decode_to_the_picture():
    pixels = bytearray(b"\x00\x00\xff\xff" * (W * H))  # red in BGRX
    encoder = VideoEncoder("H264", W, H)
    packets = encoder.encode(frame(1, pixels, Rect(0, 0, W, H)), 0, True)
    assert packets and packets[0].is_keyframe
    decoder = av.CodecContext.create("h264", "r")
    decoded = [f for p in packets for f in decoder.decode(p)]
    decoded += decoder.decode(None)
    r, g, b = decoded[0].to_image().getpixel((W // 2, H // 2))
    assert r > 200 and g < 60 and b < 60


def test_damage_since_unions_skipped_frames():
    slot = FrameSlot()
    pixels = bytearray(W * H * 4)
    slot.publish(frame(1, pixels, Rect(0, 0, W, H)))
    slot.publish(frame(2, pixels, Rect(10, 10, 5, 5)))
    slot.publish(frame(3, pixels, Rect(100, 50, 10, 10)))
    assert slot.damage_since(1) == Rect(10, 10, 100, 50)
    assert slot.damage_since(3) == Rect(0, 0, 0, 0)
    for seq in range(4, 80):
        slot.publish(frame(seq, pixels, Rect(0, 0, 1, 1)))
    assert slot.damage_since(1) is None  # too long ago: everything


def test_a_feed_subscribed_before_the_first_frame_waits_for_it_without_spinning():
    """A viewer can subscribe before the display has any frame: the feed's thread then
    sleeps until the first frame comes (its keyframe request cannot be answered before),
    and that frame reaches the viewer as a keyframe."""
    import threading

    from pixel_stream import video

    slot = FrameSlot()
    waits = []
    real_wait = slot.wait_next

    def counted(*args, **kwargs):
        waits.append(1)
        return real_wait(*args, **kwargs)

    slot.wait_next = counted
    feed = video.EncodedFeed(slot, "H264")
    got: list[bool] = []
    arrived = threading.Event()

    def receive(packets, is_key):
        got.append(is_key)
        arrived.set()

    feed.subscribe(receive)
    try:
        time.sleep(0.3)
        assert len(waits) <= 3, f"the feed's thread woke {len(waits)} times with no frame"
        slot.publish(frame(1, bytearray(random.Random(1).randbytes(W * H * 4)),
                           Rect(0, 0, W, H)))
        assert arrived.wait(5)
        assert got[0] is True
    finally:
        feed.stop()


def test_a_viewer_that_subscribes_while_the_feed_starts_gets_a_keyframe(monkeypatch):
    """A viewer that subscribes while the feed's thread makes its encoder for the first
    viewer's keyframe (tens of ms) gets that keyframe or one of its own: its request is not
    taken as answered by a keyframe sent only to the viewers before it."""
    import threading

    from pixel_stream import video

    monkeypatch.setattr(video, "MIN_KEYFRAME_INTERVAL_S", 0.0)
    making, release = threading.Event(), threading.Event()
    real_init = VideoEncoder.__init__

    def slow_first_encoder(self, *args, **kwargs):
        if not making.is_set():
            making.set()
            release.wait(10)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(VideoEncoder, "__init__", slow_first_encoder)
    slot = FrameSlot()
    rng = random.Random(5)
    slot.publish(frame(1, bytearray(rng.randbytes(W * H * 4)), Rect(0, 0, W, H)))
    feed = video.EncodedFeed(slot, "H264")
    got: dict[str, list[bool]] = {"first": [], "second": []}
    lock = threading.Lock()

    def sink(name):
        def receive(packets, is_key):
            with lock:
                got[name].append(is_key)
        return receive

    feed.subscribe(sink("first"))
    try:
        assert making.wait(10)  # the feed's thread makes its encoder for the first viewer
        feed.subscribe(sink("second"))  # ... when the second viewer joins
        release.set()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and True not in got["second"]:
            time.sleep(0.01)
        assert got["first"][:1] == [True]
        assert True in got["second"], f"the second viewer got {got['second']}"
    finally:
        release.set()
        feed.stop()
