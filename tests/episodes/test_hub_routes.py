"""The hub's pages and API, with episodes that start no processes."""

from __future__ import annotations

import json
import types
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from episodes.episode import Episode
from episodes.hub.app import create_hub
from episodes.run_files import prepare_run_dir, reset_files_and_stores
from tests.episodes.conftest import DEMO_DIR
from tests.episodes.hub_client import BASE, sign_in


class QuietEpisode(Episode):
    """An episode whose processes are pretended: the hub's logic is what is tested."""

    async def start(self):
        prepare_run_dir(self.spec, self.variant, self.run_dir, self.episode_id)
        self.session = types.SimpleNamespace(
            agent_url="ws://127.0.0.1:40001/agent", token=self.token,
            url=f"http://127.0.0.1:40001/?token={self.token}")
        self.ready_s = 0.01
        self._set_status("running")
        return self

    async def reset(self):
        self.check_running(allow_finished=True)
        reset_files_and_stores(self.spec, self.variant, self.run_dir)
        self.last_reset_s = 0.01
        self._set_status("running")
        return 0.01

    async def finish(self):
        self.check_running()
        result = self._grade(1.0, {})
        self._set_status("finished")
        return result

    async def stop(self):
        self._set_status("stopped")


@pytest.fixture
def hub(tmp_path: Path):
    app = create_hub({"runs_dir": tmp_path / "runs", "tasks_dirs": [DEMO_DIR],
                      "max_episodes": 2}, episode_factory=QuietEpisode)
    app.state.accounts.add("dana", "annotator", "dana-password")
    with TestClient(app, base_url=BASE) as client:
        sign_in(client, "dana", "dana-password")
        yield client


def _start(hub: TestClient, variant: str = "default") -> str:
    page = hub.post("/episodes", data={"task": "demo-01", "variant": variant},
                    follow_redirects=False)
    assert page.status_code == 303, page.text
    return page.headers["location"].rsplit("/", 1)[-1]


def _wait(hub: TestClient, episode_id: str, predicate) -> dict:
    for _ in range(200):
        state = hub.get(f"/api/episodes/{episode_id}").json()
        if predicate(state):
            return state
        import time

        time.sleep(0.01)
    raise AssertionError(f"state never matched: {state}")


def test_task_list_filters(hub: TestClient):
    page = hub.get("/")
    assert page.status_code == 200 and "demo-01" in page.text
    assert "demo-01" in [s.alias for s in page.context["specs"]]
    assert [s.alias for s in hub.get("/?family=demo").context["specs"]] == ["demo-01"]
    assert hub.get("/?family=demo&system=ehr").context["specs"] == []
    assert [s.alias for s in hub.get("/?family=demo&difficulty=1").context["specs"]] == [
        "demo-01"]
    assert hub.get("/?q=referral").context["filters"]["q"] == "referral"


def test_unknown_task_page_suggests(hub: TestClient):
    page = hub.get("/tasks/demo-1")
    assert page.status_code == 404
    assert "unknown task 'demo-1'" in page.context["message"]
    assert [s.alias for s in page.context["suggestions"]][0] == "demo-01"
    started = hub.post("/episodes", data={"task": "dmeo-01"})
    assert started.status_code == 404 and "did you mean" in started.context["message"]


def test_episode_page_record_reset_finish_stop(hub: TestClient):
    episode_id = _start(hub)
    state = _wait(hub, episode_id, lambda s: s["status"] == "running" and not s["busy"])
    assert state["connection"]["agent_url"] == "ws://127.0.0.1:40001/agent"
    page = hub.get(f"/episodes/{episode_id}")
    assert page.status_code == 200
    assert state["connection"]["token"] in page.text  # the agent connection string
    assert "Summarize a referral letter" in page.text

    api = f"/api/episodes/{episode_id}"
    hub.post(f"{api}/record")  # a reset first, then recording from the task's start
    state = _wait(hub, episode_id, lambda s: s["recording"] is not None and not s["busy"])
    assert state["recording"]["annotator"] == "dana" and state["message"].startswith(
        "recording from the task's start")
    run_dir = Path(state["run_dir"])
    trace = run_dir / "trace" / "trace.jsonl"
    trace.write_text("\n".join(json.dumps(x) for x in [
        {"kind": "header", "width": 1280, "height": 800},
        {"n": 1, "t": 5.0, "kind": "action", "client": "viewer-1",
         "event": {"action": "left_click", "coordinate": [10, 20]}},
        {"n": 2, "t": 6.5, "kind": "action", "client": "viewer-1",
         "event": {"action": "type", "text": "480117"}}]) + "\n")
    assert hub.get(api).json()["recording_inputs"] == 2
    refused = hub.post(f"{api}/oracle")
    assert refused.status_code == 409 and "while you record" in refused.json()["error"]
    saved = hub.post(f"{api}/record/stop").json()["saved"]
    lines = [json.loads(x) for x in Path(saved["path"]).read_text().splitlines()]
    assert lines[0]["annotator"] == "dana" and lines[0]["task"] == "DEMO-T01"
    assert lines[0]["partial"] is False and saved["inputs"] == 2
    assert [(e["n"], e["t"]) for e in lines[1:]] == [(1, 0.0), (2, 1.5)]
    download = hub.get(f"/recordings/{saved['n']}/trace")
    assert download.status_code == 200
    assert f"demo-01-default-{saved['n']}-dana.trace.jsonl" in download.headers[
        "content-disposition"]

    (run_dir / "output" / "referral_summary.csv").write_text(
        'mrn,patient,cpt,icd10\n480117,"Nakamura, Ellen",72148,M54.16\n')
    hub.post(f"{api}/finish")
    state = _wait(hub, episode_id, lambda s: s.get("result") is not None)
    assert state["result"]["score"] == 1.0 and state["status"] == "finished"
    assert [c["name"] for c in state["result"]["report"]["checks"]] == [
        "summary file saved", "patient identified", "codes"]
    assert [c["evidence"] for c in state["result"]["rows"]][0]  # the evidence column
    assert hub.get(api).json()["recordings"][0]["live_score"] == 1.0
    hub.post(f"{api}/reset")
    state = _wait(hub, episode_id, lambda s: s["message"].startswith("reset in"))
    assert state["status"] == "running" and "result" not in state
    assert not (run_dir / "output" / "referral_summary.csv").exists()
    hub.post(f"{api}/record")  # reset or stop during a recording keeps it, marked partial
    _wait(hub, episode_id, lambda s: s["recording"] is not None and not s["busy"])
    hub.post(f"{api}/stop")
    state = hub.get(api).json()
    assert state["status"] == "stopped" and state["recording"] is None
    assert [(r["partial"], r["status"]) for r in state["recordings"]] == [
        (False, "recorded"), (True, "recorded")]
    assert "stopped" in hub.get("/").text


def test_actions_need_the_hubs_own_page_and_a_free_slot(hub: TestClient):
    first = _start(hub)
    _wait(hub, first, lambda s: s["status"] == "running")
    refused = hub.post(f"/api/episodes/{first}/reset",
                       headers={"origin": "http://evil.example"})
    assert refused.status_code == 403
    _start(hub, "twin")
    full = hub.post("/episodes", data={"task": "demo-01", "variant": "default"})
    assert full.status_code == 409 and "already running" in full.text
    assert hub.get("/api/episodes/ep-nope").status_code == 404
    assert len(hub.get("/api/episodes").json()) == 2


def test_check_review_accept_and_a_restart(tmp_path: Path, monkeypatch):
    from episodes import runner
    from episodes.result import EpisodeResult

    replayed = []

    async def fake_run(spec, variant, agent, run_dir, config=None, **_kw):
        replayed.append((spec.alias, variant, agent.path))
        episode = QuietEpisode(spec, variant, run_dir=run_dir)
        await episode.start()
        (run_dir / "output" / "referral_summary.csv").write_text(
            'mrn,patient,cpt,icd10\n480117,"Nakamura, Ellen",72148,M54.16\n')
        result: EpisodeResult = await episode.finish()
        return result

    monkeypatch.setattr(runner, "run_episode", fake_run)
    settings = {"runs_dir": tmp_path / "runs", "tasks_dirs": [DEMO_DIR],
                "human_dir": tmp_path / "human"}
    app = create_hub(settings, episode_factory=QuietEpisode)
    for name, role in (("dana", "annotator"), ("lee", "reviewer"), ("eli", "annotator")):
        app.state.accounts.add(name, role, f"{name}-password")
    with TestClient(app, base_url=BASE) as client:
        sign_in(client, "dana", "dana-password")
        episode_id = _start(client)
        _wait(client, episode_id, lambda s: s["status"] == "running" and not s["busy"])
        api = f"/api/episodes/{episode_id}"
        client.post(f"{api}/record")
        _wait(client, episode_id, lambda s: s["recording"] is not None and not s["busy"])
        n = client.post(f"{api}/record/stop").json()["saved"]["n"]
        assert "human pending" in client.get("/?gold=human+pending").text
        early = client.post(f"/recordings/{n}/review", data={"decision": "accept"})
        assert early.status_code == 403  # an annotator does not review
        assert client.post(f"/api/recordings/{n}/check").status_code == 200
        for _ in range(300):
            rec = client.get(f"/api/recordings/{n}").json()
            if rec["status"] != "checking":
                break
            import time

            time.sleep(0.01)
        assert rec["status"] == "checked" and rec["replay_score"] == 1.0, rec
        assert replayed[0][:2] == ("demo-01", "default") and rec["replay_checks"][0]["name"]
        sign_in(client, "eli", "eli-password")  # another annotator sees none of it
        assert client.get(f"/api/recordings/{n}").status_code == 404
        sign_in(client, "lee", "lee-password")
        assert client.post(f"/recordings/{n}/review",
                           data={"decision": "reject"}).status_code == 400  # needs a note
        done = client.post(f"/recordings/{n}/review",
                           data={"decision": "accept", "note": "clean run"},
                           follow_redirects=False)
        assert done.status_code == 303, done.text
    human = tmp_path / "human" / "DEMO-T01" / "human"
    meta = json.loads((human / f"{n}-dana.json").read_text())
    assert (meta["annotator"], meta["reviewer"], meta["replay_score"], meta["inputs"]) == (
        "dana", "lee", 1.0, 0)
    assert (human / f"{n}-dana.trace.jsonl").read_text().startswith('{"kind": "header"')

    restarted = create_hub(settings, episode_factory=QuietEpisode)  # a new hub process
    with TestClient(restarted, base_url=BASE) as client:
        sign_in(client, "lee", "lee-password")
        board = client.get("/?gold=human+accepted")
        assert board.status_code == 200 and [s.alias for s in board.context["specs"]] == [
            "demo-01"]
        assert board.context["board"][("DEMO-T01", "default")] == "human accepted"
        task = client.get("/tasks/demo-01")
        assert f"demo-01-default-{n}-dana.trace.jsonl" in task.text
        sign_in(client, "dana", "dana-password")
        past = client.get(f"/episodes/{episode_id}")
        assert past.status_code == 200 and "ended with the hub" in past.text


def test_admin_assigns_tasks_and_the_board_filters(tmp_path: Path):
    app = create_hub({"runs_dir": tmp_path / "runs", "tasks_dirs": [DEMO_DIR]},
                     episode_factory=QuietEpisode)
    app.state.accounts.add("dana", "annotator", "dana-password")
    app.state.accounts.add("root", "admin", "root-password")
    with TestClient(app, base_url=BASE) as client:
        sign_in(client, "dana", "dana-password")
        assign = {"task": "demo-01", "variant": "default", "annotator": "dana"}
        assert client.post("/assign", data=assign).status_code == 403
        assert client.get("/?assignee=me").context["specs"] == []
        sign_in(client, "root", "root-password")
        assert client.post("/assign", data={**assign, "annotator": "nobody"}).status_code \
            == 400
        assert client.post("/assign", data={**assign, "variant": "nope"}).status_code == 400
        assert client.post("/assign", data={**assign, "task": "dmeo-01"}).status_code == 404
        assert client.post("/assign", data=assign, follow_redirects=False).status_code == 303
        board = client.get("/?assignee=dana&gold=oracle+only")
        assert [s.alias for s in board.context["specs"]] == ["demo-01"]
        assert board.context["board"][("DEMO-T01", "default")] == "oracle only"
        assert board.context["assignments"] == {("DEMO-T01", "default"): "dana"}
        sign_in(client, "dana", "dana-password")
        assert [s.alias for s in client.get("/?assignee=me").context["specs"]] == ["demo-01"]
