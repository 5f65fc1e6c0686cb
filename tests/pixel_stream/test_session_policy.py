"""Session policies: published-app mode, idle logoff, reconnect grace."""

import asyncio
import time
from types import SimpleNamespace

import pytest

from pixel_stream.client import AgentAPIError, AgentClient
from pixel_stream.policy import SessionPolicy
from pixel_stream.procs import wait_until
from pixel_stream.session import SessionThread
from pixel_stream.testapp import PatchBoardProcess

pytestmark = pytest.mark.slow


def test_published_mode_shows_one_undecorated_window(display, tmp_path):
    with SessionThread(display, mode="published"):
        with PatchBoardProcess(display, tmp_path / "board.json") as app:
            app.wait_for(lambda s: s["window"] == [0, 0, 1280, 800],
                         "the app window to fill the display without a frame")


def test_published_mode_also_takes_over_a_window_that_was_already_there(display, tmp_path):
    with PatchBoardProcess(display, tmp_path / "board.json") as app:
        assert app.status()["window"] != [0, 0, 1280, 800]
        with SessionThread(display, mode="published"):
            app.wait_for(lambda s: s["window"] == [0, 0, 1280, 800],
                         "the running app's window to fill the display")


def test_desktop_mode_keeps_the_window_manager_frame(display, tmp_path):
    with SessionThread(display, mode="desktop"):
        with PatchBoardProcess(display, tmp_path / "board.json") as app:
            x, y, width, height = app.status()["window"]
            assert y > 0 and (width, height) == (720, 420)  # below a title bar


def test_idle_timeout_logs_the_session_off(display, monkeypatch):
    import pixel_stream.session as session_module

    policy = SessionPolicy(idle_timeout_s=0.5)
    # the session's clock, moved on at will (no sleep against the timeout)
    offset = {"s": 0.0}
    clock = SimpleNamespace(monotonic=lambda: time.monotonic() + offset["s"])
    monkeypatch.setattr(session_module, "time", clock)
    with SessionThread(display, policy=policy) as session:
        # nobody connected: an hour goes by and the idle watch looks again; it waits
        offset["s"] = 3600.0
        changed = session.session.clients.changed

        async def poke() -> None:  # wake the watch; it clears the event once it looked
            changed.set()
            while changed.is_set() and not session.session.ended.is_set():
                await asyncio.sleep(0.01)

        asyncio.run_coroutine_threadsafe(poke(), session._loop).result(timeout=10)
        assert not session.session.ended.is_set()
        offset["s"] = 0.0
        with AgentClient(session.agent_url, session.token) as agent:
            agent.act({"action": "mouse_move", "coordinate": [5, 5]})
            wait_until(lambda: session.session.ended.is_set(), 10, "the idle logoff")
            assert "idle timeout" in session.session.end_reason
        with pytest.raises(AgentAPIError) as info:
            AgentClient(session.agent_url, session.token)
        assert info.value.code == "rejected"


def test_reconnect_within_grace_keeps_control(display):
    with SessionThread(display, policy=SessionPolicy(disconnect_grace_s=180)) as session:
        with AgentClient(session.agent_url, session.token, client_id="agent-a") as first:
            assert first.role == "controller"
        # the controller dropped: its seat is held, another client only views
        with AgentClient(session.agent_url, session.token, client_id="agent-b") as other:
            assert other.role == "viewer"
            with pytest.raises(AgentAPIError) as info:
                other.act({"action": "mouse_move", "coordinate": [5, 5]})
            assert info.value.code == "view_only"
            with AgentClient(session.agent_url, session.token, client_id="agent-a") as back:
                assert back.role == "controller"
                back.act({"action": "mouse_move", "coordinate": [6, 6]})


def test_without_grace_the_seat_passes_on(display):
    with SessionThread(display, policy=SessionPolicy(disconnect_grace_s=0)) as session:
        first = AgentClient(session.agent_url, session.token, client_id="first")
        with AgentClient(session.agent_url, session.token, client_id="other") as other:
            assert (first.role, other.role) == ("controller", "viewer")
            first.close()
            wait_until(lambda: other.request("control")["role"] == "controller", 10,
                       "the seat to pass to the waiting client")


def test_a_reconnect_replaces_a_connection_that_still_looks_alive(display):
    with SessionThread(display) as session:
        stale = AgentClient(session.agent_url, session.token, client_id="laptop")
        try:
            with AgentClient(session.agent_url, session.token, client_id="laptop") as fresh:
                assert fresh.role == "controller"
                fresh.act({"action": "mouse_move", "coordinate": [7, 7]})
                with pytest.raises(Exception):  # noqa: B017 - the old socket was closed
                    stale.ping()
        finally:
            stale.close()
