"""``ehr-sandbox run --agent gold --save-gold-trace`` keeps a passing oracle's trace as the
task's gold trace, and refuses to when it cannot be a gold run."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DEMO = Path(__file__).parents[2] / "fixtures" / "demo" / "DEMO-T01"


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "episodes.cli", *args],
                          capture_output=True, text=True, timeout=300)


def test_save_gold_trace_needs_the_gold_agent(tmp_path: Path):
    done = cli("--tasks-dir", str(DEMO.parent), "run", "demo-01", "--agent", "none",
               "--save-gold-trace", "--out", str(tmp_path / "run"))
    assert done.returncode == 2
    assert "--save-gold-trace needs --agent gold" in done.stderr
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_a_passing_gold_run_writes_the_tasks_gold_trace(tmp_path: Path):
    tasks = tmp_path / "tasks"
    shutil.copytree(DEMO, tasks / DEMO.name)
    target = tasks / DEMO.name / "gold.trace.jsonl"
    assert not target.exists()
    done = cli("--tasks-dir", str(tasks), "run", "demo-01", "--agent", "gold",
               "--save-gold-trace", "--out", str(tmp_path / "run"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"gold trace: {target}" in done.stdout
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert lines[0]["kind"] == "header"
    assert len(lines) > 1 and all(e["client"] == "oracle" for e in lines[1:])
    assert target.read_bytes() == (tmp_path / "run" / "trace" / "trace.jsonl").read_bytes()
