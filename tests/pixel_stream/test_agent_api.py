"""The agent API over a real display: protocol, actions, act_and_observe, errors."""

import io

import pytest
from PIL import Image

from pixel_stream.client import AgentAPIError, AgentClient
from pixel_stream.session import SessionThread

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def session(display, board):
    with SessionThread(display, token="agent-api-test-token") as running:
        yield running


@pytest.fixture
def agent(session):
    with AgentClient(session.agent_url, session.token, control="take") as client:
        yield client


def clear_entry(agent, board):
    """Focus the entry and empty it (one click: several quick clicks on the same spot are a
    double or triple click to the app, which selects text)."""
    agent.act({"action": "left_click", "coordinate": board.center("entry")})
    agent.act({"action": "key", "text": "ctrl+a BackSpace"})
    board.wait_for(lambda s: s["text"] == "" and s["entry_focus"], "the entry to be empty")


def test_hello_describes_the_session(agent):
    hello = agent.hello
    assert hello["type"] == "hello" and hello["protocol"] == 1
    assert (hello["width"], hello["height"]) == (1280, 800)
    assert hello["role"] == "controller"
    assert "left_click" in hello["actions"] and "act_and_observe" in hello["ops"]


@pytest.mark.parametrize(("fmt", "pil_format"), [("png", "PNG"), ("jpeg", "JPEG")])
def test_screenshot_returns_an_image_and_its_frame(agent, fmt, pil_format):
    shot = agent.screenshot(format=fmt, quality=70 if fmt == "jpeg" else None)
    image = Image.open(io.BytesIO(shot.data))
    assert image.format == pil_format and image.size == (1280, 800)
    assert shot.seq >= 1 and shot.format == fmt


def test_act_and_observe_sees_the_patch_repaint(agent, board):
    presses = board.status()["presses"]
    before = agent.screenshot(format="png")
    seen = agent.act_and_observe(
        {"action": "left_click", "coordinate": board.center("patch")}, quiet_ms=150)
    assert seen["changed"] is True and seen["timed_out"] is False
    assert seen["seq_after"] > seen["seq_before"] >= before.seq
    assert seen.image is not None and seen.image.seq == seen["seq_after"]
    timings = seen.timings
    # the change came before the screen settled (an order, not a duration)
    assert timings["first_change_ms"] is not None
    assert 0 <= timings["first_change_ms"] <= timings["settle_ms"]
    board.wait_for(lambda s: s["presses"] == presses + 1, "the press to be counted")
    # the patch really changed colour in the observed image
    x, y = board.center("patch")
    old = Image.open(io.BytesIO(before.data)).convert("RGB").getpixel((x, y))
    new = Image.open(io.BytesIO(seen.image.data)).convert("RGB").getpixel((x, y))
    assert old != new


def test_act_and_observe_without_change(agent):
    seen = agent.act_and_observe({"action": "mouse_move", "coordinate": [1200, 700]},
                                 quiet_ms=50, timeout_ms=2000)
    assert seen["changed"] is False and seen["timed_out"] is False
    assert agent.cursor_position() == (1200, 700)


def test_type_and_keys_reach_the_qt_field(agent, board):
    clear_entry(agent, board)
    text = "Grüße, Ωmega — 中文 ✓ naïve"
    agent.act({"action": "type", "text": text})
    board.wait_for(lambda s: s["text"] == text, "the typed text")
    agent.act({"action": "key", "text": "BackSpace BackSpace"})
    board.wait_for(lambda s: s["text"] == text[:-2], "two characters deleted")
    agent.act({"action": "key", "text": "Home shift+End"})
    agent.act({"action": "type", "text": "X"})
    board.wait_for(lambda s: s["text"] == "X", "the selection replaced")


def test_drag_and_scroll_are_accepted(agent, board):
    entry = board.center("entry")
    reply = agent.act({"action": "left_click_drag", "start_coordinate": [entry[0] - 100,
                       entry[1]], "coordinate": [entry[0] + 100, entry[1]]})
    assert reply["action"] == "left_click_drag"
    reply = agent.act({"action": "scroll", "coordinate": board.center("patch"),
                       "scroll_direction": "down", "scroll_amount": 2})
    assert reply["ok"] is True


@pytest.mark.parametrize(
    ("action", "code", "fragment"),
    [
        ({"action": "left_click", "coordinate": [5000, 10]}, "bad_coordinate", "1280x800"),
        ({"action": "key", "text": "ctrl+frobnicate"}, "bad_key", "accepted forms"),
        ({"action": "teleport"}, "unknown_action", "known actions"),
        ({"action": "type"}, "bad_request", "needs text"),
    ],
)
def test_bad_actions_get_an_error_and_the_connection_stays_up(agent, action, code, fragment):
    with pytest.raises(AgentAPIError) as info:
        agent.act(action)
    assert info.value.code == code and fragment in info.value.message
    agent.ping()


def test_malformed_messages_get_error_replies(agent):
    assert agent.send_raw("{not json")["error"]["code"] == "bad_json"
    assert agent.send_raw("[1, 2]")["error"]["code"] == "bad_request"
    assert agent.send_raw('{"op": "dance", "id": 9}') == {
        "ok": False, "id": 9, "op": "dance",
        "error": {"code": "unknown_op", "message": "unknown op 'dance'; known ops: screenshot, "
                  "act, act_and_observe, ping, info, control, done"}}
    assert agent.send_raw(b"\x00\x01")["error"]["code"] == "bad_request"
    with pytest.raises(AgentAPIError) as info:
        agent.request("screenshot", format="gif")
    assert info.value.code == "bad_request"
    agent.ping()


def test_bad_token_is_rejected(session):
    with pytest.raises(AgentAPIError) as info:
        AgentClient(session.agent_url, "not-the-token")
    assert info.value.code == "rejected" and "403" in info.value.message


def test_second_agent_is_view_only_until_it_takes_control(session, agent, board):
    with AgentClient(session.agent_url, session.token) as other:
        assert other.role == "viewer"
        other.screenshot()  # looking is allowed
        with pytest.raises(AgentAPIError) as info:
            other.act({"action": "left_click", "coordinate": [10, 10]})
        assert info.value.code == "view_only"
        assert other.take_control() == "controller"
        other.act({"action": "mouse_move", "coordinate": [11, 11]})
    with pytest.raises(AgentAPIError) as info:
        agent.act({"action": "mouse_move", "coordinate": [12, 12]})
    assert info.value.code == "view_only"


def test_status_needs_the_token(session):
    import httpx

    base = session.url.split("?")[0]
    assert httpx.get(base + "status").status_code == 403
    status = httpx.get(base + "status", params={"token": session.token}).json()
    assert status["width"] == 1280 and status["policy"]["clipboard"] == "disabled"


def test_done_tells_the_session_the_agent_has_finished(session, agent):
    with AgentClient(session.agent_url, session.token, control="none") as viewer:
        with pytest.raises(AgentAPIError) as info:
            viewer.done()
        assert info.value.code == "view_only"
    with pytest.raises(AgentAPIError) as info:
        agent.done(message=5)  # type: ignore[arg-type]
    assert info.value.code == "bad_request"
    assert not session.session.agent_done.is_set()
    assert agent.done(message="filed the vitals")["done"] is True
    assert session.session.agent_done.is_set()
    assert session.session.agent_done_by == {"client_id": agent.client_id,
                                             "message": "filed the vitals"}
    agent.ping()  # the connection stays up
