"""Builds a run directory from the portal_web test world (``data/ehr_dev.yaml``).

Used by the tests, and by hand: ``python -m tests.portal_web.devrun /tmp/ehr-run`` then
``python -m portal_web --run-dir /tmp/ehr-run --port 8080``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from sandbox.clock import SandboxClock
from sandbox.seeding import RUN_SUBDIRS, checkpoint, load_rows, snapshot
from sandbox.stores import Store

DEV_WORLD = Path(__file__).parent / "data" / "ehr_dev.yaml"


def make_dev_run(run_dir: Path) -> Path:
    """A fresh run directory whose ehr store holds the test world; the clock is frozen."""
    run_dir = Path(run_dir)
    for sub in RUN_SUBDIRS:
        (run_dir / sub).mkdir(parents=True, exist_ok=True)
    clock = SandboxClock()
    clock.save(run_dir / "clock.json")
    path = run_dir / "stores" / "ehr.sqlite"
    store = Store("ehr", path, clock).create()
    try:
        load_rows(store, DEV_WORLD)
    finally:
        store.dispose()
    checkpoint(path)
    snapshot(run_dir)
    return run_dir


if __name__ == "__main__":
    print(make_dev_run(Path(sys.argv[1])))
