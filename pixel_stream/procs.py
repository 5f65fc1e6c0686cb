"""Child processes that cannot outlive their owner.

Every helper process (Xvfb, openbox, x11vnc, websockify, a published app) is started in
its own session, so it has its own process group: stopping it signals the whole group,
and a terminal Ctrl-C reaches only our Python process, which then stops its children in
order. Where util-linux ``setpriv`` exists the child also gets a parent-death signal, so
even a ``kill -9`` of the owner does not leave an X server behind.

``wait_until`` is how callers wait for a condition (a socket, a window, a file) instead of
sleeping for a guessed time.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

T = TypeVar("T")

_SETPRIV = shutil.which("setpriv")
_live: set[ManagedProcess] = set()
_live_lock = threading.Lock()


class ProcessError(RuntimeError):
    """A helper process could not be started or died while it was needed."""


def wait_until(
    condition: Callable[[], T],
    timeout: float,
    what: str,
    interval: float = 0.01,
    alive: ManagedProcess | None = None,
) -> T:
    """Poll ``condition`` until it returns a truthy value; raise ``TimeoutError`` naming ``what``.

    ``alive`` names a process whose early death ends the wait with a clear error instead of
    running into the timeout.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        time_left(deadline, timeout, what, alive)
        time.sleep(interval)


def time_left(deadline: float, timeout: float, what: str,
              alive: ManagedProcess | None = None) -> float:
    """Seconds left until ``deadline`` (monotonic) of a wait for ``what``; ``ProcessError``
    when ``alive`` died meanwhile, ``TimeoutError`` when no time is left (``wait_until``'s
    errors, for waits that sleep on something else than a timer)."""
    if alive is not None and alive.poll() is not None:
        raise ProcessError(
            f"{alive.name} exited with status {alive.poll()} while waiting for {what}"
            f"{alive.stderr_tail()}"
        )
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError(f"timed out after {timeout:.1f} s waiting for {what}")
    return left


class ManagedProcess:
    """One child process in its own process group, stopped with its whole group."""

    def __init__(
        self,
        argv: Sequence[str],
        name: str | None = None,
        env: Mapping[str, str] | None = None,
        pass_fds: Sequence[int] = (),
        log_path: str | os.PathLike[str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
    ) -> None:
        self.argv = list(argv)
        self.name = name or os.path.basename(self.argv[0])
        self._env = dict(env) if env is not None else None
        self._pass_fds = tuple(pass_fds)
        self._log_path = log_path
        self._cwd = cwd
        self._popen: subprocess.Popen[bytes] | None = None
        self._log_file = None

    @property
    def pid(self) -> int:
        if self._popen is None:
            raise ProcessError(f"{self.name} was not started")
        return self._popen.pid

    def start(self) -> ManagedProcess:
        """Start the process in a new session (and process group)."""
        argv = self.argv
        if _SETPRIV:
            argv = [_SETPRIV, "--pdeathsig", "TERM", "--", *argv]
        if self._log_path is not None:
            self._log_file = open(self._log_path, "ab")  # noqa: SIM115 - closed in stop()
            out = self._log_file
        else:
            out = subprocess.DEVNULL
        try:
            self._popen = subprocess.Popen(
                argv,
                env=self._env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                pass_fds=self._pass_fds,
                start_new_session=True,
                cwd=self._cwd,
            )
        except OSError as exc:
            raise ProcessError(f"cannot start {self.name} ({self.argv[0]}): {exc}") from exc
        with _live_lock:
            _live.add(self)
        return self

    def poll(self) -> int | None:
        return None if self._popen is None else self._popen.poll()

    def stderr_tail(self, limit: int = 800) -> str:
        """The end of the process log, for error messages."""
        return log_tail(self._log_path, limit)

    def stop(self, grace: float = 3.0) -> None:
        """SIGTERM the process group, SIGKILL it after ``grace`` seconds, reap the child."""
        popen = self._popen
        if popen is None:
            return
        try:
            pgid = os.getpgid(popen.pid)
        except ProcessLookupError:
            pgid = None
        if pgid is not None and popen.poll() is None:
            _signal_group(pgid, signal.SIGTERM)
            try:
                popen.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                _signal_group(pgid, signal.SIGKILL)
                popen.wait(timeout=grace)
        else:
            popen.poll()
        if pgid is not None:
            # Grandchildren of the group (a shell's children) must not survive either.
            _signal_group(pgid, signal.SIGKILL)
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        with _live_lock:
            _live.discard(self)

    def __repr__(self) -> str:
        pid = self._popen.pid if self._popen else None
        return f"ManagedProcess({self.name!r}, pid={pid})"


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def stop_all() -> None:
    """Stop every process this module started and that is still running (at exit)."""
    with _live_lock:
        procs = list(_live)
    for proc in procs:
        try:
            proc.stop(grace=1.0)
        except Exception:  # noqa: BLE001 - best effort during interpreter exit
            pass


atexit.register(stop_all)


def log_tail(path: str | os.PathLike[str] | None, limit: int = 800) -> str:
    """"; its log ends with: ..." (the last ``limit`` bytes of the log at ``path``), for
    error messages; "" without a log or when it is empty or unreadable."""
    if path is None:
        return ""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - limit))
            text = fh.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""
    return f"; its log ends with:\n{text}" if text else ""
