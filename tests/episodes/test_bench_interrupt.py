"""Ctrl-C during a bench leaves no Xvfb, Chromium or app behind (nor its warm pool, nor what
was forked from it), and --resume finishes it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.episodes.conftest import DEMO_DIR

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("warm_pool", ["off", "on"])
def test_interrupted_bench_cleans_up_and_resumes(tmp_path, no_leaks, warm_pool):
    out = tmp_path / "bench"
    argv = [sys.executable, "-m", "episodes.cli", "--tasks-dir", str(DEMO_DIR), "bench",
            "--agent", "none", "--tasks", "demo-01", "--variants", "all", "--parallel", "2",
            "--warm-pool", warm_pool, "--out", str(out)]
    bench = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    profiles = [out / "runs" / f"demo-01__{v}" / "home" / ".config" / "chromium"
                for v in ("default", "twin")]
    deadline = time.monotonic() + 60
    while not all(p.exists() for p in profiles):  # both browsers are starting
        assert bench.poll() is None, bench.communicate()
        assert time.monotonic() < deadline, "the episodes never started"
        time.sleep(0.1)
    # forked children keep the server's command line: the server and what it forked
    forked = [cmd for _, cmd in no_leaks(0) if "episodes.forkserver" in cmd]
    assert len(forked) >= (3 if warm_pool == "on" else 0), forked
    assert warm_pool == "on" or not forked, forked
    os.kill(bench.pid, signal.SIGINT)
    _, err = bench.communicate(timeout=60)
    assert bench.returncode == 130, err.decode()
    assert "--resume" in err.decode()
    assert not no_leaks(), "an interrupted bench left processes behind"
    # a row written before the interrupt is a finished episode, never a half one
    before = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()] \
        if (out / "results.jsonl").exists() else []
    assert all(r["status"] == "graded" and r["score"] == 0.0 for r in before), before
    assert len({r["variant"] for r in before}) == len(before) <= 2

    resumed = subprocess.run([*argv, "--resume"], capture_output=True, timeout=180)
    assert resumed.returncode == 0, resumed.stderr.decode()
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(r["variant"] for r in rows) == ["default", "twin"]
    assert {r["status"] for r in rows} == {"graded"} and {r["score"] for r in rows} == {0.0}
    assert (out / "report.html").stat().st_size > 1000
    assert json.loads((out / "bench.json").read_text()).get("warm_pool") is (
        True if warm_pool == "on" else None)
