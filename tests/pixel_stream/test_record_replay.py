"""Record a session's input, replay it on a fresh display: same final screen."""

import asyncio
import json

import pytest

from pixel_stream.client import AgentClient
from pixel_stream.display import Display
from pixel_stream.imaging import pixel_hash
from pixel_stream.recording import read_trace
from pixel_stream.replay import ReplayError, replay_trace
from pixel_stream.session import SessionThread
from pixel_stream.testapp import PatchBoardProcess
from sandbox.clock import SandboxClock

pytestmark = pytest.mark.slow


def record(display, board, trace_dir) -> str:
    """Drive the board through the agent API while recording; returns the final pixel hash."""
    with SessionThread(display, record_dir=trace_dir, record_screenshots=True,
                       clock=SandboxClock().run()) as session:
        with AgentClient(session.agent_url, session.token, client_id="recorder") as agent:
            agent.act_and_observe({"action": "left_click", "coordinate": board.center("patch")},
                                  quiet_ms=100)
            agent.act({"action": "left_click", "coordinate": board.center("entry")})
            agent.act_and_observe({"action": "type", "text": "Müller 中 ✓"}, quiet_ms=100)
            agent.act_and_observe({"action": "key", "text": "BackSpace shift+Home"}, quiet_ms=100)
            agent.act_and_observe({"action": "type", "text": "Replayed"}, quiet_ms=100)
            agent.act_and_observe({"action": "double_click", "coordinate": board.center("patch")},
                                  quiet_ms=150)
        try:
            board.wait_for(lambda s: s["text"] == "Replayed" and s["presses"] == 3, "the input")
        except TimeoutError as exc:
            raise AssertionError(f"{exc}; the board ended as {board.status()}") from exc
        frame = session.call(session.session.capture.fresh_frame)
        return pixel_hash(frame)


@pytest.mark.parametrize("pacing", ["settle", "recorded"])
def test_replay_on_a_fresh_display_ends_on_the_same_screen(tmp_path, pacing):
    trace_dir = tmp_path / "trace"
    with Display() as first, PatchBoardProcess(first, tmp_path / "a.json") as board:
        recorded_hash = record(first, board, trace_dir)

    header, events = read_trace(trace_dir)
    assert (header["width"], header["height"]) == (1280, 800)
    assert [e["event"]["action"] for e in events] == [
        "left_click", "left_click", "type", "key", "type", "double_click"]
    for event in events:
        assert event["client"] == "recorder"
        assert event["seq_after"] >= event["seq_before"]
        assert event["sandbox_time"].startswith("2026-10-19T09:")
        assert (trace_dir / event["screenshot"]).exists()
    assert events[0]["seq_after"] > events[0]["seq_before"]  # the click repainted the patch
    assert "screen" in events[0]  # the first input checkpoints the screen it went in on
    # a line repeats no checkpoint: only an input on a screen not seen before carries one
    seen = [e["seq_before"] for e in events if "screen" in e]
    assert len(seen) == len(set(seen))

    with Display() as second, PatchBoardProcess(second, tmp_path / "b.json") as fresh:
        report = asyncio.run(replay_trace(trace_dir, second.name, pacing=pacing))
        try:
            fresh.wait_for(lambda s: s["text"] == "Replayed" and s["presses"] == 3,
                           "the replay", timeout=20.0)
        except TimeoutError as exc:
            raise AssertionError(f"{exc}; the board ended as {fresh.status()}") from exc
    assert report.events == len(events)
    assert report.final_hash == recorded_hash
    if pacing == "settle":  # each recorded screen came before its input went in
        assert report.checkpoints == len(seen) and report.unmatched == []


def test_replay_refuses_a_different_screen_size(tmp_path):
    trace = tmp_path / "trace.jsonl"
    trace.write_text(json.dumps({"kind": "header", "version": 1, "width": 640, "height": 480})
                     + "\n")
    with Display(800, 600, window_manager=False) as other:
        with pytest.raises(ReplayError, match="640x480"):
            asyncio.run(replay_trace(trace, other.name))


def test_trace_reader_reports_bad_lines(tmp_path):
    trace = tmp_path / "trace.jsonl"
    trace.write_text('{"kind": "header", "width": 1, "height": 1}\n{oops\n')
    with pytest.raises(ValueError, match="trace.jsonl:2"):
        read_trace(trace)
    trace.write_text('{"kind": "action"}\n')
    with pytest.raises(ValueError):
        read_trace(trace)
