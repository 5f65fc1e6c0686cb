"""The agent API against an agent that misbehaves on purpose: text that is no Unicode, a
recorder that fails, held input left behind, nesting bombs, a takeover, a foreign page."""

import contextlib
import json
import time
from datetime import datetime

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from pixel_stream.client import AgentAPIError, AgentClient
from pixel_stream.recording import read_trace
from pixel_stream.session import SessionThread

pytestmark = pytest.mark.slow

TOKEN = "hostile-agent-test-token"


@pytest.fixture(scope="module")
def session(display, tmp_path_factory):
    trace_dir = tmp_path_factory.mktemp("trace")
    with SessionThread(display, token=TOKEN, record_dir=trace_dir) as running:
        yield running


def eventually(condition, what: str, limit_s: float = 30.0):
    """Poll until ``condition()`` is true (the limit only stops a broken build hanging)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail(f"gave up waiting for {what}")


def test_text_that_is_not_unicode_is_refused_and_the_trace_goes_on(session):
    with AgentClient(session.agent_url, TOKEN, control="take") as agent:
        for action in ({"action": "type", "text": "x\udc80y"},
                       {"action": "key", "text": "ctrl+\ud800"}):
            with pytest.raises(AgentAPIError) as info:
                agent.act(action)
            assert info.value.code == "bad_text" and "surrogate" in info.value.message
        agent.act({"action": "type", "text": "after"})
    recorder = session.session.recorder
    path = recorder.path

    def recorded():
        _header, events = read_trace(path)
        return [e["event"] for e in events if e["kind"] == "action"]

    assert eventually(lambda: {"action": "type", "text": "after"} in recorded(),
                      "the next action in the trace")
    assert recorder.failure is None and session.session.recording_failure is None


def test_a_departing_agent_leaves_nothing_pressed(session):
    injector = session.session.injector
    agent = AgentClient(session.agent_url, TOKEN, control="take")
    agent.act({"action": "left_mouse_down", "coordinate": [600, 400]})
    agent._ws.send(json.dumps({"id": 99, "op": "act",
                               "action": {"action": "hold_key", "text": "shift",
                                          "duration": 100}}))
    eventually(lambda: injector.held["keycodes"] and injector.held["buttons"],
               "shift and the button to be held")
    agent.close()
    eventually(lambda: injector.held == {"buttons": [], "keycodes": []},
               "the departed agent's button and key to be released")
    with AgentClient(session.agent_url, TOKEN, control="take") as other:
        other.act({"action": "mouse_move", "coordinate": [10, 10]})  # the seat is usable


def test_a_nesting_bomb_gets_an_error_and_the_connection_stays(session):
    with AgentClient(session.agent_url, TOKEN, control="none") as agent:
        reply = agent.send_raw("[" * 100_000 + "]" * 100_000)
        assert reply["ok"] is False and reply["error"]["code"] == "bad_json"
        assert "nested" in reply["error"]["message"]
        reply = agent.send_raw(json.dumps({"op": "ping", "id": [[[[1]]]]}))
        assert reply["error"]["code"] == "bad_request" and "id" in reply["error"]["message"]
        agent.ping()


def test_a_takeover_tells_both_agents_their_new_roles(session):
    with AgentClient(session.agent_url, TOKEN, control="take") as first, \
            AgentClient(session.agent_url, TOKEN) as second:
        assert (first.role, second.role) == ("controller", "viewer")
        assert second.take_control() == "controller"
        second.ping()
        first.ping()
        assert {"type": "role", "role": "viewer"} in first.events
        assert first.role == "viewer"
        assert {"type": "role", "role": "controller"} in second.events
        assert [e for e in first.events + second.events if e.get("type") == "role"] == [
            {"type": "role", "role": "viewer"}, {"type": "role", "role": "controller"}]


@pytest.mark.parametrize("path", ["/agent", "/rtc"])
def test_a_page_of_another_origin_cannot_open_the_websockets(session, path):
    port = session.session.port
    url = f"ws://127.0.0.1:{port}{path}?token={TOKEN}"
    for origin in ("http://attacker.example", f"http://attacker.example:{port}", "null",
                   f"http://127.0.0.1:{port + 1}"):
        with pytest.raises(InvalidStatus) as info:
            with connect(url, additional_headers={"Origin": origin}, open_timeout=10):
                pass
        assert info.value.response.status_code == 403
    # the session's own page, and a client that is no browser (no Origin), get in
    for headers in ({"Origin": f"http://127.0.0.1:{port}"}, {}):
        with connect(url, additional_headers=headers, open_timeout=10) as ws:
            if path == "/agent":
                assert json.loads(ws.recv(timeout=10))["type"] == "hello"


class StoppingClock:
    """The run's clock, until its file goes away."""

    stopped = False

    def now(self):
        if self.stopped:
            raise FileNotFoundError("no clock file at run/clock.json")
        return datetime.now().astimezone()


@pytest.mark.parametrize("broken", ["disk", "clock"])
def test_a_failing_recorder_ends_the_session_and_says_why(display, tmp_path, broken):
    clock = StoppingClock()
    with SessionThread(display, token=TOKEN, record_dir=tmp_path, clock=clock) as running:
        session = running.session

        class FullDisk:
            def write(self, _text):
                raise OSError(28, "No space left on device")

            def flush(self):
                pass

            def close(self):
                pass

        async def fill_the_disk():
            session.recorder._file = FullDisk()

        if broken == "disk":
            running.call(fill_the_disk)
        else:
            clock.stopped = True
        with AgentClient(running.agent_url, TOKEN, control="take") as agent:
            with contextlib.suppress(AgentAPIError):  # the input went in; recording failed
                agent.act({"action": "mouse_move", "coordinate": [20, 20]})
            failure = eventually(lambda: session.recording_failure, "the recorder's failure")
            assert ("No space left on device" if broken == "disk" else "no clock file") \
                in failure
            assert session.ended.is_set() and "trace recorder failed" in session.end_reason
            assert running.call(_describe, session)["recording_failure"] == failure
            with pytest.raises((AgentAPIError, ConnectionClosed)):  # none goes unrecorded
                agent.act({"action": "mouse_move", "coordinate": [30, 30]})


async def _describe(session):
    return session.describe()
