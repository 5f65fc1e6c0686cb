"""``bench --backend ray`` on a real two-node Ray cluster on this machine: three episodes,
their rows and run folders back in ``--out``, a node killed mid-episode and its episode run
again on the other node, credentials only in the episodes' environment (not in Ray's logs, not
in the results), nothing left running."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from episodes.bench_ray import SLOT, episode_slots
from episodes.benchmarks_ray import demo_pack
from tests.episodes.conftest import DEMO_DIR

GIB = 2**30


def test_episode_slots_follow_cores_and_memory(monkeypatch):
    monkeypatch.delenv("EHR_EPISODE_SLOTS", raising=False)
    assert episode_slots(2, 16 * GIB) == 4      # cores bound it
    assert episode_slots(16, 8 * GIB) == 8      # memory bounds it: (8 - 1.5) / 0.75
    assert episode_slots(1, 1 * GIB) == 1       # never below one
    monkeypatch.setenv("EHR_EPISODE_SLOTS", "3")
    assert episode_slots(64, 256 * GIB) == 3


def test_ray_backend_without_ray_says_how_to_install(tmp_path):
    code = ("import sys; sys.modules['ray'] = None; from episodes.cli import main; "
            "sys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", code, "--tasks-dir", str(DEMO_DIR), "bench",
                           "--agent", "none", "--tasks", "demo-01", "--backend", "ray",
                           "--out", str(tmp_path / "b")], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "ehr-sandbox: error: --backend ray needs Ray: pip install -e '.[ray]'"]
    assert not (tmp_path / "b" / "results.jsonl").exists()


@pytest.mark.parametrize("address, message", [
    ("nowhere", "--address 'nowhere': use auto, ray://HOST:PORT or HOST:PORT"),
    ("127.0.0.1:1", "cannot reach the Ray cluster at 127.0.0.1:1: "),
])
def test_a_bad_ray_address_is_one_line(tmp_path, address, message):
    done = subprocess.run([sys.executable, "-m", "episodes.cli", "bench", "--agent", "none",
                           "--tasks", "ord-15", "--backend", "ray", "--address", address,
                           "--out", str(tmp_path / "b")], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"ehr-sandbox: error: {message}"), lines


@pytest.mark.slow
@pytest.mark.timeout(600)  # 70-160 s on a busy machine
def test_ray_bench_on_two_nodes_retries_the_episode_of_a_dead_node(tmp_path, no_leaks,
                                                                    monkeypatch):
    from ray.cluster_utils import Cluster

    scratch = tmp_path / "scratch"
    monkeypatch.setenv("EHR_RAY_SCRATCH", str(scratch))  # the nodes' running episodes
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)  # the cluster has no key
    secret = f"sk-ant-test-{uuid.uuid4().hex}"
    out = tmp_path / "bench"
    pack = demo_pack(tmp_path / "pack", 3)[0]  # demo-01 … demo-03: cheap browser episodes
    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 1, "resources": {SLOT: 2}, "include_dashboard": False})
    session = cluster.head_node.get_session_dir_path()
    try:
        worker = cluster.add_node(num_cpus=1, resources={SLOT: 1})
        worker_id = worker.node_id[:12]
        argv = [sys.executable, "-m", "episodes.cli", "--tasks-dir", str(pack), "bench",
                "--agent", "none", "--tasks", "demo-01,demo-02,demo-03", "--backend", "ray", "--address", cluster.address, "--out", str(out)]
        bench = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 env={**os.environ, "ANTHROPIC_API_KEY": secret})
        deadline = time.monotonic() + 150
        killed = None
        while killed is None:  # the worker node's episode has its workstation up
            assert bench.poll() is None, bench.communicate()
            assert time.monotonic() < deadline, "no episode started on the worker node"
            for folder in scratch.glob(f"*.{worker_id}.0"):
                key = folder.name.split(".")[1]
                if (folder / key / "home").exists():
                    killed = key
            time.sleep(0.2)
        cluster.remove_node(worker, allow_graceful=False)
        stdout, stderr = bench.communicate(timeout=200)
        assert bench.returncode == 0, stderr.decode()[-3000:]
        ray_files = [p for p in Path(session).rglob("*") if p.is_file() and not p.is_socket()]
        assert any(p.name.startswith("runtime_env_agent") for p in ray_files)
        holding = [p for p in ray_files if secret.encode() in p.read_bytes()]
        assert not holding, f"Ray wrote the credential into {holding}"
    finally:
        cluster.shutdown()
        shutil.rmtree(session, ignore_errors=True)

    rows = {r["alias"] + "__" + r["variant"]: r for r in
            map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert sorted(rows) == ["demo-01__default", "demo-02__default", "demo-03__default"]
    for key, row in rows.items():
        assert (row["status"], row["score"]) == ("graded", 0.0), row
        assert row["retries"] == (1 if key == killed else 0), (key, killed)
        run_dir = out / "runs" / key
        assert row["run_dir"] == str(run_dir)
        for name in ("report", "extract", "trace", "final_screenshot"):
            assert row["files"][name].startswith(str(run_dir.resolve())), row["files"]
        assert (run_dir / "report.json").is_file() and (run_dir / "final.png").is_file()
        assert (run_dir / "trace" / "trace.jsonl").is_file()
        assert (run_dir / "extract").is_dir()
        log = (out / "runs" / f"{key}.log").read_text()
        assert "credentials from the driver: ANTHROPIC_API_KEY" in log
    retried = (out / "runs" / f"{killed}.log").read_text()
    assert "attempt 2 on node" in retried and worker.node_id not in retried
    csv_lines = (out / "results.csv").read_text().splitlines()
    assert "retries" in csv_lines[0].split(",") and len(csv_lines) == 4
    assert (out / "report.html").stat().st_size > 1000
    for path in [p for p in out.rglob("*") if p.is_file()]:
        assert secret.encode() not in path.read_bytes(), path
    left = [p.name for p in scratch.glob("*")]  # only the dead node's is still there
    assert all(name.endswith(f".{killed}.{worker_id}.0") for name in left), left
    assert not no_leaks(wait=30), "the cluster or an episode left processes behind"
