"""Input from a receiver page: low-level mouse, wheel and key messages.

The page forwards what the browser reports (``{"t": "button", "button": 1, "down": true,
"x": 10, "y": 20}``, ``{"t": "key", "key": "é", "code": "KeyE", "down": true}`` ...). Keys
are forwarded by the symbol they produce (DOM ``key``), like noVNC does, so any local
keyboard layout types the characters its user sees; the release of a key goes to the
keycode its press used (tracked by DOM ``code``), because ``key`` can differ between press
and release (Shift released first).

Clipboard and file messages do not exist in this protocol; a page (or anyone) sending one
gets an error that says the policy forbids it.
"""

from __future__ import annotations

from typing import Any

from pixel_stream.actions import Runner
from pixel_stream.keys import KeyNameError, dom_key_to_keysym
from pixel_stream.xinput import InputInjector

INPUT_TYPES = ("move", "button", "wheel", "key", "release_all")
BLOCKED_TYPES = {
    "clipboard": "clipboard transfer is disabled by the session policy",
    "paste": "paste from the local clipboard is disabled by the session policy",
    "copy": "copying to the local clipboard is disabled by the session policy",
    "file": "file transfer is disabled by the session policy",
    "upload": "file transfer is disabled by the session policy",
    "download": "file transfer is disabled by the session policy",
}
WHEEL_LIMIT = 20
# DOM keys that only prepare a character (the browser reports the composed character with
# the next key event), or that the browser already applied (AltGr): never forwarded.
SILENT_KEYS = frozenset({"Dead", "Process", "Unidentified", "AltGraph", "Compose"})


class ViewerInputError(ValueError):
    """A receiver input message that cannot be applied."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _int(msg: dict[str, Any], key: str) -> int:
    value = msg.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise ViewerInputError("bad_request", f"{msg.get('t')} needs a numeric {key!r}")
    return int(value)


def parse_viewer_input(msg: Any, width: int, height: int) -> dict[str, Any] | None:
    """Check one receiver message; returns a normalised copy (what the trace records).

    None means "accepted, nothing to inject" (a dead key or AltGr: the browser reports the
    character they make with the next key event).
    """
    if not isinstance(msg, dict):
        raise ViewerInputError("bad_request", "an input message must be a JSON object")
    kind = msg.get("t")
    if kind in BLOCKED_TYPES:
        raise ViewerInputError("policy", BLOCKED_TYPES[kind])
    if kind not in INPUT_TYPES:
        raise ViewerInputError(
            "unknown_type", f"unknown input type {kind!r}; known: {', '.join(INPUT_TYPES)}"
        )
    event: dict[str, Any] = {"t": kind}
    if kind in ("move", "button", "wheel"):
        x, y = _int(msg, "x"), _int(msg, "y")
        if not (0 <= x < width and 0 <= y < height):
            raise ViewerInputError(
                "bad_coordinate",
                f"({x}, {y}) is outside the {width}x{height} screen",
            )
        event["x"], event["y"] = x, y
    if kind == "button":
        button = _int(msg, "button")
        if button not in (1, 2, 3, 8, 9):
            raise ViewerInputError("bad_request", f"button must be 1, 2, 3, 8 or 9, got {button}")
        event["button"] = button
        event["down"] = bool(msg.get("down"))
    elif kind == "wheel":
        dx, dy = _int(msg, "dx"), _int(msg, "dy")
        event["dx"] = max(-WHEEL_LIMIT, min(WHEEL_LIMIT, dx))
        event["dy"] = max(-WHEEL_LIMIT, min(WHEEL_LIMIT, dy))
    elif kind == "key":
        key, code = msg.get("key"), msg.get("code", "")
        if not isinstance(key, str) or not isinstance(code, str):
            raise ViewerInputError("bad_request", "key needs string 'key' and 'code' fields")
        if key in SILENT_KEYS:
            return None
        try:
            event["keysym"] = dom_key_to_keysym(key, code)
        except (KeyNameError, ValueError) as exc:
            raise ViewerInputError("bad_key", str(exc)) from exc
        event["key"], event["code"], event["down"] = key, code, bool(msg.get("down"))
    return event


class ViewerInput:
    """Applies parsed receiver messages of one client to the display."""

    def __init__(self, injector: InputInjector, run: Runner) -> None:
        self._injector = injector
        self._run = run
        self._pressed: dict[str, int] = {}  # DOM code (or key) -> keycode

    async def apply(self, event: dict[str, Any] | None) -> None:
        """Inject one parsed message (None, a dead key or AltGr, injects nothing)."""
        if event is None:
            return
        kind = event["t"]
        inj = self._injector
        if kind == "move":
            await self._run(inj.move, event["x"], event["y"])
        elif kind == "button":
            await self._run(inj.move, event["x"], event["y"])
            await self._run(inj.button, event["button"], event["down"])
        elif kind == "wheel":
            await self._run(inj.move, event["x"], event["y"])
            if event["dy"]:
                await self._run(inj.scroll, "down" if event["dy"] > 0 else "up", abs(event["dy"]))
            if event["dx"]:
                await self._run(
                    inj.scroll, "right" if event["dx"] > 0 else "left", abs(event["dx"])
                )
        elif kind == "key":
            slot = event["code"] or event["key"]
            if event["down"]:
                if slot in self._pressed:  # auto-repeat: release-less repeat is fine for X
                    await self._run(inj.key_code, self._pressed[slot], True)
                else:
                    self._pressed[slot] = await self._run(inj.press_symbol, event["keysym"])
            else:
                keycode = self._pressed.pop(slot, None)
                if keycode is None:
                    keycode = await self._run(inj.key, event["keysym"], False)
                else:
                    await self._run(inj.key_code, keycode, False)
        elif kind == "release_all":
            await self.release_all()

    async def release_all(self) -> None:
        """Release everything this client holds (page lost focus, client went away)."""
        for keycode in self._pressed.values():
            await self._run(self._injector.key_code, keycode, False)
        self._pressed.clear()
        for button in self._injector.held["buttons"]:
            await self._run(self._injector.button, button, False)
