"""The taskbar's clock follows its clock file at once: a reset starts the sandbox clock
again at the task's start, and the first observation after it must not show the time the
last attempt reached (marked slow: a display and the taskbar)."""

from __future__ import annotations

import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest

from sandbox.clock import SandboxClock

pytestmark = pytest.mark.slow


def test_the_taskbar_shows_a_clock_written_again_at_once(tmp_path: Path) -> None:
    from Xlib import X
    from Xlib import display as xdisplay

    from episodes.taskbar import TASKBAR_HEIGHT
    from pixel_stream.display import Display
    from pixel_stream.procs import ManagedProcess, wait_until

    clock_path = tmp_path / "clock.json"
    start = SandboxClock().start.replace(hour=9, minute=0, second=0, microsecond=0)
    SandboxClock(start=start).save(clock_path)  # not running: 9:00 until written again
    with Display(640, 480) as display:
        conn = xdisplay.Display(display.name)
        taskbar = ManagedProcess(
            [sys.executable, "-m", "episodes.taskbar", "--clock", str(clock_path)],
            name="taskbar", env=display.env(), log_path=tmp_path / "taskbar.log").start()
        try:
            root = conn.screen().root

            def strip() -> bytes:
                return root.get_image(0, 480 - TASKBAR_HEIGHT, 640, TASKBAR_HEIGHT,
                                      X.ZPixmap, 0xFFFFFFFF).data

            def drawn() -> bytes | None:
                first = strip()
                time.sleep(0.3)
                return first if len(set(first)) > 4 and strip() == first else None

            before = wait_until(drawn, 20, "the taskbar to draw its clock", alive=taskbar)
            # an attempt two hours long, then a reset: the clock file written again
            SandboxClock(start=start + timedelta(hours=2)).save(clock_path)
            wait_until(lambda: strip() != before, 10, "the taskbar to show the new time",
                       alive=taskbar)
            SandboxClock(start=start).save(clock_path)
            wait_until(lambda: strip() == before, 10, "the taskbar to show 9:00 again",
                       alive=taskbar)
        finally:
            taskbar.stop()
            conn.close()
