"""EhrSandboxEnv: the Gymnasium-shaped contract over a real episode, with its wrappers."""

from __future__ import annotations

import json

import pytest

from episodes.env import EhrSandboxEnv, EnvError, RecordEpisode, TimeLimit
from tests.episodes.conftest import DEMO_DIR

pytestmark = pytest.mark.slow


def test_reset_step_time_limit_record_close(tmp_path, no_leaks):
    env = TimeLimit(RecordEpisode(EhrSandboxEnv("demo-01", tasks_dirs=[DEMO_DIR]),
                                  tmp_path / "rec"), max_steps=2)
    try:
        with pytest.raises(EnvError, match="reset"):
            env.step({"action": "key", "text": "ctrl+1"})
        obs, info = env.reset(seed=7)
        assert obs["screenshot"][:4] == b"\x89PNG" and (obs["width"], obs["height"]) == (
            1280, 800)
        assert info["seed"] == 7 and info["reset_s"] is None and info["ready_s"] > 0
        obs, reward, terminated, truncated, info = env.step(
            {"action": "left_click", "coordinate": [280, 238]})
        assert (reward, terminated, truncated) == (0.0, False, False)
        obs, reward, terminated, truncated, info = env.step({"action": "nope"})
        assert truncated and not terminated and info["truncated_by"] == "steps"
        assert info["grade_status"] == "graded" and reward == 0.0

        obs, info = env.reset()
        assert info["reset_s"] > 0
        obs, reward, terminated, truncated, info = env.step({"action": "done"})
        assert terminated and not truncated and info["score"] == 0.0
        with pytest.raises(EnvError, match="ended"):
            env.step({"action": "key", "text": "Tab"})
    finally:
        env.close()
    lines = [json.loads(x) for x in (tmp_path / "rec" / "episode-001" / "steps.jsonl")
             .read_text().splitlines()]
    assert [x["kind"] for x in lines] == ["reset", "step", "step"]
    assert "error" in lines[2]["info"]  # the bad action was refused, not fatal
    assert (tmp_path / "rec" / "episode-001" / lines[1]["screenshot"]).exists()
