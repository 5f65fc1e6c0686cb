"""The client of the desktop EHR's inspector socket, used by the oracle to locate widgets
and by the episode to reset the app between attempts."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any


class InspectorError(RuntimeError):
    """The desktop app's inspector answered with an error or not at all."""


class InspectorClient:
    """The desktop EHR's locator socket (``desktop_ehr.inspector``; docs/desktop-ehr.md).

    One JSON request per line, one reply per line: ``ping``; ``find`` (widgets whose
    objectName or accessible name is ``name``, a ``*`` glob allowed — each with ``x, y, w,
    h`` in the app display's pixels, ``visible``, ``enabled``, ``text``); ``items`` (the
    rows, tabs, entries or menu actions of one widget, each with its rectangle and text);
    ``tree``; ``reset`` (back to the log-in screen, between episodes only). Replies carry
    ``"ok": true`` or ``"ok": false, "error": "..."``. Nothing in it clicks or types.
    """

    def __init__(self, path: Path, timeout: float = 10.0):
        self.path = Path(path)
        self.timeout = timeout

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(self.timeout)
            try:
                sock.connect(str(self.path))
                sock.sendall((json.dumps({"op": op, **fields}) + "\n").encode())
                data = b""
                while not data.endswith(b"\n"):
                    chunk = sock.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            except OSError as exc:
                raise InspectorError(f"no answer from the inspector at {self.path} ({exc})"
                                     ) from exc
        try:
            reply = json.loads(data or b"{}")
        except json.JSONDecodeError as exc:
            raise InspectorError(f"the inspector sent something that is not JSON: {exc}"
                                 ) from exc
        if not reply.get("ok"):
            raise InspectorError(reply.get("error") or f"the inspector refused {op!r}")
        return reply

    def find(self, name: str) -> list[dict[str, Any]]:
        return self.request("find", name=name)["widgets"]

    def locate(self, name: str) -> dict[str, Any]:
        """The first shown widget called ``name``."""
        for widget in self.find(name):
            if widget.get("visible", True):
                return widget
        raise InspectorError(f"no shown widget is called {name!r}")

    def items(self, name: str) -> list[dict[str, Any]]:
        return self.request("items", name=name)["items"]

    def reset(self) -> None:
        self.request("reset")
