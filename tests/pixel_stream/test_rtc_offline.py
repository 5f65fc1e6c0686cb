"""Two aiortc peers in one process: our pre-encoded video track and the input channel.

No X display: frames are synthetic and go through the real encoder feed, the real track
and the real negotiation; the other peer is a plain aiortc client that decodes them.
"""

import asyncio
import json
import time

import pytest
from aiortc import RTCPeerConnection, RTCRtpReceiver, RTCSessionDescription, rtp
from aiortc.rtcrtpparameters import RTCRtpHeaderExtensionParameters, RTCRtpParameters

from pixel_stream import sctp_acks
from pixel_stream.frames import Frame, FrameSlot, Rect
from pixel_stream.rtc import (
    PLAYOUT_DELAY_URI,
    ScreenVideoTrack,
    negotiate_viewer,
    playout_delay_value,
    without_mdns_candidates,
)
from pixel_stream.video import EncodedFeed

W, H = 320, 240


def solid(seq: int, bgr: tuple[int, int, int]) -> Frame:
    pixels = bytearray(bytes((*bgr, 255)) * (W * H))
    now = time.monotonic()
    return Frame(seq=seq, width=W, height=H, pixels=pixels, region=Rect(0, 0, W, H),
                 damaged_at=now, captured_at=now)


def near(rgb, expected, tolerance=40) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(rgb, expected, strict=True))


async def heartbeats(slot: FrameSlot) -> None:
    """What the capture thread does on a static screen (faster, to keep the test short).

    aiortc's receiving side hands out a frame once the next one starts arriving.
    """
    while True:
        await asyncio.sleep(0.05)
        slot.heartbeat()


async def connect(slot: FrameSlot, codec: str | None = None):
    feeds: dict[str, EncodedFeed] = {}

    def feed_for(name: str) -> EncodedFeed:
        return feeds.setdefault(name, EncodedFeed(slot, name))

    client = RTCPeerConnection()
    transceiver = client.addTransceiver("video", direction="recvonly")
    if codec is not None:
        caps = RTCRtpReceiver.getCapabilities("video").codecs
        transceiver.setCodecPreferences([c for c in caps if c.mimeType == f"video/{codec}"])
    channel = client.createDataChannel("input")
    received: asyncio.Queue = asyncio.Queue()

    @client.on("track")
    def on_track(track):
        async def pump():
            while True:
                try:
                    await received.put(await track.recv())
                except Exception:  # noqa: BLE001 - track ended
                    return

        asyncio.ensure_future(pump())

    await client.setLocalDescription(await client.createOffer())
    track = ScreenVideoTrack(feed_for)
    server, answer, negotiated = await negotiate_viewer(client.localDescription.sdp, track)
    inputs: list[dict] = []

    @server.on("datachannel")
    def on_channel(server_channel):
        @server_channel.on("message")
        def on_message(message):
            inputs.append(json.loads(message))
            server_channel.send(json.dumps({"t": "ack", "n": len(inputs)}))

    await client.setRemoteDescription(RTCSessionDescription(answer, "answer"))
    return client, server, channel, received, negotiated, feeds, track, inputs


async def next_colour(received: asyncio.Queue, expected, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        frame = await asyncio.wait_for(received.get(), deadline - time.monotonic())
        rgb = frame.to_image().getpixel((W // 2, H // 2))
        if near(rgb, expected):
            return rgb
    raise AssertionError(f"no decoded frame showed {expected}")


@pytest.mark.parametrize("codec", ["H264", "VP8"])
async def test_frames_and_input_cross_between_peers(codec):
    slot = FrameSlot()
    slot.publish(solid(1, (0, 0, 255)))  # BGR: red
    beat = asyncio.create_task(heartbeats(slot))
    client, server, channel, received, negotiated, feeds, track, inputs = await connect(
        slot, None if codec == "H264" else codec)
    try:
        assert negotiated == codec
        await next_colour(received, (255, 0, 0))
        slot.publish(solid(2, (255, 0, 0)))  # blue
        await next_colour(received, (0, 0, 255))

        acks: asyncio.Queue = asyncio.Queue()
        channel.on("message", lambda m: acks.put_nowait(json.loads(m)))
        while channel.readyState != "open":
            await asyncio.sleep(0.01)
        channel.send(json.dumps({"t": "button", "button": 1, "down": True, "x": 5, "y": 6}))
        assert (await asyncio.wait_for(acks.get(), 10))["n"] == 1
        assert inputs == [{"t": "button", "button": 1, "down": True, "x": 5, "y": 6}]
        # the first frame a viewer gets is a keyframe, made for it
        assert feeds[codec].keyframes >= 1
    finally:
        beat.cancel()
        await client.close()
        await server.close()
        for feed in feeds.values():
            feed.stop()


async def test_keyframe_request_reaches_the_shared_encoder():
    slot = FrameSlot()
    slot.publish(solid(1, (0, 255, 0)))
    beat = asyncio.create_task(heartbeats(slot))
    client, server, channel, received, _codec, feeds, track, _ = await connect(slot)
    try:
        await next_colour(received, (0, 255, 0))
        before = feeds["H264"].keyframes
        # what aiortc calls when the browser sends a PLI
        server.getTransceivers()[0].sender._send_keyframe()
        deadline = time.monotonic() + 10
        while feeds["H264"].keyframes == before and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert feeds["H264"].keyframes > before
    finally:
        beat.cancel()
        await client.close()
        await server.close()
        feeds["H264"].stop()


def test_mdns_candidates_are_dropped():
    sdp = (
        "v=0\r\na=candidate:1 1 udp 1 abc.local 5000 typ host\r\n"
        "a=candidate:2 1 udp 1 10.0.0.1 5000 typ host\r\n"
    )
    out = without_mdns_candidates(sdp)
    assert ".local" not in out and "10.0.0.1" in out


async def test_a_stalled_viewer_never_holds_up_the_feed_or_other_viewers():
    from pixel_stream.rtc import MAX_QUEUED_FRAMES

    slot = FrameSlot()
    feed = EncodedFeed(slot, "H264")
    stalled = ScreenVideoTrack(lambda codec: feed)
    live = ScreenVideoTrack(lambda codec: feed)
    stalled.start("H264")
    live.start("H264")
    # the first frame once both viewers are there: both get its keyframe (a viewer that
    # joins after a keyframe drops what comes before its own, which is not what this is about)
    slot.publish(solid(1, (0, 0, 255)))
    try:
        stamps = []
        for seq in range(2, 40):
            slot.publish(solid(seq, (seq * 6 % 255, 0, 0)))
            packet = await asyncio.wait_for(live.recv(), 10)  # the live viewer keeps up
            stamps.append(packet.pts)
        # each recv is the frame just published: every one sent in order, none dropped
        assert stamps == sorted(set(stamps)) and len(stamps) == 38
        assert live.frames_sent == 38 and live.frames_dropped == 0
        assert len(stalled._queue) <= MAX_QUEUED_FRAMES  # bounded, never a backlog
        assert stalled.frames_dropped > 0
    finally:
        stalled.stop()
        live.stop()
        feed.stop()


async def test_the_answer_negotiates_zero_playout_delay():
    """A browser that offers the playout-delay extension is told to show frames as soon as
    they are decoded (no jitter-buffer or render delay on top)."""
    client = RTCPeerConnection()
    client.addTransceiver("video", direction="recvonly")
    await client.setLocalDescription(await client.createOffer())
    offer = client.localDescription.sdp
    if PLAYOUT_DELAY_URI not in offer:  # as a browser offers it
        offer = offer.replace("a=extmap:1 ", f"a=extmap:9 {PLAYOUT_DELAY_URI}\r\na=extmap:1 ", 1)
    track = ScreenVideoTrack(lambda name: EncodedFeed(FrameSlot(), name))
    server, answer, _codec = await negotiate_viewer(offer, track)
    try:
        lines = [line for line in answer.splitlines() if PLAYOUT_DELAY_URI in line]
        assert lines and lines[0].startswith("a=extmap:")
        ext_id = int(lines[0].split(":")[1].split()[0])
        extension_map = rtp.HeaderExtensionsMap()
        extension_map.configure(RTCRtpParameters(headerExtensions=[
            RTCRtpHeaderExtensionParameters(id=ext_id, uri=PLAYOUT_DELAY_URI)]))
        profile, data = extension_map.set(rtp.HeaderExtensions())
        assert (ext_id, b"\x00\x00\x00") in rtp.unpack_header_extensions(profile, data)
    finally:
        track.stop()
        await client.close()
        await server.close()


def test_playout_delay_value_is_two_12_bit_fields_in_10_ms_units():
    assert playout_delay_value(0, 0) == b"\x00\x00\x00"
    assert playout_delay_value(100, 1000) == bytes.fromhex("00a064")


async def test_data_channel_acks_ride_with_data_or_follow_soon(monkeypatch):
    """A receiver page's input is acknowledged in the packet of the server's next message
    (the tiles a key made), not in a packet of its own per input message; without data to
    ride with, after four unacknowledged packets or a short delay."""
    monkeypatch.setattr(sctp_acks, "SACK_DELAY_S", 30.0)
    page, server = RTCPeerConnection(), RTCPeerConnection()
    channel = page.createDataChannel("input")
    replies: asyncio.Queue = asyncio.Queue()
    channel.on("message", replies.put_nowait)

    @server.on("datachannel")
    def on_channel(server_channel):
        @server_channel.on("message")
        def on_message(message):
            if message == "reply":
                server_channel.send("tiles")

    await page.setLocalDescription(await page.createOffer())
    await server.setRemoteDescription(page.localDescription)
    await server.setLocalDescription(await server.createAnswer())
    await page.setRemoteDescription(server.localDescription)

    async def acknowledged() -> None:  # the page has no unacknowledged data
        for _ in range(400):
            sctp = page.sctp
            if not (sctp._data_channel_queue or sctp._outbound_queue or sctp._sent_queue):
                return
            await asyncio.sleep(0.005)
        raise AssertionError("the server never acknowledged the page's data")

    try:
        for _ in range(400):
            if channel.readyState == "open" and server.sctp is not None:
                break
            await asyncio.sleep(0.005)
        await acknowledged()
        state = sctp_acks.ack_state(server.sctp)
        alone, bundled = state.sent, state.bundled
        channel.send("key down")
        channel.send("reply")
        assert await asyncio.wait_for(replies.get(), 10) == "tiles"
        await acknowledged()
        assert (state.sent, state.bundled) == (alone, bundled + 1)  # one packet, no SACKs
        for n in range(4):  # nothing to ride with: the fourth packet is acknowledged
            channel.send(f"quiet {n}")
        await acknowledged()
        assert (state.sent, state.bundled) == (alone + 1, bundled + 1)
        monkeypatch.setattr(sctp_acks, "SACK_DELAY_S", 0.05)
        channel.send("one more")  # alone: acknowledged after the delay
        await acknowledged()
        assert (state.sent, state.bundled) == (alone + 2, bundled + 1)
    finally:
        await page.close()
        await server.close()
