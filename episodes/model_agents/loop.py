"""The model-driven episode: look, ask the model, act, record — until the model says it
is done or a budget runs out.

It runs in a worker thread (the SDKs and the agent client are synchronous) and acts only
through the workstation's agent API, as the oracle does, so its inputs are in the trace
like anyone's. Each step is a line of ``steps.jsonl`` with the screenshot the model saw
(``steps/NNNN.png``, workstation pixels) — the format is in docs/agents.md.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from episodes.model_agents.base import (
    ActionOutcome,
    ModelAdapter,
    ModelError,
    ModelSettings,
    Observation,
    Turn,
)
from episodes.model_agents.prices import Price
from episodes.model_agents.screen_scale import crop_zoom, resize_png
from episodes.model_agents.screen_text import ScreenText, draw_marks

log = logging.getLogger(__name__)

QUIET = {"quiet_ms": 300, "timeout_ms": 5000}


@dataclass
class Totals:
    """What the episode's row says about the model's work."""

    steps: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = None
    model_s: float = 0.0
    env_s: float = 0.0
    ended_by: str | None = None
    error: str | None = None

    def row(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("steps")
        out.pop("error")
        out["model_s"] = round(self.model_s, 3)
        out["env_s"] = round(self.env_s, 3)
        if self.cost_usd is not None:
            out["cost_usd"] = round(self.cost_usd, 6)
        return out


class StepLog:
    """``steps.jsonl`` and ``steps/NNNN.png`` of a run directory."""

    def __init__(self, run_dir: Path):
        self.run_dir = Path(run_dir)
        (self.run_dir / "steps").mkdir(parents=True, exist_ok=True)
        self.path = self.run_dir / "steps.jsonl"
        self.path.write_text("")

    def screenshot(self, step: int, png: bytes) -> str:
        name = f"steps/{step:04d}.png"
        (self.run_dir / name).write_bytes(png)
        return name

    def write(self, record: dict[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")


def _act(client: Any, action: dict[str, Any], screen_png: bytes,
         sent: tuple[int, int]) -> ActionOutcome:
    """One action through the agent API (``zoom`` and ``screenshot`` need no input)."""
    from pixel_stream.client import AgentAPIError

    name = action.get("action")
    if name == "screenshot":
        return ActionOutcome()
    if name == "zoom":
        region = action.get("region")
        if not (isinstance(region, list) and len(region) == 4):
            return ActionOutcome(error="zoom needs region: [x0, y0, x1, y1]")
        return ActionOutcome(image=crop_zoom(screen_png, region, sent))
    try:
        client.act_and_observe(action, format="jpeg", quality=10, **QUIET)
    except AgentAPIError as exc:
        return ActionOutcome(error=f"{name}: {exc.message}")
    return ActionOutcome()


def run_model_loop(adapter: ModelAdapter, client: Any, settings: ModelSettings,
                   instruction: str, run_dir: Path, *, price: Price | None,
                   screen_text: Callable[[bool], ScreenText] | None = None,
                   stop: threading.Event | None = None,
                   clock: Callable[[], float] = time.monotonic) -> Totals:
    """Drive the episode through ``client`` (a :class:`pixel_stream.client.AgentClient`)
    until the model is done, a budget runs out, an error ends it, or ``stop`` is set."""
    stop = stop or threading.Event()
    totals = Totals(cost_usd=0.0 if price is not None else None)
    steps = StepLog(run_dir)
    screen = (client.width, client.height)
    adapter.start(instruction, screen)
    started = clock()
    sent = adapter.screen_size()
    outcomes: list[ActionOutcome] = []
    errors_in_row = 0
    while True:
        if stop.is_set():
            totals.ended_by = "interrupted"
            break
        if totals.steps >= settings.max_steps:
            totals.ended_by = "max_steps"
            break
        if settings.max_seconds is not None and clock() - started >= settings.max_seconds:
            totals.ended_by = "max_seconds"
            break
        if (settings.max_cost is not None and totals.cost_usd is not None
                and totals.cost_usd >= settings.max_cost):
            totals.ended_by = "max_cost"
            break
        totals.steps += 1
        step_started = clock()
        t0 = time.monotonic()
        png = client.screenshot(format="png").data
        extra = screen_text(settings.observe == "som") if (
            screen_text is not None and settings.observe != "screenshot") else None
        shown = draw_marks(png, extra.marks) if extra is not None and extra.marks else png
        shot = steps.screenshot(totals.steps, shown)
        env_s = time.monotonic() - t0
        observation = Observation(image=resize_png(shown, sent), width=sent[0],
                                  height=sent[1], text=extra.text if extra else None,
                                  outcomes=outcomes)
        t0 = time.monotonic()
        try:
            turn = adapter.next_turn(observation)
        except ModelError as exc:
            turn = Turn(error=str(exc), stop=True)
        model_s = time.monotonic() - t0
        totals.model_s += model_s
        totals.tokens_in += turn.tokens_in
        totals.tokens_out += turn.tokens_out
        if price is not None:
            totals.cost_usd = price.cost(totals.tokens_in, totals.tokens_out)
        t0 = time.monotonic()
        outcomes = []
        for action in turn.actions:
            if stop.is_set():
                break
            outcomes.append(_act(client, action, png, sent))
        action_s = time.monotonic() - t0
        totals.env_s += env_s + action_s
        failed = [o.error for o in outcomes if o.error]
        if turn.error:
            outcomes = [ActionOutcome(error=f"Your last reply could not be used: {turn.error}")]
        steps.write({
            "step": totals.steps, "t": round(step_started - started, 3), "text": turn.text,
            "actions": [a for a in turn.actions if a.get("action") != "screenshot"],
            "screenshot": shot, "tokens_in": turn.tokens_in, "tokens_out": turn.tokens_out,
            "model_s": round(model_s, 3), "action_s": round(action_s + env_s, 3),
            "error": turn.error or ("; ".join(failed) if failed else None)})
        if turn.error:
            errors_in_row += 1
            log.info("step %d: %s", totals.steps, turn.error)
            if turn.stop or settings.on_error == "stop" or errors_in_row >= settings.max_errors:
                totals.ended_by = "error"
                totals.error = turn.error
                break
        else:
            errors_in_row = 0
        if turn.done:
            totals.ended_by = "done"
            break
    return totals
