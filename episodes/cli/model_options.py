"""The options of a model agent (``run`` and ``bench``): budgets, observation, policies.
They are refused with a non-model agent, so a typo in ``--agent`` is not silently unbudgeted.
"""

from __future__ import annotations

import argparse
import dataclasses

from episodes.cli.usage import UsageError

MODEL_OPTIONS = ("observe", "max_steps", "max_seconds", "max_cost", "on_error",
                 "safety_checks", "call_timeout", "retries", "tool_version", "coordinates",
                 "prices")


def add_model_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("model agents (anthropic:, openai:, openai-compatible:)")
    g.add_argument("--observe", choices=("screenshot", "screenshot+a11y", "som"),
                   help="what the model sees: the screenshot (default), plus the front "
                        "window's accessibility text, or set-of-marks boxes (ablations)")
    g.add_argument("--max-steps", type=int, help="model turns (default 50)")
    g.add_argument("--max-seconds", type=float, help="wall seconds of the agent (default 1800)")
    g.add_argument("--max-cost", type=float, help="dollars, from the price table")
    g.add_argument("--on-error", choices=("continue", "stop"),
                   help="after a refusal or an unreadable reply (default continue)")
    g.add_argument("--safety-checks", choices=("acknowledge", "refuse"),
                   help="OpenAI computer-use safety checks (default refuse: the run ends)")
    g.add_argument("--call-timeout", type=float, help="seconds per API call (default 120)")
    g.add_argument("--retries", type=int, help="retries on 429/5xx/timeouts (default 4)")
    g.add_argument("--tool-version", choices=("computer_20250124", "computer_20251124"),
                   help="Anthropic computer tool version (default: by model)")
    g.add_argument("--coordinates", choices=("auto", "pixels", "relative1000", "relative1"),
                   help="openai-compatible: the model's coordinate space (default auto)")
    g.add_argument("--prices", help="a price table YAML (default the packaged one)")


def with_model_settings(agent, args: argparse.Namespace, *, grade_on_interrupt: bool = False):
    """``agent`` with its :class:`ModelSettings` from the options (checked)."""
    given = [name for name in MODEL_OPTIONS if getattr(args, name, None) is not None]
    if not agent.is_model:
        if given:
            flags = ", ".join("--" + n.replace("_", "-") for n in given)
            raise UsageError(f"{flags} apply to model agents only (--agent anthropic:MODEL, "
                             f"openai:MODEL or openai-compatible:MODEL), not {agent}")
        return agent
    from episodes.model_agents import ModelError, ModelSettings
    from episodes.model_agents.driver import check_budget

    rename = {"call_timeout": "call_timeout_s"}
    fields = {rename.get(n, n): getattr(args, n) for n in given}
    try:
        settings = ModelSettings(**fields, grade_on_interrupt=grade_on_interrupt)
        check_budget(str(agent), settings)
    except (ValueError, ModelError) as exc:
        raise UsageError(str(exc)) from exc
    return dataclasses.replace(agent, settings=settings)
