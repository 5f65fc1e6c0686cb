"""Seeded run directories for the client's tests, built once per session and copied.

A run dir here is the world file of the persona's store plus test-only rows
(``data/<system>_extra.yaml``), so the tests do not move when a task's own seed changes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from sandbox.clock import SandboxClock
from sandbox.paths import WORLD_DIR
from sandbox.seeding import checkpoint, load_rows, snapshot
from sandbox.stores import Store

DATA = Path(__file__).parent / "data"
EPISODE = "ep-test-desktop"
CREDENTIALS = {"hyperspace": ("EPICTRN01", "Hyperspace#2026"),
               "powerchart": ("PCTRAIN01", "PowerChart#2026")}


def build_run_dir(system: str, out: Path) -> Path:
    """A run dir with ``stores/<system>.sqlite``, ``seed/``, ``clock.json``, ``run.json``."""
    for sub in ("stores", "seed", "input"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    clock = SandboxClock()
    clock.save(out / "clock.json")
    path = out / "stores" / f"{system}.sqlite"
    store = Store(system, path, clock).create()
    try:
        load_rows(store, WORLD_DIR / f"{system}.yaml")
        load_rows(store, DATA / f"{system}_extra.yaml")
    finally:
        store.dispose()
    checkpoint(path)
    snapshot(out)
    (out / "run.json").write_text(json.dumps({"task": "test", "episode_id": EPISODE}) + "\n")
    return out


def copy_run_dir(template: Path, out: Path) -> Path:
    shutil.copytree(template, out)
    return out
