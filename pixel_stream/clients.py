"""Who is connected to a session: receiver pages and agents by client id, and their roles.

The registry owns the connections and the control seat's view of them: it hands out client
ids (a reconnecting client reuses its own), replaces a connection that a client's newer one
supersedes, tells every viewer its role when roles change, and starts the seat's
reconnect grace when the controller leaves. ``changed`` is set whenever a client comes or
goes (the session's idle watch waits on it).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from typing import TYPE_CHECKING, Any

from pixel_stream.control import ControlSeat

if TYPE_CHECKING:
    from pixel_stream.agent_api import AgentConnection
    from pixel_stream.viewers import ViewerConnection


class ClientRegistry:
    """The connected clients of one session and the seat that says who drives."""

    def __init__(self, seat: ControlSeat) -> None:
        self.seat = seat
        self.viewers: dict[str, ViewerConnection] = {}
        self.agents: dict[str, AgentConnection] = {}
        self.changed = asyncio.Event()
        self.last_connect_at = time.monotonic()
        self._ids = itertools.count(1)

    def client_id(self, requested: Any, prefix: str) -> str:
        """The requested id (a reconnecting client reuses its id), else a new one."""
        if isinstance(requested, str) and 0 < len(requested) <= 64 and requested.isprintable():
            return requested
        return f"{prefix}-{next(self._ids)}"

    async def replace(self, client_id: str) -> None:
        """A client reconnected under its id while its old connection still looks alive
        (a network drop is noticed late): the new connection takes over."""
        old_agent = self.agents.pop(client_id, None)
        if old_agent is not None:
            await old_agent.leave()
            with contextlib.suppress(Exception):
                await old_agent.ws.close(4000, "replaced by a newer connection of this client")
        old_viewer = self.viewers.pop(client_id, None)
        if old_viewer is not None:
            await old_viewer.close()

    # -- joining and leaving -------------------------------------------------------------
    def add_viewer(self, client_id: str, viewer: ViewerConnection, wants_control: bool) -> str:
        """Register a receiver page; returns its role."""
        self.viewers[client_id] = viewer
        self.last_connect_at = time.monotonic()
        role = self.seat.connect(client_id, "viewer", wants_control=wants_control)
        self.broadcast_roles()
        return role

    def add_agent(self, client_id: str, agent: AgentConnection, control: str | None) -> str:
        """Register an agent connection (``control``: ``request`` (default), ``take`` or
        ``none``); returns its role."""
        self.last_connect_at = time.monotonic()
        role = self.seat.connect(client_id, "agent", wants_control=control != "none")
        if control == "take":
            role = self.seat.take(client_id)
        agent.told_role = role  # the hello says it
        self.agents[client_id] = agent
        self.broadcast_roles()
        return role

    def remove_viewer(self, client_id: str, viewer: ViewerConnection) -> None:
        """The page left; nothing happens if a newer connection already replaced it."""
        if self.viewers.get(client_id) is viewer:
            del self.viewers[client_id]
            self._left(client_id)

    def remove_agent(self, client_id: str, agent: AgentConnection) -> None:
        if self.agents.get(client_id) is agent:
            del self.agents[client_id]
            self._left(client_id)

    def _left(self, client_id: str) -> None:
        was_holder = self.seat.holder == client_id
        self.seat.disconnect(client_id)
        if was_holder and self.seat.grace_s > 0:
            with contextlib.suppress(RuntimeError):  # no loop: the seat expires on read
                asyncio.get_running_loop().call_later(self.seat.grace_s + 0.01, self.seat.check)
        self.broadcast_roles()

    # -- roles ---------------------------------------------------------------------------
    def take_control(self, client_id: str) -> None:
        self.seat.take(client_id)
        self.broadcast_roles()

    def release_control(self, client_id: str) -> None:
        self.seat.release(client_id)
        self.broadcast_roles()

    def broadcast_roles(self) -> None:
        """Tell every viewer its role, and every agent whose role changed; wake whoever
        waits for clients to change."""
        self.changed.set()
        for viewer in list(self.viewers.values()):
            viewer.send_role()
        for client_id, agent in list(self.agents.items()):
            agent.tell_role(self.seat.role(client_id))

    # -- ending --------------------------------------------------------------------------
    async def close_all(self, code: int = 1001, reason: str = "") -> None:
        for viewer in list(self.viewers.values()):
            await viewer.close()
        for agent in list(self.agents.values()):
            with contextlib.suppress(Exception):
                await agent.ws.close(code, reason)
