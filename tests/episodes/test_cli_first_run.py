"""What a new user (or a careless script) gets from the CLI and the runner before and after
an episode: bad arguments are one line and exit 2 before anything starts, a file that is
not a trace is no replay agent, and every ended episode leaves result.json/report.json.
Nothing here starts an episode: the runner is driven with a stand-in episode."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from episodes import runner
from episodes.agents import AgentSpec, AgentSpecError
from episodes.cli import main
from episodes.episode import EpisodeError
from episodes.result import EpisodeResult
from pixel_stream.recording import TraceCheckError, check_trace


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def nothing_starts(monkeypatch):
    """Fail the test if a command gets as far as starting an episode or the hub."""
    import episodes.hub.app as hub_app

    def refuse(*args, **kwargs):
        pytest.fail("the command started work it should have refused")

    async def refuse_async(*args, **kwargs):
        refuse()

    monkeypatch.setattr(hub_app, "serve_hub", refuse)
    monkeypatch.setattr(runner, "run_episode", refuse_async)


def _trace(path: Path, header: dict | None = None, lines: list[dict] | None = None) -> Path:
    header = {"kind": "header", "version": 2, "width": 1280, "height": 800,
              **(header or {})}
    rows = [header] + (lines if lines is not None else [
        {"n": 1, "t": 0.5, "client": "agent-1", "kind": "action",
         "event": {"action": "left_click", "coordinate": [10, 10]}, "seq_before": 1}])
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


# -- replay agents ----------------------------------------------------------------------------
def test_a_file_that_is_not_a_trace_is_no_replay_agent(tmp_path):
    good = _trace(tmp_path / "good.jsonl")
    assert AgentSpec.parse(f"replay:{good}").path == good
    bad = {
        "/etc/passwd": "not a trace",
        _trace(tmp_path / "v9.jsonl", {"version": 9}): "version 9",
        _trace(tmp_path / "small.jsonl", {"width": 800, "height": 600}): "800x600",
        _trace(tmp_path / "act.jsonl", lines=[
            {"t": 0.1, "kind": "action", "event": {"action": "teleport"}}]): "input 1",
        _trace(tmp_path / "off.jsonl", lines=[
            {"t": 0.1, "kind": "input",
             "event": {"t": "button", "x": 5000, "y": 1, "button": 0, "down": True}}]):
            "input 1",
        _trace(tmp_path / "time.jsonl", lines=[
            {"t": "soon", "kind": "action",
             "event": {"action": "left_click", "coordinate": [1, 1]}}]): "t must be",
    }
    for path, message in bad.items():
        with pytest.raises(AgentSpecError, match=message):
            AgentSpec.parse(f"replay:{path}")
    with pytest.raises(TraceCheckError, match="not a trace"):
        check_trace(tmp_path, 1280, 800)  # a folder with no trace.jsonl


def test_run_refuses_a_replay_of_a_file_that_is_not_a_trace(tmp_path, capsys, nothing_starts):
    out = tmp_path / "run"
    code, _, err = run_cli(capsys, "run", "ord-01", "--agent", "replay:/etc/passwd",
                           "--out", str(out))
    assert code == 2 and err.count("\n") == 1 and "not a trace" in err
    assert not out.exists()


# -- up, seed, verify --------------------------------------------------------------------------
@pytest.mark.parametrize(("argv", "message"), [
    (["up", "--port", "99999"], "--port must be 1..65535"),
    (["up", "--port", "0"], "--port must be 1..65535"),
    (["up", "--max-episodes", "0"], "--max-episodes must be at least 1"),
    (["up", "--host", "999.1.1.1"], "--host '999.1.1.1'"),
    (["seed", "ord-01", "--out", "/proc/x"], "cannot seed into /proc/x"),
])
def test_bad_arguments_are_one_line_and_exit_2_before_anything_starts(
        capsys, nothing_starts, argv, message):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_up_refuses_a_port_in_use(capsys, nothing_starts):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        code, _, err = run_cli(capsys, "up", "--port", str(port))
    assert code == 2 and err.count("\n") == 1 and f"cannot listen on 127.0.0.1:{port}" in err


def test_verify_takes_the_judge_it_documents(tmp_path, capsys):
    code, _, _ = run_cli(capsys, "seed", "ord-01", "--out", str(tmp_path / "run"))
    assert code == 0
    code, out, err = run_cli(capsys, "verify", "ord-01", str(tmp_path / "run"), "--json",
                             "--judge", "rubric")
    assert code in (0, 1), err
    assert json.loads(out)["judge"]["name"] == "rubric"
    from tests.episodes.conftest import DEMO_DIR

    code, _, _ = run_cli(capsys, "--tasks-dir", str(DEMO_DIR), "seed", "demo-01", "--out",
                         str(tmp_path / "demo"))
    assert code == 0
    code, out, err = run_cli(capsys, "verify", "demo-01", str(tmp_path / "demo"), "--json",
                             "--tasks-dir", str(DEMO_DIR))  # where docs/verifier.md puts it
    assert code in (0, 1), err
    assert json.loads(out)["alias"] == "demo-01"
    with pytest.raises(SystemExit) as info:
        main(["verify", "ord-01", str(tmp_path / "run"), "--judge", "oracle"])
    assert info.value.code == 2


# -- the runner's result files -------------------------------------------------------------
class StandInEpisode:
    """What run_episode uses of an Episode, without any process."""

    def __init__(self, spec, variant, run_dir, config=None, agent="none"):
        self.spec, self.variant, self.run_dir, self.agent = spec, variant, run_dir, agent
        self.failure: str | None = None
        self.status = "new"

    async def start(self):
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.status = "running"
        return self

    async def reset(self):
        return 0.1

    def check_running(self, allow_finished=False):
        if self.status != "running":
            raise EpisodeError(f"episode is {self.status}: {self.failure}")

    def _facts(self):
        return {"task": self.spec.id, "alias": self.spec.alias, "variant": self.variant,
                "episode_id": "ep-test", "agent": self.agent, "reset_s": 0.1, "steps": 2,
                "run_dir": str(self.run_dir), "ready_s": 1.0}

    async def finish(self):  # as Episode.finish: result.json is written by the grading
        result = EpisodeResult(**self._facts(), status="graded", score=0.15, duration_s=1.0)
        (self.run_dir / "result.json").write_text(json.dumps(result.row()))
        return result

    def failed_result(self, reason):
        return EpisodeResult(**self._facts(), status="failed", score=None, duration_s=0.0,
                             error=reason)

    async def stop(self):
        if self.status != "failed":
            self.status = "stopped"


def _run(monkeypatch, tmp_path, drive):
    from sandbox.catalog import load_catalog

    monkeypatch.setattr(runner, "Episode", StandInEpisode)
    monkeypatch.setattr(runner, "drive", drive)
    spec = load_catalog().get("ord-01")
    run_dir = tmp_path / "run"
    result = asyncio.run(runner.run_episode(spec, "default", AgentSpec("gold"), run_dir))
    return result, run_dir


def test_an_episode_whose_portal_died_leaves_its_result_and_report(tmp_path, monkeypatch):
    async def portal_dies(episode, agent):
        episode.failure = "portal_web exited with status -9"
        episode.status = "failed"

    result, run_dir = _run(monkeypatch, tmp_path, portal_dies)
    assert result.status == "failed" and "portal_web exited" in result.error
    row = json.loads((run_dir / "result.json").read_text())
    assert row["status"] == "failed" and "portal_web exited with status -9" in row["error"]
    report = json.loads((run_dir / "report.json").read_text())
    assert report["status"] == "failed" and report["score"] is None
    assert "portal_web exited with status -9" in report["error"]


def test_an_agent_error_is_in_result_json_and_the_exit_is_not_zero(
        tmp_path, monkeypatch, capsys):
    async def agent_fails(episode, agent):
        raise ValueError("the agent could not read its trace")

    result, run_dir = _run(monkeypatch, tmp_path, agent_fails)
    row = json.loads((run_dir / "result.json").read_text())
    assert "the agent could not read its trace" in (row["error"] or "")

    async def finished(*args, **kwargs):
        return result

    monkeypatch.setattr(runner, "run_episode", finished)
    code, out, _ = run_cli(capsys, "run", "ord-01", "--out", str(tmp_path / "cli"))
    assert code == 1 and "error: gold agent: ValueError" in out


def test_ctrl_c_while_starting_stops_the_run_and_is_not_retried(tmp_path, monkeypatch, capsys,
                                                                 caplog):
    """A terminal's Ctrl-C also kills the Playwright driver, so the start fails at the same
    moment as it is cancelled, and asyncio.wait_for may report the failure instead of the
    cancellation: the run must still stop, not start the episode again and grade it."""
    import os
    import signal

    starts: list[Path] = []

    class InterruptedStart(StandInEpisode):
        async def start(self):
            starts.append(self.run_dir)
            os.kill(os.getpid(), signal.SIGINT)
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                pass  # lost, as in wait_for when the inner work failed at that moment
            # the driver died of the same Ctrl-C; a future of it nobody awaits failed
            dead_driver = asyncio.get_running_loop().create_future()
            dead_driver.set_exception(Exception("Connection closed while reading from the "
                                                "driver"))
            del dead_driver
            raise EpisodeError("ord-01: the episode did not start: Connection closed while "
                               "reading from the driver")

        async def stop(self):
            self.stopped = True

    monkeypatch.setattr(runner, "Episode", InterruptedStart)
    code, out, err = run_cli(capsys, "run", "ord-01", "--out", str(tmp_path / "run"))
    assert code == 130 and len(starts) == 1
    assert err.splitlines()[-1] == "ehr-sandbox: interrupted; the episode was stopped"
    assert "Traceback" not in err and out == ""
    import gc

    gc.collect()
    assert "never retrieved" not in caplog.text + capsys.readouterr().err
