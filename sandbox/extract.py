"""Extract: a consistent, self-contained copy of a run for grading.

Stores are copied with SQLite's online backup API (safe while apps are writing); the seeded
snapshot, inputs, Workspace outputs, downloads and received faxes are copied as files.
The verifier reads only extracts, never a live run.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from sandbox.clock import SandboxClock, SharedClock
from sandbox.errors import SandboxError
from sandbox.seeding import backup_store


class ExtractError(SandboxError, ValueError):
    """The run directory cannot be extracted."""


def extract_run(run_dir: Path, out_dir: Path) -> Path:
    run_dir, out_dir = Path(run_dir), Path(out_dir)
    if not (run_dir / "run.json").is_file():
        raise ExtractError(f"{run_dir} is not a run directory (no run.json); "
                           "seed one with 'ehr-sandbox seed TASK --out DIR'")
    if out_dir.exists() and any(out_dir.iterdir()):
        raise ExtractError(f"{out_dir} is not empty; choose a new --out directory")
    out_dir.mkdir(parents=True, exist_ok=True)
    for store in sorted((run_dir / "stores").glob("*.sqlite")):
        backup_store(store, out_dir / "stores" / store.name)
    for sub in ("seed", "input", "output", "downloads", "fax_sink"):
        src = run_dir / sub
        if src.is_dir():
            shutil.copytree(src, out_dir / sub)
        else:
            (out_dir / sub).mkdir()
    shutil.copy2(run_dir / "run.json", out_dir / "run.json")
    clock_path = run_dir / "clock.json"
    extracted_at = None
    if clock_path.exists():
        shutil.copy2(clock_path, out_dir / "clock.json")
        extracted_at = SharedClock(clock_path).now().isoformat()
    files = {}
    for path in sorted(p for p in out_dir.rglob("*") if p.is_file()):
        rel = str(path.relative_to(out_dir))
        files[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    manifest = {"source": str(run_dir), "extracted_at_sandbox": extracted_at, "files": files}
    (out_dir / "extract.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return out_dir


__all__ = ["ExtractError", "SandboxClock", "extract_run"]
