"""The capture's own X connection (libX11, libXdamage, libXext through ctypes) on a bare
Xvfb: its reads are the server's pixels byte for byte (MIT-SHM and the ``XGetImage``
fallback alike, whole screen and any rectangle), DAMAGE reports what was drawn, and X errors
or a display that went away are ``XConnectionError``s, never the end of the process."""

import numpy as np
import pytest
from Xlib import X
from Xlib import display as xdisplay

from pixel_stream.display import Display
from pixel_stream.xcapture_c import ShmScreen
from pixel_stream.xtest_c import XConnectionError

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bare_display():
    with Display(320, 240, window_manager=False) as started:
        yield started


@pytest.fixture
def painter(bare_display):
    """A python-xlib client that fills rectangles of the root window with a colour."""
    conn = xdisplay.Display(bare_display.name)
    root = conn.screen().root

    def fill(colour: int, x: int, y: int, w: int, h: int) -> None:
        gc = root.create_gc(foreground=colour, subwindow_mode=X.IncludeInferiors)
        root.fill_rectangle(gc, x, y, w, h)
        gc.free()
        conn.sync()

    yield fill
    conn.close()


def _server_pixels(name: str, x: int, y: int, w: int, h: int) -> bytes:
    """The same rectangle as python-xlib's plain GetImage has it."""
    conn = xdisplay.Display(name)
    try:
        reply = conn.screen().root.get_image(x, y, w, h, X.ZPixmap, 0xFFFFFFFF)
        return bytes(reply.data)
    finally:
        conn.close()


@pytest.mark.parametrize("shm", [True, False], ids=["mit-shm", "xgetimage"])
def test_reads_are_the_servers_pixels(bare_display, painter, shm):
    painter(0x123456, 0, 0, 320, 240)
    painter(0xFF8000, 10, 20, 7, 5)
    screen = ShmScreen(bare_display.name, shm=shm)
    try:
        assert screen.uses_shm is shm
        assert (screen.width, screen.height) == (320, 240)
        whole = bytes(screen.read(0, 0, 320, 240))
        assert whole == _server_pixels(bare_display.name, 0, 0, 320, 240)
        pixels = np.frombuffer(whole, np.uint32).reshape(240, 320)
        assert (pixels[20:25, 10:17] & 0xFFFFFF == 0xFF8000).all()
        assert pixels[19, 10] & 0xFFFFFF == 0x123456
        for rect in [(10, 20, 7, 5), (9, 19, 1, 1), (300, 230, 20, 10), (0, 0, 320, 1)]:
            assert bytes(screen.read(*rect)) == _server_pixels(bare_display.name, *rect), rect
    finally:
        screen.close()


def test_damage_reports_what_was_drawn_and_subtract_clears_it(bare_display, painter):
    screen = ShmScreen(bare_display.name)
    try:
        screen.sync()
        screen.drain()
        screen.subtract()
        painter(0x00FF00, 40, 50, 8, 6)
        painter(0x0000FF, 100, 60, 4, 4)
        screen.sync()
        assert screen.drain() == (40, 50, 104, 64)  # the two rectangles' bounding box
        screen.subtract()
        screen.sync()
        assert screen.drain() is None  # nothing drawn since
        assert screen.queued() == 0
        painter(0xFFFFFF, 0, 0, 1, 1)
        screen.sync()
        assert screen.drain() == (0, 0, 1, 1)
    finally:
        screen.close()


def test_a_read_outside_the_screen_is_an_error_and_the_connection_goes_on(bare_display):
    screen = ShmScreen(bare_display.name)
    try:
        with pytest.raises(XConnectionError, match="BadMatch"):
            screen.read(300, 200, 40, 40)
        assert len(screen.read(0, 0, 10, 10)) == 400
    finally:
        screen.close()


def test_a_display_that_went_away_is_an_error():
    display = Display(64, 64, window_manager=False).start()
    screen = ShmScreen(display.name)
    try:
        display.stop()
        with pytest.raises(XConnectionError):
            for _ in range(100):  # the first calls may still be answered from the queue
                screen.sync()
                screen.drain()
                screen.read(0, 0, 8, 8)
    finally:
        screen.close()
        display.stop()


def test_no_display_is_an_error():
    with pytest.raises(XConnectionError, match="cannot open display"):
        ShmScreen(":4999")
