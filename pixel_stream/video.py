"""Video encoding for human viewers: our own libx264 (or libvpx) encoder, packets out.

aiortc's built-in H.264 encoder runs x264 at its default preset, caps the frame rate and
the bitrate and has B-frame-friendly settings; for a desktop that changes in bursts we want
the opposite: ``ultrafast`` + ``zerolatency`` (no lookahead, no frame delay), no B-frames,
a constant quantizer instead of a bitrate cap, and a frame exactly when the screen changed.
So one ``EncodedFeed`` thread per display and codec reads the latest-frame slot, encodes,
and hands finished ``av.Packet`` objects to every subscribed viewer track; aiortc only
packetizes them (``Encoder.pack``). Keyframes are made when a viewer joins or asks (PLI).
"""

from __future__ import annotations

import collections
import fractions
import logging
import threading
import time
from collections.abc import Callable

import av
from av.video.reformatter import VideoReformatter

from pixel_stream.frames import Frame, FrameSlot, Rect

log = logging.getLogger(__name__)

VIDEO_CLOCK = 90_000
TIME_BASE = fractions.Fraction(1, VIDEO_CLOCK)
SUPPORTED_CODECS = ("H264", "VP8")
# Keyframes are expensive (the whole screen); a burst of PLIs gets one.
MIN_KEYFRAME_INTERVAL_S = 0.25
# While changes go as tiles only (typing), a change is also encoded when the video has had
# no frame for this long. A browser that gets no video frame for 3 s asks for a keyframe
# (PLI): while typing, a 30 kB keyframe every 3 s instead of a P-frame of the typed rows
# (a few hundred bytes) every second. The capture's heartbeat does this on a static screen.
VIDEO_KEEPALIVE_S = 1.0
# Changed rows are converted to YUV in full-width bands of this height (one cached swscale
# context); beyond MAX_BANDS the whole frame is converted at once.
BAND_H = 32
MAX_BANDS = 12


class VideoEncoder:
    """Encode ``Frame`` objects to H.264 (baseline, Annex B) or VP8 packets."""

    def __init__(self, codec: str, width: int, height: int, quality: int = 22) -> None:
        if codec not in SUPPORTED_CODECS:
            raise ValueError(f"codec must be one of {', '.join(SUPPORTED_CODECS)}, got {codec!r}")
        self.codec = codec
        self.width = width
        self.height = height
        self._reformatter = VideoReformatter()
        self._band_reformatter = VideoReformatter()
        self._context = self._open(codec, width, height, quality)
        self._last_source: Frame | None = None
        self._yuv_frame: av.VideoFrame | None = None

    @staticmethod
    def _open(codec: str, width: int, height: int, quality: int):
        if codec == "H264":
            ctx = av.CodecContext.create("libx264", "w")
            ctx.options = {
                "preset": "ultrafast",
                "tune": "zerolatency",
                "profile": "baseline",
                "level": "31",
                # Constant QP, not CRF: CRF lowers the QP of a static picture and then
                # "refines" it with kilobytes per heartbeat; with a fixed QP an unchanged
                # screen costs ~22 bytes a frame.
                "qp": str(quality),
                "bf": "0",
                # No periodic keyframes: they come on demand (new viewer, PLI).
                "keyint": "infinite",
                "scenecut": "0",
                "repeat-headers": "1",
            }
            ctx.max_b_frames = 0
        else:
            ctx = av.CodecContext.create("libvpx", "w")
            ctx.bit_rate = 3_000_000
            ctx.options = {
                "deadline": "realtime",
                "cpu-used": "8",
                "lag-in-frames": "0",
                "error-resilient": "1",
                "static-thresh": "100",
                "kf-max-dist": "100000",
                "qmin": "4",
                "qmax": "50",
            }
        ctx.width = width
        ctx.height = height
        ctx.pix_fmt = "yuv420p"
        ctx.time_base = TIME_BASE
        ctx.framerate = fractions.Fraction(30, 1)
        ctx.thread_count = 1
        ctx.open()
        return ctx

    def _yuv(self, frame: Frame, dirty: Rect | None) -> av.VideoFrame:
        """The frame in YUV 4:2:0, converting only the bands of rows ``dirty`` touches.

        ``dirty`` is what changed since the last encoded frame (None: unknown, convert all).
        A band is full-width and BAND_H rows tall, so its rows are contiguous in both the
        source and the YUV planes and each plane is one copy. Chroma is point-sampled, so a
        band converts to exactly the bytes a whole-frame conversion would give: no seams.
        """
        if frame is self._last_source and self._yuv_frame is not None:
            return self._yuv_frame
        bands = self._bands(dirty) if self._yuv_frame is not None else None
        if bands is None:
            self._yuv_frame = self._convert(frame.pixels, frame.width, frame.height)
        else:
            for y in bands:
                self._update_band(frame, y)
        self._last_source = frame
        return self._yuv_frame

    def _bands(self, dirty: Rect | None) -> list[int] | None:
        """First rows of the bands covering ``dirty``; None when converting all is cheaper."""
        if dirty is None or self.height < BAND_H:
            return None
        rect = dirty.clamp(self.width, self.height)
        if rect is None:
            return []
        first = rect.y // 2 * 2
        starts = list(range(first, rect.y + rect.height, BAND_H))
        if len(starts) > MAX_BANDS:
            return None
        return [min(y, self.height - BAND_H) for y in starts]

    def _convert(self, pixels, width: int, height: int) -> av.VideoFrame:
        bgra = av.VideoFrame(width, height, "bgra")
        plane = bgra.planes[0]
        stride = width * 4
        if plane.line_size == stride:
            plane.update(pixels)
        else:  # padded rows: copy row by row
            view = memoryview(plane)
            for row in range(height):
                start = row * plane.line_size
                view[start : start + stride] = pixels[row * stride : (row + 1) * stride]
        reformatter = self._reformatter if height == self.height else self._band_reformatter
        return reformatter.reformat(bgra, format="yuv420p", interpolation="POINT")

    def _update_band(self, frame: Frame, y: int) -> None:
        stride = frame.stride
        band = self._convert(
            memoryview(frame.pixels)[y * stride : (y + BAND_H) * stride], frame.width, BAND_H
        )
        for index, div in ((0, 1), (1, 2), (2, 2)):
            src_plane, dst_plane = band.planes[index], self._yuv_frame.planes[index]
            src, dst = memoryview(src_plane), memoryview(dst_plane)
            rows = BAND_H // div
            top = y // div
            if src_plane.line_size == dst_plane.line_size:
                size = rows * dst_plane.line_size
                dst[top * dst_plane.line_size : top * dst_plane.line_size + size] = src[:size]
                continue
            width = frame.width // div
            for r in range(rows):
                d = (top + r) * dst_plane.line_size
                dst[d : d + width] = src[r * src_plane.line_size : r * src_plane.line_size + width]

    def encode(
        self, frame: Frame, pts: int, keyframe: bool, dirty: Rect | None = None
    ) -> list[av.Packet]:
        """Encode one frame at ``pts`` (90 kHz); ``keyframe`` forces an IDR/key frame.

        ``dirty``: what changed since the previously encoded frame, if known.
        """
        yuv = self._yuv(frame, dirty)
        yuv.pts = pts
        yuv.time_base = TIME_BASE
        yuv.pict_type = av.video.frame.PictureType.I if keyframe else av.video.frame.PictureType.NONE
        packets = list(self._context.encode(yuv))
        for packet in packets:
            packet.time_base = TIME_BASE
            if packet.pts is None:
                packet.pts = pts
        return packets

    def close(self) -> None:
        self._context = None


PacketSink = Callable[[list[av.Packet], bool], None]


class EncodedFeed:
    """One encoder thread for one display and codec, fanned out to subscribers.

    A subscriber is a callable ``sink(packets, is_keyframe)``; it is called from the encoder
    thread and must only hand the packets over (e.g. ``loop.call_soon_threadsafe``).
    """

    def __init__(self, slot: FrameSlot, codec: str, quality: int = 22) -> None:
        self.slot = slot
        self.codec = codec
        self.quality = quality
        self._sinks: set[PacketSink] = set()
        self._lock = threading.Lock()
        self._keyframe_wanted = True
        self._last_keyframe_at = 0.0
        self._stop = False
        self._thread: threading.Thread | None = None
        self._t0 = time.monotonic()
        self._last_pts = -1
        self.frames_encoded = 0
        self.bytes_encoded = 0
        self.keyframes = 0
        self.last_encode_ms = 0.0
        # pts -> frame seq of the frames encoded lately (viewers stamp their video frames)
        self._seq_of_pts: collections.OrderedDict[int, int] = collections.OrderedDict()
        # Set by the session: whether a change of this area (since the last video frame)
        # may reach every viewer as exact tiles instead of a video frame, and who sends
        # them (called on this thread with the frame's seq). A frame sent as tiles is not
        # encoded: the video catches up with the next frame that is (a larger change, a
        # keyframe, the heartbeat, or one sent as tiles VIDEO_KEEPALIVE_S after the last).
        self.by_tiles: Callable[[Rect], bool] | None = None
        self.on_tiles: Callable[[int], None] | None = None
        self.frames_by_tiles = 0
        # Shared with the capture thread's publish hook (``_divert``), under ``_lock``: the
        # last frame encoded (the video's picture), the newest frame this feed handled (the
        # thread or the hook), the slot tick of the last frame the hook sent as tiles, the
        # newest frame seen (a publish of the same frame again is a heartbeat).
        self._last_seq: int | None = None
        self._taken_seq = -1
        self._diverted_tick = -1
        self._last_video_at = time.monotonic()  # when a frame was last encoded
        self._seen_seq: int | None = None
        slot.add_publish_hook(self._divert)

    def seq_of_pts(self, pts: int) -> int | None:
        """The captured frame (``Frame.seq``) a packet with this pts shows, if recent."""
        return self._seq_of_pts.get(pts)

    # -- subscribers -----------------------------------------------------------------
    def subscribe(self, sink: PacketSink) -> None:
        with self._lock:
            self._sinks.add(sink)
            self._keyframe_wanted = True
            # A thread about to exit for lack of subscribers sees this under the lock.
            self._stop = False
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name=f"encode-{self.codec}", daemon=True
                )
                self._thread.start()
        self.slot.wake_waiters()

    def unsubscribe(self, sink: PacketSink) -> None:
        with self._lock:
            self._sinks.discard(sink)
            if not self._sinks:
                self._stop = True
        self.slot.wake_waiters()

    @property
    def subscribers(self) -> int:
        return len(self._sinks)

    def request_keyframe(self) -> None:
        """Make the next frame a keyframe, and make it now (even on a static screen)."""
        self._keyframe_wanted = True
        self.slot.wake_waiters()

    def stop(self) -> None:
        self.slot.remove_publish_hook(self._divert)
        with self._lock:
            self._stop = True
            self._sinks.clear()
            thread = self._thread
        self.slot.wake_waiters()
        if thread is not None:
            thread.join(5.0)

    # -- thread ----------------------------------------------------------------------
    def _keyframe_due(self) -> bool:
        return (
            self._keyframe_wanted
            and time.monotonic() - self._last_keyframe_at >= MIN_KEYFRAME_INTERVAL_S
        )

    def _send_as_tiles(self, frame: Frame, last_seq: int | None) -> bool:
        """Whether ``frame`` goes to the viewers as exact tiles rather than encoded."""
        by_tiles, on_tiles = self.by_tiles, self.on_tiles
        if by_tiles is None or on_tiles is None or last_seq is None or frame.seq <= last_seq:
            return False
        dirty = self.slot.damage_since(last_seq)
        if dirty is None or not by_tiles(dirty):
            return False
        self.frames_by_tiles += 1
        try:
            on_tiles(frame.seq)
        except Exception:  # noqa: BLE001 - then the video carries it after all
            log.exception("sending a change as tiles failed")
            return False
        return True

    def _divert(self, frame: Frame, tick: int) -> bool:
        """(Capture thread, the slot's publish hook.) Send ``frame`` as tiles right here when
        it may go so, without waking the encoder thread; True when this feed has nothing
        more to do for it (sent as tiles, or the thread has taken it already)."""
        with self._lock:
            if self._stop or self._thread is None:
                return False
            if frame.seq <= self._taken_seq:
                return True
            if self._keyframe_due() or not self._send_as_tiles(frame, self._last_seq):
                return False
            self._seen_seq = frame.seq
            if time.monotonic() - self._last_video_at >= VIDEO_KEEPALIVE_S:
                # sent as tiles, and the thread encodes it too, as a frame seen already (a
                # heartbeat): the video stays alive (see VIDEO_KEEPALIVE_S)
                return False
            self._taken_seq = frame.seq
            self._diverted_tick = tick
            return True

    def _run(self) -> None:
        encoder: VideoEncoder | None = None
        tick = 0
        try:
            while True:
                timeout = None
                if self._keyframe_wanted and not self._keyframe_due():
                    timeout = MIN_KEYFRAME_INTERVAL_S
                # a keyframe that is due wakes the thread only once there is a frame to
                # make it of (before the first frame, it would wake at once for ever)
                tick, frame = self.slot.wait_next(
                    tick, timeout, wake_if=lambda: self._stop or (
                        self._keyframe_due() and self.slot.latest is not None)
                )
                with self._lock:
                    if self._stop:
                        self._thread = None
                        return
                    # the newest publish went as tiles already (see ``_divert``)
                    diverted = (frame is not None and tick <= self._diverted_tick
                                and not self._keyframe_due())
                    if frame is not None and not diverted:
                        self._taken_seq = max(self._taken_seq, frame.seq)
                if frame is None:
                    if self.slot.closed:
                        return
                    continue
                if diverted:
                    continue
                if encoder is None or (encoder.width, encoder.height) != (frame.width, frame.height):
                    encoder = VideoEncoder(self.codec, frame.width, frame.height, self.quality)
                    self._keyframe_wanted = True
                    with self._lock:
                        self._last_seq = None
                keyframe = self._keyframe_due()
                with self._lock:
                    heartbeat = frame.seq == self._seen_seq  # the same picture announced again
                    self._seen_seq = frame.seq
                    last_seq = self._last_seq
                    if not keyframe and not heartbeat and self._send_as_tiles(frame, last_seq):
                        continue
                    # who gets this frame, and the keyframe requests it answers, together: a
                    # viewer that subscribes from now on is not among them and its request
                    # stays (taken apart, a viewer that joined while the encoder was made for
                    # the first keyframe lost its request and waited for one that never came)
                    sinks = list(self._sinks)
                    if keyframe:
                        self._keyframe_wanted = False
                        self._last_keyframe_at = time.monotonic()
                pts = max(int((time.monotonic() - self._t0) * VIDEO_CLOCK), self._last_pts + 1)
                self._last_pts = pts
                dirty = None if last_seq is None else self.slot.damage_since(last_seq)
                with self._lock:
                    self._last_seq = frame.seq
                self._seq_of_pts[pts] = frame.seq
                while len(self._seq_of_pts) > 256:
                    self._seq_of_pts.popitem(last=False)
                started = time.perf_counter()
                packets = encoder.encode(frame, pts, keyframe, dirty)
                self.last_encode_ms = (time.perf_counter() - started) * 1000
                with self._lock:
                    self._last_video_at = time.monotonic()
                if not packets:
                    continue
                is_key = any(p.is_keyframe for p in packets)
                self.frames_encoded += 1
                self.keyframes += int(is_key)
                self.bytes_encoded += sum(p.size for p in packets)
                for sink in sinks:
                    try:
                        sink(packets, is_key)
                    except Exception:  # noqa: BLE001 - one broken viewer must not stop the feed
                        log.exception("video sink failed")
        except Exception:
            log.exception("%s encoder stopped", self.codec)
            with self._lock:
                self._thread = None
