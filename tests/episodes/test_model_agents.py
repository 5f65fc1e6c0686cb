"""The model adapters with their real SDKs against local fake APIs, and the episode loop
around them with a stand-in agent connection (no display, no network)."""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from episodes.cli import main as cli_main
from episodes.model_agents import ModelSettings
from episodes.model_agents.driver import make_adapter
from episodes.model_agents.grammar import ParseError, parse_reply
from episodes.model_agents.loop import run_model_loop
from episodes.model_agents.prices import Price, load_prices, price_for
from episodes.model_agents.screen_scale import map_action, model_size
from pixel_stream.client import AgentAPIError
from tests.episodes.fake_model_apis import (
    FakeModelAPI,
    anthropic_reply,
    chat_reply,
    openai_reply,
)

FAST = {"backoff_s": 0.0, "call_timeout_s": 10.0}


def _png(size=(1280, 800)) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, (200, 210, 220)).save(out, "PNG")
    return out.getvalue()


class Shot:
    def __init__(self, data: bytes):
        self.data = data


class FakeAgentClient:
    """The agent connection: screenshots of a blank screen; actions recorded; an action
    the real API would refuse (off the screen) is refused the same way."""

    def __init__(self, on_act=None):
        self.width, self.height = 1280, 800
        self.actions: list[dict[str, Any]] = []
        self.on_act = on_act
        self.png = _png()

    def screenshot(self, format: str = "png", **_: Any) -> Shot:
        return Shot(self.png)

    def act_and_observe(self, action: dict[str, Any], **_: Any) -> None:
        from pixel_stream.actions import ActionError, parse_action

        try:
            parse_action(action, self.width, self.height)
        except ActionError as exc:
            raise AgentAPIError(exc.code, str(exc)) from exc
        self.actions.append(action)
        if self.on_act:
            self.on_act(action)


def _run(api: str, script: list, tmp_path: Path, monkeypatch, price=Price(1.0, 2.0),
         client=None, stop=None, **settings: Any):
    with FakeModelAPI(api, script) as fake:
        for key, value in fake.env().items():
            monkeypatch.setenv(key, value)
        config = ModelSettings(**{**FAST, **settings})
        adapter = make_adapter(api, "fake-model", config)
        client = client or FakeAgentClient()
        totals = run_model_loop(adapter, client, config, "Record the vitals.", tmp_path,
                                price=price, stop=stop)
    steps = [json.loads(line) for line in (tmp_path / "steps.jsonl").read_text().splitlines()]
    return totals, client, steps, fake.requests


# -- one scripted conversation per API: tool calls, a multi-action turn, malformed output,
# 429 then success, a refusal, usage counts ------------------------------------------------
SCRIPTS = {
    "anthropic": [
        anthropic_reply({"action": "left_click", "coordinate": [100, 200]}, text="click",
                        tokens=(1000, 10)),
        {"status": 429},
        anthropic_reply({"action": "type", "text": "120"}, {"action": "key", "text": "Tab"},
                        tokens=(2000, 20)),
        anthropic_reply({"action": "left_click", "coordinate": [5000, 5]},
                        {"action": "fly"}, tokens=(100, 1)),  # clamped; unknown action
        anthropic_reply(text="I can't help with that.", stop="refusal", tokens=(100, 1)),
        anthropic_reply(text="All done.", tokens=(100, 1)),
    ],
    "openai": [
        openai_reply({"type": "click", "button": "left", "x": 100, "y": 200}, text="click",
                     tokens=(1000, 10)),
        {"status": 503},
        openai_reply({"type": "type", "text": "120"}, tokens=(2000, 20)),
        openai_reply({"type": "keypress", "keys": ["TAB"]}, tokens=(100, 1)),
        openai_reply({"type": "teleport"}, tokens=(100, 1)),  # malformed
        openai_reply(refusal="I can't help with that.", tokens=(100, 1)),
        openai_reply(text="All done.", tokens=(100, 1)),
    ],
    "openai-compatible": [
        chat_reply("Thought: click\nAction: click(100, 200)", tokens=(1000, 10)),
        {"status": 429},
        chat_reply('Action: type("120")\nAction: key("Tab")', tokens=(2000, 20)),
        chat_reply("I am not sure what to do here.", tokens=(100, 1)),  # no action
        chat_reply("", refusal="I can't help with that.", tokens=(100, 1)),
        chat_reply("Action: finished(content='all done')", tokens=(100, 1)),
    ],
}


@pytest.mark.parametrize("api", sorted(SCRIPTS))
def test_adapter_conversation(api, tmp_path: Path, monkeypatch):
    totals, client, steps, requests = _run(api, SCRIPTS[api], tmp_path, monkeypatch,
                                           max_errors=5)
    assert totals.ended_by == "done"
    assert client.actions[:3] == [
        {"action": "left_click", "coordinate": [100, 200]},
        {"action": "type", "text": "120"}, {"action": "key", "text": "Tab"}]
    replies = [s for s in SCRIPTS[api] if "body" in s]
    usage_in = sum(r["body"]["usage"].get("input_tokens", r["body"]["usage"].get(
        "prompt_tokens", 0)) for r in replies)
    usage_out = sum(r["body"]["usage"].get("output_tokens", r["body"]["usage"].get(
        "completion_tokens", 0)) for r in replies)
    assert (totals.tokens_in, totals.tokens_out) == (usage_in, usage_out)
    assert totals.cost_usd == pytest.approx((usage_in * 1.0 + usage_out * 2.0) / 1e6)
    assert len(requests) == len(SCRIPTS[api])  # the 429/503 was retried
    assert totals.steps == len(steps) == len(replies)
    assert [s["step"] for s in steps] == list(range(1, len(steps) + 1))
    assert all((tmp_path / s["screenshot"]).is_file() for s in steps)
    errors = [s["error"] for s in steps if s["error"]]
    assert any("refused" in e for e in errors)
    assert len(errors) >= 2  # the malformed turn and the refusal are recorded
    assert steps[0]["tokens_in"] == 1000 and steps[0]["text"]


def test_anthropic_requests_follow_the_tool(tmp_path: Path, monkeypatch):
    _, client, _, requests = _run("anthropic", SCRIPTS["anthropic"][:3], tmp_path,
                                  monkeypatch)
    first = requests[0]
    assert first["tools"] == [{"type": "computer_20250124", "name": "computer",
                               "display_width_px": 1280, "display_height_px": 800}]
    later = requests[-1]["messages"][-1]["content"]
    ids = [b["tool_use_id"] for b in later if b["type"] == "tool_result"]
    assert len(ids) == 2  # one result per tool_use of the multi-action turn
    assert later[-1]["content"][-1]["type"] == "image"  # the new screen with the last


def test_zoom_and_scaling(tmp_path: Path, monkeypatch):
    assert model_size(1280, 800) == (1280, 800)
    assert model_size(2560, 1600) == (1356, 847)
    assert map_action({"action": "left_click", "coordinate": [678, 423]}, (1356, 847),
                      (2560, 1600)) == {"action": "left_click", "coordinate": [1280, 799]}
    script = [anthropic_reply({"action": "zoom", "region": [0, 0, 320, 200]}, tokens=(1, 1))]
    _, client, steps, requests = _run("anthropic", script, tmp_path, monkeypatch,
                                      tool_version="computer_20251124")
    assert requests[0]["tools"][0]["enable_zoom"] is True
    zoomed = requests[1]["messages"][-1]["content"][0]["content"]
    assert [p["type"] for p in zoomed] == ["image", "image"]  # the zoom, then the screen
    assert client.actions == []  # zoom is a look, not an input


def test_openai_safety_checks(tmp_path: Path, monkeypatch):
    check = [{"id": "sc_1", "code": "malicious_instructions", "message": "careful"}]
    script = [openai_reply({"type": "click", "x": 10, "y": 10}, checks=check)]
    totals, client, steps, _ = _run("openai", script, tmp_path, monkeypatch)
    assert totals.ended_by == "error" and client.actions == []
    assert "malicious_instructions" in steps[0]["error"]
    totals, client, _, requests = _run("openai", script, tmp_path, monkeypatch,
                                       safety_checks="acknowledge")
    assert totals.ended_by == "done" and client.actions
    assert requests[1]["input"][0]["acknowledged_safety_checks"][0]["id"] == "sc_1"


def test_budgets(tmp_path: Path, monkeypatch):
    clicks = [anthropic_reply({"action": "left_click", "coordinate": [10, 10]},
                              tokens=(100_000, 1000)) for _ in range(6)]
    totals, client, *_ = _run("anthropic", clicks, tmp_path, monkeypatch, max_steps=3)
    assert (totals.ended_by, totals.steps, len(client.actions)) == ("max_steps", 3, 3)
    totals, *_ = _run("anthropic", clicks, tmp_path, monkeypatch, max_cost=0.25)
    assert totals.ended_by == "max_cost" and totals.steps == 3  # $0.102 a step
    ticks = iter(range(0, 1000, 7))
    with FakeModelAPI("anthropic", clicks) as fake:
        for key, value in fake.env().items():
            monkeypatch.setenv(key, value)
        settings = ModelSettings(max_seconds=20, **FAST)
        totals = run_model_loop(make_adapter("anthropic", "m", settings), FakeAgentClient(),
                                settings, "x", tmp_path, price=None,
                                clock=lambda: float(next(ticks)))
    assert totals.ended_by == "max_seconds" and totals.cost_usd is None


def test_errors_stop_when_asked(tmp_path: Path, monkeypatch):
    script = [chat_reply("no idea"), chat_reply("Action: click(1, 1)")]
    totals, client, steps, _ = _run("openai-compatible", script, tmp_path, monkeypatch,
                                    on_error="stop")
    assert totals.ended_by == "error" and client.actions == [] and len(steps) == 1


def test_a_hanging_server_times_out(tmp_path: Path, monkeypatch):
    totals, _, steps, requests = _run("openai", [{"hang": 3}, {"hang": 3}], tmp_path,
                                      monkeypatch, call_timeout_s=0.3, retries=1)
    assert totals.ended_by == "error" and len(requests) == 2
    assert "after 1 retries" in steps[0]["error"] and "Timeout" in steps[0]["error"]


def test_interrupt_stops_after_the_step(tmp_path: Path, monkeypatch):
    stop = threading.Event()
    client = FakeAgentClient(on_act=lambda action: stop.set())
    clicks = [anthropic_reply({"action": "left_click", "coordinate": [10, 10]},
                              {"action": "left_click", "coordinate": [20, 20]})] * 3
    totals, client, steps, _ = _run("anthropic", clicks, tmp_path, monkeypatch,
                                    client=client, stop=stop)
    assert totals.ended_by == "interrupted" and len(client.actions) == 1 and len(steps) == 1


@pytest.mark.parametrize("reply, actions, done", [
    ("Thought: open it\nAction: click(start_box='<|box_start|>(412,318)<|box_end|>')",
     [{"action": "left_click", "coordinate": [412.0, 318.0]}], False),
    ("Action: left_double(start_box='<point>10 20</point>')",
     [{"action": "double_click", "coordinate": [10.0, 20.0]}], False),
    ("Action: hotkey(key='ctrl c')", [{"action": "key", "text": "ctrl+c"}], False),
    ("Action: type(content='Jane\\nDoe')", [{"action": "type", "text": "Jane\nDoe"}], False),
    ("Action: scroll(start_box='(5,6)', direction='down')",
     [{"action": "scroll", "scroll_direction": "down", "scroll_amount": 3,
       "coordinate": [5.0, 6.0]}], False),
    ("Action: drag(start_box='(1,2)', end_box='(3,4)')",
     [{"action": "left_click_drag", "start_coordinate": [1.0, 2.0],
       "coordinate": [3.0, 4.0]}], False),
    ("Action: finished(content='ok')", [], True),
    ("## Code\n```python\npyautogui.click(x=300, y=400)\npyautogui.write(message='hi')\n"
     "pyautogui.hotkey('ctrl', 's')\n```", [
         {"action": "left_click", "coordinate": [300.0, 400.0]},
         {"action": "type", "text": "hi"}, {"action": "key", "text": "ctrl+s"}], False),
    ("```python\npyautogui.scroll(-5)\n```",
     [{"action": "scroll", "scroll_direction": "down", "scroll_amount": 5}], False),
    ("```python\ncomputer.terminate(status='success')\n```", [], True),
    ('<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", '
     '"coordinate": [7, 8]}}\n</tool_call>', [{"action": "left_click", "coordinate": [7, 8]}],
     False),
    ('<tool_call>{"name": "computer_use", "arguments": {"action": "key", "keys": '
     '["ctrl", "a"]}}</tool_call>', [{"action": "key", "text": "ctrl+a"}], False),
    ('<tool_call>{"name": "computer_use", "arguments": {"action": "terminate", '
     '"status": "success"}}</tool_call>', [], True),
    ('{"action": "type", "text": "x"}', [{"action": "type", "text": "x"}], False),
    ('Action: right_click(3, 4)\nAction: done("filed")',
     [{"action": "right_click", "coordinate": [3, 4]}], True),
])
def test_grammar_reads_each_family(reply, actions, done):
    parsed = parse_reply(reply)
    assert parsed.actions == actions and parsed.done is done


@pytest.mark.parametrize("reply", ["I think the form is open.", "Action: fly(1, 2)",
                                   "<tool_call>{not json}</tool_call>"])
def test_grammar_refuses_what_it_cannot_read(reply):
    with pytest.raises(ParseError):
        parse_reply(reply)


def test_compatible_relative_coordinates(tmp_path: Path, monkeypatch):
    script = [chat_reply("Action: click(start_box='(500,500)')")]
    _, client, *_ = _run("openai-compatible", script, tmp_path, monkeypatch,
                         coordinates="relative1000")
    assert client.actions == [{"action": "left_click", "coordinate": [640, 400]}]


def test_price_table(tmp_path: Path):
    table = load_prices()
    assert price_for("anthropic:fake-model", table) == Price(1.0, 2.0)
    assert price_for("openai:unknown", table) is None
    custom = tmp_path / "prices.yaml"
    custom.write_text("models:\n  'anthropic:claude-x*': {input: 2, output: 4}\n")
    assert price_for("anthropic:claude-x-20250101", load_prices(custom)) == Price(2, 4)
    custom.write_text("models:\n  m: {input: 2}\n")
    with pytest.raises(ValueError, match="input: N, output: N"):
        load_prices(custom)


@pytest.mark.parametrize("argv, message", [
    (["run", "ord-01", "--agent", "gold", "--max-steps", "3"], "apply to model agents"),
    (["run", "ord-01", "--agent", "openai:nobody-priced", "--max-cost", "1"],
     "needs a price"),
    (["run", "ord-01", "--agent", "anthropic:"], "needs a model"),
    (["run", "ord-01", "--agent", "anthropic:m", "--max-steps", "0"], "at least 1"),
    (["serve", "ord-01", "--max-seconds", "-1"], "must be positive"),
])
def test_cli_refuses_bad_model_options(argv, message, capsys):
    assert cli_main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_rows_carry_the_model_fields_for_every_agent(tmp_path: Path):
    import csv

    from episodes.model_agents import Totals
    from episodes.result import EpisodeResult
    from episodes.result_files import write_tables

    facts = {"task": "T", "alias": "t-1", "variant": "default", "episode_id": "ep",
             "status": "graded", "score": 0.5, "duration_s": 1.0, "reset_s": None,
             "steps": 2, "run_dir": str(tmp_path)}
    gold = EpisodeResult(**facts, agent="gold").row()
    assert {k: gold[k] for k in ("observe", "model", "tokens_in", "cost_usd", "ended_by",
                                 "retries")} == {"observe": None, "model": None,
                                                 "tokens_in": None, "cost_usd": None,
                                                 "ended_by": None, "retries": 0}
    model = EpisodeResult(**facts, agent="openai:m")
    model.add_model_run("openai:m", "som", Totals(steps=2, tokens_in=10, tokens_out=2,
                                                  cost_usd=0.25, model_s=1.5, env_s=0.5,
                                                  ended_by="max_cost"))
    row = model.row()
    assert (row["model"], row["observe"], row["ended_by"], row["cost_usd"]) == (
        "openai:m", "som", "max_cost", 0.25)
    assert row["files"]["steps"] == "steps.jsonl"
    (tmp_path / "results.jsonl").write_text(json.dumps(gold) + "\n" + json.dumps(row) + "\n")
    write_tables(tmp_path)
    table = list(csv.DictReader((tmp_path / "results.csv").open()))
    assert [r["ended_by"] for r in table] == ["", "max_cost"]
    assert [r["tokens_in"] for r in table] == ["", "10"]


@pytest.mark.parametrize("grade", [True, False])
def test_ctrl_c_stops_the_model_and_grades_when_asked(grade, tmp_path: Path, monkeypatch):
    """A cancel (Ctrl-C, SIGTERM) stops the model after the step in hand; ``run`` then
    grades (``interrupted``), elsewhere the cancel goes on."""
    import asyncio
    import contextlib
    from types import SimpleNamespace

    import pixel_stream.client
    from episodes.model_agents.driver import run_model_agent

    client = FakeAgentClient()
    monkeypatch.setattr(pixel_stream.client, "AgentClient",
                        lambda *a, **k: contextlib.nullcontext(client))
    episode = SimpleNamespace(
        connection=lambda: {"agent_url": "ws://x", "token": "t"}, run_dir=tmp_path,
        spec=SimpleNamespace(instruction="x", alias="ord-01"))
    clicks = [anthropic_reply({"action": "left_click", "coordinate": [10, 10]})] * 500

    async def main():
        settings = ModelSettings(grade_on_interrupt=grade, **FAST)
        task = asyncio.ensure_future(run_model_agent(episode, "anthropic", "m", settings))
        while len(client.actions) < 2:
            await asyncio.sleep(0.05)
        task.cancel()
        return await task

    with FakeModelAPI("anthropic", clicks) as fake:
        for key, value in fake.env().items():
            monkeypatch.setenv(key, value)
        if grade:
            totals = asyncio.run(main())
            assert totals.ended_by == "interrupted" and 2 <= totals.steps < 500
        else:
            with pytest.raises(asyncio.CancelledError):
                asyncio.run(main())
    assert len(client.actions) < 500


def test_a_bench_job_outlives_the_models_time_budget():
    import dataclasses

    from episodes.agents import AgentSpec
    from episodes.jobs import JOB_TIMEOUT_S, job_timeout

    model = AgentSpec.parse("anthropic:m")
    assert job_timeout(AgentSpec.parse("gold")) == JOB_TIMEOUT_S
    assert job_timeout(model) > ModelSettings().max_seconds  # type: ignore[operator]
    longer = dataclasses.replace(model, settings=ModelSettings(max_seconds=7200))
    assert job_timeout(longer) > 7200  # type: ignore[operator]
    unlimited = dataclasses.replace(model, settings=ModelSettings(max_seconds=None))
    assert job_timeout(unlimited) is None
