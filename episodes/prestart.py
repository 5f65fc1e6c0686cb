"""A published app's interpreter, started before its display and run directory are ready.

``python -m episodes.prestart --go FD [--warm MODULE[:FUNCTION]]... --
(-m MODULE | SCRIPT) ARGS...``

An episode starts the desktop EHR's Python and its web server's (``portal_web``) at once,
beside everything else: each imports the modules named by ``--warm`` (the heavy imports: Qt,
the app's windows, the stores; uvicorn and the task's sites), and calls each ``FUNCTION``
named after its module (work the app would otherwise do on its first request or window:
importing a site's views, configuring the ORM's mappers), while the displays start and
the run is seeded, then blocks reading the pipe ``FD`` (no polling). The episode writes one JSON line there once both are ready — the variables to add
to the environment (``DISPLAY``...) — and the app then runs exactly as ``python -m MODULE
ARGS`` (or ``python SCRIPT ARGS``) would, from its ``__main__``. The app does the same work
in the same order on the same display: only the imports happened earlier. An episode that
ends first closes the pipe and the process exits without running the app.
"""

from __future__ import annotations

import json
import logging
import os
import runpy
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from episodes.warm import warm_up

log = logging.getLogger(__name__)


def parse(argv: list[str]) -> tuple[int, list[str], list[str]]:
    """(go fd, modules to warm, the app's command after ``--``)."""
    if "--" not in argv:
        raise ValueError("no app command after '--'")
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1:]
    go, warm = None, []
    i = 0
    while i < len(options):
        if options[i] in ("--go", "--warm") and i + 1 < len(options):
            if options[i] == "--go":
                go = int(options[i + 1])
            else:
                warm.append(options[i + 1])
            i += 2
        else:
            raise ValueError(f"unknown option {options[i]!r}")
    if go is None:
        raise ValueError("--go FD is required")
    if not command or (command[0] == "-m" and len(command) < 2):
        raise ValueError("the app command is empty")
    return go, warm, command


def spawn(command: Sequence[str], warm: Iterable[str], *, name: str, env: Mapping[str, str],
          log_path: Path, pass_fds: Sequence[int] = ()) -> tuple[Any, int]:
    """Start ``command`` (a Python command line: ``[python, -m, MODULE, ...]`` or
    ``[python, SCRIPT, ...]``) prestarted: (its ``ManagedProcess``, the pipe to ``go`` on).
    With a fork server in use (``episodes.forkserver``: a warm pool), it is forked from
    there (a ``ForkedProcess``) rather than a new interpreter."""
    from episodes import forkserver
    from pixel_stream.procs import ManagedProcess

    options = [part for module in warm for part in ("--warm", module)]
    read_fd, write_fd = os.pipe()
    argv = [sys.executable, "-m", "episodes.prestart", "--go", str(read_fd), *options,
            "--", *command[1:]]
    server = forkserver.current()
    try:
        process: Any = None
        if server is not None:
            try:
                process = server.spawn(argv, name=name, env=env, log_path=log_path,
                                       pass_fds=(read_fd, *pass_fds))
            except forkserver.ForkServerError as exc:
                log.warning("%s; starting it as a new interpreter", exc)
        if process is None:
            process = ManagedProcess(argv, name=name, env=env, log_path=log_path,
                                     pass_fds=(read_fd, *pass_fds)).start()
    except BaseException:
        os.close(write_fd)
        raise
    finally:
        os.close(read_fd)
    return process, write_fd


def go(pipe: int, env: Mapping[str, str] | None = None) -> None:
    """Let a prestarted process run its command (with ``env`` added); closes the pipe."""
    with os.fdopen(pipe, "wb") as out:
        out.write(json.dumps(dict(env or {})).encode() + b"\n")


def main(argv: list[str] | None = None) -> int:
    try:
        go, warm, command = parse(sys.argv[1:] if argv is None else argv)
    except ValueError as exc:
        print(f"episodes.prestart: {exc}", file=sys.stderr)
        return 2
    warm_up(warm)
    with os.fdopen(go, "rb") as pipe:
        line = pipe.readline()
    if not line:
        return 0  # the episode ended before the app was needed
    os.environ.update(json.loads(line))
    os.environ.pop("WAYLAND_DISPLAY", None)
    if command[0] == "-m":
        sys.argv = [command[1], *command[2:]]
        runpy.run_module(command[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(command)
        runpy.run_path(command[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
