"""Where the repository keeps its data, and where a machine keeps what it derives from it."""

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
FIXTURES_DIR = REPO_ROOT / "fixtures"
TASKS_DIR = FIXTURES_DIR / "tasks"
WORLD_DIR = FIXTURES_DIR / "world"
SEEDS_DIR = FIXTURES_DIR / "seeds"  # the task proposals, word for word
SHARED_DIR = REPO_ROOT.parent / "shared"  # the team's folder beside a developer's checkout


def cache_dir() -> Path:
    """This machine's cache of derived data (the seeded worlds, the ICD-10-CM index):
    ``$EHR_SANDBOX_CACHE``, else ``$XDG_CACHE_HOME/ehr-sandbox`` (``~/.cache/ehr-sandbox``).
    Everything in it is made again when missing."""
    base = os.environ.get("EHR_SANDBOX_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "ehr-sandbox")
    return Path(base)
