"""A published app's interpreter, started before its display and run directory are ready.

``python -m episodes.prestart --go FD [--warm MODULE]... -- (-m MODULE | SCRIPT) ARGS...``

An episode starts the desktop EHR's Python at once, beside everything else: it imports the
modules named by ``--warm`` (the app's heavy imports: Qt, its windows, the stores) while the
app's display starts and the run is seeded, then blocks reading the pipe ``FD`` (no
polling). The episode writes one JSON line there once both are ready — the variables to add
to the environment (``DISPLAY``...) — and the app then runs exactly as ``python -m MODULE
ARGS`` (or ``python SCRIPT ARGS``) would, from its ``__main__``. The app does the same work
in the same order on the same display: only the imports happened earlier. An episode that
ends first closes the pipe and the process exits without running the app.
"""

from __future__ import annotations

import importlib
import json
import os
import runpy
import sys


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


def main(argv: list[str] | None = None) -> int:
    try:
        go, warm, command = parse(sys.argv[1:] if argv is None else argv)
    except ValueError as exc:
        print(f"episodes.prestart: {exc}", file=sys.stderr)
        return 2
    for module in warm:
        try:
            importlib.import_module(module)
        except Exception:  # noqa: BLE001 - the app itself will say what is missing
            pass
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
