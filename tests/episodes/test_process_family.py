"""Finding an episode's browser processes and their children in one pass over /proc."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time

from episodes.processes import descendants, with_argument_and_descendants


def test_the_processes_with_a_marker_and_all_their_descendants(tmp_path):
    marker = f"ehr-family-{time.monotonic_ns()}"
    parent = subprocess.Popen(["sh", "-c", "sleep 30 & sleep 30 & wait", marker])
    try:
        for _ in range(100):
            if len(descendants(parent.pid)) == 2:
                break
            time.sleep(0.02)
        children = descendants(parent.pid)
        assert len(children) == 2
        assert with_argument_and_descendants(marker) == {parent.pid, *children}
        assert with_argument_and_descendants(marker + "-none") == set()
    finally:
        for pid in descendants(parent.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        parent.kill()
        parent.wait()
