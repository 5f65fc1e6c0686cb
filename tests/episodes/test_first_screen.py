"""Fresh episodes show the agent the same first screen, and the Citrix window is exact.

The first observation waits until the workstation has settled (``episodes.settle``), and the
receiver refreshes a settled picture losslessly, so two fresh episodes of a desktop task
give byte-identical first screenshots whose Citrix window equals the published app's own
framebuffer pixel for pixel.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import numpy as np
import pytest

from episodes.bench_identity import diff_box, first_screens, locate
from pixel_stream.frames import Frame, FrameSlot, Rect
from pixel_stream.xprops import whole_property
from sandbox.catalog import load_catalog


class _Capture:
    """A display's capture as ``settle.wait_for_still`` sees it: the slot of its frames."""

    def __init__(self) -> None:
        self.slot = FrameSlot()
        self.damage_pending = False
        self.seq = 0
        self.last_damage_at = 0.0

    def publish(self, pixels: bytes, region: Rect | None = None) -> None:
        self.seq += 1
        now = self.last_damage_at = time.monotonic()
        self.slot.publish(Frame(seq=self.seq, width=8, height=4, pixels=bytearray(pixels),
                                region=region or Rect(0, 0, 8, 4), damaged_at=now,
                                captured_at=now))

    async def fresh_frame(self) -> Frame:
        return self.slot.latest


def test_the_final_quiet_check_counts_changed_pixels_not_repaints() -> None:
    """A window repainted again and again with the same pixels is still (a screenshot would
    not change), a screen whose pixels keep changing is not: ``wait_for_still`` returns the
    first at once after its quiet window, and times out on the second."""
    from episodes.settle import wait_for_still

    async def scenario(changing: bool) -> tuple[bool, int]:
        capture = _Capture()
        capture.publish(bytes(8 * 4 * 4))
        stop = False

        async def repaint() -> None:
            n = 0
            while not stop:
                n += 1
                capture.publish(bytes([n % 200 if changing else 0]) * (8 * 4 * 4))
                await asyncio.sleep(0.01)

        painter = asyncio.ensure_future(repaint())
        try:
            frame, timed_out = await wait_for_still(capture, 0.05, time.monotonic() + 1.0)
        finally:
            stop = True
            await painter
        return timed_out, frame.seq

    timed_out, seq = asyncio.run(scenario(changing=False))
    assert not timed_out and seq > 1
    timed_out, _ = asyncio.run(scenario(changing=True))
    assert timed_out


def test_the_final_quiet_check_counts_from_the_last_change() -> None:
    """A workstation whose screen has not changed for the quiet window before the check
    is taken as it is (a frame drawn later is not waited for); one that changed just
    before is waited for, and a change meanwhile is in the picture returned."""
    from episodes.settle import wait_for_still

    async def scenario(drawn_ago_s: float) -> tuple[bool, int]:
        capture = _Capture()
        capture.publish(bytes(8 * 4 * 4))
        capture.last_damage_at = time.monotonic() - drawn_ago_s

        async def draw_later() -> None:
            await asyncio.sleep(0.05)
            capture.publish(bytes([7]) * (8 * 4 * 4))

        painter = asyncio.ensure_future(draw_later())
        frame, timed_out = await wait_for_still(capture, 0.1, time.monotonic() + 5.0)
        await painter
        return timed_out, frame.seq

    assert asyncio.run(scenario(drawn_ago_s=0.2)) == (False, 1)
    assert asyncio.run(scenario(drawn_ago_s=0.0)) == (False, 2)


def test_the_apps_quiet_counts_from_its_last_change() -> None:
    """A published app that has drawn nothing for ``APP_QUIET_MS`` before the settle began
    is taken as it is (a frame it draws later is not waited for); one that changed just
    before is waited for, and a change meanwhile is in the picture taken."""
    from episodes.settle import APP_QUIET_MS, app_quiet

    async def scenario(drawn_ago_s: float) -> tuple[bool, int]:
        capture = _Capture()
        capture.publish(bytes(8 * 4 * 4))
        capture.last_damage_at = time.monotonic() - drawn_ago_s

        async def draw_later() -> None:
            await asyncio.sleep(APP_QUIET_MS / 2000)
            capture.publish(bytes([7]) * (8 * 4 * 4))

        painter = asyncio.ensure_future(draw_later())
        quiet = await app_quiet(capture, time.monotonic() + 5.0)
        await painter
        return quiet.timed_out, quiet.frame.seq

    assert asyncio.run(scenario(drawn_ago_s=2 * APP_QUIET_MS / 1000)) == (False, 1)
    assert asyncio.run(scenario(drawn_ago_s=0.0)) == (False, 2)


def test_locate_finds_a_picture_and_counts_what_differs() -> None:
    rng = np.random.default_rng(7)
    screen = rng.integers(0, 256, (60, 50, 3), dtype=np.uint8)
    picture = screen[9:49, 3:43].copy()
    assert locate(screen, picture) == (3, 9, 0)
    picture[5, 5] = picture[5, 5] ^ 1  # one pixel off by one level
    assert locate(screen, picture) == (3, 9, 1)


def test_diff_box_reports_the_bounding_box() -> None:
    a = np.zeros((20, 30, 3), dtype=np.uint8)
    b = a.copy()
    assert diff_box(a, b) == {"pixels": 0, "box": None}
    b[4, 7] = 1
    b[10, 20, 2] = 9
    assert diff_box(a, b) == {"pixels": 2, "box": [7, 4, 14, 7]}


@pytest.mark.slow
def test_a_window_left_unmaximized_is_maximized_and_a_dialog_is_not() -> None:
    import time

    from Xlib import X
    from Xlib import display as xdisplay

    from episodes.settle import maximize_windows
    from pixel_stream.display import Display
    from pixel_stream.procs import wait_until

    with Display(640, 480) as display:
        conn = xdisplay.Display(display.name)
        try:
            root = conn.screen().root
            main = root.create_window(10, 10, 200, 100, 0, X.CopyFromParent)
            main.set_wm_class("chromium", "Chromium")
            dialog = root.create_window(20, 20, 100, 50, 0, X.CopyFromParent)
            dialog.set_wm_class("chromium", "Chromium")
            dialog.set_wm_transient_for(main)
            for window in (main, dialog):
                window.map()
            conn.sync()
            state = conn.intern_atom("_NET_WM_STATE")
            maximized = {conn.intern_atom("_NET_WM_STATE_MAXIMIZED_VERT"),
                         conn.intern_atom("_NET_WM_STATE_MAXIMIZED_HORZ")}

            def states(window) -> set[int]:
                prop = whole_property(window, state, X.AnyPropertyType)
                return set(prop.value) if prop is not None else set()

            clients = conn.intern_atom("_NET_CLIENT_LIST")

            def managed() -> bool:
                prop = whole_property(root, clients, X.AnyPropertyType)
                return prop is not None and main.id in list(prop.value)

            wait_until(managed, 20, "the window manager to manage the window")
            assert maximize_windows(display.name, ["Chromium"], time.monotonic() + 10)
            assert maximized <= states(main)
            assert not maximized & states(dialog)
            assert not maximize_windows(display.name, ["NoSuchClass"], time.monotonic())
        finally:
            conn.close()


@pytest.mark.slow
def test_two_fresh_desktop_episodes_show_one_exact_first_screen(tmp_path: Path,
                                                                 no_leaks) -> None:
    spec = load_catalog().get("ord-06")  # Hyperspace in the Citrix window, a browser tab
    # the second forks its portal and app from a fork server (a warm pool): the agent
    # cannot tell
    result = asyncio.run(first_screens(spec, 2, tmp_path, keep_dir=tmp_path / "kept",
                                       forked_runs={1}))
    assert result["failures"] == []
    assert result["forked_runs"] == [1]
    assert not no_leaks()
    # the Citrix window shows the app's framebuffer exactly, in both episodes
    assert [c["diff_pixels"] for c in result["citrix_vs_app"]] == [0, 0], result["citrix_vs_app"]
    assert result["identical"], (result["differences"], sorted((tmp_path / "kept").iterdir()))
