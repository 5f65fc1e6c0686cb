"""The fork server (``episodes.forkserver``): prestarted interpreters forked from one that
imported their modules ahead, run as a new interpreter would run them, and never left
behind (a stop, an owner that goes away, the server's own end)."""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import time
from pathlib import Path

import pytest

from episodes import forkserver, prestart
from episodes.processes import alive, proc_stat

APP = """import gc, json, os, socket, sys, time
from pathlib import Path
out = Path(sys.argv[1])
sock = socket.socket(fileno=int(sys.argv[2])) if len(sys.argv) > 2 else None
out.write_text(json.dumps({
    "argv": sys.argv[1:], "name": __name__, "display": os.environ.get("DISPLAY"),
    "extra": os.environ.get("EXTRA"), "warm": "colorsys" in sys.modules,
    "cwd": os.getcwd(), "session_leader": os.getsid(0) == os.getpid(),
    "fds": sorted(int(fd) for fd in os.listdir("/proc/self/fd")),
    "port": sock.getsockname()[1] if sock else None,
    # the server's objects are frozen: a collection here does not walk (and copy) them
    "frozen": gc.get_freeze_count() > 0 and gc.isenabled()}))
print("to the log")
if os.environ.get("STAY"):
    time.sleep(60)
sys.exit(3)
"""


@pytest.fixture
def server(tmp_path: Path):
    started = forkserver.ForkServer.start(["colorsys"])
    try:
        yield started
    finally:
        started.stop()


def _app(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    (tmp_path / "mod" / "fork_test_app.py").parent.mkdir()
    (tmp_path / "mod" / "fork_test_app.py").write_text(APP)
    return tmp_path / "out.json", {**os.environ, "PYTHONPATH": str(tmp_path / "mod")}


def _wait(condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_prestarted_module_is_forked_and_runs_as_a_new_interpreter_would(
        tmp_path, server, monkeypatch):
    out, env = _app(tmp_path)
    monkeypatch.setattr(forkserver, "_current", server)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        fd, port = listener.fileno(), listener.getsockname()[1]
        process, go = prestart.spawn(
            [sys.executable, "-m", "fork_test_app", str(out), str(fd)], ["colorsys"],
            name="app", env=env, log_path=tmp_path / "app.log", pass_fds=(fd,))
        try:
            assert isinstance(process, forkserver.ForkedProcess)
            assert proc_stat(process.pid)[1] == server.process.pid  # the server's child
            assert process.poll() is None and not out.exists()
            prestart.go(go, {"DISPLAY": ":57", "EXTRA": "yes"})
            _wait(lambda: process.poll() is not None)
            assert process.poll() == 3  # the app's own exit status
        finally:
            process.stop()
        seen = json.loads(out.read_text())
    fds = seen.pop("fds")  # its own, the socket passed, and the one listing them
    assert {0, 1, 2, fd} <= set(fds) and len(fds) == 5, fds
    assert seen == {"argv": [str(out), str(fd)], "name": "__main__", "display": ":57",
                    "extra": "yes", "warm": True, "cwd": os.getcwd(),
                    "session_leader": True, "port": port, "frozen": True}
    assert "to the log" in (tmp_path / "app.log").read_text()


def test_a_child_s_standard_output_can_go_to_a_descriptor_of_its_own(tmp_path, server):
    out, env = _app(tmp_path)
    read_fd, write_fd = os.pipe()
    try:
        process = server.spawn([sys.executable, "-m", "fork_test_app", str(out)], name="app",
                               env=env, log_path=tmp_path / "app.log", stdout=write_fd)
    finally:
        os.close(write_fd)
    with os.fdopen(read_fd, "rb") as output:
        assert output.read() == b"to the log\n"  # to the pipe, until it exited
    assert process.wait(10) == 3
    process.stop()
    assert "to the log" not in (tmp_path / "app.log").read_text()
    assert {0, 1, 2} <= set(json.loads(out.read_text())["fds"])


def test_stop_an_owner_that_goes_away_and_the_servers_end_leave_nothing(tmp_path, server):
    out, env = _app(tmp_path)
    env["STAY"] = "1"
    argv = [sys.executable, "-m", "episodes.prestart", "--go", "0", "--", "-m",
            "fork_test_app", str(out)]

    def started() -> forkserver.ForkedProcess:
        read_fd, write_fd = os.pipe()
        argv[4] = str(read_fd)
        process = server.spawn(argv, name="app", env=env, pass_fds=(read_fd,))
        os.close(read_fd)
        prestart.go(write_fd)
        _wait(lambda: out.exists())
        out.unlink()
        return process

    stopped = started()
    stopped.stop()
    assert not alive(stopped.pid)

    orphan = started()
    orphan._conn.close()  # as when the episode's process dies
    _wait(lambda: not alive(orphan.pid))

    left = started()
    server.stop()
    _wait(lambda: not alive(left.pid))
    assert left.poll() is not None


def test_without_a_server_or_when_it_is_gone_a_new_interpreter_is_started(
        tmp_path, monkeypatch):
    out, env = _app(tmp_path)
    monkeypatch.delenv(forkserver.ENV_SOCKET, raising=False)
    monkeypatch.setattr(forkserver, "_current", None)
    assert forkserver.current() is None
    monkeypatch.setenv(forkserver.ENV_SOCKET, str(tmp_path / "none.sock"))
    assert forkserver.current() is None  # no such socket
    (tmp_path / "gone.sock").touch()
    monkeypatch.setenv(forkserver.ENV_SOCKET, str(tmp_path / "gone.sock"))
    process, go = prestart.spawn([sys.executable, "-m", "fork_test_app", str(out)], [],
                                 name="app", env=env, log_path=tmp_path / "app.log")
    try:
        assert not isinstance(process, forkserver.ForkedProcess)
        prestart.go(go)
        _wait(lambda: process.poll() is not None)
        assert process.poll() == 3
    finally:
        process.stop()


def test_the_server_stops_on_sigterm_and_removes_its_socket(tmp_path):
    server = forkserver.ForkServer.start([])
    try:
        os.kill(server.process.pid, signal.SIGTERM)
        _wait(lambda: server.process.poll() is not None)
        assert not os.path.exists(server.path)
    finally:
        server.stop()
