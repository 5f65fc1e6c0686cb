"""``--agent openai-compatible:MODEL``: an open computer-use model behind an
OpenAI-compatible chat endpoint (vLLM, SGLang, llama.cpp server ... serving UI-TARS, OpenCUA,
Qwen-VL agents). The prompt and grammar are :mod:`.grammar`'s; each turn sends the last
few screenshots with the model's earlier replies.

``OPENAI_COMPATIBLE_BASE_URL`` (required, e.g. ``http://gpu-box:8000/v1``) and
``OPENAI_COMPATIBLE_API_KEY`` (optional; vLLM takes any) come from the environment.
Coordinates (``--coordinates``): ``pixels`` of the screenshot, ``relative1000`` (0..1000,
UI-TARS 1.0), ``relative1`` (0..1); ``auto`` takes relative1000 for UI-TARS models other
than 1.5, relative1 for a turn whose coordinates are all fractions, else pixels.
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
from episodes.model_agents.grammar import PROMPT, ParseError, parse_reply
from episodes.model_agents.screen_scale import ScaledScreen, to_screen

KEEP_TURNS = 3  # screenshots (with the replies between them) sent each turn


class CompatibleAdapter(ScaledScreen):
    def __init__(self, model: str, settings: ModelSettings, client: Any = None):
        self.model = model
        self.settings = settings
        self._client = client
        self.history: list[tuple[dict[str, Any], str]] = []  # (user message, reply)
        self.system = ""

    def _sdk(self) -> Any:
        if self._client is None:
            base_url = required_env("OPENAI_COMPATIBLE_BASE_URL", "the server's /v1 URL, e.g. "
                                    "http://localhost:8000/v1 for vLLM")
            self._client = sdk("openai").OpenAI(
                api_key=env_value("OPENAI_COMPATIBLE_API_KEY", default="none"),
                base_url=base_url, timeout=self.settings.call_timeout_s, max_retries=0)
        return self._client

    def start(self, instruction: str, screen: tuple[int, int]) -> None:
        self.scale_to(screen)
        self.system = PROMPT.format(width=self.sent[0], height=self.sent[1],
                                    instruction=instruction)
        self._sdk()

    def _user(self, observation: Observation) -> dict[str, Any]:
        notes = [o.error for o in observation.outcomes if o.error]
        if observation.text:
            notes.append(observation.text)
        content: list[dict[str, Any]] = [{"type": "image_url", "image_url": {
            "url": "data:image/png;base64," + base64.b64encode(observation.image).decode()}}]
        if notes:
            content.append({"type": "text", "text": "\n".join(notes)})
        return {"role": "user", "content": content}

    def _messages(self, user: dict[str, Any]) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = [{"role": "system", "content": self.system}]
        for earlier, reply in self.history[-(KEEP_TURNS - 1):]:
            messages += [earlier, {"role": "assistant", "content": reply}]
        return messages + [user]

    def next_turn(self, observation: Observation) -> Turn:
        user = self._user(observation)
        messages = self._messages(user)
        client = self._sdk()

        def call() -> Any:
            return client.chat.completions.create(
                model=self.model, messages=messages, max_tokens=self.settings.max_tokens,
                temperature=0.0)

        response, _ = call_with_retries(call, self.settings)
        usage = getattr(response, "usage", None)
        turn = Turn(tokens_in=int(getattr(usage, "prompt_tokens", 0) or 0),
                    tokens_out=int(getattr(usage, "completion_tokens", 0) or 0))
        choice = (response.choices or [None])[0]
        message = getattr(choice, "message", None)
        reply = (getattr(message, "content", None) or "").strip()
        refusal = getattr(message, "refusal", None)
        # the history keeps the screenshot only for the last KEEP_TURNS turns
        self.history.append((user, reply))
        for earlier, _ in self.history[:-KEEP_TURNS]:
            earlier["content"] = [c for c in earlier["content"] if c["type"] == "text"] or [
                {"type": "text", "text": "(an earlier screenshot)"}]
        turn.text = reply
        if refusal:
            turn.error = f"the model refused: {refusal}"
            return turn
        if not reply:
            turn.error = "the model sent an empty reply"
            return turn
        try:
            parsed = parse_reply(reply)
        except (ParseError, ValueError, TypeError, KeyError) as exc:
            turn.error = f"could not read an action in the reply: {exc}"
            return turn
        space = self._space(parsed.actions)
        turn.actions = [self._to_screen(a, space) for a in parsed.actions]
        turn.done = parsed.done
        if parsed.message:
            turn.text = reply
        return turn

    def _space(self, actions: list[dict[str, Any]]) -> str:
        if self.settings.coordinates != "auto":
            return self.settings.coordinates
        name = self.model.lower()
        if "ui-tars" in name and "1.5" not in name:
            return "relative1000"
        values = [v for a in actions for k in ("coordinate", "start_coordinate")
                  for v in (a.get(k) or [])]
        if values and all(0 <= float(v) <= 1 for v in values) and any(
                isinstance(v, float) and 0 < v < 1 for v in values):
            return "relative1"
        return "pixels"

    def _to_screen(self, action: dict[str, Any], space: str) -> dict[str, Any]:
        out = dict(action)
        scale = {"pixels": self.sent, "relative1000": (1000, 1000), "relative1": (1, 1)}[space]
        for key in ("coordinate", "start_coordinate"):
            if out.get(key) is not None:
                out[key] = to_screen(out[key], scale, self.screen)
        return out
