"""WebRTC for human viewers: a video track of pre-encoded packets and the peer connection.

``ScreenVideoTrack`` is an aiortc ``MediaStreamTrack`` whose ``recv()`` returns finished
``av.Packet`` objects from an ``EncodedFeed``; aiortc's sender then only packetizes them.
Each track keeps at most a few packets: a viewer that falls behind drops them and resumes
from a fresh keyframe instead of accumulating delay. The sender's keyframe hook (called on
PLI/FIR from the browser) is pointed at the feed, because aiortc's own flag only reaches
its built-in encoder.

``negotiate_viewer`` answers a browser's offer: H.264 (constrained baseline, packetization
mode 1) preferred, VP8 as fallback, plus the browser's ``input`` data channel.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Callable

import av
from aiortc import (
    RTCConfiguration,
    RTCPeerConnection,
    RTCRtpSender,
    RTCSessionDescription,
)
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack
from aiortc.sdp import SessionDescription

from pixel_stream import sctp_acks
from pixel_stream.video import EncodedFeed

log = logging.getLogger(__name__)

MAX_QUEUED_FRAMES = 6


def _allow_loopback_candidates() -> None:
    """Let ICE use 127.0.0.1 on a host whose only interface is loopback.

    aioice never offers loopback candidates; in a network namespace with no other interface
    (a sandboxed CI runner) that leaves no candidate at all and every connection fails.
    """
    from aioice import ice

    original = ice.get_host_addresses
    if getattr(original, "_pixel_stream", False):
        return

    def host_addresses(use_ipv4: bool, use_ipv6: bool) -> list[str]:
        addresses = original(use_ipv4, use_ipv6)
        if not addresses and use_ipv4:
            addresses = ["127.0.0.1"]
        return addresses

    host_addresses._pixel_stream = True  # type: ignore[attr-defined]
    ice.get_host_addresses = host_addresses


_allow_loopback_candidates()

# RTP header extension telling the browser how long it may hold frames before showing them.
PLAYOUT_DELAY_URI = "http://www.webrtc.org/experiments/rtp-hdrext/playout-delay"


def playout_delay_value(min_ms: int = 0, max_ms: int = 0) -> bytes:
    """The playout-delay extension's 3 bytes: 12-bit minimum and maximum, in 10 ms units."""
    lo, hi = min(min_ms // 10, 0xFFF), min(max_ms // 10, 0xFFF)
    return bytes(((lo >> 4) & 0xFF, ((lo & 0xF) << 4) | (hi >> 8), hi & 0xFF))


def _send_zero_playout_delay() -> None:
    """Offer and send the playout-delay RTP header extension with minimum = maximum = 0.

    Without it Chromium schedules each received frame for a render time that adds its
    jitter estimate and a fixed render delay (about 10 ms) even when the page asks for
    ``playoutDelayHint = 0``; with a maximum playout delay of 0 (the "low-latency
    renderer", as in cloud gaming) it shows each frame as soon as it is decoded. aiortc
    neither negotiates nor writes this extension, so both are added here; browsers that do
    not offer it are unaffected.
    """
    from aiortc import rtp
    from aiortc.codecs import HEADER_EXTENSIONS
    from aiortc.rtcrtpparameters import RTCRtpHeaderExtensionParameters

    extensions_map = rtp.HeaderExtensionsMap
    if getattr(extensions_map, "_pixel_stream", False):
        return
    if not any(e.uri == PLAYOUT_DELAY_URI for e in HEADER_EXTENSIONS["video"]):
        HEADER_EXTENSIONS["video"].append(
            RTCRtpHeaderExtensionParameters(id=6, uri=PLAYOUT_DELAY_URI)
        )
    configure, pack_values = extensions_map.configure, extensions_map.set
    value = playout_delay_value(0, 0)

    def configure_with_delay(self, parameters) -> None:
        configure(self, parameters)
        self._playout_delay_id = next(
            (e.id for e in parameters.headerExtensions if e.uri == PLAYOUT_DELAY_URI), None
        )

    def set_with_delay(self, values) -> tuple[int, bytes]:
        delay_id = getattr(self, "_playout_delay_id", None)
        if not delay_id:
            return pack_values(self, values)
        profile, data = pack_values(self, values)
        pairs = list(rtp.unpack_header_extensions(profile, data)) if data else []
        return rtp.pack_header_extensions([*pairs, (delay_id, value)])

    extensions_map.configure = configure_with_delay  # type: ignore[method-assign]
    extensions_map.set = set_with_delay  # type: ignore[method-assign]
    extensions_map._pixel_stream = True  # type: ignore[attr-defined]


_send_zero_playout_delay()
# data channels: SACKs delayed and bundled with outgoing data (see pixel_stream.sctp_acks)
sctp_acks.install()


def video_codec_preferences() -> list:
    """H.264 constrained baseline, H.264 baseline, VP8, and RTX for retransmission."""
    caps = RTCRtpSender.getCapabilities("video").codecs
    order = []
    for profile in ("42e01f", "42001f"):
        order += [
            c for c in caps
            if c.mimeType == "video/H264" and c.parameters.get("profile-level-id") == profile
        ]
    order += [c for c in caps if c.mimeType == "video/VP8"]
    order += [c for c in caps if c.mimeType == "video/rtx"]
    return order


def negotiated_video_codec(sdp_text: str) -> str | None:
    """The codec name (``H264``/``VP8``) the first video section of an SDP uses."""
    description = SessionDescription.parse(sdp_text)
    for media in description.media:
        if media.kind == "video" and media.rtp.codecs:
            return media.rtp.codecs[0].name.upper()
    return None


class ScreenVideoTrack(MediaStreamTrack):
    """A video track carrying packets from a shared ``EncodedFeed``."""

    kind = "video"

    def __init__(self, feed_for: Callable[[str], EncodedFeed]) -> None:
        super().__init__()
        self._feed_for = feed_for
        self._feed: EncodedFeed | None = None
        self._queue: collections.deque[tuple[list[av.Packet], bool]] = collections.deque()
        self._wakeup = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._waiting_for_key = True
        self._pending: collections.deque[av.Packet] = collections.deque()
        self.codec: str | None = None
        # called with the pts of each frame as it goes to the sender (lossless stamps)
        self.on_frame: Callable[[int], None] | None = None
        self.frames_sent = 0
        self.frames_dropped = 0
        self.bytes_sent = 0

    def start(self, codec: str) -> None:
        """Subscribe to the feed for ``codec`` (after negotiation)."""
        self.codec = codec
        self._feed = self._feed_for(codec)
        self._feed.subscribe(self._sink)

    def _sink(self, packets: list[av.Packet], is_key: bool) -> None:
        # Called from the encoder thread.
        try:
            self._loop.call_soon_threadsafe(self._deliver, packets, is_key)
        except RuntimeError:  # loop closed
            pass

    def _deliver(self, packets: list[av.Packet], is_key: bool) -> None:
        if self.readyState != "live":
            return
        if len(self._queue) >= MAX_QUEUED_FRAMES:
            # Too slow a consumer: drop what is queued and restart from a keyframe.
            self.frames_dropped += len(self._queue)
            self._queue.clear()
            self._waiting_for_key = True
            self.request_keyframe()
        self._queue.append((packets, is_key))
        self._wakeup.set()

    def request_keyframe(self) -> None:
        if self._feed is not None:
            self._feed.request_keyframe()

    async def recv(self) -> av.Packet:
        while True:
            if self.readyState != "live":
                raise MediaStreamError
            if self._pending:
                return self._pending.popleft()
            if not self._queue:
                self._wakeup.clear()
                await self._wakeup.wait()
                continue
            packets, is_key = self._queue.popleft()
            if self._waiting_for_key and not is_key:
                self.frames_dropped += 1
                continue
            self._waiting_for_key = False
            self.frames_sent += 1
            self.bytes_sent += sum(p.size for p in packets)
            self._pending.extend(packets)
            if self.on_frame is not None and packets and packets[0].pts is not None:
                try:
                    self.on_frame(int(packets[0].pts))
                except Exception:  # noqa: BLE001 - never stop the video for a stamp
                    log.exception("frame stamp failed")

    def stop(self) -> None:
        if self._feed is not None:
            self._feed.unsubscribe(self._sink)
            self._feed = None
        super().stop()
        self._wakeup.set()


def without_mdns_candidates(sdp_text: str) -> str:
    """Drop ``*.local`` host candidates from a browser's SDP.

    Browsers hide their addresses behind mDNS names; resolving one makes aiortc wait for a
    multicast answer that in a container never comes (a second per candidate). Without
    them the browser's connectivity checks reach our candidates anyway and ICE learns the
    browser's address from them (a peer-reflexive candidate).
    """
    lines = sdp_text.splitlines()
    kept = [
        line for line in lines
        if not (line.startswith("a=candidate:") and ".local " in line)
    ]
    return "\r\n".join(kept) + "\r\n"


async def negotiate_viewer(
    offer_sdp: str, track: ScreenVideoTrack
) -> tuple[RTCPeerConnection, str, str]:
    """Answer a browser offer; returns (peer connection, answer SDP, codec name)."""
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    try:
        transceiver = pc.addTransceiver(track, direction="sendonly")
        transceiver.setCodecPreferences(video_codec_preferences())
        # PLI/FIR from the browser: make the shared encoder produce a keyframe.
        transceiver.sender._send_keyframe = track.request_keyframe
        await pc.setRemoteDescription(
            RTCSessionDescription(sdp=without_mdns_candidates(offer_sdp), type="offer")
        )
        answer = await pc.createAnswer()
        await pc.setLocalDescription(answer)
        codec = negotiated_video_codec(pc.localDescription.sdp)
        if codec not in ("H264", "VP8"):
            raise ValueError(
                "the browser offered no video codec this session can send "
                "(H.264 constrained baseline or VP8 are needed)"
            )
        track.start(codec)
        return pc, pc.localDescription.sdp, codec
    except BaseException:
        await pc.close()
        raise
