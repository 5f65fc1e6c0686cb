"""A settled receiver window shows the published screen exactly: a headful Chromium on a
second display (the workstation) shows the receiver page at 1:1; once the published app
stops changing, the receiver's region of the workstation display equals the published
display's framebuffer pixel for pixel (H.264 alone never does), after connecting, after a
whole-screen repaint and after typing. The window has its title from the page itself."""

import threading
import time
from urllib.parse import quote

import pytest

from pixel_stream.bench_lossless import ReceiverWindow, cover_screen
from pixel_stream.session import SessionThread
from pixel_stream.xinput import InputInjector

pytestmark = pytest.mark.slow

TITLE = "Citrix Workspace – Hyperspace <&>"


def test_a_settled_screen_is_pixel_identical_and_the_title_is_there_from_the_start(
        display, board):
    with SessionThread(display, token="lossless-window-token") as session, \
            ReceiverWindow(f"{session.url}&title={quote(TITLE)}", display.name) as window:
        assert window.page.title() == TITLE
        ms, diff = window.wait_identical(time.monotonic(), timeout=15)
        assert diff == 0, f"{diff} pixels of the receiver differ after connecting"
        # the page knows it: what an episode waits for before the first observation
        window.page.wait_for_function("() => pixelStream.lossless.settled", timeout=5000)
        cover_screen(display.name)
        ms, diff = window.wait_identical(time.monotonic(), timeout=15)
        assert diff == 0, f"{diff} pixels differ after a whole-screen repaint"
        keys = InputInjector(display.name)
        try:
            keys.move(*board.center("entry"))
            keys.click()
            keys.type_text("Müller, José")
            board.wait_for(lambda s: s["text"].endswith("José"), "the typed text")
        finally:
            keys.close()
        ms, diff = window.wait_identical(time.monotonic(), timeout=15)
        assert diff == 0, f"{diff} pixels differ after typing"
        # the typed letters went to the page as exact tiles, not as video frames
        encoders = session.session.describe()["encoders"]
        assert sum(e["frames_by_tiles"] for e in encoders.values()) > 0, encoders
    # the tile encoder's thread ends with the session
    assert not [t.name for t in threading.enumerate() if t.name.startswith("lossless")]
