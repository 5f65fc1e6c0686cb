"""Who works on an episode: ``none`` (does nothing; the episode is graded as seeded),
``gold`` (the task's oracle, :mod:`episodes.oracle`), ``replay:PATH`` (re-injects a
recorded ``trace.jsonl`` into the workstation, each input recorded again in the new
trace), and a model: ``anthropic:MODEL``, ``openai:MODEL``, ``openai-compatible:MODEL``
(:mod:`episodes.model_agents`, with its :class:`~episodes.model_agents.ModelSettings`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from episodes.model_agents import ModelSettings

AGENT_KINDS = ("none", "gold", "replay")
MODEL_KINDS = ("anthropic", "openai", "openai-compatible")


class AgentSpecError(ValueError):
    """An ``--agent`` value that names no agent; the message says what to write."""


@dataclass(frozen=True)
class AgentSpec:
    kind: str
    path: Path | None = None
    model: str | None = None
    settings: ModelSettings | None = None

    @property
    def is_model(self) -> bool:
        return self.kind in MODEL_KINDS

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        kind, _, rest = text.partition(":")
        if kind in MODEL_KINDS:
            if not rest:
                raise AgentSpecError(f"{kind} needs a model: --agent {kind}:MODEL")
            return cls(kind, model=rest)
        if kind not in AGENT_KINDS:
            raise AgentSpecError(f"unknown agent {text!r}; use none, gold, replay:PATH "
                              "(a trace.jsonl or the folder holding it), anthropic:MODEL, "
                              "openai:MODEL or openai-compatible:MODEL")
        if kind == "replay":
            if not rest:
                raise AgentSpecError("replay needs a trace: --agent replay:PATH/trace.jsonl")
            path = Path(rest)
            if path.is_dir():
                path = path / "trace.jsonl"
            if not path.is_file():
                raise AgentSpecError(f"no trace at {path}; give a trace.jsonl recorded by an "
                                  "episode (its trace/ folder) or by the hub's Record")
            _check_trace(path)
            return cls(kind, path)
        if rest:
            raise AgentSpecError(f"agent {kind!r} takes no argument (got {text!r})")
        return cls(kind)

    def __str__(self) -> str:
        if self.model is not None:
            return f"{self.kind}:{self.model}"
        return f"{self.kind}:{self.path}" if self.path else self.kind


def _check_trace(path: Path) -> None:
    """Refuse a file that is not a trace the workstation can replay, before any episode
    starts (header, version, screen size, every line)."""
    from episodes.config import EpisodeConfig
    from pixel_stream.recording import TraceCheckError, check_trace

    width, height = EpisodeConfig().screen
    try:
        check_trace(path, width, height)
    except TraceCheckError as exc:
        raise AgentSpecError(f"replay:{path}: {exc}") from None
