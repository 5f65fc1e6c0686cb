"""The capture's X connection through libX11, libXdamage and libXext (ctypes): DAMAGE events
and MIT-SHM reads of the root window without Python in the request path.

python-xlib parses every event and builds every request in Python, and mss wraps each
shared-memory read in several layers of its own; on the capture thread, which runs once per
typed key, that glue cost more than the reads themselves. Here the requests and events are
libX11's; Python only makes the calls and reads the fields it needs.

One ``ShmScreen`` is one ``Display*`` used by one thread (the capture's). Errors are those of
``pixel_stream.xtest_c`` (process-wide handlers, recorded per connection): a protocol error
or a lost connection raises ``XConnectionError`` from the next call that checks. Without
MIT-SHM (a server that cannot attach our segment) reads fall back to ``XGetImage``.
"""

from __future__ import annotations

import ctypes
from ctypes import POINTER, byref, c_char_p, c_int, c_short, c_uint, c_ulong, c_ushort, c_void_p

from pixel_stream.xtest_c import XConnectionError, _errors, _libraries, _load, _lost, _on_io_exit

_ZPIXMAP = 2
_ALL_PLANES = 0xFFFFFFFF
_QUEUED_ALREADY = 0
_DAMAGE_REPORT_RAW_RECTANGLES = 0
_IPC_PRIVATE, _IPC_CREAT, _IPC_RMID = 0, 0o1000, 0


class _XRectangle(ctypes.Structure):
    _fields_ = [("x", c_short), ("y", c_short), ("width", c_ushort), ("height", c_ushort)]


class _XDamageNotifyEvent(ctypes.Structure):
    _fields_ = [("type", c_int), ("serial", c_ulong), ("send_event", c_int),
                ("display", c_void_p), ("drawable", c_ulong), ("damage", c_ulong),
                ("level", c_int), ("more", c_int), ("timestamp", c_ulong),
                ("area", _XRectangle), ("geometry", _XRectangle)]


class _XEvent(ctypes.Union):
    _fields_ = [("type", c_int), ("damage", _XDamageNotifyEvent), ("pad", c_ulong * 24)]


class _XImage(ctypes.Structure):
    # only the leading fields are read or written; libX11 owns the rest
    _fields_ = [("width", c_int), ("height", c_int), ("xoffset", c_int), ("format", c_int),
                ("data", c_void_p), ("byte_order", c_int), ("bitmap_unit", c_int),
                ("bitmap_bit_order", c_int), ("bitmap_pad", c_int), ("depth", c_int),
                ("bytes_per_line", c_int), ("bits_per_pixel", c_int)]


class _XShmSegmentInfo(ctypes.Structure):
    _fields_ = [("shmseg", c_ulong), ("shmid", c_int), ("shmaddr", c_void_p),
                ("readOnly", c_int)]


_capture_libs: tuple[ctypes.CDLL, ctypes.CDLL, ctypes.CDLL] | None = None


def _capture_libraries() -> tuple[ctypes.CDLL, ctypes.CDLL, ctypes.CDLL, ctypes.CDLL]:
    """libX11 (set up by ``xtest_c``), libXext, libXdamage, libc."""
    global _capture_libs
    x11, _ = _libraries()
    if _capture_libs is None:
        xext = _load("libXext.so.6", "Xext")
        xdamage = _load("libXdamage.so.1", "Xdamage")
        libc = ctypes.CDLL(None, use_errno=True)
        x11.XConnectionNumber.argtypes = [c_void_p]
        x11.XPending.argtypes = [c_void_p]
        x11.XEventsQueued.argtypes = [c_void_p, c_int]
        x11.XNextEvent.argtypes = [c_void_p, POINTER(_XEvent)]
        x11.XDefaultVisual.argtypes = [c_void_p, c_int]
        x11.XDefaultVisual.restype = c_void_p
        x11.XDefaultDepth.argtypes = [c_void_p, c_int]
        x11.XGetImage.argtypes = [c_void_p, c_ulong, c_int, c_int, c_uint, c_uint, c_ulong,
                                  c_int]
        x11.XGetImage.restype = POINTER(_XImage)
        x11.XDestroyImage.argtypes = [POINTER(_XImage)]
        xext.XShmQueryExtension.argtypes = [c_void_p]
        xext.XShmCreateImage.argtypes = [c_void_p, c_void_p, c_uint, c_int, c_char_p,
                                         POINTER(_XShmSegmentInfo), c_uint, c_uint]
        xext.XShmCreateImage.restype = POINTER(_XImage)
        xext.XShmAttach.argtypes = [c_void_p, POINTER(_XShmSegmentInfo)]
        xext.XShmDetach.argtypes = [c_void_p, POINTER(_XShmSegmentInfo)]
        xext.XShmGetImage.argtypes = [c_void_p, c_ulong, POINTER(_XImage), c_int, c_int,
                                      c_ulong]
        xdamage.XDamageQueryExtension.argtypes = [c_void_p, POINTER(c_int), POINTER(c_int)]
        xdamage.XDamageCreate.argtypes = [c_void_p, c_ulong, c_int]
        xdamage.XDamageCreate.restype = c_ulong
        xdamage.XDamageSubtract.argtypes = [c_void_p, c_ulong, c_ulong, c_ulong]
        xdamage.XDamageDestroy.argtypes = [c_void_p, c_ulong]
        libc.shmget.argtypes = [c_int, ctypes.c_size_t, c_int]
        libc.shmat.argtypes = [c_int, c_void_p, c_int]
        libc.shmat.restype = c_void_p
        libc.shmdt.argtypes = [c_void_p]
        libc.shmctl.argtypes = [c_int, c_int, c_void_p]
        _capture_libs = (xext, xdamage, libc)
    return (x11, *_capture_libs)


class ShmScreen:
    """The root window of ``display_name``: its DAMAGE reports and its pixels (BGRX, 32
    bits a pixel, rows of ``width * 4`` bytes, as the server has them). Not thread-safe."""

    def __init__(self, display_name: str, shm: bool = True) -> None:
        """``shm=False``: read with ``XGetImage`` (what a server without MIT-SHM gets)."""
        self.display_name = display_name
        self._x11, self._xext, self._xdamage, self._libc = _capture_libraries()
        x11 = self._x11
        dpy = x11.XOpenDisplay(display_name.encode())
        if not dpy:
            raise XConnectionError(f"cannot open display {display_name}")
        self._dpy: int | None = dpy
        self._damage = 0
        self._image: ctypes._Pointer | None = None  # the MIT-SHM image (whole screen)
        self._shm: _XShmSegmentInfo | None = None
        self._shm_view: memoryview | None = None
        self._event = _XEvent()
        try:
            x11.XSetIOErrorExitHandler(dpy, _on_io_exit, None)
            screen = x11.XDefaultScreen(dpy)
            self.width = x11.XDisplayWidth(dpy, screen)
            self.height = x11.XDisplayHeight(dpy, screen)
            self.root = x11.XRootWindow(dpy, screen)
            base, error_base = c_int(), c_int()
            if not self._xdamage.XDamageQueryExtension(dpy, byref(base), byref(error_base)):
                raise XConnectionError(f"display {display_name} has no DAMAGE extension")
            self._damage_notify = base.value  # XDamageNotify is the extension's event 0
            self._damage = self._xdamage.XDamageCreate(dpy, self.root,
                                                       _DAMAGE_REPORT_RAW_RECTANGLES)
            self.sync()
            if shm:
                self._attach_shm(screen)
        except BaseException:
            self.close()
            raise
        # bound once: these run for every frame
        self._pending_fn = x11.XPending
        self._queued_fn = x11.XEventsQueued
        self._next_event = x11.XNextEvent
        self._event_ref = byref(self._event)

    def _attach_shm(self, screen: int) -> None:
        """The shared segment the server writes reads into; none (``XGetImage`` instead)
        when the extension or the segment is not available."""
        x11, xext, libc, dpy = self._x11, self._xext, self._libc, self._dpy
        if not xext.XShmQueryExtension(dpy):
            return
        info = _XShmSegmentInfo()
        image = xext.XShmCreateImage(dpy, x11.XDefaultVisual(dpy, screen),
                                     x11.XDefaultDepth(dpy, screen), _ZPIXMAP, None,
                                     byref(info), self.width, self.height)
        if not image:
            return
        if image.contents.bits_per_pixel != 32:
            depth = image.contents.depth
            x11.XDestroyImage(image)
            raise XConnectionError(f"display {self.display_name}: only screens of 32 bits "
                                   f"a pixel can be captured (depth {depth})")
        size = image.contents.bytes_per_line * self.height
        shmid = libc.shmget(_IPC_PRIVATE, size, _IPC_CREAT | 0o600)
        if shmid < 0:
            x11.XDestroyImage(image)
            return
        addr = libc.shmat(shmid, None, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            libc.shmctl(shmid, _IPC_RMID, None)
            x11.XDestroyImage(image)
            return
        info.shmid, info.shmaddr, info.readOnly = shmid, addr, 0
        image.contents.data = addr
        attached = xext.XShmAttach(dpy, byref(info))
        x11.XSync(dpy, 0)
        # removed now: the segment goes when both sides detach, also if this process dies
        libc.shmctl(shmid, _IPC_RMID, None)
        if not attached or _errors.pop(dpy, None) is not None:
            libc.shmdt(addr)
            x11.XDestroyImage(image)
            return
        self._image, self._shm = image, info
        self._shm_view: memoryview | None = memoryview(
            (ctypes.c_char * size).from_address(addr)).cast("B")

    @property
    def uses_shm(self) -> bool:
        return self._image is not None

    def _live(self) -> int:
        dpy = self._dpy
        if dpy is None:
            raise XConnectionError(f"the connection to display {self.display_name} is closed")
        if dpy in _lost:
            raise XConnectionError(f"display {self.display_name} is gone (connection lost)")
        return dpy

    def _check(self) -> None:
        dpy = self._live()
        error = _errors.pop(dpy, None)
        if error is not None:
            raise XConnectionError(f"display {self.display_name}: {error}")

    def fileno(self) -> int:
        return self._x11.XConnectionNumber(self._live())

    def sync(self) -> None:
        """Round trip: every event the server made before it is in the queue."""
        self._x11.XSync(self._live(), 0)
        self._check()

    def queued(self) -> int:
        """Events already read off the socket (no I/O)."""
        return self._queued_fn(self._live(), _QUEUED_ALREADY)

    def drain(self) -> tuple[int, int, int, int] | None:
        """Read the socket once and take every queued event; the bounding box (x0, y0,
        x1, y1) of the damage they report, or None when none did."""
        dpy = self._live()
        count = self._pending_fn(dpy)
        if dpy in _lost:
            self._live()
        box = None
        event, ref, next_event, notify = self._event, self._event_ref, self._next_event, \
            self._damage_notify
        while count:
            for _ in range(count):
                next_event(dpy, ref)
                if event.type != notify:
                    continue
                area = event.damage.area
                x0, y0 = area.x, area.y
                x1, y1 = x0 + area.width, y0 + area.height
                if box is None:
                    box = (x0, y0, x1, y1)
                else:
                    box = (min(box[0], x0), min(box[1], y0), max(box[2], x1),
                           max(box[3], y1))
            count = self._queued_fn(dpy, _QUEUED_ALREADY)
        return box

    def subtract(self) -> None:
        """Clear the damage reported so far (sent at once, no round trip)."""
        dpy = self._live()
        self._xdamage.XDamageSubtract(dpy, self._damage, 0, 0)
        self._x11.XFlush(dpy)

    def read(self, x: int, y: int, width: int, height: int) -> memoryview:
        """The pixels of a rectangle inside the screen, ``width * 4`` bytes a row. Through
        MIT-SHM the view is of the shared segment: valid until the next read."""
        dpy = self._live()
        image = self._image
        if image is not None:
            img = image.contents
            img.width, img.height, img.bytes_per_line = width, height, width * 4
            ok = self._xext.XShmGetImage(dpy, self.root, image, x, y, _ALL_PLANES)
            if not ok or dpy in _lost or dpy in _errors:
                self._check()
                raise XConnectionError(f"display {self.display_name}: reading "
                                       f"{width}x{height}+{x}+{y} failed")
            assert self._shm_view is not None
            return self._shm_view[: width * height * 4]
        got = self._x11.XGetImage(dpy, self.root, x, y, width, height, _ALL_PLANES, _ZPIXMAP)
        if not got:
            self._check()
            raise XConnectionError(f"display {self.display_name}: reading "
                                   f"{width}x{height}+{x}+{y} failed")
        try:
            img = got.contents
            if img.bits_per_pixel != 32:
                raise XConnectionError(f"display {self.display_name}: only screens of 32 "
                                       f"bits a pixel can be captured")
            stride, row = img.bytes_per_line, width * 4
            data = ctypes.string_at(img.data, stride * height)
            if stride == row:
                return memoryview(data)
            return memoryview(b"".join(data[r * stride: r * stride + row]
                                       for r in range(height)))
        finally:
            self._x11.XDestroyImage(got)

    def close(self) -> None:
        dpy, self._dpy = self._dpy, None
        if dpy is None:
            return
        lost = dpy in _lost
        if self._image is not None and self._shm is not None:
            if not lost:
                self._xext.XShmDetach(dpy, byref(self._shm))
            if self._shm_view is not None:
                self._shm_view.release()
                self._shm_view = None
            self._x11.XDestroyImage(self._image)  # the image only: its data is the segment
            self._libc.shmdt(self._shm.shmaddr)
            self._image = None
        if not lost:
            if self._damage:
                self._xdamage.XDamageDestroy(dpy, self._damage)
            self._x11.XCloseDisplay(dpy)
        _lost.discard(dpy)
        _errors.pop(dpy, None)
