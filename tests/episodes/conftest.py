"""Shared fixtures of the episode tests: the demo task catalog and seeded run directories."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.catalog import Catalog
from sandbox.paths import FIXTURES_DIR
from sandbox.seeding import seed_task

DEMO_DIR = FIXTURES_DIR / "demo"


@pytest.fixture(scope="session")
def demo_catalog() -> Catalog:
    return Catalog([DEMO_DIR])


@pytest.fixture
def demo_run(tmp_path: Path, demo_catalog: Catalog) -> Path:
    """A freshly seeded run directory of demo-01."""
    return seed_task(demo_catalog.get("demo-01"), None, tmp_path / "run")
