"""A minimal RFB (VNC) client, so the benchmark can ask x11vnc what an agent would.

An agent that drives a VNC desktop (vncdotool-style) takes a screenshot by requesting a
full framebuffer update and encoding it, and "acts and observes" by sending pointer events
and reading incremental updates until none arrive for a while. This client does exactly
that with the Raw encoding and a 32-bit BGRX pixel format, so the pixels can go through
the same PNG/JPEG encoder as ours and the figures compare like with like.
"""

from __future__ import annotations

import socket
import struct
import time

from pixel_stream.frames import Frame, Rect


class VNCProbeError(RuntimeError):
    """The VNC server did something this minimal client does not handle."""


class VNCProbe:
    """RFB 3.8, security type None, Raw encoding, 32 bpp little-endian BGRX."""

    def __init__(self, host: str, port: int, timeout: float = 10.0) -> None:
        self._sock = socket.create_connection((host, port), timeout=timeout)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._buf = bytearray()
        self._handshake()
        self.pixels = bytearray(self.width * self.height * 4)
        self.seq = 0

    # -- socket helpers ----------------------------------------------------------------
    def _read(self, n: int) -> bytes:
        while len(self._buf) < n:
            chunk = self._sock.recv(max(65536, n - len(self._buf)))
            if not chunk:
                raise VNCProbeError("the VNC server closed the connection")
            self._buf += chunk
        data = bytes(self._buf[:n])
        del self._buf[:n]
        return data

    def _read_into(self, view: memoryview) -> None:
        got = min(len(self._buf), len(view))
        view[:got] = self._buf[:got]
        del self._buf[:got]
        while got < len(view):
            n = self._sock.recv_into(view[got:])
            if n == 0:
                raise VNCProbeError("the VNC server closed the connection")
            got += n

    def _handshake(self) -> None:
        version = self._read(12)
        if not version.startswith(b"RFB "):
            raise VNCProbeError(f"not a VNC server (greeting {version!r})")
        self._sock.sendall(b"RFB 003.008\n")
        count = self._read(1)[0]
        if count == 0:
            (length,) = struct.unpack(">I", self._read(4))
            raise VNCProbeError(f"VNC server refused: {self._read(length).decode(errors='replace')}")
        types = self._read(count)
        if 1 not in types:
            raise VNCProbeError(f"VNC server requires authentication (types {list(types)})")
        self._sock.sendall(b"\x01")
        (result,) = struct.unpack(">I", self._read(4))
        if result != 0:
            raise VNCProbeError("VNC security handshake failed")
        self._sock.sendall(b"\x01")  # ClientInit: shared
        width, height = struct.unpack(">HH", self._read(4))
        self._read(16)  # server pixel format
        (name_len,) = struct.unpack(">I", self._read(4))
        self.name = self._read(name_len).decode(errors="replace")
        self.width, self.height = width, height
        # SetPixelFormat: 32 bpp, depth 24, little endian, true colour, BGRX in memory.
        pixel_format = struct.pack(">BBBBHHHBBB3x", 32, 24, 0, 1, 255, 255, 255, 16, 8, 0)
        self._sock.sendall(struct.pack(">B3x", 0) + pixel_format)
        # SetEncodings: Raw only.
        self._sock.sendall(struct.pack(">BxHi", 2, 1, 0))

    # -- requests ----------------------------------------------------------------------
    def request_update(self, incremental: bool) -> None:
        self._sock.sendall(struct.pack(">BBHHHH", 3, int(incremental), 0, 0,
                                       self.width, self.height))

    def read_update(self, timeout: float | None) -> Rect | None:
        """Read one FramebufferUpdate into ``pixels``; None if nothing came in ``timeout``."""
        self._sock.settimeout(timeout)
        try:
            while True:
                kind = self._read(1)[0]
                if kind == 0:
                    break
                if kind == 2:  # Bell
                    continue
                if kind == 3:  # ServerCutText: skip (never used)
                    self._read(3)
                    (length,) = struct.unpack(">I", self._read(4))
                    self._read(length)
                    continue
                raise VNCProbeError(f"unexpected server message type {kind}")
        except TimeoutError:
            return None
        finally:
            self._sock.settimeout(None)
        self._read(1)
        (count,) = struct.unpack(">H", self._read(2))
        region: Rect | None = None
        view = memoryview(self.pixels)
        for _ in range(count):
            x, y, w, h, encoding = struct.unpack(">HHHHi", self._read(12))
            if encoding != 0:
                raise VNCProbeError(f"server sent encoding {encoding}; only Raw was requested")
            row = bytearray(w * 4)
            row_view = memoryview(row)
            for yy in range(y, y + h):
                self._read_into(row_view)
                start = (yy * self.width + x) * 4
                view[start : start + w * 4] = row
            region = Rect(x, y, w, h).union(region)
        self.seq += 1
        return region

    def frame(self) -> Frame:
        now = time.monotonic()
        return Frame(
            seq=self.seq, width=self.width, height=self.height, pixels=bytearray(self.pixels),
            region=Rect(0, 0, self.width, self.height), damaged_at=now, captured_at=now,
        )

    def full_frame(self) -> Frame:
        """A screenshot: a full, non-incremental update."""
        self.request_update(incremental=False)
        self.read_update(timeout=10.0)
        return self.frame()

    def click(self, x: int, y: int) -> None:
        self._sock.sendall(struct.pack(">BBHH", 5, 1, x, y) + struct.pack(">BBHH", 5, 0, x, y))

    def wait_quiet(self, quiet_s: float, timeout_s: float) -> bool:
        """Read incremental updates until none arrives for ``quiet_s``; True if any came."""
        deadline = time.monotonic() + timeout_s
        changed = False
        while time.monotonic() < deadline:
            self.request_update(incremental=True)
            if self.read_update(timeout=quiet_s) is None:
                # That request stays pending at the server; a later read consumes its answer.
                return changed
            changed = True
        return changed

    def drain(self, timeout: float = 0.5) -> None:
        """Consume an update answering a still-pending incremental request, if any."""
        while self.read_update(timeout=timeout) is not None:
            pass

    def close(self) -> None:
        self._sock.close()
