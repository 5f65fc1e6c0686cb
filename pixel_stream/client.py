"""A small synchronous client for the agent API (docs/agent-api.md).

    from pixel_stream.client import AgentClient

    with AgentClient(session.agent_url, session.token) as agent:
        shot = agent.screenshot(format="jpeg", quality=80)     # Screenshot(seq, data, ...)
        agent.act({"action": "left_click", "coordinate": [100, 200]})
        seen = agent.act_and_observe({"action": "type", "text": "hello"}, quiet_ms=300)
        seen.image.data  # PNG bytes of the settled screen

Errors from the server raise ``AgentAPIError`` (with ``.code``); the connection stays up.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect


class AgentAPIError(RuntimeError):
    """The server answered a request with an error."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Image:
    """An encoded screenshot and what the server said about it."""

    data: bytes
    format: str
    width: int
    height: int
    seq: int
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Reply:
    """A successful reply; ``image`` is set when the op returned one."""

    body: dict[str, Any]
    image: Image | None = None

    def __getitem__(self, key: str) -> Any:
        return self.body[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.body.get(key, default)

    @property
    def seq(self) -> int | None:
        return self.body.get("seq")

    @property
    def timings(self) -> dict[str, Any]:
        return self.body.get("timings", {})


class AgentClient:
    """One agent connection to a pixel session."""

    def __init__(
        self,
        url: str,
        token: str,
        client_id: str | None = None,
        control: str = "request",
        timeout: float = 60.0,
    ) -> None:
        if control not in ("request", "take", "none"):
            raise ValueError("control must be 'request', 'take' or 'none'")
        parts = urlsplit(url)
        query = {"control": control}
        if client_id:
            query["client_id"] = client_id
        self.url = urlunsplit(parts._replace(query=urlencode(query)))
        self.timeout = timeout
        self._ids = itertools.count(1)
        try:
            # Entered as a context manager right away (websockets >= 17 asks for that); the
            # client's own close() / __exit__ ends it.
            self._ws: ClientConnection = connect(
                self.url,
                additional_headers={"Authorization": f"Bearer {token}"},
                max_size=64 * 1024 * 1024,
                open_timeout=timeout,
                compression=None,
            ).__enter__()
        except InvalidStatus as exc:
            status = exc.response.status_code
            raise AgentAPIError(
                "rejected",
                f"the session refused the connection (HTTP {status}); check the token",
            ) from exc
        self.events: list[dict[str, Any]] = []
        self.hello = self._receive_json()
        if self.hello.get("type") != "hello":
            raise AgentAPIError("protocol", f"expected a hello, got {self.hello!r}")
        self.width: int = self.hello["width"]
        self.height: int = self.hello["height"]
        self.client_id: str = self.hello["client_id"]
        self.role: str = self.hello["role"]

    # -- plumbing ----------------------------------------------------------------------
    def _receive_json(self) -> dict[str, Any]:
        message = self._ws.recv(timeout=self.timeout)
        if isinstance(message, bytes):
            raise AgentAPIError("protocol", "unexpected binary message")
        return json.loads(message)

    def request(self, op: str, **fields: Any) -> Reply:
        """Send one request and wait for its reply (and image)."""
        request_id = next(self._ids)
        self._ws.send(json.dumps({"id": request_id, "op": op, **fields}))
        while True:
            body = self._receive_json()
            if "type" in body and "ok" not in body:  # an event (role change, session end)
                self.events.append(body)
                if body.get("type") == "role":
                    self.role = body.get("role", self.role)
                continue
            if body.get("id") not in (request_id, None):
                continue  # a late reply to a request that timed out on our side
            break
        if not body.get("ok"):
            error = body.get("error", {})
            raise AgentAPIError(error.get("code", "error"), error.get("message", str(body)))
        image = None
        meta = body.get("image")
        if meta:
            data = self._ws.recv(timeout=self.timeout)
            if not isinstance(data, bytes):
                raise AgentAPIError("protocol", "expected the image as a binary message")
            image = Image(
                data=data, format=meta["format"], width=meta["width"],
                height=meta["height"], seq=meta["seq"], meta=meta,
            )
        return Reply(body=body, image=image)

    # -- API ---------------------------------------------------------------------------
    def screenshot(
        self, format: str = "png", quality: int | None = None, fresh: bool = True
    ) -> Image:
        """The screen now (``fresh``) or the latest captured frame, as PNG or JPEG."""
        fields: dict[str, Any] = {"format": format, "fresh": fresh}
        if quality is not None:
            fields["quality"] = quality
        reply = self.request("screenshot", **fields)
        assert reply.image is not None
        return reply.image

    def act(self, action: dict[str, Any]) -> Reply:
        """Perform one computer-use action (``{"action": "left_click", ...}``)."""
        return self.request("act", action=action)

    def act_and_observe(
        self,
        action: dict[str, Any],
        quiet_ms: float = 300,
        timeout_ms: float = 5000,
        format: str = "png",
        quality: int | None = None,
    ) -> Reply:
        """Act, wait until the screen is quiet for ``quiet_ms`` (or ``timeout_ms``), look."""
        fields: dict[str, Any] = {
            "action": action, "quiet_ms": quiet_ms, "timeout_ms": timeout_ms, "format": format,
        }
        if quality is not None:
            fields["quality"] = quality
        return self.request("act_and_observe", **fields)

    def cursor_position(self) -> tuple[int, int]:
        result = self.act({"action": "cursor_position"})["result"]
        return result["x"], result["y"]

    def take_control(self) -> str:
        self.role = self.request("control", take=True)["role"]
        return self.role

    def release_control(self) -> str:
        self.role = self.request("control", release=True)["role"]
        return self.role

    def info(self) -> dict[str, Any]:
        return self.request("info").body

    def done(self, message: str | None = None) -> Reply:
        """Tell the session the task is finished; the episode is then graded."""
        fields = {} if message is None else {"message": message}
        return self.request("done", **fields)

    def ping(self) -> None:
        self.request("ping")

    def send_raw(self, text: str | bytes) -> dict[str, Any]:
        """Send anything (for protocol tests) and return the next JSON reply."""
        self._ws.send(text)
        return self._receive_json()

    def close(self) -> None:
        self._ws.close()

    def __enter__(self) -> AgentClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
