"""Inside the browser's new namespace: build its root, then become the browser.

Run as a script by the launcher ``episodes.confine`` writes (``python -I -S``), with the
plan as arguments and the program after ``--``::

    confine_exec.py root /run/x/.browser-root symlink usr/bin /bin \\
        robind /usr /usr bind /run/x/home /run/x/home proc /proc tmpfs /dev 0755 ... pivot \\
        -- /usr/lib/chromium/chromium ARGS...

``root`` mounts an empty tmpfs (the new root) on a host folder; every later path but a
bind's source is inside it. ``pivot`` makes the root read-only, makes it ``/`` and detaches
the old one: nothing of the machine is left that was not bound.

It imports only ``os``, ``sys`` and ``ctypes``: it is on the browser's start path, and one
process making every mount by system call is far quicker than a ``mount`` per step.
File descriptors (the remote-debugging pipe's 3 and 4) pass through ``exec`` untouched.
"""

from __future__ import annotations

import ctypes
import os
import sys

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 32, 4096, 16384
MNT_DETACH = 2
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203,
                  "s390x": 217}
ARITY = {"root": 1, "symlink": 2, "bind": 2, "robind": 2, "proc": 1, "tmpfs": 2,
         "pivot": 0}


def parse(argv: list[str]) -> tuple[list[list[str]], list[str]]:
    """(steps, program argv) from ``STEP ARGS... -- PROGRAM ARGS...``."""
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
    if not steps or steps[0][0] != "root" or steps[-1] != ["pivot"]:
        raise ValueError("the plan must start with 'root' and end with 'pivot'")
    return steps, program


def apply(steps: list[list[str]]) -> None:
    """Make the steps of ``Confinement.mount_plan``, in order; OSError on the first that
    fails (the browser then does not start: never unconfined by accident)."""
    libc = ctypes.CDLL(None, use_errno=True)

    def check(result: int, what: str) -> None:
        if result != 0:
            errno = ctypes.get_errno()
            raise OSError(errno, f"{what}: {os.strerror(errno)}")

    def mount(source: str | None, target: str, fstype: str | None, flags: int,
              data: str | None = None) -> None:
        enc = [None if v is None else v.encode() for v in (source, target, fstype, data)]
        check(libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]),
              f"mount {fstype or ''} {source or ''} -> {target}")

    root = ""

    def inside(path: str) -> str:
        return root + "/" + path.lstrip("/")

    for op, *args in steps:
        if op == "root":
            root = args[0].rstrip("/")
            os.makedirs(root, exist_ok=True)
            mount("ehr-confine", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")
        elif op == "symlink":
            os.makedirs(os.path.dirname(inside(args[1])), exist_ok=True)
            os.symlink(args[0], inside(args[1]))
        elif op in ("bind", "robind"):
            target = inside(args[1])
            os.makedirs(os.path.dirname(target), exist_ok=True)
            if os.path.isdir(args[0]):
                os.makedirs(target, exist_ok=True)
            else:
                open(target, "a").close()  # a file (or device) is bound onto a file
            mount(args[0], target, None, MS_BIND | MS_REC)
            if op == "robind":
                mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY)
        elif op == "proc":
            os.makedirs(inside(args[0]), exist_ok=True)
            mount("proc", inside(args[0]), "proc", MS_NOSUID | MS_NODEV)
        elif op == "tmpfs":
            os.makedirs(inside(args[0]), exist_ok=True)
            mount("ehr-confine", inside(args[0]), "tmpfs", MS_NOSUID, f"mode={args[1]}")
        elif op == "pivot":
            mount(None, root, None, MS_REMOUNT | MS_BIND | MS_RDONLY)
            _pivot(libc, root, check)


def _pivot(libc, root: str, check) -> None:
    """``root`` becomes ``/``; the old root is detached (no path leads back to it)."""
    number = SYS_PIVOT_ROOT.get(os.uname().machine)
    if number is None:
        raise OSError(0, f"pivot_root: unknown system call number on {os.uname().machine}")
    os.chdir(root)
    check(libc.syscall(ctypes.c_long(number), b".", b"."), "pivot_root")
    check(libc.umount2(b".", MNT_DETACH), "umount the old root")
    os.chdir("/")


def main(argv: list[str]) -> None:
    try:
        steps, program = parse(argv)
        apply(steps)
    except (OSError, ValueError) as exc:
        raise SystemExit(f"confine_exec: {exc}") from exc
    os.execv(program[0], program)


if __name__ == "__main__":
    main(sys.argv[1:])
