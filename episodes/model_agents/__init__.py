"""Model agents: an episode driven by a model API (``--agent anthropic:MODEL``,
``openai:MODEL``, ``openai-compatible:MODEL``; the ``agents`` extra). docs/agents.md."""

from episodes.agents import MODEL_KINDS
from episodes.model_agents.base import ModelError, ModelSettings
from episodes.model_agents.loop import Totals

__all__ = ["MODEL_KINDS", "ModelError", "ModelSettings", "Totals"]
