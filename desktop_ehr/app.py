"""Launching the client.

``python -m desktop_ehr --persona hyperspace|powerchart --run-dir DIR
[--inspector-socket PATH] [--user NAME] [--windowed]``

The window fills the display (frameless) unless ``--windowed``. SIGTERM and SIGINT close the
client cleanly: they are delivered through the Qt event loop (a wake-up socket), so they are
never handled in the middle of a write; an interrupted sign is rolled back by SQLite.
"""

from __future__ import annotations

import argparse
import signal
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

from desktop_ehr import PERSONAS


@dataclass(frozen=True)
class LaunchOptions:
    persona: str
    run_dir: Path
    inspector_socket: Path | None = None
    user: str | None = None
    windowed: bool = False


def parse_args(argv: list[str] | None = None) -> LaunchOptions:
    parser = argparse.ArgumentParser(prog="python -m desktop_ehr",
                                     description="The desktop EHR training client.")
    parser.add_argument("--persona", required=True, choices=PERSONAS)
    parser.add_argument("--run-dir", required=True, type=Path,
                        help="a seeded run directory (stores/, clock.json, run.json)")
    parser.add_argument("--inspector-socket", type=Path, default=None,
                        help="serve widget geometry on this Unix socket (oracle driver)")
    parser.add_argument("--user", default=None, help="user ID to pre-fill on the log-in screen")
    parser.add_argument("--windowed", action="store_true",
                        help="a normal window instead of filling the display")
    args = parser.parse_args(argv)
    return LaunchOptions(args.persona, args.run_dir, args.inspector_socket, args.user,
                         args.windowed)


class SignalBridge:
    """Turns SIGTERM/SIGINT into a clean ``QApplication.quit`` via a wake-up socket."""

    def __init__(self, app) -> None:
        from PySide6.QtCore import QSocketNotifier

        self.app = app
        self.reader, self.writer = socket.socketpair()
        self.reader.setblocking(False)
        self.writer.setblocking(False)
        signal.set_wakeup_fd(self.writer.fileno())
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: None)  # the wake-up byte does the work
        self.notifier = QSocketNotifier(self.reader.fileno(), QSocketNotifier.Type.Read)
        self.notifier.activated.connect(self._wake)

    def _wake(self, *_args) -> None:
        try:
            data = self.reader.recv(64)
        except BlockingIOError:
            return
        if any(b in (signal.SIGTERM, signal.SIGINT) for b in data):
            self.app.quit()

    def close(self) -> None:
        signal.set_wakeup_fd(-1)
        self.notifier.setEnabled(False)
        self.reader.close()
        self.writer.close()


def build(options: LaunchOptions):
    """Create the context, window and (optionally) the inspector; returns (window, inspector)."""
    from desktop_ehr.inspector import Inspector
    from desktop_ehr.main_window import EhrMainWindow
    from desktop_ehr.personas import get_persona
    from desktop_ehr.session import EhrContext

    persona = get_persona(options.persona)
    ctx = EhrContext.from_run_dir(options.persona, options.run_dir)
    window = EhrMainWindow(ctx, persona, options.user)
    inspector = Inspector(options.inspector_socket, window) if options.inspector_socket \
        else None
    return window, inspector


def main(argv: list[str] | None = None) -> int:
    options = parse_args(argv)
    from PySide6.QtWidgets import QApplication

    from desktop_ehr.session import RunDirError
    from sandbox.stores import StoreError

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("desktop_ehr")
    app.setCursorFlashTime(0)  # no blinking caret: an idle client is an idle stream
    try:
        window, inspector = build(options)
    except (RunDirError, StoreError, OSError) as exc:
        print(f"desktop_ehr: {exc}", file=sys.stderr)
        return 2
    bridge = SignalBridge(app)
    if not options.windowed:
        window.fill_screen()
    window.show()
    try:
        code = app.exec()
    finally:
        bridge.close()
        if inspector is not None:
            inspector.close()
        window.ctx.close()
    return code
