"""``--agent anthropic:MODEL``: the Messages API with Anthropic's computer-use tool.

Tool versions (their beta flags): ``computer_20250124`` (``computer-use-2025-01-24``):
screenshot, left/right/middle/double/triple click, mouse_move, left_click_drag,
left_mouse_down/up, scroll (direction, amount, modifier text), type, key, hold_key, wait,
cursor_position — the agent API's own vocabulary, so actions pass through with their
coordinates mapped back; ``computer_20251124`` (``computer-use-2025-11-24``) adds ``zoom``
(``region: [x0, y0, x1, y1]``, answered with that part of the screen enlarged), offered
with ``enable_zoom``. The model picks the version: Opus 4.5 and later the newer, others
the older; ``--tool-version`` overrides. ``ANTHROPIC_API_KEY`` and ``ANTHROPIC_BASE_URL``
(optional) come from the environment.
"""

from __future__ import annotations

import base64
from typing import Any

from episodes.model_agents.base import (
    ModelError,
    ModelSettings,
    Observation,
    Turn,
    call_with_retries,
    env_value,
    required_env,
    sdk,
)
from episodes.model_agents.screen_scale import ScaledScreen, map_action

TOOL_BETAS = {"computer_20250124": "computer-use-2025-01-24",
              "computer_20251124": "computer-use-2025-11-24"}
ZOOM_MODELS = ("claude-opus-4-5", "claude-opus-4-6", "claude-sonnet-4-6", "claude-opus-5",
               "claude-sonnet-5", "claude-haiku-5")
KEEP_SCREENSHOTS = 3  # older screenshots in the conversation become a short text
SYSTEM = ("You are operating a clinic workstation (a Linux desktop with a browser and a "
          "remote desktop-EHR window) to complete a healthcare administration task. Use the "
          "computer tool. When the task is complete, reply with a short summary and no tool "
          "call.")


def tool_version_for(model: str, settings: ModelSettings) -> str:
    if settings.tool_version:
        if settings.tool_version not in TOOL_BETAS:
            raise ModelError(f"unknown computer tool version {settings.tool_version!r}; use "
                             f"{' or '.join(TOOL_BETAS)}")
        return settings.tool_version
    return "computer_20251124" if model.startswith(ZOOM_MODELS) else "computer_20250124"


def _image_block(png: bytes) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                        "data": base64.b64encode(png).decode()}}


class AnthropicAdapter(ScaledScreen):
    def __init__(self, model: str, settings: ModelSettings, client: Any = None):
        self.model = model
        self.settings = settings
        self.tool_version = tool_version_for(model, settings)
        self._client = client
        self.messages: list[dict[str, Any]] = []
        self.pending: list[str] = []  # tool_use ids awaiting a tool_result
        self.instruction = ""

    def _sdk(self) -> Any:
        if self._client is None:
            key = required_env("ANTHROPIC_API_KEY", "and ANTHROPIC_BASE_URL for another "
                               "endpoint, e.g. the local fake server")
            self._client = sdk("anthropic").Anthropic(
                api_key=key, base_url=env_value("ANTHROPIC_BASE_URL"),
                timeout=self.settings.call_timeout_s, max_retries=0)
        return self._client

    def start(self, instruction: str, screen: tuple[int, int]) -> None:
        self.scale_to(screen)
        self.instruction = instruction
        self._sdk()

    def _tool(self) -> dict[str, Any]:
        tool: dict[str, Any] = {"type": self.tool_version, "name": "computer",
                                "display_width_px": self.sent[0],
                                "display_height_px": self.sent[1]}
        if self.tool_version == "computer_20251124":
            tool["enable_zoom"] = True
        return tool

    def _user_content(self, observation: Observation) -> list[dict[str, Any]]:
        content: list[dict[str, Any]] = []
        outcomes = list(observation.outcomes)
        for i, tool_id in enumerate(self.pending):
            outcome = outcomes[i] if i < len(outcomes) else None
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_id}
            parts: list[dict[str, Any]] = []
            if outcome is not None and outcome.error:
                result["is_error"] = True
                parts.append({"type": "text", "text": outcome.error})
            if outcome is not None and outcome.image:
                parts.append(_image_block(outcome.image))
            if i == len(self.pending) - 1:
                parts.append(_image_block(observation.image))
            result["content"] = parts or [{"type": "text", "text": "done"}]
            content.append(result)
        if not self.pending:
            content += [{"type": "text", "text": o.error} for o in outcomes if o.error]
            if not self.messages:
                content.append({"type": "text", "text": self.instruction})
            else:
                content.append({"type": "text", "text": "Here is the screen now; go on with "
                                "the task, or reply without a tool call when it is done."})
            content.append(_image_block(observation.image))
        if observation.text:
            content.append({"type": "text", "text": observation.text})
        return content

    def _forget_old_screenshots(self) -> None:
        seen = 0
        for message in reversed(self.messages):
            if message["role"] != "user":
                continue
            blocks = message["content"]
            holders = [blocks] + [b["content"] for b in blocks if b.get("type") == "tool_result"]
            for holder in reversed(holders):
                for j in reversed(range(len(holder))):
                    if holder[j].get("type") == "image":
                        seen += 1
                        if seen > KEEP_SCREENSHOTS:
                            holder[j] = {"type": "text", "text": "(an earlier screenshot)"}

    def next_turn(self, observation: Observation) -> Turn:
        self.messages.append({"role": "user", "content": self._user_content(observation)})
        self._forget_old_screenshots()
        client = self._sdk()

        def call() -> Any:
            return client.beta.messages.create(
                model=self.model, max_tokens=self.settings.max_tokens, system=SYSTEM,
                messages=self.messages, tools=[self._tool()],
                betas=[TOOL_BETAS[self.tool_version]])

        response, _ = call_with_retries(call, self.settings)
        return self._read(response)

    def _read(self, response: Any) -> Turn:
        usage = getattr(response, "usage", None)
        tokens_in = sum(int(getattr(usage, k, 0) or 0) for k in (
            "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
        turn = Turn(tokens_in=tokens_in, tokens_out=int(getattr(usage, "output_tokens", 0) or 0))
        blocks = [b.model_dump() if hasattr(b, "model_dump") else dict(b)
                  for b in (response.content or [])]
        self.messages.append({"role": "assistant", "content": [_clean(b) for b in blocks]
                              or [{"type": "text", "text": "(no reply)"}]})
        texts = [b.get("text", "") for b in blocks if b.get("type") == "text"]
        turn.text = "\n".join(t for t in texts if t)
        self.pending = []
        for block in blocks:
            if block.get("type") != "tool_use":
                continue
            self.pending.append(block["id"])
            action = block.get("input") or {}
            turn.actions.append(map_action(action, self.sent, self.screen)
                                if isinstance(action, dict) else {"action": None})
        stop = getattr(response, "stop_reason", None)
        if stop == "refusal":
            turn.error = f"the model refused: {turn.text or '(no text)'}"
            turn.actions = []
            self.pending = []
        elif stop == "max_tokens" and not turn.actions:
            turn.error = "the reply was cut off at max_tokens before any action"
        elif not turn.actions:
            turn.done = True
        return turn


def _clean(block: dict[str, Any]) -> dict[str, Any]:
    """A response block as a request block (no null fields the API would refuse)."""
    return {k: v for k, v in block.items() if v is not None and k != "citations"}
