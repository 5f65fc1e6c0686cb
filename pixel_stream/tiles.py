"""Exact tiles: which screen cells are due, their rectangles, their PNGs, and the messages
that carry them on the ``lossless`` data channel (the protocol is in ``pixel_stream.lossless``).
"""

from __future__ import annotations

import collections.abc
import io
import json
import struct
import zlib
from typing import Any

import numpy as np
from PIL import Image

from pixel_stream.frames import Frame, Rect
from pixel_stream.imaging import PNG_COMPRESS_LEVEL

# Screen cells whose quiet time is tracked; a tile covers whole cells.
CELL = 32
# Largest side of one tile: a whole-screen refresh is several tiles, decoded in parallel.
TILE_MAX = 256
# Bytes per binary message (aiortc advertises a 65536-byte max-message-size).
CHUNK_BYTES = 60_000
# Tiles up to this many pixels are written as PNG directly, larger ones by Pillow (whose
# row filters compress a large screen better).
SMALL_TILE_PX = 128 * 128
# Largest tile batch (one binary message); a larger tile goes as header + chunks.
BATCH_BYTES = CHUNK_BYTES

class DamageMap:
    """When each screen cell last changed (frame seq and monotonic time)."""

    def __init__(self, width: int, height: int, cell: int = CELL) -> None:
        self.width, self.height, self.cell = width, height, cell
        self.rows = -(-height // cell)
        self.cols = -(-width // cell)
        self.changed_seq = np.zeros((self.rows, self.cols), np.int64)
        self.changed_at = np.zeros((self.rows, self.cols), np.float64)

    def cells(self, rect: Rect | None) -> tuple[slice, slice]:
        if rect is None:
            return slice(0, self.rows), slice(0, self.cols)
        c = self.cell
        return (slice(max(0, rect.y // c), -(-(rect.y + rect.height) // c)),
                slice(max(0, rect.x // c), -(-(rect.x + rect.width) // c)))

    def note(self, seq: int, rect: Rect | None, now: float) -> None:
        """Frame ``seq`` changed ``rect`` (None: the whole screen)."""
        if rect is not None and rect.area == 0:
            return
        rows, cols = self.cells(rect)
        self.changed_seq[rows, cols] = seq
        self.changed_at[rows, cols] = now

    def new_sent(self) -> np.ndarray:
        """A viewer's "seq of the tile it has" grid: nothing yet."""
        return np.full((self.rows, self.cols), -1, np.int64)

    def due(self, sent: np.ndarray, now: float, delay: float, at_once_upto: int = -1
            ) -> tuple[np.ndarray, float | None]:
        """(cells to refresh now, seconds until the next pending cell is due or None).
        Cells last changed by frames up to ``at_once_upto`` (sent as tiles, not as video)
        are due at once."""
        stale = self.changed_seq > sent
        quiet = (now - self.changed_at >= delay) | (self.changed_seq <= at_once_upto)
        waiting = stale & ~quiet
        wait = None
        if waiting.any():
            wait = max(0.0, float((self.changed_at[waiting] + delay - now).min()))
        return stale & quiet, wait


def cells_to_rects(mask: np.ndarray, cell: int, width: int, height: int,
                   max_side: int = TILE_MAX) -> list[Rect]:
    """Rectangles (screen pixels, clamped) covering the true cells of ``mask``: runs of a
    row merged with the same run of the rows below, no side longer than ``max_side``."""
    span = max(1, max_side // cell)
    open_runs: dict[tuple[int, int], list[int]] = {}  # (c0, c1) -> [r0, r1]
    boxes: list[tuple[int, int, int, int]] = []
    any_in_row = mask.any(axis=1)
    for r in range(mask.shape[0]):
        runs = []
        if any_in_row[r]:
            columns = np.flatnonzero(mask[r]).tolist()
            start = previous = columns[0]
            for c in columns[1:]:
                if c != previous + 1 or c - start >= span:
                    runs.append((start, previous + 1))
                    start = c
                previous = c
            runs.append((start, previous + 1))
        elif not open_runs:
            continue
        current = set(runs)
        for key in list(open_runs):
            r0, r1 = open_runs[key]
            if key not in current or r1 - r0 >= span:
                boxes.append((key[0], r0, key[1], r1))
                del open_runs[key]
        for key in runs:
            if key in open_runs:
                open_runs[key][1] = r + 1
            else:
                open_runs[key] = [r, r + 1]
    boxes += [(key[0], r0, key[1], r1) for key, (r0, r1) in open_runs.items()]
    rects = []
    for c0, r0, c1, r1 in sorted(boxes, key=lambda b: (b[1], b[0])):
        rect = Rect(c0 * cell, r0 * cell, (c1 - c0) * cell, (r1 - r0) * cell).clamp(width, height)
        if rect is not None:
            rects.append(rect)
    return rects


def damage_box(entries: collections.abc.Sequence[tuple[int, Rect]], since: int,
               rect: Rect) -> Rect | None:
    """The bounding box, inside ``rect``, of the damage of the frames after ``since``
    (None: none there); ``entries`` are ``(seq, rect)`` in ascending ``seq``."""
    x0 = y0 = 1 << 30
    x1 = y1 = -1
    for seq, damage in reversed(entries):  # oldest first: read from the newest, stop early
        if seq <= since:
            break
        ax, ay = max(rect.x, damage.x), max(rect.y, damage.y)
        bx = min(rect.x + rect.width, damage.x + damage.width)
        by = min(rect.y + rect.height, damage.y + damage.height)
        if bx > ax and by > ay:
            x0, y0, x1, y1 = min(x0, ax), min(y0, ay), max(x1, bx), max(y1, by)
    return None if x1 < 0 else Rect(x0, y0, x1 - x0, y1 - y0)


def encode_tiles(frame: Frame, rects: list[Rect]) -> list[bytes]:
    """Untagged RGB PNGs of ``rects`` of ``frame`` (a browser decodes them exactly).
    Only each rectangle's pixels are converted (read in place from the BGRX rows), not the
    whole frame: a tile of a typed letter costs what the letter does."""
    pixels = memoryview(frame.pixels)
    stride = frame.stride
    out = []
    for rect in rects:
        if rect.area <= SMALL_TILE_PX:
            out.append(small_png(frame, rect))
            continue
        start = rect.y * stride + rect.x * 4
        end = (rect.y + rect.height - 1) * stride + (rect.x + rect.width) * 4
        tile = Image.frombuffer("RGB", (rect.width, rect.height), pixels[start:end], "raw",
                                "BGRX", stride, 1)
        buf = io.BytesIO()
        tile.save(buf, "PNG", compress_level=PNG_COMPRESS_LEVEL)
        out.append(buf.getvalue())
    return out


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(
        ">I", zlib.crc32(kind + data))


def small_png(frame: Frame, rect: Rect) -> bytes:
    """A small tile as PNG written directly (IHDR, one IDAT with unfiltered rows, IEND):
    for a typed letter a third of what Pillow's encoder costs in calls around its C code,
    and no smaller with its filters."""
    source = np.frombuffer(frame.pixels, np.uint8).reshape(frame.height, frame.width, 4)
    rows = np.zeros((rect.height, 1 + 3 * rect.width), np.uint8)  # filter byte 0: none
    rows[:, 1:].reshape(rect.height, rect.width, 3)[...] = source[
        rect.y:rect.y + rect.height, rect.x:rect.x + rect.width, 2::-1]
    header = struct.pack(">IIBBBBB", rect.width, rect.height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return b"".join((b"\x89PNG\r\n\x1a\n", _png_chunk(b"IHDR", header),
                     _png_chunk(b"IDAT", zlib.compress(rows.tobytes(), PNG_COMPRESS_LEVEL)),
                     _png_chunk(b"IEND", b"")))


def tile_messages(tile_id: int, seq: int, rect: Rect, data: bytes,
                  chunk: int = CHUNK_BYTES) -> list[str | bytes]:
    """The header (JSON text) and the binary chunks of one tile, in sending order."""
    parts = [data[i:i + chunk] for i in range(0, len(data), chunk)] or [b""]
    header = {"t": "tile", "id": tile_id, "seq": seq, "x": rect.x, "y": rect.y,
              "w": rect.width, "h": rect.height, "size": len(data), "chunks": len(parts)}
    return [json.dumps(header), *parts]


def batch_message(tiles: list[tuple[int, Rect, bytes]], log: dict[str, Any] | None = None,
                  exact: int | None = None) -> bytes:
    """One binary message with tiles ``(seq, rect, png)``, the damage log of a change sent
    as tiles only (a ``{"t": "d"}`` message's fields) and "exact" (see the module doc)."""
    header: dict[str, Any] = {
        "t": "b", "tiles": [[seq, *rect.as_list(), len(data)] for seq, rect, data in tiles]}
    if log is not None:
        header["d"] = {"known": log["known"], "rects": log["rects"]}
    if exact is not None:
        header["exact"] = exact
    head = json.dumps(header, separators=(",", ":")).encode()
    return b"".join([len(head).to_bytes(4, "big"), head, *(data for _s, _r, data in tiles)])
