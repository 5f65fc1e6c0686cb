"""Nothing outlives a display or a session: stop, errors, Ctrl-C, a killed owner."""

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from pixel_stream.capture import CaptureError
from pixel_stream.client import AgentAPIError, AgentClient
from pixel_stream.display import Display
from pixel_stream.procs import wait_until
from pixel_stream.session import SessionThread
from pixel_stream.testapp import PatchBoardProcess

pytestmark = pytest.mark.slow


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry))
    return found


def test_stop_leaves_no_process_and_no_thread(tmp_path):
    threads_before = {t.name for t in threading.enumerate()}
    children_before = set(children_of(os.getpid()))
    with Display() as display:
        pids = display.pids
        assert len(pids) == 2 and all(alive(p) for p in pids)
        with PatchBoardProcess(display, tmp_path / "board.json") as board:
            pids.append(board.process.pid)
            with SessionThread(display) as session, AgentClient(session.agent_url,
                                                                session.token) as agent:
                agent.screenshot()
    wait_until(lambda: not any(alive(p) for p in pids), 5, "every process to end")
    assert set(children_of(os.getpid())) <= children_before
    wait_until(lambda: {t.name for t in threading.enumerate()} <= threads_before | {
        "asyncio_0", "asyncio_1", "asyncio_2", "asyncio_3"}, 5, "session threads to end")


def test_a_session_on_a_missing_display_fails_cleanly():
    threads_before = threading.active_count()
    with pytest.raises(CaptureError, match=":987"):
        SessionThread(":987").start()
    wait_until(lambda: threading.active_count() <= threads_before, 5, "threads to end")


def _start_cli(*args: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "pixel_stream", *args],
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    first_line = proc.stdout.readline().strip()
    return proc, first_line


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_display_command_cleans_up_on_signals(sig):
    proc, name = _start_cli("display")
    try:
        assert name.startswith(":")
        helpers = children_of(proc.pid)  # Xvfb and openbox
        assert len(helpers) == 2
        os.kill(proc.pid, sig)
        proc.wait(10)
        # SIGKILL cannot be caught: the parent-death signal takes them down anyway
        wait_until(lambda: not any(alive(p) for p in helpers), 10, f"Xvfb of {name} to end")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)


def test_serve_command_stops_on_sigterm():
    with Display(window_manager=False) as display:
        proc, line = _start_cli("serve", "--display", display.name, "--token", "cli-token-123")
        try:
            info = json.loads(line)
            assert info["token"] == "cli-token-123" and info["url"].startswith("http://127.0.0.1:")
            with AgentClient(info["agent_url"], info["token"]) as agent:
                assert agent.screenshot().width == 1280
            started = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(15) == 0
            assert time.monotonic() - started < 15
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(5)


def test_agents_get_an_error_when_the_display_dies():
    display = Display(window_manager=False).start()
    try:
        with SessionThread(display) as session, AgentClient(session.agent_url,
                                                            session.token) as agent:
            agent.screenshot()
            display.stop()
            wait_until(lambda: session.session.capture.slot.closed, 10, "capture to notice")
            try:
                agent.screenshot()
            except AgentAPIError as exc:
                assert exc.code == "internal" and "display" in exc.message
            else:
                raise AssertionError("a screenshot of a dead display succeeded")
            agent.ping()  # the connection itself is fine
    finally:
        display.stop()
