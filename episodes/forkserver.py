"""A fork server: the heavy imports of an episode's Python processes done once, ahead.

    python -m episodes.forkserver --socket PATH [--warm MODULE[:FUNCTION]]...
    python -m episodes.warm_pool --socket PATH     # with what an episode's processes import
    EHR_SANDBOX_FORKSERVER=PATH ehr-sandbox bench ...    # its episodes fork from it

Each episode starts two interpreters of its own that import for most of a second of CPU
before they can serve (``portal_web``: uvicorn, SQLAlchemy, the sites; the desktop EHR: Qt
and its windows; :mod:`episodes.prestart` runs those imports beside the seeding). A fork
server imports them (``--warm``) once, then forks a child per request instead: the child
runs ``python -m MODULE ARGS`` from ``__main__`` as a new interpreter would, with the
environment, working folder and file descriptors it was given, in a session (and process
group) of its own, its output in its log. It is a **warm pool**: what it prepared is done
before an episode asks, so a start that uses one is not a cold start (the benchmark reports
the two apart). Nothing uses one unless it is started (``ForkServer.start``) and made
current (``use``, or ``EHR_SANDBOX_FORKSERVER`` naming its socket, for child processes).

One ``SOCK_SEQPACKET`` connection per child: the request (JSON: ``argv`` after the
interpreter, ``env``, ``cwd``, ``fds``: where each passed descriptor goes; the log's and the
passed descriptors ride along as ``SCM_RIGHTS``), then ``{"pid": N}`` and, once the child
exited, ``{"exit": STATUS}`` (``Popen.returncode``'s meaning). No process outlives its
owner: a connection that closes while its child runs (the episode's process died) kills
the child's process group; the server killed or stopped (``SIGTERM``) kills every child's
group first; a child gets ``SIGTERM`` when the server dies (parent-death signal).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import ctypes
import fcntl
import gc
import io
import json
import os
import select
import signal
import socket
import sys
import tempfile
import time
import traceback
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from episodes.warm import warm_up
from pixel_stream.procs import log_tail

ENV_SOCKET = "EHR_SANDBOX_FORKSERVER"
MAX_MESSAGE = 1 << 20
MAX_FDS = 16
_PR_SET_PDEATHSIG, _PR_SET_NAME = 1, 15


class ForkServerError(RuntimeError):
    """The fork server could not start or did not fork."""


# -- the server ------------------------------------------------------------------------------
def serve(path: str, warm: Iterable[str]) -> int:
    warm_up(warm)
    # What the server imported lives as long as its children: frozen, a child's garbage
    # collections never walk it, so they do not copy its pages (copy-on-write). Without
    # this a forked portal spent 0.2 CPU-s more once the pool also held every site's views.
    gc.collect()
    gc.freeze()
    # the handlers first: a SIGTERM as soon as the socket exists must still remove it
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    stopping: list[bool] = []
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    signal.signal(signal.SIGINT, lambda *_: stopping.append(True))
    children: dict[int, socket.socket] = {}  # pid -> its connection
    conns: dict[socket.socket, int | None] = {}  # connection -> its child's pid
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        listener.bind(path + ".tmp")
        listener.listen(64)
        os.rename(path + ".tmp", path)  # it exists once it accepts
        while not stopping:
            try:
                watched: list[Any] = [listener, wake_r, *conns]
                readable, _, _ = select.select(watched, [], [])
            except InterruptedError:
                continue
            if wake_r in readable:
                with contextlib.suppress(BlockingIOError):
                    os.read(wake_r, 512)
                _reap(children)
            if listener in readable:
                conn, _ = listener.accept()
                conns[conn] = None
            for conn in [c for c in readable if isinstance(c, socket.socket) and c in conns]:
                pid = conns[conn]
                try:
                    data, fds, _flags, _addr = socket.recv_fds(conn, MAX_MESSAGE, MAX_FDS)
                except OSError:
                    data, fds = b"", []
                if pid is None and data:
                    pid = _fork(data, fds)
                    conns[conn] = pid
                    if pid is not None:
                        children[pid] = conn
                    _send(conn, {"pid": pid} if pid else {"error": "fork failed"})
                    continue
                for fd in fds:
                    os.close(fd)
                if not data:  # the owner closed: its child must not outlive it
                    del conns[conn]
                    if pid is not None and pid in children:
                        _kill_group(pid)
                    conn.close()
    finally:
        for pid in children:
            _kill_group(pid)
        for pid in list(children):
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        for leftover in (path, path + ".tmp"):
            with contextlib.suppress(OSError):
                os.unlink(leftover)
    return 0


def _send(conn: socket.socket, message: Mapping[str, Any]) -> None:
    with contextlib.suppress(OSError):
        conn.send(json.dumps(message).encode())


def _reap(children: dict[int, socket.socket]) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = children.pop(pid, None)
        if conn is not None:
            _send(conn, {"exit": os.waitstatus_to_exitcode(status)})


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _fork(data: bytes, fds: list[int]) -> int | None:
    try:
        request = json.loads(data)
        pid = os.fork()
    except (OSError, ValueError):
        for fd in fds:
            os.close(fd)
        return None
    if pid == 0:
        _child(request, fds)  # never returns
    for fd in fds:
        os.close(fd)
    return pid


def _child(request: dict[str, Any], fds: list[int]) -> None:
    """In the forked child: become ``python ARGV`` as the request says, then exit."""
    code: Any = 1
    try:
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.setsid()
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        name = str(request.get("name", "forked"))[:15].encode()
        libc.prctl(_PR_SET_NAME, ctypes.c_char_p(name), 0, 0, 0)
        _place_descriptors(fds, [int(t) for t in request["fds"]])
        _environment(request["env"], request.get("cwd"))
        sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the process's own
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), write_through=True)
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), write_through=True)
        argv = list(request["argv"])
        if argv[:1] != ["-m"] or len(argv) < 2:
            raise ForkServerError(f"only 'python -m MODULE ...' is forked, not {argv!r}")
        import runpy

        sys.argv = [argv[1], *argv[2:]]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exc:
        code = exc.code
    except BaseException:  # noqa: BLE001 - reported as python would, then exit 1
        traceback.print_exc()
        code = 1
    finally:
        with contextlib.suppress(BaseException):
            atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BaseException):
                stream.flush()
        if code is None:
            code = 0
        elif not isinstance(code, int):
            with contextlib.suppress(BaseException):
                print(code, file=sys.stderr)
            code = 1
        os._exit(code)


def _environment(env: Mapping[str, str], cwd: str | None) -> None:
    """The request's environment and working folder, and what a new interpreter would
    have made of them that can still change: ``sys.path`` (``-m``'s folder, PYTHONPATH),
    the time zone. The rest (locale, hash seed) is the server's, which was started with
    the environment of the process that started it."""
    server_cwd, server_paths = os.getcwd(), os.environ.get("PYTHONPATH", "")
    os.environ.clear()
    os.environ.update(env)
    time.tzset()
    if cwd:
        os.chdir(cwd)
        if sys.path and sys.path[0] == server_cwd:
            sys.path[0] = os.getcwd()
    paths = os.environ.get("PYTHONPATH", "")
    if paths != server_paths:
        sys.path[1:1] = [p for p in paths.split(os.pathsep) if p and p not in sys.path]


def _place_descriptors(fds: list[int], targets: list[int]) -> None:
    """``fds[0]`` (the log) as standard output and error, ``/dev/null`` as input, each
    further one at its target number; every other descriptor closed (as ``Popen`` does)."""
    base = max([200, *(t + 1 for t in targets)])
    moved = [fcntl.fcntl(fd, fcntl.F_DUPFD, base) for fd in fds]  # out of the targets' way
    for fd in fds:
        os.close(fd)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(moved[0], 1)
    os.dup2(moved[0], 2)
    for fd, target in zip(moved[1:], targets, strict=True):
        os.dup2(fd, target)  # inheritable, as pass_fds leaves them
    keep = sorted({0, 1, 2, *targets})
    top = max([*moved, null, 1023]) + 1
    for low, high in zip(keep, [*keep[1:], top], strict=True):
        os.closerange(low + 1, high)


# -- the client ------------------------------------------------------------------------------
class ForkedProcess:
    """A child of the fork server, with what episodes use of ``ManagedProcess``: ``pid``,
    ``poll()``, ``stop()``, ``stderr_tail()``. Its connection is its lifeline."""

    def __init__(self, conn: socket.socket, pid: int, name: str, log_path: Path | None):
        self._conn = conn
        self.pid = pid
        self.name = name
        self._log_path = log_path
        self._exit: int | None = None
        self._gone = False

    def _read(self, timeout: float | None) -> None:
        while self._exit is None and not self._gone:
            ready, _, _ = select.select([self._conn], [], [], timeout)
            if not ready:
                return
            try:
                data = self._conn.recv(4096)
            except OSError:
                data = b""
            if not data:  # the server is gone: so is its child (parent-death signal)
                self._gone = True
                return
            message = json.loads(data)
            if "exit" in message:
                self._exit = int(message["exit"])
            timeout = 0

    def poll(self) -> int | None:
        if self._exit is None and not self._gone:
            self._read(0)
        if self._exit is None and self._gone:
            from episodes.processes import alive

            if not alive(self.pid):
                self._exit = -signal.SIGTERM
        return self._exit

    def wait(self, timeout: float) -> int | None:
        deadline = time.monotonic() + timeout
        while self.poll() is None and time.monotonic() < deadline:
            self._read(max(0.0, min(0.1, deadline - time.monotonic())))
        return self.poll()

    def stderr_tail(self, limit: int = 800) -> str:
        return log_tail(self._log_path, limit)

    def stop(self, grace: float = 3.0) -> None:
        """SIGTERM its process group, SIGKILL after ``grace`` seconds; then the connection
        is closed (which would kill it too)."""
        if self._conn.fileno() < 0:
            return
        if self.poll() is None:
            _signal_group(self.pid, signal.SIGTERM)
            if self.wait(grace) is None:
                _signal_group(self.pid, signal.SIGKILL)
                self.wait(grace)
        _signal_group(self.pid, signal.SIGKILL)  # what is left of its group
        self._conn.close()

    def __repr__(self) -> str:
        return f"ForkedProcess({self.name!r}, pid={self.pid})"


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


class ForkServer:
    """A client of the fork server at ``path`` (and, when this process started it, the
    server's process)."""

    def __init__(self, path: str | Path, process: Any = None, workdir: Path | None = None):
        self.path = str(path)
        self.process = process
        self._workdir = workdir

    @classmethod
    def start(cls, warm: Sequence[str], timeout: float = 60.0) -> ForkServer:
        """Start a fork server importing ``warm``; returns once it accepts requests."""
        from pixel_stream.procs import ManagedProcess, wait_until

        workdir = Path(tempfile.mkdtemp(prefix="ehr-fork-"))
        path = workdir / "fork.sock"
        options = [part for module in warm for part in ("--warm", module)]
        process = ManagedProcess(
            [sys.executable, "-m", "episodes.forkserver", "--socket", str(path), *options],
            name="fork server", log_path=workdir / "forkserver.log").start()
        server = cls(path, process, workdir)
        try:
            wait_until(path.exists, timeout, "the fork server", 0.01, process)
        except BaseException:
            server.stop()
            raise
        return server

    def spawn(self, argv: Sequence[str], *, name: str, env: Mapping[str, str],
              log_path: Path | None = None, pass_fds: Sequence[int] = (),
              cwd: str | Path | None = None, stdout: int | None = None) -> ForkedProcess:
        """``argv`` (``[python, -m, MODULE, ...]``) forked from the server, as
        ``ManagedProcess(argv, ...).start()`` would run it; ``stdout``: a descriptor for its
        standard output instead of the log (which keeps its standard error)."""
        if list(argv[1:2]) != ["-m"]:
            raise ForkServerError(f"only 'python -m MODULE ...' is forked, not {argv!r}")
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        log = open(log_path, "ab") if log_path is not None else open(os.devnull, "wb")  # noqa: SIM115
        try:
            conn.connect(self.path)
            fds, targets = list(pass_fds), list(pass_fds)
            if stdout is not None:
                fds.append(stdout)
                targets.append(1)
            request = {"argv": list(argv[1:]), "env": dict(env), "name": name,
                       "cwd": str(cwd or os.getcwd()), "fds": targets}
            socket.send_fds(conn, [json.dumps(request).encode()], [log.fileno(), *fds])
            ready, _, _ = select.select([conn], [], [], 30.0)
            reply = json.loads(conn.recv(4096) or b"{}") if ready else {}
        except (OSError, ValueError) as exc:
            conn.close()
            raise ForkServerError(f"the fork server did not fork {name}: {exc}") from exc
        finally:
            log.close()
        if not reply.get("pid"):
            conn.close()
            raise ForkServerError(f"the fork server did not fork {name}: {reply}")
        return ForkedProcess(conn, int(reply["pid"]), name,
                             Path(log_path) if log_path is not None else None)

    def stop(self) -> None:
        """Stop the server this process started (it kills what it forked that still runs)."""
        if self.process is not None:
            self.process.stop()
            self.process = None
        if self._workdir is not None:
            import shutil

            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None


_current: ForkServer | None = None


def use(server: ForkServer | None) -> None:
    """Make ``server`` the one this process's episodes fork from (None: none)."""
    global _current
    _current = server


def current() -> ForkServer | None:
    """The fork server in use: ``use``'s, else the one ``EHR_SANDBOX_FORKSERVER`` names."""
    if _current is not None:
        return _current
    path = os.environ.get(ENV_SOCKET)
    return ForkServer(path) if path and os.path.exists(path) else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m episodes.forkserver",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--socket", required=True, help="the Unix socket to listen on")
    parser.add_argument("--warm", action="append", default=[],
                        help="a module to import; MODULE:FUNCTION also calls the function")
    args = parser.parse_args(argv)
    return serve(args.socket, args.warm)


if __name__ == "__main__":
    sys.exit(main())
