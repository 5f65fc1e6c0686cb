"""Where the repository keeps its data."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
FIXTURES_DIR = REPO_ROOT / "fixtures"
TASKS_DIR = FIXTURES_DIR / "tasks"
WORLD_DIR = FIXTURES_DIR / "world"
SEEDS_DIR = FIXTURES_DIR / "seeds"  # the task proposals, word for word
SHARED_DIR = REPO_ROOT.parent / "shared"  # the team's folder beside a developer's checkout
