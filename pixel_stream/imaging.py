"""Screenshots for agents and traces: a ``Frame`` as PNG or JPEG bytes.

Encoding happens on demand (nothing is encoded while nobody asks) and the last result per
format is kept, so several clients asking for the same frame pay once.
"""

from __future__ import annotations

import hashlib
import io
import threading

from PIL import Image

from pixel_stream.frames import Frame

FORMATS = ("png", "jpeg")
DEFAULT_JPEG_QUALITY = 80
# zlib level 1: a UI screenshot compresses almost as well as at level 6, several times faster.
PNG_COMPRESS_LEVEL = 1


class ImageFormatError(ValueError):
    """A screenshot format or quality that is not supported."""


def check_format(fmt: str, quality: int | None) -> tuple[str, int]:
    """Normalise (format, quality); raise ``ImageFormatError`` with the accepted values."""
    if not isinstance(fmt, str) or fmt.lower() not in FORMATS + ("jpg",):
        raise ImageFormatError(f"format must be 'png' or 'jpeg', got {fmt!r}")
    fmt = "jpeg" if fmt.lower() in ("jpeg", "jpg") else "png"
    if quality is None:
        quality = DEFAULT_JPEG_QUALITY
    if isinstance(quality, bool) or not isinstance(quality, int) or not 1 <= quality <= 100:
        raise ImageFormatError(f"quality must be an integer 1..100, got {quality!r}")
    return fmt, (quality if fmt == "jpeg" else 0)


def frame_image(frame: Frame) -> Image.Image:
    """The frame as a Pillow RGB image."""
    return Image.frombuffer(
        "RGB", (frame.width, frame.height), frame.pixels, "raw", "BGRX", frame.stride, 1
    )


def encode_frame(frame: Frame, fmt: str = "png", quality: int | None = None) -> bytes:
    """PNG or JPEG bytes of ``frame``."""
    fmt, quality = check_format(fmt, quality)
    image = frame_image(frame)
    out = io.BytesIO()
    if fmt == "png":
        image.save(out, "PNG", compress_level=PNG_COMPRESS_LEVEL)
    else:
        image.save(out, "JPEG", quality=quality)
    return out.getvalue()


def pixel_hash(frame: Frame) -> str:
    """SHA-256 of the frame's RGB pixels (the padding byte of BGRX is ignored)."""
    return hashlib.sha256(frame_image(frame).tobytes()).hexdigest()


class ScreenshotCache:
    """Encoded screenshots of the most recent frame, one per (format, quality)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seq = -1
        self._images: dict[tuple[str, int], bytes] = {}

    def get(self, frame: Frame, fmt: str, quality: int | None) -> tuple[bytes, bool]:
        """(image bytes, was_cached)."""
        fmt, quality = check_format(fmt, quality)
        key = (fmt, quality)
        with self._lock:
            if frame.seq == self._seq and key in self._images:
                return self._images[key], True
        data = encode_frame(frame, fmt, quality or None)
        with self._lock:
            if frame.seq != self._seq:
                self._seq = frame.seq
                self._images = {}
            self._images[key] = data
        return data, False
