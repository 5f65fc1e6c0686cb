"""Who works on an episode: ``none`` (does nothing; the episode is graded as seeded),
``gold`` (the task's oracle, :mod:`episodes.oracle`) and ``replay:PATH`` (re-injects a
recorded ``trace.jsonl`` into the workstation, each input recorded again in the new
trace)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

AGENT_KINDS = ("none", "gold", "replay")


class AgentSpecError(ValueError):
    """An ``--agent`` value that names no agent; the message says what to write."""


@dataclass(frozen=True)
class AgentSpec:
    kind: str
    path: Path | None = None

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        kind, _, rest = text.partition(":")
        if kind not in AGENT_KINDS:
            raise AgentSpecError(f"unknown agent {text!r}; use none, gold or replay:PATH "
                              "(a trace.jsonl or the folder holding it)")
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
