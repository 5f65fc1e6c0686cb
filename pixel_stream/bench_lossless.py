"""Build-to-lossless figures: the receiver as a workstation shows it vs the published screen.

A headful Chromium shows the receiver page at 1:1 on a second Xvfb display (the
workstation), as an agent's screenshots see it. After a change of the published app, the
receiver's region of the workstation display is compared with the published display's
framebuffer, both read through MIT-SHM, until they are equal pixel for pixel:

* time to lossless: ms from the last change (its damage on the published display) until
  the workstation shows exactly the published pixels;
* settled identity: the count of differing pixels once settled (0 expected).

Used by ``pixel_stream.bench`` (``bench_lossless``) and the tests.
"""

from __future__ import annotations

import contextlib
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from pixel_stream.display import Display
from pixel_stream.policy import SessionPolicy
from pixel_stream.xinput import InputInjector

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]
READY = ("() => window.pixelStream && pixelStream.state.channel &&"
         " pixelStream.state.channel.readyState === 'open' &&"
         " pixelStream.state.timeline.first_frame_presented !== undefined")


class Grabber:
    """Whole-screen RGB reads of one X display (MIT-SHM)."""

    def __init__(self, display_name: str) -> None:
        import mss

        self._mss = mss.MSS(display=display_name, backend="xshmgetimage")
        self.monitor = self._mss.monitors[0]

    def grab(self) -> np.ndarray:
        shot = self._mss.grab(self.monitor)
        pixels = np.frombuffer(shot.raw, np.uint8).reshape(shot.height, shot.width, 4)
        return pixels[:, :, :3]

    def close(self) -> None:
        self._mss.close()


def find_origin(published: np.ndarray, workstation: np.ndarray,
                hint: tuple[int, int], reach: int = 80) -> tuple[int, int] | None:
    """Where the published screen's top-left is on the workstation: the offset near
    ``hint`` at which a block of the two matches best (None if nothing is close)."""
    best, where = None, None
    ph, pw = published.shape[:2]
    bh, bw = min(96, ph), min(256, pw)
    block = published[:bh, :bw].astype(np.int16)
    for dy in range(max(0, hint[1] - reach), hint[1] + reach + 1):
        for dx in range(max(0, hint[0] - 8), hint[0] + 9):
            area = workstation[dy:dy + bh, dx:dx + bw]
            if area.shape[:2] != (bh, bw):
                continue
            score = int(np.abs(area.astype(np.int16) - block).sum())
            if best is None or score < best:
                best, where = score, (dx, dy)
    return where


def diff_pixels(published: np.ndarray, workstation: np.ndarray,
                origin: tuple[int, int], visible: tuple[int, int] | None = None) -> int:
    """Pixels of the published screen's visible part (``visible``: width, height shown
    by the page, scroll bars excluded) that differ on the workstation."""
    ox, oy = origin
    h = min(published.shape[0], workstation.shape[0] - oy)
    w = min(published.shape[1], workstation.shape[1] - ox)
    if visible is not None:
        w, h = min(w, visible[0]), min(h, visible[1])
    theirs = workstation[oy:oy + h, ox:ox + w]
    return int(np.any(theirs != published[:h, :w], axis=2).sum())


class ReceiverWindow:
    """The receiver page in a headful Chromium app window on its own workstation display."""

    def __init__(self, url: str, published: str, size: tuple[int, int] = (1280, 800),
                 playwright: Any = None) -> None:
        self.url = url
        self._given_pw = playwright
        self.published_name = published
        self.size = size
        self.display: Display | None = None
        self._pw = None
        self._context = None
        self.page = None
        self.origin: tuple[int, int] | None = None
        self.visible: tuple[int, int] | None = None
        self._profile = tempfile.TemporaryDirectory(prefix="receiver-profile-")

    def __enter__(self) -> ReceiverWindow:
        from playwright.sync_api import sync_playwright

        try:
            self.display = Display(*self.size).start()
            pw = self._given_pw
            if pw is None:
                pw = self._pw = sync_playwright().start()
            self._context = pw.chromium.launch_persistent_context(
                self._profile.name, executable_path=CHROMIUM, headless=False,
                env=self.display.env(), no_viewport=True,
                ignore_default_args=["--enable-automation", "about:blank"],
                args=[*CHROMIUM_ARGS, "--window-position=0,0",
                      f"--window-size={self.size[0]},{self.size[1]}", f"--app={self.url}",
                      "--force-device-scale-factor=1", "--test-type",
                      "--autoplay-policy=no-user-gesture-required"])
            self.page = self._context.pages[0]
            self.page.wait_for_function(READY, timeout=30000)
            self.published = Grabber(self.published_name)
            self.workstation = Grabber(self.display.name)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        for grabber in ("published", "workstation"):
            with contextlib.suppress(Exception):
                getattr(self, grabber).close()
        if self._context is not None:
            with contextlib.suppress(Exception):
                self._context.close()
        if self._pw is not None:
            self._pw.stop()
        if self.display is not None:
            self.display.stop()
        self._profile.cleanup()

    def diff(self) -> int:
        """Differing pixels between the receiver's region and the published screen now."""
        published, workstation = self.published.grab(), self.workstation.grab()
        if self.origin is None:
            hint = self.page.evaluate("""() => { const r = document.getElementById('screen')
                .getBoundingClientRect();
                return [Math.round(window.screenX + r.left), Math.round(window.screenY + r.top)]; }""")
            self.origin = find_origin(published, workstation, (hint[0], hint[1]))
            if self.origin is None:
                return published.shape[0] * published.shape[1]
            # the part of the video the page shows (its stage scrolls; bars excluded)
            self.visible = tuple(self.page.evaluate("""() => {
                const s = document.getElementById('stage'), d = document.documentElement;
                const r = document.getElementById('screen').getBoundingClientRect();
                return [Math.floor(Math.min(s.clientWidth, d.clientWidth - r.left)),
                        Math.floor(Math.min(s.clientHeight, d.clientHeight - r.top))]; }"""))
        return diff_pixels(published, workstation, self.origin, self.visible)

    def wait_identical(self, since: float, timeout: float = 10.0) -> tuple[float | None, int]:
        """(ms from ``since`` (monotonic) until identical or None, last differing count)."""
        deadline = time.monotonic() + timeout
        while True:
            diff = self.diff()
            now = time.monotonic()
            if diff == 0:
                return (now - since) * 1000, 0
            if now > deadline:
                return None, diff
            time.sleep(0.01)


@contextlib.contextmanager
def published_input(display_name: str) -> Iterator[InputInjector]:
    injector = InputInjector(display_name)
    try:
        yield injector
    finally:
        injector.close()


def cover_screen(display_name: str, colour: int = 0x3366CC, seconds: float = 0.3,
                 before_removal: Callable[[], Any] | None = None) -> Any:
    """A whole-screen repaint: a screen-sized window shows for a moment, then everything
    under it is drawn again. Returns what ``before_removal`` returned."""
    from Xlib import X
    from Xlib import display as xdisplay

    conn = xdisplay.Display(display_name)
    try:
        screen = conn.screen()
        window = screen.root.create_window(
            0, 0, screen.width_in_pixels, screen.height_in_pixels, 0, screen.root_depth,
            X.InputOutput, X.CopyFromParent, background_pixel=colour, override_redirect=True)
        window.map()
        conn.sync()
        time.sleep(seconds)
        result = before_removal() if before_removal is not None else None
        window.unmap()
        window.destroy()
        conn.sync()
        return result
    finally:
        conn.close()


def _changes(board: Any, injector: InputInjector, published: str, grab: Callable[[], Any],
             trials: int) -> Iterator[tuple[str, np.ndarray]]:
    """Changes of the PatchBoard app, a whole-screen repaint every third; yields the kind
    and the published picture just before the change's last input."""
    from pixel_stream.keys import parse_combo

    for trial in range(trials):
        if trial % 3 == 0:
            yield "whole_screen", cover_screen(published, before_removal=grab)
        elif trial % 3 == 1:
            injector.move(*board.center("entry"))
            injector.click()
            injector.press_combo(parse_combo("ctrl+a"))
            before = grab()
            injector.type_text(f"lossless {trial}")
            yield "typing", before
        else:
            before = grab()
            injector.move(*board.center("patch"))
            injector.click()
            yield "patch", before


def wait_published_change(grab: Callable[[], np.ndarray], before: np.ndarray,
                          still_s: float = 0.05, timeout: float = 5.0) -> float:
    """When the published screen took its new picture: it differs from ``before`` and has
    not changed for ``still_s`` since (monotonic time of the first grab showing it)."""
    deadline = time.monotonic() + timeout
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        picture, now = grab(), time.monotonic()
        if last is None or not np.array_equal(picture, last):
            last, since = picture, now
        if not np.array_equal(picture, before) and now - since >= still_s:
            return since
        time.sleep(0.005)
    return since


# Figures for pixel_stream.bench: (op, limit) as in its TARGETS.
TARGETS = {
    "lossless_p50_ms": ("<=", 300.0),
    "lossless_p95_ms": ("<=", 500.0),
    "settled_diff_pixels": ("<=", 0),
}


def format_lossless(results: dict[str, Any]) -> str:
    """The build-to-lossless line of the bench's table."""
    return (f"build to lossless ({results.get('lossless_trials')} changes, "
            f"{results.get('lossless_delay_ms')} ms quiet): time to lossless p50 "
            f"{results.get('lossless_p50_ms')} ms / p95 {results.get('lossless_p95_ms')} ms "
            f"(targets <= 300 / 500); settled identical {results.get('settled_identical')} "
            f"({results.get('settled_diff_pixels')} pixels differ, target 0); noVNC: lossless "
            "by design (raw/tight encodings)")


def bench_lossless(url: str, published: str, board: Any, trials: int = 6,
                   settle_timeout: float = 10.0, playwright: Any = None) -> dict[str, Any]:
    """Time to lossless and settled identity over ``trials`` changes of the PatchBoard app."""
    times: list[float] = []
    per_trial: list[float | None] = []
    diffs: list[int] = []
    kinds: list[str] = []
    with ReceiverWindow(url, published, playwright=playwright) as window, \
            published_input(published) as injector:
        first_ms, first_diff = window.wait_identical(time.monotonic(), settle_timeout)
        grab = window.published.grab
        for kind, before in _changes(board, injector, published, grab, trials):
            changed_at = wait_published_change(grab, before)
            ms, diff = window.wait_identical(changed_at, settle_timeout)
            kinds.append(kind)
            diffs.append(diff)
            per_trial.append(None if ms is None else round(ms, 1))
            if ms is not None:
                times.append(ms)
    return {
        "lossless_first_ms": None if first_ms is None else round(first_ms, 1),
        "lossless_first_diff_pixels": first_diff,
        "lossless_p50_ms": round(statistics.median(times), 1) if times else None,
        "lossless_p95_ms": round(float(np.percentile(times, 95)), 1) if times else None,
        "lossless_trials": len(kinds),
        "lossless_delay_ms": round(SessionPolicy().lossless_delay_s * 1000),
        "lossless_trial_kinds": kinds,
        "lossless_trial_ms": per_trial,
        "settled_identical": first_diff == 0 and all(d == 0 for d in diffs),
        "settled_diff_pixels": max([first_diff, *diffs]),
    }


def _main() -> None:  # pragma: no cover - a manual check
    import json
    import sys

    from pixel_stream.session import SessionThread
    from pixel_stream.testapp import PatchBoardProcess

    with tempfile.TemporaryDirectory() as tmp, Display(1280, 800) as display, \
            PatchBoardProcess(display, Path(tmp) / "board.json") as board, \
            SessionThread(display) as session:
        print(json.dumps(bench_lossless(session.url, display.name, board,
                                        trials=int(sys.argv[1]) if len(sys.argv) > 1 else 6)))


if __name__ == "__main__":
    _main()
