"""One X connection through libX11 and libXtst (ctypes): XTEST input without Python in the
request path.

python-xlib builds every request and parses every reply in Python; for a typed key (a press
and a release, each followed by a round trip) that was about a quarter of the event loop's
time in the typing benchmark. Here the requests are libX11's, the round trip is ``XSync``
(which waits with the GIL released) and Python only makes the calls.

Errors never end the process (libX11's defaults print and ``exit``): a protocol error is
recorded per connection and raised as ``XConnectionError`` by the next ``sync``; a lost
connection (the display went away) makes every later call raise it. The handlers are
process-wide (libX11 has no other kind) and are installed once, on the first connection;
only connections made here are opened through libX11 in this process.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
from ctypes import POINTER, byref, c_char_p, c_int, c_uint, c_ulong, c_void_p


class XConnectionError(RuntimeError):
    """The connection failed (display gone, protocol error, library missing)."""


class _XErrorEvent(ctypes.Structure):
    _fields_ = [("type", c_int), ("display", c_void_p), ("resourceid", c_ulong),
                ("serial", c_ulong), ("error_code", ctypes.c_ubyte),
                ("request_code", ctypes.c_ubyte), ("minor_code", ctypes.c_ubyte)]


class _XKeyboardState(ctypes.Structure):
    _fields_ = [("key_click_percent", c_int), ("bell_percent", c_int),
                ("bell_pitch", c_uint), ("bell_duration", c_uint), ("led_mask", c_ulong),
                ("global_auto_repeat", c_int), ("auto_repeats", ctypes.c_char * 32)]


_ERROR_HANDLER = ctypes.CFUNCTYPE(c_int, c_void_p, POINTER(_XErrorEvent))
_IO_ERROR_HANDLER = ctypes.CFUNCTYPE(c_int, c_void_p)
_IO_EXIT_HANDLER = ctypes.CFUNCTYPE(None, c_void_p, c_void_p)

_setup_lock = threading.Lock()
_libs: tuple[ctypes.CDLL, ctypes.CDLL] | None = None
# Display* -> its first unreported protocol error / whether its connection was lost
_errors: dict[int, str] = {}
_lost: set[int] = set()


def _load(soname: str, name: str) -> ctypes.CDLL:
    """The library ``soname`` (e.g. libXtst.so.6), else whatever ``lib{name}`` is here."""
    try:
        return ctypes.CDLL(soname)
    except OSError:
        found = ctypes.util.find_library(name)
        if found is None:
            raise XConnectionError(
                f"lib{name} is not installed (Debian: apt-get install "
                f"{soname.split('.so.')[0].lower()}{soname.split('.so.')[1]}; "
                "installer/bootstrap.sh installs it)") from None
        return ctypes.CDLL(found)


@_ERROR_HANDLER
def _on_error(dpy: int, event) -> int:
    err = event.contents
    text = ctypes.create_string_buffer(128)
    assert _libs is not None
    _libs[0].XGetErrorText(dpy, err.error_code, text, len(text))
    _errors.setdefault(dpy, f"{text.value.decode(errors='replace')} (request "
                            f"{err.request_code}.{err.minor_code})")
    return 0


@_IO_ERROR_HANDLER
def _on_io_error(dpy: int) -> int:
    _lost.add(dpy)
    return 0  # the connection's exit handler (below) is called next, and returns too


@_IO_EXIT_HANDLER
def _on_io_exit(dpy: int, _data: int) -> None:
    _lost.add(dpy)  # returning leaves the Display unusable, which libX11 >= 1.8 allows


def _libraries() -> tuple[ctypes.CDLL, ctypes.CDLL]:
    global _libs
    with _setup_lock:
        if _libs is not None:
            return _libs
        x11, xtst = _load("libX11.so.6", "X11"), _load("libXtst.so.6", "Xtst")
        if not hasattr(x11, "XSetIOErrorExitHandler"):
            raise XConnectionError("libX11 is older than 1.8 (no XSetIOErrorExitHandler)")
        x11.XOpenDisplay.argtypes = [c_char_p]
        x11.XOpenDisplay.restype = c_void_p
        for fn in ("XCloseDisplay", "XFlush", "XDefaultScreen"):
            getattr(x11, fn).argtypes = [c_void_p]
        x11.XSync.argtypes = [c_void_p, c_int]
        for fn in ("XDisplayWidth", "XDisplayHeight"):
            getattr(x11, fn).argtypes = [c_void_p, c_int]
        x11.XRootWindow.argtypes = [c_void_p, c_int]
        x11.XRootWindow.restype = c_ulong
        x11.XDisplayKeycodes.argtypes = [c_void_p, POINTER(c_int), POINTER(c_int)]
        x11.XGetKeyboardMapping.argtypes = [c_void_p, ctypes.c_ubyte, c_int, POINTER(c_int)]
        x11.XGetKeyboardMapping.restype = POINTER(c_ulong)
        x11.XChangeKeyboardMapping.argtypes = [c_void_p, c_int, c_int, POINTER(c_ulong), c_int]
        x11.XFree.argtypes = [c_void_p]
        x11.XGetKeyboardControl.argtypes = [c_void_p, POINTER(_XKeyboardState)]
        x11.XAutoRepeatOn.argtypes = [c_void_p]
        x11.XAutoRepeatOff.argtypes = [c_void_p]
        x11.XQueryPointer.argtypes = [c_void_p, c_ulong, POINTER(c_ulong), POINTER(c_ulong),
                                      POINTER(c_int), POINTER(c_int), POINTER(c_int),
                                      POINTER(c_int), POINTER(c_uint)]
        x11.XGetErrorText.argtypes = [c_void_p, c_int, c_char_p, c_int]
        x11.XSetErrorHandler.argtypes = [_ERROR_HANDLER]
        x11.XSetErrorHandler.restype = c_void_p
        x11.XSetIOErrorHandler.argtypes = [_IO_ERROR_HANDLER]
        x11.XSetIOErrorHandler.restype = c_void_p
        x11.XSetIOErrorExitHandler.argtypes = [c_void_p, _IO_EXIT_HANDLER, c_void_p]
        xtst.XTestQueryExtension.argtypes = [c_void_p] + [POINTER(c_int)] * 4
        xtst.XTestFakeKeyEvent.argtypes = [c_void_p, c_uint, c_int, c_ulong]
        xtst.XTestFakeButtonEvent.argtypes = [c_void_p, c_uint, c_int, c_ulong]
        xtst.XTestFakeMotionEvent.argtypes = [c_void_p, c_int, c_int, c_int, c_ulong]
        x11.XSetErrorHandler(_on_error)
        x11.XSetIOErrorHandler(_on_io_error)
        _libs = (x11, xtst)
        return _libs


class XConnection:
    """A libX11 ``Display*`` with XTEST; not thread-safe (the caller holds a lock)."""

    def __init__(self, display_name: str) -> None:
        self.display_name = display_name
        self._x11, self._xtst = _libraries()
        dpy = self._x11.XOpenDisplay(display_name.encode())
        if not dpy:
            raise XConnectionError(f"cannot open display {display_name}")
        self._dpy: int | None = dpy
        self._x11.XSetIOErrorExitHandler(dpy, _on_io_exit, None)
        ints = [c_int() for _ in range(4)]
        if not self._xtst.XTestQueryExtension(dpy, *(byref(i) for i in ints)):
            self.close()
            raise XConnectionError(f"display {display_name} has no XTEST extension")
        screen = self._x11.XDefaultScreen(dpy)
        self.screen = screen
        self.width = self._x11.XDisplayWidth(dpy, screen)
        self.height = self._x11.XDisplayHeight(dpy, screen)
        self.root = self._x11.XRootWindow(dpy, screen)
        lo, hi = c_int(), c_int()
        self._x11.XDisplayKeycodes(dpy, byref(lo), byref(hi))
        self.min_keycode, self.max_keycode = lo.value, hi.value
        # bound once: these run twice per typed key
        self._fake_key = self._xtst.XTestFakeKeyEvent
        self._fake_button = self._xtst.XTestFakeButtonEvent
        self._flush = self._x11.XFlush

    def _live(self) -> int:
        dpy = self._dpy
        if dpy is None:
            raise XConnectionError(f"the connection to display {self.display_name} is closed")
        if dpy in _lost:
            raise XConnectionError(f"display {self.display_name} is gone (connection lost)")
        return dpy

    # -- XTEST (queued until flush/sync) ---------------------------------------------
    def fake_key(self, keycode: int, down: bool) -> None:
        self._fake_key(self._live(), keycode, down, 0)

    def fake_button(self, button: int, down: bool) -> None:
        self._fake_button(self._live(), button, down, 0)

    def fake_motion(self, x: int, y: int) -> None:
        self._xtst.XTestFakeMotionEvent(self._live(), self.screen, x, y, 0)

    def flush(self) -> None:
        self._flush(self._live())
        self._check()

    def sync(self) -> None:
        """Round trip: the server has processed everything sent so far."""
        self._x11.XSync(self._live(), 0)
        self._check()

    def _check(self) -> None:
        dpy = self._live()
        error = _errors.pop(dpy, None)
        if error is not None:
            raise XConnectionError(f"display {self.display_name}: {error}")

    # -- keyboard map and control -----------------------------------------------------
    def keyboard_mapping(self) -> list[tuple[int, ...]]:
        """Each keycode's keysyms from ``min_keycode`` up to ``max_keycode``."""
        count = self.max_keycode - self.min_keycode + 1
        per = c_int()
        syms = self._x11.XGetKeyboardMapping(self._live(), self.min_keycode, count, byref(per))
        self._check()
        if not syms:
            raise XConnectionError(f"display {self.display_name}: no keyboard mapping")
        try:
            n = per.value
            return [tuple(syms[i * n:(i + 1) * n]) for i in range(count)]
        finally:
            self._x11.XFree(syms)

    def change_keyboard_mapping(self, keycode: int, keysyms: tuple[int, ...]) -> None:
        arr = (c_ulong * len(keysyms))(*keysyms)
        self._x11.XChangeKeyboardMapping(self._live(), keycode, len(keysyms), arr, 1)

    def auto_repeat(self) -> bool:
        state = _XKeyboardState()
        self._x11.XGetKeyboardControl(self._live(), byref(state))
        self._check()
        return bool(state.global_auto_repeat)

    def set_auto_repeat(self, on: bool) -> None:
        (self._x11.XAutoRepeatOn if on else self._x11.XAutoRepeatOff)(self._live())

    def query_pointer(self) -> tuple[int, int]:
        root, child = c_ulong(), c_ulong()
        rx, ry, wx, wy = c_int(), c_int(), c_int(), c_int()
        mask = c_uint()
        self._x11.XQueryPointer(self._live(), self.root, byref(root), byref(child), byref(rx),
                                byref(ry), byref(wx), byref(wy), byref(mask))
        self._check()
        return rx.value, ry.value

    def close(self) -> None:
        dpy, self._dpy = self._dpy, None
        if dpy is None:
            return
        if dpy not in _lost:
            self._x11.XCloseDisplay(dpy)
        # a lost Display is left to libX11 (closing it would touch the dead connection)
        _lost.discard(dpy)
        _errors.pop(dpy, None)
