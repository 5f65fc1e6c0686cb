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


def output_folder(path: Path, *, may_hold_results: bool = False) -> Path:
    """``path`` made ready as the command's --out folder (created with its parents), or a
    UsageError that says why it cannot be: a file is there, the folder holds an earlier
    run (unless ``may_hold_results``: a bench's --resume), or it cannot be written."""
    if path.exists() and not path.is_dir():
        raise UsageError(f"{path} is a file, not a folder; choose a new --out folder")
    if not may_hold_results and path.is_dir() and any(path.iterdir()):
        raise UsageError(f"{path} is not empty; choose a new --out folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".write-test"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"cannot write to {path}: {exc.strerror or exc}; choose a folder "
                         "you can write") from None
    return path
