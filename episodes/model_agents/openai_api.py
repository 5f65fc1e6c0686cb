"""``--agent openai:MODEL``: the Responses API with OpenAI's computer-use tool
(``computer_use_preview``, environment ``linux``).

Its actions become the agent API's: ``click`` (button left/right/wheel; back/forward as
alt+Left/Right), ``double_click``, ``drag`` (a path: two points a drag, more a press, moves
and a release), ``keypress`` (keys pressed together), ``move``, ``scroll`` (pixels, as
wheel clicks of 100 px), ``type``, ``wait``, ``screenshot``. A reply with no computer call
ends the episode (the model says it is done). Pending safety checks are acknowledged or,
by default, refused (the episode ends, ``ended_by: error``) — ``--safety-checks``.
``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` (optional) come from the environment.
"""

from __future__ import annotations

import base64
from typing import Any

from episodes.model_agents.base import (
    ModelSettings,
    Observation,
    Turn,
    call_with_retries,
    env_value,
    required_env,
    sdk,
)
from episodes.model_agents.screen_scale import ScaledScreen, map_action

WHEEL_PX = 100
KEY_NAMES = {"CMD": "super", "OPTION": "alt", "ARROWLEFT": "Left", "ARROWRIGHT": "Right",
             "ARROWUP": "Up", "ARROWDOWN": "Down", "ENTER": "Return", "ESC": "Escape",
             "SPACE": "space", "BACKSPACE": "BackSpace", "TAB": "Tab", "DELETE": "Delete"}


def _png_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode()


def _key(name: str) -> str:
    name = str(name)
    mapped = KEY_NAMES.get(name.upper())
    if mapped:
        return mapped
    return name.lower() if len(name) > 1 else name


def translate(action: dict[str, Any]) -> list[dict[str, Any]]:
    """One computer-use action as agent-API actions (in the sent image's pixels)."""
    kind = action.get("type")

    def xy() -> list[int]:
        return [int(action.get("x", 0)), int(action.get("y", 0))]

    if kind == "click":
        button = action.get("button") or "left"
        if button in ("back", "forward"):
            return [{"action": "key", "text": "alt+Left" if button == "back" else "alt+Right"}]
        name = {"left": "left_click", "right": "right_click", "wheel": "middle_click",
                "middle": "middle_click"}.get(button)
        if name is None:
            raise ValueError(f"unknown mouse button {button!r}")
        return [{"action": name, "coordinate": xy()}]
    if kind == "double_click":
        return [{"action": "double_click", "coordinate": xy()}]
    if kind == "move":
        return [{"action": "mouse_move", "coordinate": xy()}]
    if kind == "drag":
        path = [[int(p["x"]), int(p["y"])] for p in action.get("path") or []]
        if len(path) < 2:
            raise ValueError("a drag needs a path of at least two points")
        if len(path) == 2:
            return [{"action": "left_click_drag", "start_coordinate": path[0],
                     "coordinate": path[1]}]
        return ([{"action": "left_mouse_down", "coordinate": path[0]}]
                + [{"action": "mouse_move", "coordinate": p} for p in path[1:-1]]
                + [{"action": "left_mouse_up", "coordinate": path[-1]}])
    if kind == "keypress":
        keys = action.get("keys") or []
        if not keys:
            raise ValueError("keypress without keys")
        return [{"action": "key", "text": "+".join(_key(k) for k in keys)}]
    if kind == "type":
        return [{"action": "type", "text": str(action.get("text", ""))}]
    if kind == "scroll":
        out = []
        for delta, (neg, pos) in ((action.get("scroll_y") or 0, ("up", "down")),
                                  (action.get("scroll_x") or 0, ("left", "right"))):
            if delta:
                out.append({"action": "scroll", "coordinate": xy(),
                            "scroll_direction": pos if delta > 0 else neg,
                            "scroll_amount": max(1, round(abs(delta) / WHEEL_PX))})
        return out
    if kind == "wait":
        return [{"action": "wait", "duration": 1}]
    if kind == "screenshot":
        return []
    raise ValueError(f"unknown computer action type {kind!r}")


def _dump(item: Any) -> dict[str, Any]:
    return item.model_dump(warnings=False) if hasattr(item, "model_dump") else dict(item)


class OpenAIAdapter(ScaledScreen):
    def __init__(self, model: str, settings: ModelSettings, client: Any = None):
        self.model = model
        self.settings = settings
        self._client = client
        self.previous_id: str | None = None
        self.calls: list[tuple[str, list[dict[str, Any]], int]] = []  # id, checks, #actions
        self.instruction = ""

    def _sdk(self) -> Any:
        if self._client is None:
            key = required_env("OPENAI_API_KEY", "and OPENAI_BASE_URL for another endpoint, "
                               "e.g. the local fake server")
            self._client = sdk("openai").OpenAI(
                api_key=key, base_url=env_value("OPENAI_BASE_URL"),
                timeout=self.settings.call_timeout_s, max_retries=0)
        return self._client

    def start(self, instruction: str, screen: tuple[int, int]) -> None:
        self.scale_to(screen)
        self.instruction = instruction
        self._sdk()

    def _input(self, observation: Observation) -> list[dict[str, Any]]:
        if not self.calls:
            text = (self.instruction if self.previous_id is None else
                    "Here is the screen now; go on with the task, or answer without a "
                    "computer call when it is done.")
            content: list[dict[str, Any]] = [{"type": "input_text", "text": text},
                                             {"type": "input_image",
                                              "image_url": _png_url(observation.image)}]
            if observation.text:
                content.append({"type": "input_text", "text": observation.text})
            return [{"role": "user", "content": content}]
        items: list[dict[str, Any]] = []
        errors = [o.error for o in observation.outcomes if o.error]
        for call_id, checks, _ in self.calls:
            item: dict[str, Any] = {"type": "computer_call_output", "call_id": call_id,
                                    "output": {"type": "computer_screenshot",
                                               "image_url": _png_url(observation.image)}}
            if checks:
                item["acknowledged_safety_checks"] = checks
            items.append(item)
        notes = errors + ([observation.text] if observation.text else [])
        if notes:
            items.append({"role": "user", "content": [{"type": "input_text",
                                                        "text": "\n".join(notes)}]})
        return items

    def next_turn(self, observation: Observation) -> Turn:
        request_input = self._input(observation)
        client = self._sdk()
        tool = {"type": "computer_use_preview", "display_width": self.sent[0],
                "display_height": self.sent[1], "environment": "linux"}

        def call() -> Any:
            return client.responses.create(
                model=self.model, tools=[tool], input=request_input, truncation="auto",
                previous_response_id=self.previous_id, max_output_tokens=self.settings.max_tokens)

        response, _ = call_with_retries(call, self.settings)
        return self._read(response)

    def _read(self, response: Any) -> Turn:
        self.previous_id = getattr(response, "id", None)
        usage = getattr(response, "usage", None)
        turn = Turn(tokens_in=int(getattr(usage, "input_tokens", 0) or 0),
                    tokens_out=int(getattr(usage, "output_tokens", 0) or 0))
        texts: list[str] = []
        refusals: list[str] = []
        self.calls = []
        for item in (_dump(i) for i in (response.output or [])):
            kind = item.get("type")
            if kind == "message":
                for part in item.get("content") or []:
                    if part.get("type") == "output_text":
                        texts.append(part.get("text", ""))
                    elif part.get("type") == "refusal":
                        refusals.append(part.get("refusal", ""))
            elif kind == "reasoning":
                texts.extend(s.get("text", "") for s in item.get("summary") or [])
            elif kind == "computer_call":
                checks = [{"id": c.get("id"), "code": c.get("code"), "message": c.get("message")}
                          for c in item.get("pending_safety_checks") or []]
                if checks and self.settings.safety_checks == "refuse":
                    turn.error = "safety check refused by policy: " + "; ".join(
                        f"{c['code']}: {c['message']}" for c in checks)
                    turn.stop = True
                    continue
                try:
                    actions = translate(item.get("action") or {})
                except (ValueError, TypeError, KeyError) as exc:
                    actions = []
                    turn.error = f"an action that cannot be carried out: {exc}"
                self.calls.append((item.get("call_id", ""), checks, len(actions)))
                turn.actions += [map_action(a, self.sent, self.screen) for a in actions]
        turn.text = "\n".join(t for t in texts if t)
        if refusals and not self.calls:
            turn.error = "the model refused: " + " ".join(refusals)
        elif not self.calls and turn.error is None:
            turn.done = True
        return turn
