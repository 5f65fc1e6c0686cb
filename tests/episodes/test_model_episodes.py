"""Real ord-01 episodes driven by each model adapter against its local fake API (the
acceptance runs of docs/agents.md), and ``serve`` with the example agent."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.episodes.fake_model_apis import FakeModelAPI, ord01_script

ROOT = Path(__file__).parents[2]
# (api, --observe, tokens in/out the script's usage fields add up to)
RUNS = [("anthropic", "som", (3610, 105)),
        ("openai", "screenshot", (3710, 105)),
        ("openai-compatible", "screenshot+a11y", (3610, 105))]
EXPECTED = [{"action": "left_click", "coordinate": [640, 362]},
            {"action": "type", "text": "120"}, {"action": "key", "text": "Tab"}]


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "episodes.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=400,
                          env={**os.environ, **env})


@pytest.mark.slow
@pytest.mark.parametrize("api, observe, tokens", RUNS)
def test_a_model_drives_ord01(api, observe, tokens, tmp_path: Path):
    out = tmp_path / "run"
    with FakeModelAPI(api, ord01_script(api)) as fake:
        done = _cli("run", "ord-01", "--agent", f"{api}:fake-model", "--observe", observe,
                    "--out", str(out), "--json", env=fake.env())
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    row = json.loads(done.stdout)
    assert row["status"] == "graded" and row["report"]["checks"]
    assert row["ended_by"] == "done" and row["model"] == f"{api}:fake-model"
    assert (row["tokens_in"], row["tokens_out"]) == tokens
    assert row["cost_usd"] == pytest.approx((tokens[0] * 1.0 + tokens[1] * 2.0) / 1e6)
    assert row["observe"] == observe and row["model_s"] > 0 and row["env_s"] > 0
    assert row["files"]["steps"] == "steps.jsonl"
    trace = [json.loads(line) for line in (out / "trace" / "trace.jsonl").open()]
    assert [e["event"] for e in trace if e.get("client") == "model"] == EXPECTED
    steps = [json.loads(line) for line in (out / "steps.jsonl").open()]
    assert [a for s in steps for a in s["actions"]] == EXPECTED
    assert all((out / s["screenshot"]).is_file() for s in steps)
    first_request = fake.requests[0]
    if observe == "screenshot+a11y":  # the page's accessibility tree went with it
        assert "Browser tab" in json.dumps(first_request)
    if observe == "som":
        assert "Marked elements" in json.dumps(first_request)
    assert (out / "result.json").is_file() and json.loads(
        (out / "result.json").read_text())["ended_by"] == "done"


@pytest.mark.slow
def test_serve_grades_when_the_example_agent_is_done(tmp_path: Path):
    serve = subprocess.Popen([sys.executable, "-m", "episodes.cli", "serve", "ord-01",
                              "--out", str(tmp_path / "run")], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = serve.stdout.readline()  # type: ignore[union-attr]
        info = json.loads(line)
        assert {"agent_url", "token", "viewer_url", "instruction"} <= set(info)
        agent = subprocess.run([sys.executable, "examples/simple_agent.py", line], cwd=ROOT,
                               capture_output=True, text=True, timeout=120)
        assert agent.returncode == 0, agent.stderr
        out, err = serve.communicate(timeout=200)
    finally:
        if serve.poll() is None:
            serve.send_signal(signal.SIGINT)
            serve.wait(60)
    assert serve.returncode == 0, err[-3000:]
    assert "graded" in out and "ended by done" in out
    row = json.loads((tmp_path / "run" / "result.json").read_text())
    assert row["agent"] == "external" and row["steps"] >= 2
