"""``ehr-sandbox``: the command line of EHR Sandbox.

The data commands (``tasks``, ``seed``, ``fingerprint``, ``extract``, ``audit verify``,
``verify``) are in :mod:`~episodes.cli.data_commands`, the episode commands (``run``,
``bench``, ``up``) in :mod:`~episodes.cli.episode_commands`, ``compare`` in
:mod:`~episodes.cli.compare_command`. Every error a user can cause
prints one line saying what was wrong and what to do, and exits 2; nothing prints a
traceback.
"""

from __future__ import annotations

import argparse
import sys

from episodes.cli import compare_command, data_commands, episode_commands
from episodes.cli.usage import UsageError
from sandbox import __version__
from sandbox.errors import SandboxError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ehr-sandbox",
        description="Mock healthcare applications and exact verifiers for computer-use agents.")
    parser.add_argument("--version", action="version", version=f"ehr-sandbox {__version__}")
    parser.add_argument("--tasks-dir", action="append", metavar="DIR",
                        help="another folder of task folders (e.g. a held-out pack)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    data_commands.register(sub)
    episode_commands.register(sub)
    compare_command.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (UsageError, SandboxError) as exc:
        print(f"ehr-sandbox: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ehr-sandbox: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


__all__ = ["UsageError", "build_parser", "main"]
