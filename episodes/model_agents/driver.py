"""A model agent on a running episode: the adapter, the price, the agent connection and
the accessibility text wired to :func:`~episodes.model_agents.loop.run_model_loop`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from typing import TYPE_CHECKING, Any

from episodes.model_agents.base import ModelAdapter, ModelError, ModelSettings
from episodes.model_agents.loop import Totals, run_model_loop
from episodes.model_agents.prices import PriceTableError, load_prices, price_for
from episodes.model_agents.screen_text import ScreenText, screen_text

if TYPE_CHECKING:
    from episodes.episode import Episode

log = logging.getLogger(__name__)


def make_adapter(kind: str, model: str, settings: ModelSettings,
                 client: Any = None) -> ModelAdapter:
    if kind == "anthropic":
        from episodes.model_agents.anthropic_api import AnthropicAdapter
        return AnthropicAdapter(model, settings, client)
    if kind == "openai":
        from episodes.model_agents.openai_api import OpenAIAdapter
        return OpenAIAdapter(model, settings, client)
    if kind == "openai-compatible":
        from episodes.model_agents.compatible import CompatibleAdapter
        return CompatibleAdapter(model, settings, client)
    raise ModelError(f"no model adapter called {kind!r}")


def check_budget(agent: str, settings: ModelSettings) -> None:
    """Refuse a cost budget the price table cannot measure (before anything starts)."""
    try:
        price = price_for(agent, load_prices(settings.prices))
    except PriceTableError as exc:
        raise ModelError(str(exc)) from exc
    if settings.max_cost is not None and price is None:
        raise ModelError(f"--max-cost needs a price for {agent}: add it to the price table "
                         "(episodes/model_agents/prices.yaml, or --prices FILE)")


async def run_model_agent(episode: Episode, kind: str, model: str,
                          settings: ModelSettings) -> Totals:
    """Run the model on the episode; a cancel (Ctrl-C, SIGTERM) stops it after the step in
    hand and, with ``settings.grade_on_interrupt``, the episode is still graded."""
    from pixel_stream.client import AgentClient

    agent = f"{kind}:{model}"
    loop = asyncio.get_running_loop()
    stop = threading.Event()
    try:
        price = price_for(agent, load_prices(settings.prices))
        adapter = make_adapter(kind, model, settings)
    except (ModelError, PriceTableError) as exc:
        return Totals(ended_by="error", error=str(exc))
    connection = episode.connection()

    def text_of_screen(marks: bool) -> ScreenText:
        future = asyncio.run_coroutine_threadsafe(screen_text(episode, marks), loop)
        try:
            return future.result(30)
        except Exception as exc:  # noqa: BLE001 - the screenshot alone still works
            log.warning("no accessibility text: %s", exc)
            return ScreenText(text="(no accessibility text this step)")

    def work() -> Totals:
        with AgentClient(connection["agent_url"], connection["token"], client_id="model",
                         control="take") as client:
            try:
                return run_model_loop(adapter, client, settings, episode.spec.instruction,
                                      episode.run_dir, price=price,
                                      screen_text=text_of_screen, stop=stop)
            except ModelError as exc:
                return Totals(ended_by="error", error=str(exc))

    worker = asyncio.ensure_future(asyncio.to_thread(work))
    try:
        return await asyncio.shield(worker)
    except asyncio.CancelledError:
        stop.set()
        log.info("%s: stopping the model agent", episode.spec.alias)
        with contextlib.suppress(Exception):
            totals = await worker
            totals.ended_by = "interrupted"
            task = asyncio.current_task()
            if settings.grade_on_interrupt and task is not None and task.uncancel() == 0:
                return totals
        raise
