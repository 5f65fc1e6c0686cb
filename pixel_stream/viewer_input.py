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
# Pointer messages are non-blocking XTEST writes (plus one round trip): a batch of only
# these is injected on the event loop when nothing else is queued (see ``apply_pointer``).
POINTER_TYPES = frozenset({"move", "button", "wheel"})
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
    """Applies parsed receiver messages of one client to the display.

    Messages that queued up while earlier ones were injected are applied together, in
    order, in one call on the input thread and with one round trip to the X server at the
    end (``apply_all``): a fast typist, or an agent typing a paragraph into the receiver
    window, sends key messages faster than one round trip each would inject them.
    """

    def __init__(self, injector: InputInjector, run: Runner) -> None:
        self._injector = injector
        self._run = run
        self._pressed: dict[str, int] = {}  # DOM code (or key) -> keycode

    async def apply(self, event: dict[str, Any] | None) -> None:
        """Inject one parsed message (None, a dead key or AltGr, injects nothing)."""
        if event is None:
            return
        failures = await self._run(self.apply_all, [event])
        if failures:
            raise failures[0][1]

    def apply_all(self, events: list[dict[str, Any]]) -> list[tuple[dict[str, Any], Exception]]:
        """Inject ``events`` in order (blocking; runs on the input thread); returns the
        events that failed with their errors (the others were injected)."""
        failures: list[tuple[dict[str, Any], Exception]] = []
        with self._injector.batch():
            for event in events:
                try:
                    self._apply_now(event)
                except Exception as exc:  # noqa: BLE001 - reported per event by the caller
                    failures.append((event, exc))
        return failures

    def apply_pointer(
        self, events: list[dict[str, Any]]
    ) -> list[tuple[dict[str, Any], Exception]]:
        """``apply_all`` for a batch of pointer messages only. The session runs it inline
        (no hand-over to the input thread and back) when no other input is queued: a click
        reaches the application a thread switch sooner, which counts on a loaded machine."""
        if any(event["t"] not in POINTER_TYPES for event in events):
            raise ValueError("apply_pointer takes pointer messages only (move, button, wheel)")
        return self.apply_all(events)

    def never_blocks(self, events: list[dict[str, Any]]) -> bool:
        """Pointer messages and keys whose symbol is on the keymap: XTEST writes and one
        round trip, nothing that waits (a keycode remapping does)."""
        return all(event["t"] in POINTER_TYPES or (
            event["t"] == "key" and self._injector.has_key_for(event["keysym"]))
            for event in events)

    def apply_inline(
        self, events: list[dict[str, Any]]
    ) -> list[tuple[dict[str, Any], Exception]]:
        """``apply_all`` for messages that never block (``never_blocks``): the session runs
        it on the event loop when nothing else is queued, saving a typed key two thread
        hand-overs (to the input thread and back)."""
        if not self.never_blocks(events):
            raise ValueError("apply_inline takes messages that never block only")
        return self.apply_all(events)

    def _apply_now(self, event: dict[str, Any]) -> None:
        kind = event["t"]
        inj = self._injector
        if kind == "move":
            inj.move(event["x"], event["y"])
        elif kind == "button":
            inj.move(event["x"], event["y"])
            inj.button(event["button"], event["down"])
        elif kind == "wheel":
            inj.move(event["x"], event["y"])
            if event["dy"]:
                inj.scroll("down" if event["dy"] > 0 else "up", abs(event["dy"]))
            if event["dx"]:
                inj.scroll("right" if event["dx"] > 0 else "left", abs(event["dx"]))
        elif kind == "key":
            slot = event["code"] or event["key"]
            if event["down"]:
                if slot in self._pressed:  # auto-repeat: release-less repeat is fine for X
                    inj.key_code(self._pressed[slot], True)
                else:
                    self._pressed[slot] = inj.press_symbol(event["keysym"])
            else:
                keycode = self._pressed.pop(slot, None)
                if keycode is None:
                    inj.key(event["keysym"], False)
                else:
                    inj.key_code(keycode, False)
        elif kind == "release_all":
            self._release_now()

    async def release_all(self) -> None:
        """Release everything this client holds (page lost focus, client went away)."""
        await self._run(self.apply_all, [{"t": "release_all"}])

    def _release_now(self) -> None:
        for keycode in self._pressed.values():
            self._injector.key_code(keycode, False)
        self._pressed.clear()
        for button in self._injector.held["buttons"]:
            self._injector.button(button, False)
