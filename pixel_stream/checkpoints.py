"""Screen checkpoints: what the screen looked like when a recorded input was injected.

A trace line may carry ``"screen"``: a 40x25 grey thumbnail (each cell the mean of a 32x32
block of a 1280x800 screen) of the frame on screen when the input went in, zlib-compressed
and base64-encoded (a few hundred bytes). A replay waits, before injecting that input, until
the live screen matches it: a page that had arrived, a dialog that had opened, a menu that
had dropped down when the input was recorded has arrived again, however slow the machine.
No settle-wait can see that: a slow page shows nothing until it arrives.

The comparison tolerates what does not matter to where an input lands - a blinking caret, a
typed character, a ticking clock are a few grey levels of one cell, a taskbar highlight a
few cells - and catches what does: a page, dialog, menu or list changes many cells.
"""

from __future__ import annotations

import base64
import zlib

from PIL import Image

from pixel_stream.frames import Frame
from pixel_stream.imaging import frame_image

GRID = (40, 25)
# A cell "differs" when its mean grey moved by more than this many levels (0..255) ...
CELL_LEVELS = 12
# ... and two screens match when at most this many cells differ (a taskbar button's
# highlight repainted a moment later is 6; a drop-down list or a small dialog is 15 and up).
MATCH_CELLS = 8


class CheckpointError(ValueError):
    """A trace line's ``screen`` value is not a checkpoint."""


def screen_thumb(frame: Frame) -> bytes:
    """The frame as GRID grey cells, row by row, one byte each."""
    image = frame_image(frame).resize(GRID, Image.Resampling.BOX).convert("L")
    return image.tobytes()


def encode_thumb(thumb: bytes) -> str:
    return base64.b64encode(zlib.compress(thumb, 9)).decode("ascii")


def decode_thumb(text: str) -> bytes:
    """The cells of an encoded checkpoint; ``CheckpointError`` when it is not one."""
    try:
        thumb = zlib.decompress(base64.b64decode(text, validate=True))
    except (ValueError, TypeError, zlib.error) as exc:
        raise CheckpointError(f"not a screen checkpoint ({exc})") from exc
    if len(thumb) != GRID[0] * GRID[1]:
        raise CheckpointError(
            f"a screen checkpoint has {GRID[0] * GRID[1]} cells, this one {len(thumb)}")
    return thumb


def cells_differing(a: bytes, b: bytes) -> int:
    """How many cells of two thumbnails differ by more than ``CELL_LEVELS``."""
    return sum(1 for x, y in zip(a, b, strict=True) if abs(x - y) > CELL_LEVELS)


def matches(a: bytes, b: bytes) -> bool:
    return cells_differing(a, b) <= MATCH_CELLS
