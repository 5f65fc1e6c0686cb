"""The agent's action vocabulary: Anthropic's computer-use tool, checked and carried out.

An action is the tool's input object, e.g. ``{"action": "left_click", "coordinate": [x, y]}``
or ``{"action": "key", "text": "ctrl+s"}``. ``parse_action`` checks it completely before
anything is injected (unknown action, unknown or missing fields, coordinates off the
screen, unknown key names all fail with a message saying what to send instead);
``perform_action`` then drives an ``InputInjector`` through the session's input thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pixel_stream.keys import (
    Combo,
    KeyNameError,
    char_to_keysym,
    parse_combo,
    parse_key_sequence,
)
from pixel_stream.xinput import InputInjector

MAX_DURATION_S = 100.0
MAX_TEXT = 10_000
# characters typed per input-thread call: a type cancelled (its agent left) stops between
# chunks instead of typing the rest for nobody
TYPE_CHUNK = 32
DRAG_STEPS = 6
DRAG_STEP_S = 0.008

# action -> (required fields, optional fields)
ACTIONS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "screenshot": (frozenset(), frozenset()),
    "cursor_position": (frozenset(), frozenset()),
    "mouse_move": (frozenset({"coordinate"}), frozenset()),
    "left_click": (frozenset(), frozenset({"coordinate", "text"})),
    "right_click": (frozenset(), frozenset({"coordinate", "text"})),
    "middle_click": (frozenset(), frozenset({"coordinate", "text"})),
    "double_click": (frozenset(), frozenset({"coordinate", "text"})),
    "triple_click": (frozenset(), frozenset({"coordinate", "text"})),
    "left_click_drag": (frozenset({"coordinate"}), frozenset({"start_coordinate", "text"})),
    "left_mouse_down": (frozenset(), frozenset({"coordinate"})),
    "left_mouse_up": (frozenset(), frozenset({"coordinate"})),
    "scroll": (
        frozenset({"scroll_direction", "scroll_amount"}),
        frozenset({"coordinate", "text"}),
    ),
    "type": (frozenset({"text"}), frozenset()),
    "key": (frozenset({"text"}), frozenset()),
    "hold_key": (frozenset({"text", "duration"}), frozenset()),
    "wait": (frozenset({"duration"}), frozenset()),
}
CLICKS = {
    "left_click": (1, 1),
    "right_click": (3, 1),
    "middle_click": (2, 1),
    "double_click": (1, 2),
    "triple_click": (1, 3),
}
SCROLL_DIRECTIONS = ("up", "down", "left", "right")


class ActionError(ValueError):
    """An action that cannot be accepted; ``code`` is the protocol error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Action:
    """A checked action, ready to perform."""

    name: str
    coordinate: tuple[int, int] | None = None
    start_coordinate: tuple[int, int] | None = None
    text: str | None = None
    combos: tuple[Combo, ...] = ()
    modifiers: Combo | None = None
    scroll_direction: str | None = None
    scroll_amount: int = 0
    duration: float = 0.0
    raw: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def changes_input(self) -> bool:
        """False for actions that only look (screenshot, cursor_position, wait)."""
        return self.name not in ("screenshot", "cursor_position", "wait")


def _coordinate(value: Any, key: str, width: int, height: int) -> tuple[int, int]:
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise ActionError(
            "bad_request", f"{key} must be a list of two integers [x, y], got {value!r}"
        )
    x, y = value
    if not (0 <= x < width and 0 <= y < height):
        raise ActionError(
            "bad_coordinate",
            f"{key} ({x}, {y}) is outside the {width}x{height} screen; "
            f"x must be 0..{width - 1} and y 0..{height - 1}",
        )
    return (x, y)


def _duration(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ActionError("bad_request", f"duration must be a number of seconds, got {value!r}")
    if not 0 <= value <= MAX_DURATION_S:
        raise ActionError(
            "bad_request", f"duration must be between 0 and {MAX_DURATION_S:g} s, got {value!r}"
        )
    return float(value)


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ActionError("bad_request", f"text must be a string, got {type(value).__name__}")
    if len(value) > MAX_TEXT:
        raise ActionError("bad_request", f"text is longer than {MAX_TEXT} characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        # a lone surrogate ("\udc80", valid in a JSON string escape) is no character:
        # it cannot be typed, and it could not be written to the trace
        raise ActionError(
            "bad_text",
            f"text holds {value[exc.start:exc.end]!r} at position {exc.start}, which is not "
            "a Unicode character (a lone surrogate); send valid UTF-8 text",
        ) from None
    return value


def parse_action(data: Any, width: int, height: int) -> Action:
    """Check a computer-use action object against the vocabulary and the screen size."""
    if not isinstance(data, dict):
        raise ActionError("bad_request", f"an action must be a JSON object, got {data!r}")
    name = data.get("action")
    if name not in ACTIONS:
        raise ActionError(
            "unknown_action",
            f"unknown action {name!r}; known actions: {', '.join(ACTIONS)}",
        )
    required, optional = ACTIONS[name]
    present = {k for k in data if k != "action" and data[k] is not None}
    missing = sorted(required - present)
    if missing:
        raise ActionError("bad_request", f"{name} needs {', '.join(missing)}")
    extra = sorted(present - required - optional)
    if extra:
        allowed = sorted(required | optional) or ["no other fields"]
        raise ActionError(
            "bad_request",
            f"{name} does not take {', '.join(extra)}; it takes: {', '.join(allowed)}",
        )
    fields_: dict[str, Any] = {"name": name, "raw": dict(data)}
    if "coordinate" in present:
        fields_["coordinate"] = _coordinate(data["coordinate"], "coordinate", width, height)
    if "start_coordinate" in present:
        fields_["start_coordinate"] = _coordinate(
            data["start_coordinate"], "start_coordinate", width, height
        )
    if "duration" in present:
        fields_["duration"] = _duration(data["duration"])
    if "text" in present:
        text = _text(data["text"])
        fields_["text"] = text
        try:
            if name in ("key",):
                fields_["combos"] = tuple(parse_key_sequence(text))
            elif name == "hold_key":
                fields_["combos"] = (parse_combo(text.strip()),)
            elif name != "type":
                fields_["modifiers"] = parse_combo(text.strip())
        except KeyNameError as exc:
            raise ActionError("bad_key", str(exc)) from exc
        if name == "type":
            for char in text:
                try:
                    char_to_keysym(char)
                except ValueError as exc:
                    raise ActionError("bad_request", f"cannot type {char!r}: {exc}") from exc
    if name == "scroll":
        direction = data["scroll_direction"]
        if direction not in SCROLL_DIRECTIONS:
            raise ActionError(
                "bad_request",
                f"scroll_direction must be one of {', '.join(SCROLL_DIRECTIONS)}, "
                f"got {direction!r}",
            )
        amount = data["scroll_amount"]
        if isinstance(amount, bool) or not isinstance(amount, int) or not 0 <= amount <= 100:
            raise ActionError(
                "bad_request", f"scroll_amount must be an integer 0..100, got {amount!r}"
            )
        fields_["scroll_direction"] = direction
        fields_["scroll_amount"] = amount
    return Action(**fields_)


Runner = Callable[..., Awaitable[Any]]


async def perform_action(action: Action, injector: InputInjector, run: Runner) -> dict[str, Any]:
    """Carry out ``action``; ``run(fn, *args)`` executes blocking injector calls in order.

    Returns the action's output (``{"x": .., "y": ..}`` for cursor_position, else empty).
    """
    name = action.name
    if name in ("screenshot",):
        return {}
    if name == "cursor_position":
        x, y = await run(injector.cursor_position)
        return {"x": x, "y": y}
    if name == "wait":
        await asyncio.sleep(action.duration)
        return {}
    if name == "type":
        text = action.text or ""
        for start in range(0, len(text), TYPE_CHUNK):  # cancellable between chunks
            await run(injector.type_text, text[start:start + TYPE_CHUNK])
        return {}
    if name == "key":
        for combo in action.combos:
            await run(injector.press_combo, combo)
        return {}
    if name == "hold_key":
        combo = action.combos[0]
        await run(injector.hold_combo, combo, True)
        try:
            await asyncio.sleep(action.duration)
        finally:
            await run(injector.hold_combo, combo, False)
        return {}
    if action.coordinate is not None and name != "left_click_drag":
        await run(injector.move, *action.coordinate)
    if name == "mouse_move":
        return {}
    modifiers = action.modifiers
    if modifiers is not None:
        await run(injector.hold_combo, modifiers, True)
    try:
        if name in CLICKS:
            button, count = CLICKS[name]
            await run(injector.click, button, count)
        elif name == "left_mouse_down":
            await run(injector.button, 1, True)
        elif name == "left_mouse_up":
            await run(injector.button, 1, False)
        elif name == "scroll":
            await run(injector.scroll, action.scroll_direction, action.scroll_amount)
        elif name == "left_click_drag":
            await _drag(action, injector, run)
    finally:
        if modifiers is not None:
            await run(injector.hold_combo, modifiers, False)
    return {}


async def _drag(action: Action, injector: InputInjector, run: Runner) -> None:
    if action.start_coordinate is not None:
        start = action.start_coordinate
        await run(injector.move, *start)
    else:
        start = await run(injector.cursor_position)
    end = action.coordinate
    assert end is not None
    await run(injector.button, 1, True)
    try:
        for step in range(1, DRAG_STEPS + 1):
            x = round(start[0] + (end[0] - start[0]) * step / DRAG_STEPS)
            y = round(start[1] + (end[1] - start[1]) * step / DRAG_STEPS)
            await asyncio.sleep(DRAG_STEP_S)
            await run(injector.move, x, y)
    finally:
        await run(injector.button, 1, False)
