"""An X display of its own: Xvfb plus (optionally) the openbox window manager.

``Display`` picks a free display number by letting Xvfb choose one (``-displayfd``), so two
sandboxes started at the same moment never race for ``:99``. Both processes run in their
own process groups (see ``pixel_stream.procs``) and are stopped on ``stop()``, on leaving a
``with`` block (including Ctrl-C) and at interpreter exit.
"""

from __future__ import annotations

import os
import select
import shutil
import tempfile
import time
from pathlib import Path

from pixel_stream.openbox_config import OPENBOX_RC
from pixel_stream.procs import ManagedProcess, ProcessError
from pixel_stream.xprops import wait_for_root_property, whole_property

MIN_SIZE = 64
MAX_SIZE = 8192


class DisplayError(RuntimeError):
    """The display could not be started or is not running."""


class Display:
    """Xvfb (``width`` x ``height`` x ``depth``) with an optional window manager."""

    def __init__(
        self,
        width: int = 1280,
        height: int = 800,
        depth: int = 24,
        window_manager: bool = True,
        dpi: int = 96,
        start_timeout: float = 15.0,
    ) -> None:
        for label, value in (("width", width), ("height", height)):
            if not isinstance(value, int) or not MIN_SIZE <= value <= MAX_SIZE or value % 2:
                raise ValueError(
                    f"display {label} must be an even integer between {MIN_SIZE} and "
                    f"{MAX_SIZE} (video is encoded in 2x2 colour blocks), got {value!r}"
                )
        if depth not in (16, 24):
            raise ValueError(f"display depth must be 16 or 24, got {depth!r}")
        self.width = width
        self.height = height
        self.depth = depth
        self.window_manager = window_manager
        self.dpi = dpi
        self.start_timeout = start_timeout
        self.number: int | None = None
        self._xvfb: ManagedProcess | None = None
        self._wm: ManagedProcess | None = None
        self._workdir: Path | None = None
        # what start() waited for: {"Xvfb" | "openbox": (began, ended)}, monotonic
        self.startup: dict[str, tuple[float, float]] = {}

    # -- identity --------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The X display name, e.g. ``":57"``."""
        if self.number is None:
            raise DisplayError("the display is not started; call start() first")
        return f":{self.number}"

    @property
    def size(self) -> tuple[int, int]:
        return (self.width, self.height)

    @property
    def running(self) -> bool:
        return self._xvfb is not None and self._xvfb.poll() is None

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """An environment for a program that should show its windows on this display."""
        env = dict(os.environ if base is None else base)
        env["DISPLAY"] = self.name
        env.pop("WAYLAND_DISPLAY", None)
        env["QT_QPA_PLATFORM"] = "xcb"
        return env

    @property
    def pids(self) -> list[int]:
        """Process ids of Xvfb and the window manager (for leak checks)."""
        return [p.pid for p in (self._xvfb, self._wm) if p is not None and p.poll() is None]

    # -- lifecycle -------------------------------------------------------------------
    def start(self) -> Display:
        """Start Xvfb and the window manager; returns once both accept work."""
        if self._xvfb is not None:
            raise DisplayError(f"display {self.name} is already started")
        xvfb_bin = shutil.which("Xvfb")
        if xvfb_bin is None:
            raise DisplayError("Xvfb is not installed (Debian: apt-get install xvfb)")
        self._workdir = Path(tempfile.mkdtemp(prefix="pixel-display-"))
        try:
            began = time.monotonic()
            self._start_xvfb(xvfb_bin)
            self.startup["Xvfb"] = (began, time.monotonic())
            if self.window_manager:
                began = time.monotonic()
                self._start_window_manager()
                self.startup["openbox"] = (began, time.monotonic())
        except BaseException:
            self.stop()
            raise
        return self

    def _start_xvfb(self, xvfb_bin: str) -> None:
        read_fd, write_fd = os.pipe()
        try:
            self._xvfb = ManagedProcess(
                [
                    xvfb_bin,
                    "-displayfd",
                    str(write_fd),
                    "-screen",
                    "0",
                    f"{self.width}x{self.height}x{self.depth}",
                    "-nolisten",
                    "tcp",
                    "-noreset",
                    "-dpi",
                    str(self.dpi),
                    "+extension",
                    "DAMAGE",
                    "+extension",
                    "XTEST",
                ],
                name="Xvfb",
                pass_fds=(write_fd,),
                log_path=self._workdir / "xvfb.log",
            ).start()
        finally:
            os.close(write_fd)
        try:
            self.number = self._read_display_number(read_fd)
        finally:
            os.close(read_fd)

    def _read_display_number(self, read_fd: int) -> int:
        deadline = time.monotonic() + self.start_timeout
        data = b""
        while not data.endswith(b"\n"):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DisplayError(
                    f"Xvfb did not report a display number within {self.start_timeout:.0f} s"
                    f"{self._xvfb.stderr_tail()}"
                )
            ready, _, _ = select.select([read_fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(read_fd, 64)
            if not chunk:
                raise DisplayError(f"Xvfb exited during start-up{self._xvfb.stderr_tail()}")
            data += chunk
        return int(data.strip())

    def _start_window_manager(self) -> None:
        openbox = shutil.which("openbox")
        if openbox is None:
            raise DisplayError(
                "openbox is not installed (Debian: apt-get install openbox); "
                "or start the display with window_manager=False"
            )
        rc_path = self._workdir / "openbox-rc.xml"
        rc_path.write_text(OPENBOX_RC)
        env = self.env()
        env["HOME"] = str(self._workdir)  # no user openbox autostart or menus
        env["XDG_CONFIG_HOME"] = str(self._workdir / "config")
        self._wm = ManagedProcess(
            [openbox, "--config-file", str(rc_path), "--sm-disable"],
            name="openbox",
            env=env,
            log_path=self._workdir / "openbox.log",
        ).start()
        try:
            wait_for_root_property(self.name, "_NET_SUPPORTING_WM_CHECK", self.start_timeout,
                                   "openbox to manage the screen", alive=self._wm)
            self._window_manager_manages(time.monotonic() + self.start_timeout)
        except (TimeoutError, ProcessError) as exc:
            raise DisplayError(str(exc)) from exc

    def _window_manager_manages(self, deadline: float) -> None:
        """Openbox announces itself (``_NET_SUPPORTING_WM_CHECK``) a moment before it takes
        every map request: a window mapped in that moment was now and then left unmapped
        and unmanaged for good (1 in 15 starts). A probe window, mapped again until openbox
        lists it as a client and then destroyed, proves the window manager's loop runs."""
        from Xlib import X
        from Xlib import display as xdisplay

        conn = xdisplay.Display(self.name)
        try:
            root = conn.screen().root
            clients = conn.intern_atom("_NET_CLIENT_LIST")
            probe = root.create_window(-50, -50, 1, 1, 0, X.CopyFromParent)
            probe.set_wm_class("ehr-wm-probe", "EhrWmProbe")
            try:
                while True:
                    probe.map()
                    conn.sync()
                    retry_at = min(deadline, time.monotonic() + 0.25)
                    while time.monotonic() < retry_at:
                        prop = whole_property(root, clients, X.AnyPropertyType)
                        if prop is not None and probe.id in list(prop.value):
                            return
                        time.sleep(0.01)
                    if time.monotonic() >= deadline:
                        raise TimeoutError("openbox did not manage a window")
            finally:
                probe.destroy()
                conn.sync()
        finally:
            conn.close()

    def stop(self) -> None:
        """Stop the window manager and Xvfb; safe to call twice."""
        if self._wm is not None:
            self._wm.stop()
            self._wm = None
        if self._xvfb is not None:
            self._xvfb.stop()
            self._xvfb = None
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    def __enter__(self) -> Display:
        if self._xvfb is None:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        where = self.name if self.number is not None else "not started"
        return f"Display({where}, {self.width}x{self.height}x{self.depth})"
