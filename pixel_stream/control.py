"""Who may drive the session: one controller, every other client views.

Clients (receiver pages, agent connections) are identified by a client id they may choose
and reuse. The first client that asks for control gets it. When the controller's connection
drops, its seat is kept for the disconnect grace (180 s by default, as a Citrix session
survives a network drop): the same client id reconnecting within the grace is controller
again; after the grace the seat is free. A client may also take control explicitly.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

CONTROLLER = "controller"
VIEWER = "viewer"


@dataclass
class ClientInfo:
    client_id: str
    kind: str  # "viewer" (receiver page) or "agent"
    connected: bool = True
    wants_control: bool = True
    connected_at: float = field(default_factory=time.monotonic)
    disconnected_at: float | None = None


class ControlSeat:
    """The controller seat of one session, with the reconnect grace."""

    def __init__(self, grace_s: float, now: Callable[[], float] = time.monotonic) -> None:
        self.grace_s = grace_s
        self._now = now
        self._holder: str | None = None
        self.clients: dict[str, ClientInfo] = {}
        self._listeners: list[Callable[[], None]] = []

    @property
    def holder(self) -> str | None:
        """The controller's client id (also while its seat is held through the grace)."""
        self._expire()
        return self._holder

    def on_change(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    def check(self) -> None:
        """Apply an expired grace now (the session calls this when a grace runs out)."""
        before = self._holder
        self._expire()
        if self._holder != before:
            self._changed()

    def _expire(self) -> None:
        if self._holder is None:
            return
        info = self.clients.get(self._holder)
        if info is None:
            self._holder = None
            return
        if not info.connected and info.disconnected_at is not None:
            if self._now() - info.disconnected_at >= self.grace_s:
                del self.clients[self._holder]
                self._holder = None
                self._promote()

    def _promote(self) -> None:
        """Give a free seat to the longest-connected client that wants it."""
        if self._holder is not None:
            return
        waiting = [c for c in self.clients.values() if c.connected and c.wants_control]
        if waiting:
            self._holder = min(waiting, key=lambda c: c.connected_at).client_id

    def connect(self, client_id: str, kind: str, wants_control: bool = True) -> str:
        """Register a (re)connecting client; returns its role."""
        self._expire()
        info = self.clients.get(client_id)
        if info is None:
            info = ClientInfo(client_id=client_id, kind=kind, wants_control=wants_control)
            self.clients[client_id] = info
        else:
            info.connected = True
            info.disconnected_at = None
            info.wants_control = wants_control
            info.connected_at = self._now()
        if self._holder is None and wants_control:
            self._holder = client_id
        self._changed()
        return self.role(client_id)

    def disconnect(self, client_id: str) -> None:
        """The client's connection is gone; a controller keeps its seat for the grace."""
        info = self.clients.get(client_id)
        if info is None:
            return
        info.connected = False
        info.disconnected_at = self._now()
        if self._holder != client_id:
            del self.clients[client_id]
        elif self.grace_s <= 0:
            self._holder = None
            del self.clients[client_id]
            self._promote()
        self._changed()

    def take(self, client_id: str) -> str:
        """Make ``client_id`` the controller (an explicit takeover)."""
        info = self.clients.get(client_id)
        if info is None or not info.connected:
            return VIEWER
        previous = self._holder
        info.wants_control = True
        self._holder = client_id
        if previous is not None and previous != client_id:
            old = self.clients.get(previous)
            if old is not None and not old.connected:
                del self.clients[previous]
        self._changed()
        return CONTROLLER

    def release(self, client_id: str) -> None:
        """Give up control; the seat goes to the next waiting client."""
        info = self.clients.get(client_id)
        if info is not None:
            info.wants_control = False
        if self._holder == client_id:
            self._holder = None
            self._promote()
        self._changed()

    def role(self, client_id: str) -> str:
        return CONTROLLER if self.holder == client_id else VIEWER

    def may_input(self, client_id: str) -> bool:
        return self.holder == client_id

    @property
    def connected_count(self) -> int:
        return sum(1 for c in self.clients.values() if c.connected)

    def describe(self) -> dict:
        return {
            "controller": self.holder,
            "clients": [
                {"client_id": c.client_id, "kind": c.kind, "connected": c.connected,
                 "role": self.role(c.client_id)}
                for c in self.clients.values()
            ],
        }
