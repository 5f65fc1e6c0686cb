"""Where the repository keeps its data."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
FIXTURES_DIR = REPO_ROOT / "fixtures"
TASKS_DIR = FIXTURES_DIR / "tasks"
WORLD_DIR = FIXTURES_DIR / "world"
SHARED_DIR = REPO_ROOT.parent / "shared"
