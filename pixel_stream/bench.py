"""Benchmark: our pixel session against x11vnc + noVNC, same display, same app, same run.

    python -m pixel_stream.bench [--quick] [--json] [--out results.json] [--only typing]

``--only typing`` runs the viewers' idle and typing figures only (ours, then the peer's,
the same way), for comparing typing CPU before and after a change in a minute.

One 1280x800 Xvfb display runs the PatchBoard test app (``pixel_stream.testapp``). Our
session server runs as its own process (``python -m pixel_stream serve``) so its CPU time
is its own; then x11vnc and websockify (Debian's, default settings) serve the same display.
Measured, in this order:

* agent API screenshot latency, JPEG (quality 80) and PNG, of a frame that changed since
  the last screenshot (so nothing is served from a cache), client-measured round trip;
* ``act_and_observe`` of a click that repaints the patch (quiet 100 ms), round trip;
* in headless Chromium: time to first frame (ms since navigation), server CPU and bytes/s
  with the viewer connected and the screen static, then while the page types 15 keys/s,
  then input-to-photon: the page sends a click on the patch and watches the decoded video
  with requestVideoFrameCallback + a pixel probe until the patch's colour changed; trials
  are spaced by a random (seeded) 40-140 ms so they do not lock to the display refresh;
* the same figures for x11vnc + noVNC: noVNC's own page (Debian's ``core/rfb.js``) sends
  the clicks and keys and its canvas is probed after every WebSocket message; "screenshot"
  and "act_and_observe" for VNC are what a VNC-driving agent does (full framebuffer
  request, Raw encoding, the same JPEG/PNG encoder; pointer event + incremental updates
  until quiet), see ``pixel_stream.vnc_probe``;
* typing again, ``typing_rounds`` in all for each side, each further round on a fresh page
  (and for the peer, x11vnc and websockify started afresh), the sides' order reversed from
  one round to the next (ours, the peer's; the peer's, ours; ...): a single round's CPU
  varies by a fifth from run to run, more than the two sides differ. Each side's typing
  figures are its total CPU over its total keys (``typing_cpu_ms_per_key``) and time
  (``typing_cpu_pct``); ``typing_rounds_ms_per_key`` lists the rounds.

Server CPU is the sum over the server's process group (ours: one process; VNC: x11vnc
plus websockify and its per-connection children), in percent of one core. Xvfb and the
app are not counted for either.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import random
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pixel_stream.bench_lossless import TARGETS as LOSSLESS_TARGETS
from pixel_stream.bench_lossless import bench_lossless, format_lossless
from pixel_stream.client import AgentClient
from pixel_stream.display import Display
from pixel_stream.imaging import encode_frame
from pixel_stream.procs import ManagedProcess, wait_until
from pixel_stream.testapp import PatchBoardProcess
from pixel_stream.vnc_probe import VNCProbe

ASSETS = Path(__file__).with_name("bench_assets")
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]
NOVNC_DIR = "/usr/share/novnc"
TYPING_TEXT = "the quick brown fox jumps over the lazy dog "
TARGETS = {
    "screenshot_jpeg_p50_ms": ("<=", 10.0),
    "screenshot_png_p50_ms": ("<=", 40.0),
    "input_to_photon_p50_ms": ("<=", 20.0),
    "input_to_photon_p95_ms": ("<=", 35.0),
    "idle_cpu_pct": ("<=", 2.0),
}
# Targets relative to the peer measured in the same run: ours <= x11vnc + noVNC's.
PEER_TARGETS = ("typing_cpu_pct",)
COMPARED = ("input_to_photon_p50_ms", "input_to_photon_p95_ms", "idle_cpu_pct",
            "typing_cpu_pct", "idle_bytes_per_s", "typing_bytes_per_s", "first_frame_ms",
            "screenshot_jpeg_p50_ms", "screenshot_png_p50_ms", "act_observe_p50_ms")


@dataclass(frozen=True)
class BenchConfig:
    quick: bool = False
    trials: int = 200
    screenshots: int = 40
    act_observe: int = 30
    cpu_window_s: float = 8.0
    typing_rate: float = 15.0
    typing_window_s: float | None = None  # None: cpu_window_s
    # typing is measured in this many rounds for each side, alternating (ours, the peer;
    # the peer, ours; ...): the figure is their total CPU over their total keys
    typing_rounds: int = 2
    quiet_ms: float = 100.0
    novnc: bool = True
    seed: int = 7
    only: str | None = None  # "typing": the viewers' idle and typing figures only

    @classmethod
    def quick_config(cls, novnc: bool = True) -> BenchConfig:
        # typing CPU is compared with the peer's: a longer window than idle's keeps the
        # noise of a shared machine from deciding the comparison
        return cls(quick=True, trials=40, screenshots=15, act_observe=12, cpu_window_s=2.5,
                   typing_window_s=6.0, novnc=novnc)


class BenchError(RuntimeError):
    """The benchmark could not run (a missing program, a part that did not start)."""


# -- measurement helpers ------------------------------------------------------------------
def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def _r(value: float | None, digits: int = 2) -> float | None:
    return None if value is None else round(value, digits)


def group_cpu_seconds(pgids: list[int]) -> float:
    """CPU seconds of every thread of every process in the given process groups.

    Read from ``/proc/<pid>/task/<tid>/schedstat`` (nanoseconds), not the 10 ms ticks of
    ``/proc/<pid>/stat``, so a few seconds of a nearly idle server still measure well.
    """
    total_ns = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read().decode(errors="replace")
            if int(stat[stat.rindex(")") + 2 :].split()[2]) not in pgids:
                continue
            for tid in os.listdir(f"/proc/{entry}/task"):
                with open(f"/proc/{entry}/task/{tid}/schedstat", "rb") as fh:
                    total_ns += int(fh.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return total_ns / 1e9


class CpuMeter:
    """CPU % of one core used by some process groups between start() and stop()."""

    def __init__(self, pgids: list[int]) -> None:
        self.pgids = pgids
        self._cpu0 = 0.0
        self._t0 = 0.0
        self.cpu_s = 0.0  # CPU seconds between the last start() and stop()

    def start(self) -> None:
        self._cpu0 = group_cpu_seconds(self.pgids)
        self._t0 = time.monotonic()

    def stop(self) -> float:
        elapsed = time.monotonic() - self._t0
        self.cpu_s = group_cpu_seconds(self.pgids) - self._cpu0
        return 100.0 * self.cpu_s / max(elapsed, 1e-6)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_port(port: int, proc: ManagedProcess, timeout: float = 15.0) -> None:
    def accepting() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            return False

    wait_until(accepting, timeout, f"{proc.name} to listen on port {port}", 0.05, alive=proc)


# -- the test bed -------------------------------------------------------------------------
class TestBed:
    """Display + PatchBoard + our server process; stops everything on exit."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.display = Display(1280, 800)
        self.board_app = PatchBoardProcess(self.display, workdir / "board.json")
        self.server: ManagedProcess | None = None
        self.info: dict[str, Any] = {}

    def __enter__(self) -> TestBed:
        try:
            self.display.start()
            self.board_app.start()
            log = self.workdir / "server.log"
            self.server = ManagedProcess(
                [sys.executable, "-m", "pixel_stream", "serve", "--display", self.display.name,
                 "--token", "bench-" + os.urandom(8).hex()],
                name="pixel_stream serve", log_path=log,
            ).start()
            self.info = wait_until(lambda: _first_json_line(log), 30, "the session server",
                                   0.02, alive=self.server)
        except BaseException:
            self.__exit__()
            raise
        return self

    def board(self) -> dict[str, Any]:
        return self.board_app.status()

    def patch_points(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """Where to click and where to probe (both inside the patch, apart)."""
        x, y, w, h = self.board()["patch"]
        return (x + w // 4, y + h // 4), (x + 3 * w // 4, y + 3 * h // 4)

    def __exit__(self, *exc: object) -> None:
        if self.server is not None:
            self.server.stop()
        self.board_app.stop()
        self.display.stop()


def _first_json_line(path: Path) -> dict[str, Any] | None:
    try:
        for line in path.read_text().splitlines():
            if line.startswith("{"):
                return json.loads(line)
    except (OSError, json.JSONDecodeError):
        return None
    return None


# -- our figures --------------------------------------------------------------------------
def bench_agent_api(bed: TestBed, cfg: BenchConfig) -> dict[str, Any]:
    out: dict[str, Any] = {}
    click, _probe = bed.patch_points()
    click_action = {"action": "left_click", "coordinate": list(click)}
    with AgentClient(bed.info["agent_url"], bed.info["token"], control="take") as agent:
        agent.screenshot()  # warm up
        for fmt, other in (("jpeg", "png"), ("png", "jpeg")):
            times = []
            sizes = []
            attempts = 0
            while len(times) < cfg.screenshots:
                attempts += 1
                if attempts > 3 * cfg.screenshots:
                    raise BenchError("the test app did not repaint its patch on clicks")
                # Change the screen first (untimed), observed in the *other* format, so the
                # timed screenshot is a frame never encoded in this format.
                agent.act_and_observe(click_action, quiet_ms=30, format=other)
                started = time.perf_counter()
                image = agent.screenshot(format=fmt, quality=80 if fmt == "jpeg" else None)
                elapsed = (time.perf_counter() - started) * 1000
                if image.meta.get("cached"):
                    continue  # the app was slower than the observation: not a fresh frame
                times.append(elapsed)
                sizes.append(len(image.data))
            out[f"screenshot_{fmt}_p50_ms"] = _r(percentile(times, 0.5))
            out[f"screenshot_{fmt}_p95_ms"] = _r(percentile(times, 0.95))
            out[f"screenshot_{fmt}_bytes"] = int(statistics.median(sizes))
        totals, changes = [], []
        for _ in range(cfg.act_observe):
            started = time.perf_counter()
            reply = agent.act_and_observe(
                click_action, quiet_ms=cfg.quiet_ms, format="jpeg", quality=80
            )
            totals.append((time.perf_counter() - started) * 1000)
            if reply.timings.get("first_change_ms") is not None:
                changes.append(reply.timings["first_change_ms"])
        out["act_observe_p50_ms"] = _r(percentile(totals, 0.5))
        out["act_observe_p95_ms"] = _r(percentile(totals, 0.95))
        out["act_observe_first_change_p50_ms"] = _r(percentile(changes, 0.5))
        out["act_observe_quiet_ms"] = cfg.quiet_ms
        agent.release_control()
    return out


def _gaps(cfg: BenchConfig, n: int) -> list[float]:
    rng = random.Random(cfg.seed)
    return [rng.uniform(40, 140) for _ in range(n)]


def _clicks_summary(prefix: str, results: list[float | None]) -> dict[str, Any]:
    seen = [r for r in results if r is not None]
    return {
        f"{prefix}input_to_photon_p50_ms": _r(percentile(seen, 0.5)),
        f"{prefix}input_to_photon_p95_ms": _r(percentile(seen, 0.95)),
        f"{prefix}input_to_photon_trials": len(results),
        f"{prefix}input_to_photon_missed": len(results) - len(seen),
    }


def _click_trials(page, fn: str, bed: TestBed, cfg: BenchConfig) -> list[float | None]:
    (cx, cy), (px, py) = bed.patch_points()
    results: list[float | None] = []
    for gap in _gaps(cfg, cfg.trials):
        results += page.evaluate(
            f"([x, y, px, py, gap]) => pixelBench.{fn}(x, y, px, py, 1, gap)",
            [cx, cy, px, py, gap],
        )
    return results


def bench_ours_viewer(bed: TestBed, browser, cfg: BenchConfig) -> dict[str, Any]:
    out: dict[str, Any] = {}
    meter = CpuMeter([bed.server.pid])
    page = browser.new_page(viewport={"width": 1320, "height": 860})
    try:
        _open_ours(bed, page)
        out["first_frame_ms"] = _r(page.evaluate("pixelBench.oursFirstFrame()"))
        out["codec"] = page.evaluate("() => document.getElementById('codec').textContent")
        time.sleep(1.0)  # let the connection's start-up traffic pass before measuring idle
        bytes0 = page.evaluate("pixelBench.oursBytes()")
        meter.start()
        t0 = time.monotonic()
        time.sleep(cfg.cpu_window_s)
        out["idle_cpu_pct"] = _r(meter.stop())
        out["idle_bytes_per_s"] = _r(
            (page.evaluate("pixelBench.oursBytes()") - bytes0) / (time.monotonic() - t0), 0
        )
        out["typing_rounds"] = [_typing(bed, page, meter, cfg, "ours")]
        if cfg.only != "typing":
            out.update(_clicks_summary("", _click_trials(page, "oursClicks", bed, cfg)))
    finally:
        page.close()
    return out


def _open_ours(bed: TestBed, page) -> None:
    """Our receiver page on ``page``: its first frame shown, in control of the display.
    (The first frame is presented once the page has its first frame and the channels are
    open, so ``pixelBench.oursFirstFrame()`` is then known.)"""
    page.goto(bed.info["url"])
    page.evaluate((ASSETS / "probe.js").read_text())
    page.wait_for_function(
        "() => pixelStream.state.timeline.first_frame_presented !== undefined", timeout=20000
    )
    page.wait_for_function(
        "() => pixelStream.state.channel && pixelStream.state.channel.readyState === 'open'"
    )
    page.evaluate("() => pixelStream.state.ws.send(JSON.stringify({type: 'take_control'}))")
    page.wait_for_function("() => pixelStream.state.role === 'controller'")


def _typing(bed: TestBed, page, meter: CpuMeter, cfg: BenchConfig, side: str
            ) -> dict[str, Any]:
    """One round of typing through ``side``'s page ("ours" or "novnc"): its server's CPU,
    the bytes, whether the text arrived and, for ours, how the changes went out (video
    frames, changes sent as tiles only, tiles)."""
    text = _typing_text(cfg)
    bytes0 = page.evaluate(f"pixelBench.{side}Bytes()")
    before = _server_counts(bed) if side == "ours" else {}
    meter.start()
    t0 = time.monotonic()
    page.evaluate(f"([t, r]) => pixelBench.{side}Type(t, r)", [text, cfg.typing_rate])
    meter.stop()
    seconds = time.monotonic() - t0
    after = _server_counts(bed) if side == "ours" else {}
    done: dict[str, Any] = {"keys": len(text), "seconds": seconds, "cpu_s": meter.cpu_s,
                            "bytes": page.evaluate(f"pixelBench.{side}Bytes()") - bytes0,
                            "counts": {k: after[k] - before[k] for k in after}}
    done.update(_delivered(bed, text, "" if side == "ours" else "novnc_"))
    return done


def ours_typing_round(bed: TestBed, browser, cfg: BenchConfig) -> dict[str, Any]:
    """A further round of typing, on a fresh page of ours (the entry is cleared after)."""
    meter = CpuMeter([bed.server.pid])
    page = browser.new_page(viewport={"width": 1320, "height": 860})
    try:
        _open_ours(bed, page)
        time.sleep(1.0)  # the connection's start-up traffic, as before the first round
        return _typing(bed, page, meter, cfg, "ours")
    finally:
        page.close()
        _clear_entry(bed)


def summarize_typing(rounds: list[dict[str, Any]], prefix: str) -> dict[str, Any]:
    """One side's typing figures over all its rounds: their total CPU over their total keys
    and total time, each round's own CPU per key, the counts summed, and "delivered" only
    when every round's text arrived."""
    keys = sum(r["keys"] for r in rounds)
    seconds = max(sum(r["seconds"] for r in rounds), 1e-6)
    cpu_s = sum(r["cpu_s"] for r in rounds)
    out: dict[str, Any] = {
        f"{prefix}typing_cpu_pct": _r(100.0 * cpu_s / seconds),
        f"{prefix}typing_cpu_ms_per_key": _r(1000.0 * cpu_s / max(keys, 1), 3),
        f"{prefix}typing_bytes_per_s": _r(sum(r["bytes"] for r in rounds) / seconds, 0),
        f"{prefix}typing_rounds_ms_per_key": [_r(1000.0 * r["cpu_s"] / max(r["keys"], 1), 3)
                                              for r in rounds],
        f"{prefix}typing_delivered": all(r[f"{prefix}typing_delivered"] for r in rounds),
    }
    for r in rounds:
        for key, value in r.get("counts", {}).items():
            out[f"{prefix}typing_{key}"] = out.get(f"{prefix}typing_{key}", 0) + value
        seen = r.get(f"{prefix}typing_text_seen")
        if seen is not None:
            out.setdefault(f"{prefix}typing_text_seen", seen)
    return out


def _server_counts(bed: TestBed) -> dict[str, int]:
    """The session server's own counters (its /status): video frames encoded, changes sent
    as tiles only, tiles and their bytes."""
    import urllib.request

    url = bed.info["url"].replace("/?token=", "/status?token=")
    with urllib.request.urlopen(url, timeout=5) as reply:
        status = json.loads(reply.read())
    feeds = status.get("encoders", {}).values()
    lossless = status.get("lossless") or {}
    return {"video_frames": sum(f.get("frames", 0) for f in feeds),
            "frames_by_tiles": sum(f.get("frames_by_tiles", 0) for f in feeds),
            "tiles": lossless.get("tiles", 0), "tile_bytes": lossless.get("tile_bytes", 0),
            "tile_messages": lossless.get("messages", 0)}


def _delivered(bed: TestBed, text: str, prefix: str, timeout: float = 10.0
               ) -> dict[str, Any]:
    """Whether the typed text arrived in the app (``{prefix}typing_delivered``); when it
    did not, what the app has instead (``{prefix}typing_text_seen``)."""
    try:
        wait_until(lambda: bed.board().get("text") == text, timeout, "the typed text", 0.05)
        return {f"{prefix}typing_delivered": True}
    except TimeoutError:
        return {f"{prefix}typing_delivered": False,
                f"{prefix}typing_text_seen": bed.board().get("text")}


def _typing_text(cfg: BenchConfig) -> str:
    n = max(1, int((cfg.typing_window_s or cfg.cpu_window_s) * cfg.typing_rate))
    return (TYPING_TEXT * (n // len(TYPING_TEXT) + 1))[:n]


def _clear_entry(bed: TestBed) -> None:
    with AgentClient(bed.info["agent_url"], bed.info["token"], control="take") as agent:
        x, y, w, h = bed.board()["entry"]
        agent.act({"action": "left_click", "coordinate": [x + w // 2, y + h // 2]})
        agent.act({"action": "key", "text": "ctrl+a BackSpace"})
        agent.release_control()


# -- their figures ------------------------------------------------------------------------
class NoVNCPages:
    """Serves Debian's noVNC files plus the bench page from a loopback HTTP server.

    The page must come from a real loopback origin: Chromium's local-network-access checks
    refuse a WebSocket to 127.0.0.1 from a page of unknown origin.
    """

    def __init__(self, ws_port: int) -> None:
        page = (ASSETS / "novnc.html").read_text().replace("__WS_PORT__", str(ws_port))

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=NOVNC_DIR, **kwargs)

            def do_GET(self):  # noqa: N802 - http.server API
                if self.path.startswith("/pixel-bench.html"):
                    body = page.encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                super().do_GET()

            def log_message(self, *args):
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/pixel-bench.html"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


class VncPeer:
    """x11vnc + websockify (Debian builds, default settings) on the bench display."""

    def __init__(self, bed: TestBed) -> None:
        for program in ("x11vnc", "websockify"):
            if shutil.which(program) is None:
                raise BenchError(f"{program} is not installed (Debian: apt-get install {program})")
        if not Path(NOVNC_DIR, "core", "rfb.js").exists():
            raise BenchError(f"noVNC is not installed in {NOVNC_DIR} (apt-get install novnc)")
        self.bed = bed
        self.vnc_port = free_port()
        self.web_port = free_port()
        self.x11vnc: ManagedProcess | None = None
        self.websockify: ManagedProcess | None = None

    def __enter__(self) -> VncPeer:
        try:
            self.x11vnc = ManagedProcess(
                ["x11vnc", "-display", self.bed.display.name, "-rfbport", str(self.vnc_port),
                 "-localhost", "-nopw", "-forever", "-shared", "-quiet"],
                name="x11vnc", log_path=self.bed.workdir / "x11vnc.log",
            ).start()
            wait_port(self.vnc_port, self.x11vnc)
            self.websockify = ManagedProcess(
                ["websockify", str(self.web_port), f"127.0.0.1:{self.vnc_port}"],
                name="websockify", log_path=self.bed.workdir / "websockify.log",
            ).start()
            wait_port(self.web_port, self.websockify)
        except BaseException:
            self.__exit__()
            raise
        return self

    @property
    def pgids(self) -> list[int]:
        return [p.pid for p in (self.x11vnc, self.websockify) if p is not None]

    def __exit__(self, *exc: object) -> None:
        for proc in (self.websockify, self.x11vnc):
            if proc is not None:
                proc.stop()


def bench_novnc_viewer(bed: TestBed, peer: VncPeer, browser, cfg: BenchConfig) -> dict[str, Any]:
    out: dict[str, Any] = {}
    pages = NoVNCPages(peer.web_port)
    meter = CpuMeter(peer.pgids)
    page = browser.new_page(viewport={"width": 1320, "height": 860})
    try:
        _open_novnc(pages, page)
        out["novnc_first_frame_ms"] = _r(page.evaluate("pixelBench.novncFirstFrame()"))
        time.sleep(1.0)
        bytes0 = page.evaluate("pixelBench.novncBytes()")
        meter.start()
        t0 = time.monotonic()
        time.sleep(cfg.cpu_window_s)
        out["novnc_idle_cpu_pct"] = _r(meter.stop())
        out["novnc_idle_bytes_per_s"] = _r(
            (page.evaluate("pixelBench.novncBytes()") - bytes0) / (time.monotonic() - t0), 0
        )
        out["novnc_typing_rounds"] = [_typing(bed, page, meter, cfg, "novnc")]
        if cfg.only != "typing":
            out.update(_clicks_summary("novnc_", _click_trials(page, "novncClicks", bed, cfg)))
    finally:
        page.close()
        pages.close()
    return out


def _open_novnc(pages: NoVNCPages, page) -> None:
    page.goto(pages.url)
    page.wait_for_function("() => window.rfb !== undefined")
    page.evaluate((ASSETS / "probe.js").read_text())


def novnc_typing_round(bed: TestBed, browser, cfg: BenchConfig) -> dict[str, Any]:
    """A further round of typing, through x11vnc + noVNC started afresh (the entry is
    cleared after)."""
    with VncPeer(bed) as peer:
        pages = NoVNCPages(peer.web_port)
        meter = CpuMeter(peer.pgids)
        page = browser.new_page(viewport={"width": 1320, "height": 860})
        try:
            _open_novnc(pages, page)
            time.sleep(1.0)  # as before the first round
            return _typing(bed, page, meter, cfg, "novnc")
        finally:
            page.close()
            pages.close()
            _clear_entry(bed)


def bench_vnc_agent(bed: TestBed, peer: VncPeer, cfg: BenchConfig) -> dict[str, Any]:
    out: dict[str, Any] = {}
    click, _ = bed.patch_points()
    vnc = VNCProbe("127.0.0.1", peer.vnc_port)
    try:
        vnc.full_frame()
        for fmt in ("jpeg", "png"):
            times = []
            for _ in range(cfg.screenshots):
                vnc.click(*click)
                vnc.wait_quiet(0.03, 2.0)
                started = time.perf_counter()
                encode_frame(vnc.full_frame(), fmt, 80 if fmt == "jpeg" else None)
                times.append((time.perf_counter() - started) * 1000)
            out[f"novnc_screenshot_{fmt}_p50_ms"] = _r(percentile(times, 0.5))
            out[f"novnc_screenshot_{fmt}_p95_ms"] = _r(percentile(times, 0.95))
        totals = []
        for _ in range(cfg.act_observe):
            started = time.perf_counter()
            vnc.click(*click)
            vnc.wait_quiet(cfg.quiet_ms / 1000, 5.0)
            encode_frame(vnc.frame(), "jpeg", 80)
            totals.append((time.perf_counter() - started) * 1000)
        out["novnc_act_observe_p50_ms"] = _r(percentile(totals, 0.5))
        out["novnc_act_observe_p95_ms"] = _r(percentile(totals, 0.95))
    finally:
        vnc.close()
    return out


# -- build to lossless --------------------------------------------------------------------
def run_lossless(bed: TestBed, cfg: BenchConfig, pw) -> dict[str, Any]:
    """Time to lossless and settled identity (``pixel_stream.bench_lossless``)."""
    _clear_entry(bed)
    trials = 6 if cfg.quick else 15
    out = bench_lossless(bed.info["url"], bed.display.name, bed.board_app, trials=trials,
                         playwright=pw)
    _clear_entry(bed)
    return out


# -- driver -------------------------------------------------------------------------------
def _typing_rounds(bed: TestBed, browser, cfg: BenchConfig, results: dict[str, Any],
                   progress) -> None:
    """The further typing rounds, each side's in turn, in the order opposite to the round
    before (the first: ours, then the peer's; the second: the peer's, then ours...), so a
    machine that gets busier or quieter during the run weighs on both alike; then each
    side's figures over all its rounds (``summarize_typing``)."""
    ours = results.pop("typing_rounds", [])
    theirs = results.pop("novnc_typing_rounds", [])
    sides = [(ours, ours_typing_round)]
    if cfg.novnc:
        sides.append((theirs, novnc_typing_round))
    if cfg.typing_rounds > 1:
        _clear_entry(bed)
    for n in range(1, cfg.typing_rounds):
        progress(f"typing, round {n + 1} of {cfg.typing_rounds} ...")
        for rounds, run in (sides if n % 2 == 0 else sides[::-1]):
            rounds.append(run(bed, browser, cfg))
    if ours:
        results.update(summarize_typing(ours, ""))
    if theirs:
        results.update(summarize_typing(theirs, "novnc_"))


def run_bench(cfg: BenchConfig, progress=print) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise BenchError(f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    started = time.monotonic()
    results: dict[str, Any] = {
        "quick": cfg.quick,
        "display": "1280x800x24",
        "cpu_count": os.cpu_count(),
        "trials": cfg.trials,
    }
    workdir = Path(tempfile.mkdtemp(prefix="pixel-bench-"))
    try:
        with TestBed(workdir) as bed, sync_playwright() as pw:
            if cfg.only != "typing":
                progress("agent API ...")
                results.update(bench_agent_api(bed, cfg))
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
            )
            try:
                progress("WebRTC viewer ...")
                results.update(bench_ours_viewer(bed, browser, cfg))
                _clear_entry(bed)
                if cfg.novnc:
                    with VncPeer(bed) as peer:
                        progress("x11vnc + noVNC viewer ...")
                        results.update(bench_novnc_viewer(bed, peer, browser, cfg))
                        if cfg.only != "typing":
                            progress("x11vnc as an agent sees it ...")
                            results.update(bench_vnc_agent(bed, peer, cfg))
                _typing_rounds(bed, browser, cfg, results, progress)
                if cfg.only != "typing":
                    progress("build to lossless (receiver window on a second display) ...")
                    results.update(run_lossless(bed, cfg, pw))
            finally:
                browser.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    for key in COMPARED:
        ours, theirs = results.get(key), results.get("novnc_" + key)
        if ours is not None and theirs:
            results["ratio_" + key] = round(ours / theirs, 3)
    targets = {}
    for key, (op, limit) in {**TARGETS, **LOSSLESS_TARGETS}.items():
        value = results.get(key)
        if value is None and cfg.only:
            continue  # not measured in this run
        targets[key] = {"target": f"{op} {limit:g}", "value": value,
                        "met": value is not None and value <= limit}
    for key in PEER_TARGETS:
        ours, theirs = results.get(key), results.get("novnc_" + key)
        targets[key] = {
            "target": "<= noVNC", "value": ours, "novnc": theirs,
            "met": ours is not None and theirs is not None and ours <= theirs,
        }
    for key in ("input_to_photon_p50_ms", "idle_cpu_pct"):
        ours, theirs = results.get(key), results.get("novnc_" + key)
        targets[f"{key}_better_than_novnc"] = {
            "target": "< noVNC", "value": ours, "novnc": theirs,
            "met": ours is not None and theirs is not None and ours < theirs,
        }
    if cfg.only:
        targets = {k: v for k, v in targets.items() if v["value"] is not None}
        results["only"] = cfg.only
        results["targets"] = targets
        results["bench_seconds"] = round(time.monotonic() - started, 1)
        return results
    targets["settled_identical"] = {"target": "true", "value": results.get("settled_identical"),
                                    "met": results.get("settled_identical") is True}
    results["targets"] = targets
    results["bench_seconds"] = round(time.monotonic() - started, 1)
    return results


def format_table(results: dict[str, Any]) -> str:
    rows = [("figure", "ours", "x11vnc+noVNC", "ours/theirs", "target")]
    names = [
        "screenshot_jpeg_p50_ms", "screenshot_jpeg_p95_ms", "screenshot_png_p50_ms",
        "screenshot_png_p95_ms", "act_observe_p50_ms", "act_observe_p95_ms",
        "input_to_photon_p50_ms", "input_to_photon_p95_ms", "idle_cpu_pct", "typing_cpu_pct",
        "idle_bytes_per_s", "typing_bytes_per_s", "first_frame_ms",
    ]
    targets = results.get("targets", {})

    def fmt(value: Any) -> str:
        if value is None:
            return "-"
        return f"{value:,.2f}" if isinstance(value, float) else str(value)

    for name in names:
        if results.get(name) is None and results.get("novnc_" + name) is None:
            continue  # not measured in this run (--only)
        target = targets.get(name)
        mark = ""
        if target:
            mark = f"{target['target']} {'ok' if target['met'] else 'MISSED'}"
        rows.append((name, fmt(results.get(name)), fmt(results.get("novnc_" + name)),
                     fmt(results.get("ratio_" + name)), mark))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    for key, target in targets.items():
        if key.endswith("_better_than_novnc"):
            verdict = "ok" if target["met"] else "MISSED"
            lines.append(f"{key}: ours {fmt(target['value'])} vs noVNC "
                         f"{fmt(target['novnc'])} -> {verdict}")
    lines.append(
        f"input-to-photon trials: {results.get('input_to_photon_trials')} "
        f"(missed {results.get('input_to_photon_missed')}), noVNC "
        f"{results.get('novnc_input_to_photon_trials')} "
        f"(missed {results.get('novnc_input_to_photon_missed')}); codec {results.get('codec')}; "
        f"act_and_observe quiet {results.get('act_observe_quiet_ms')} ms; "
        f"{results.get('bench_seconds')} s"
    )
    if results.get("typing_cpu_ms_per_key") is not None:
        lines.append(f"typing CPU per key: ours {results['typing_cpu_ms_per_key']} ms "
                     f"(rounds {results.get('typing_rounds_ms_per_key')}), noVNC "
                     f"{results.get('novnc_typing_cpu_ms_per_key')} ms "
                     f"(rounds {results.get('novnc_typing_rounds_ms_per_key')})")
    if not results.get("only"):
        lines.append(format_lossless(results))
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> tuple[argparse.Namespace, BenchConfig]:
    """The command line and the configuration it asks for."""
    parser = argparse.ArgumentParser(prog="python -m pixel_stream.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer trials; under a minute")
    parser.add_argument("--json", action="store_true", help="also print the results as JSON")
    parser.add_argument("--out", type=Path, help="write the JSON results to this file")
    parser.add_argument("--trials", type=int, help="input-to-photon trials per system")
    parser.add_argument("--no-novnc", action="store_true", help="skip the x11vnc+noVNC peer")
    parser.add_argument("--only", choices=["typing"],
                        help="typing: only the viewers' idle and typing figures (ours and "
                             "the peer's)")
    args = parser.parse_args(argv)
    cfg = BenchConfig.quick_config() if args.quick else BenchConfig()
    overrides: dict[str, Any] = {"novnc": not args.no_novnc, "only": args.only}
    if args.trials:
        overrides["trials"] = args.trials
    return args, BenchConfig(**{**cfg.__dict__, **overrides})


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; prints a table (and the JSON with ``--json``). Returns 0 on success."""
    args, cfg = parse_args(argv)
    try:
        results = run_bench(cfg, progress=lambda m: print(m, file=sys.stderr, flush=True))
    except BenchError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 2
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(format_table(results))
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
