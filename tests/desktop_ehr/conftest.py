"""Fixtures: seeded run dirs (built once, copied per test), logged-in contexts and windows."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from desktop_ehr.services.auth import authenticate
from desktop_ehr.services.catalog import load_reference
from desktop_ehr.session import EhrContext
from tests.desktop_ehr.rundirs import CREDENTIALS, build_run_dir, copy_run_dir


@pytest.fixture(scope="session")
def run_templates(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("desktop-runs")
    return {system: build_run_dir(system, base / system)
            for system in ("hyperspace", "powerchart")}


def _ctx(run_dir: Path, system: str) -> EhrContext:
    ctx = EhrContext.from_run_dir(system, run_dir)
    ctx.user = authenticate(ctx, *CREDENTIALS[system])
    return ctx


@pytest.fixture
def hs_run(run_templates, tmp_path) -> Path:
    return copy_run_dir(run_templates["hyperspace"], tmp_path / "hs")


@pytest.fixture
def pc_run(run_templates, tmp_path) -> Path:
    return copy_run_dir(run_templates["powerchart"], tmp_path / "pc")


@pytest.fixture
def hs_ctx(hs_run):
    ctx = _ctx(hs_run, "hyperspace")
    yield ctx
    ctx.close()


@pytest.fixture
def pc_ctx(pc_run):
    ctx = _ctx(pc_run, "powerchart")
    yield ctx
    ctx.close()


@pytest.fixture
def hs_ref(hs_ctx):
    return load_reference(hs_ctx)


@pytest.fixture
def pc_ref(pc_ctx):
    return load_reference(pc_ctx)


def audit_rows(run_dir: Path, system: str, channel: str | None = "desktop") -> list[dict]:
    """Audit entries written after seeding (optionally of one channel), oldest first."""
    conn = sqlite3.connect(f"file:{run_dir / 'stores' / (system + '.sqlite')}?mode=ro",
                           uri=True)
    try:
        conn.row_factory = sqlite3.Row
        rows = [dict(r) for r in conn.execute(
            "SELECT * FROM audit_log WHERE channel != 'seed' ORDER BY id")]
    finally:
        conn.close()
    for row in rows:
        row["after"] = json.loads(row["after"]) if row["after"] else None
        row["before"] = json.loads(row["before"]) if row["before"] else None
    return [r for r in rows if channel is None or r["channel"] == channel]


def table_counts(rows: list[dict]) -> dict[tuple[str, str], int]:
    counts: dict[tuple[str, str], int] = {}
    for row in rows:
        key = (row["action"], row["table_name"])
        counts[key] = counts.get(key, 0) + 1
    return counts


@pytest.fixture
def audit():
    return audit_rows


@pytest.fixture(scope="session")
def seeded_task(tmp_path_factory):
    """``seeded_task(alias, out)``: a fresh copy of the task's seeded run directory (each
    task is seeded once per session; some seeds render PDFs and take seconds)."""
    import shutil

    from sandbox.catalog import load_catalog
    from sandbox.seeding import seed_task

    templates: dict[str, Path] = {}
    base = tmp_path_factory.mktemp("task-seeds")

    def make(alias: str, out: Path):
        spec = load_catalog().get(alias)
        if alias not in templates:
            templates[alias] = seed_task(spec, None, base / alias)
        shutil.copytree(templates[alias], out)
        return spec, out

    return make


def login(window, system: str) -> None:
    user, password = CREDENTIALS[system]
    window.login.username.setText(user)
    window.login.password.setText(password)
    assert window.login.attempt() is not None


@pytest.fixture
def hs_window(qtbot, hs_run):
    from desktop_ehr.app import LaunchOptions, build

    window, _ = build(LaunchOptions("hyperspace", hs_run))
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    login(window, "hyperspace")
    yield window
    window.ctx.close()


@pytest.fixture
def pc_window(qtbot, pc_run):
    from desktop_ehr.app import LaunchOptions, build

    window, _ = build(LaunchOptions("powerchart", pc_run))
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    login(window, "powerchart")
    yield window
    window.ctx.close()
