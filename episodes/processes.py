"""The processes of an episode, seen from /proc (no psutil): which are alive, which belong
to it, when a server answers. (When an app has a window: ``pixel_stream.xprops``.)
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time
from pathlib import Path


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def http_answers(port: int, timeout: float = 0.5) -> bool:
    """True once something answers HTTP on the port (any status) within ``timeout``."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(b"GET / HTTP/1.0\r\nHost: workspace.local\r\n\r\n")
            return sock.recv(12).startswith(b"HTTP/")
    except OSError:
        return False


def proc_stat(pid: int) -> tuple[str, int] | None:
    """(state, ppid) of a process from /proc, or None when it is gone."""
    try:
        data = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = data[data.rfind(")") + 2:].split()
    return fields[0], int(fields[1])


def alive(pid: int) -> bool:
    stat = proc_stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")


def descendants(root: int) -> set[int]:
    """Live descendants of a process (a /proc scan; no psutil)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = proc_stat(int(entry.name))
            if stat is not None and stat[0] not in ("Z", "X"):
                children.setdefault(stat[1], []).append(int(entry.name))
    return _below(children, [root], set())


def with_argument_and_descendants(text: str) -> set[int]:
    """Live processes with ``text`` in their command line and all their descendants, in
    one pass over /proc (``pids_with_argument`` then ``descendants`` of each would read
    /proc once per match: slow on a busy machine)."""
    children: dict[int, list[int]] = {}
    matches: set[int] = set()
    needle = text.encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        stat = proc_stat(pid)
        if stat is None or stat[0] in ("Z", "X"):
            continue
        children.setdefault(stat[1], []).append(pid)
        try:
            if needle in (entry / "cmdline").read_bytes():
                matches.add(pid)
        except OSError:
            continue
    return _below(children, list(matches), set(matches))


def _below(children: dict[int, list[int]], todo: list[int], found: set[int]) -> set[int]:
    """``found`` plus every descendant of the processes in ``todo`` (``children``: parent
    pid to its children's)."""
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def pids_with_argument(text: str) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if text.encode() in cmdline and alive(int(entry.name)):
                found.add(int(entry.name))
    return found


def reap(pids: set[int]) -> None:
    """Kill what is left of the episode's processes (last resort after an orderly stop)."""
    deadline = time.monotonic() + 3.0
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    for pid in pids:
        if alive(pid):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
