"""What every command shares: the user-error type and the task catalog of the arguments."""

from __future__ import annotations

import argparse
from pathlib import Path

from sandbox.catalog import Catalog, load_catalog


class UsageError(Exception):
    """An error in what the user asked for (exit 2)."""


def tasks_dirs(args: argparse.Namespace) -> list[Path]:
    """The ``--tasks-dir`` folders given (other packs of task folders)."""
    return [Path(d) for d in (args.tasks_dir or [])]


def catalog(args: argparse.Namespace) -> Catalog:
    return load_catalog(tasks_dirs(args))
