"""Inside the browser's new namespace: make the mounts, then become the browser.

Run as a script by the launcher ``episodes.confine`` writes (``python -I -S``, before any
folder is hidden), with the mount plan as arguments and the program after ``--``::

    confine_exec.py tmpfs /boot bind /run/x/home /boot/0 ... move /boot/0 /run/x/home \\
        readonly /run/x/input -- /usr/lib/chromium/chromium ARGS...

It imports only ``os``, ``sys`` and ``ctypes``: it is on the browser's start path, and one
process making every mount by system call is far quicker than a ``mount`` per step.
File descriptors (the remote-debugging pipe's 3 and 4) pass through ``exec`` untouched.
"""

from __future__ import annotations

import ctypes
import os
import sys

MS_RDONLY, MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC = 1, 32, 4096, 8192, 16384
ARITY = {"tmpfs": 1, "bind": 2, "move": 2, "readonly": 1}


def parse(argv: list[str]) -> tuple[list[list[str]], list[str]]:
    """(mount steps, program argv) from ``STEP PATHS... -- PROGRAM ARGS...``."""
    steps, i = [], 0
    while i < len(argv) and argv[i] != "--":
        op = argv[i]
        if op not in ARITY or i + ARITY[op] >= len(argv):
            raise ValueError(f"bad mount step at {argv[i:i + 3]!r}")
        steps.append(argv[i:i + 1 + ARITY[op]])
        i += 1 + ARITY[op]
    program = argv[i + 1:]
    if not program:
        raise ValueError("no program after '--'")
    return steps, program


def apply(steps: list[list[str]]) -> None:
    """Make the mounts of ``Confinement.mount_plan``, in order; OSError on the first that
    fails (the browser then does not start: never unconfined by accident)."""
    libc = ctypes.CDLL(None, use_errno=True)

    def mount(source: str | None, target: str, fstype: str | None, flags: int,
              data: str | None = None) -> None:
        enc = [None if v is None else v.encode() for v in (source, target, fstype, data)]
        if libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]) != 0:
            errno = ctypes.get_errno()
            raise OSError(errno, f"mount {fstype or ''} {source or ''} -> {target}: "
                                 f"{os.strerror(errno)}")

    for op, *paths in steps:
        if op == "tmpfs":
            mount("ehr-confine", paths[0], "tmpfs", 0, "mode=0755")
        elif op == "bind":
            os.mkdir(paths[1])
            mount(paths[0], paths[1], None, MS_BIND | MS_REC)
        elif op == "move":
            os.makedirs(paths[1], exist_ok=True)
            mount(paths[0], paths[1], None, MS_MOVE)
        elif op == "readonly":
            mount(None, paths[0], None, MS_REMOUNT | MS_BIND | MS_RDONLY)


def main(argv: list[str]) -> None:
    try:
        steps, program = parse(argv)
        apply(steps)
    except (OSError, ValueError) as exc:
        raise SystemExit(f"confine_exec: {exc}") from exc
    os.execv(program[0], program)


if __name__ == "__main__":
    main(sys.argv[1:])
