"""Video frame stamps for the ``lossless`` channel: which captured frame each video frame
shows, and the damage log since the previous stamp (the protocol is in
``pixel_stream.lossless``).
"""

from __future__ import annotations

from typing import Any

from pixel_stream.frames import FrameSlot, Rect


def log_entries(entries: list[tuple[int, Rect]] | None, upto: int, width: int,
                height: int) -> list[list[int]]:
    """Damage-log entries ``[seq, x, y, w, h]`` up to frame ``upto`` (None: not known any
    more, so the whole screen counts as changed at ``upto``)."""
    if entries is None:
        return [[upto, 0, 0, width, height]]
    return [[seq, *rect.as_list()] for seq, rect in entries if seq <= upto and rect.area]


def rtp_origin(sender: Any) -> int | None:
    """The RTP timestamp of the last frame aiortc's sender sent (None if unknown)."""
    value = getattr(sender, "_RTCRtpSender__rtp_timestamp", None)
    return value if isinstance(value, int) else None


class FrameStamper:
    """Stamps this viewer's video frames: the RTP timestamp aiortc gives them (a random
    origin + pts, learnt from the sender after its first frame went out), the captured
    frame they show, and the damage log since the previous stamp."""

    def __init__(self, sender: Any, slot: FrameSlot, start_seq: int) -> None:
        self.sender = sender
        self.slot = slot
        self.origin: int | None = None
        self._last_pts: int | None = None  # pts of the frame handed out last
        self._logged = start_seq  # the damage log sent covers frames up to this one
        self._rects: list[list[int]] = []  # damage not sent yet
        self.waiting: list[tuple[int, int]] = []  # (pts, seq) not stamped yet
        self.frames = 0
        self.lost = False  # damage was not known any more: the page needs everything again

    @property
    def failed(self) -> bool:
        """Frames went out but the sender never showed their RTP timestamps."""
        return self.origin is None and self.frames > 3

    def _log_upto(self, seq: int) -> None:
        """Add the damage of the frames after the last logged one, up to ``seq``."""
        entries = self.slot.damage_log(self._logged)
        if entries is None:
            self.lost = True
        frame = self.slot.latest
        width, height = (frame.width, frame.height) if frame is not None else (0, 0)
        self._rects += log_entries(entries, seq, width, height)
        self._logged = seq

    def by_tiles(self, seq: int) -> list[dict[str, Any]]:
        """Frame ``seq`` goes to the page as tiles, with no video frame: the damage log up
        to it (the page's next video stamp then lists only what came after)."""
        if seq <= self._logged:
            return []
        self._log_upto(seq)
        if self.origin is None or self.waiting:
            return []  # the log goes with the first stamp the page can place
        out = [{"t": "d", "known": seq, "rects": self._rects}]
        self._rects = []
        return out

    def frame_out(self, pts: int, seq: int | None) -> list[dict[str, Any]]:
        """Called as the track hands the sender frame (pts, seq); returns the messages
        that can be sent now."""
        self.frames += 1
        if self.origin is None and self._last_pts is not None:
            sent = rtp_origin(self.sender)
            if sent:
                self.origin = (sent - self._last_pts) & 0xFFFFFFFF
        self._last_pts = pts
        if seq is not None and seq > self._logged:
            self._log_upto(seq)
            self.waiting.append((pts, seq))
        # (a heartbeat repeats a stamped picture and needs no stamp of its own, but it is
        # when the origin is learnt if the screen went quiet before: the frames waiting
        # for it go out now, not at the next change, which may never come)
        if self.origin is None or not self.waiting:
            del self.waiting[:-8]
            return []
        out = [{"t": "v", "rtp": (self.origin + p) & 0xFFFFFFFF, "seq": s,
                "known": self._logged,
                "rects": []} for p, s in self.waiting]
        out[0]["rects"] = self._rects
        self._rects, self.waiting = [], []
        return out
