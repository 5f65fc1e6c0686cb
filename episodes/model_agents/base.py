"""What every model adapter shares: the settings of a model-driven episode, one model turn,
the observation the model is shown, and the retry loop around an API call.

An adapter (:mod:`.anthropic_api`, :mod:`.openai_api`, :mod:`.compatible`) turns an
observation into one request to its API and the reply into a :class:`Turn`: the model's
text, the actions in the agent API's vocabulary (Anthropic's computer-use actions, already
in workstation pixels), whether it said it is done, and the tokens the API counted.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

Observe = Literal["screenshot", "screenshot+a11y", "som"]
OBSERVE_SETTINGS: tuple[str, ...] = ("screenshot", "screenshot+a11y", "som")
OnError = Literal["continue", "stop"]
SafetyPolicy = Literal["acknowledge", "refuse"]
RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})

T = TypeVar("T")


class ModelError(RuntimeError):
    """The model API could not be used: no key, no SDK, a 4xx, or retries used up."""


@dataclass(frozen=True)
class ModelSettings:
    """How a model-driven episode runs (``ehr-sandbox run --agent anthropic:MODEL ...``).

    Budgets: ``max_steps`` model turns, ``max_seconds`` of wall time from the first turn,
    ``max_cost`` dollars from the price table (None: no limit). ``on_error``: what a
    refusal or an unparseable reply does (``continue`` shows the model what went wrong and
    asks again; ``stop`` ends the episode, ``ended_by: error``); ``max_errors`` such turns
    in a row end it either way. ``safety_checks``: what to answer the OpenAI computer-use
    tool's pending safety checks. ``call_timeout_s``: one API call; ``retries`` on 429/5xx
    and timeouts, waiting ``backoff_s`` doubled each time (with jitter).
    """

    observe: str = "screenshot"
    max_steps: int = 50
    max_seconds: float | None = 1800.0
    max_cost: float | None = None
    on_error: str = "continue"
    max_errors: int = 3
    safety_checks: str = "refuse"
    call_timeout_s: float = 120.0
    retries: int = 4
    backoff_s: float = 2.0
    max_tokens: int = 4096
    tool_version: str | None = None  # anthropic: computer_20250124 | computer_20251124
    coordinates: str = "auto"  # openai-compatible: pixels | relative1000 | relative1 | auto
    prices: str | None = None  # a price table YAML instead of the packaged one
    grade_on_interrupt: bool = False  # Ctrl-C stops the model and grades (``run``)

    def __post_init__(self) -> None:
        if self.observe not in OBSERVE_SETTINGS:
            raise ValueError(f"observe must be one of {', '.join(OBSERVE_SETTINGS)}, "
                             f"got {self.observe!r}")
        if self.on_error not in ("continue", "stop"):
            raise ValueError(f"on_error must be continue or stop, got {self.on_error!r}")
        if self.safety_checks not in ("acknowledge", "refuse"):
            raise ValueError("safety_checks must be acknowledge or refuse, got "
                             f"{self.safety_checks!r}")
        if self.coordinates not in ("auto", "pixels", "relative1000", "relative1"):
            raise ValueError("coordinates must be auto, pixels, relative1000 or relative1, "
                             f"got {self.coordinates!r}")
        if self.max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, got {self.max_steps}")
        for name in ("max_seconds", "max_cost"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive, got {value}")
        if self.call_timeout_s <= 0 or self.retries < 0 or self.backoff_s < 0:
            raise ValueError("call_timeout_s must be positive, retries and backoff_s >= 0")


@dataclass(frozen=True)
class ActionOutcome:
    """What came of one action the model asked for: an error message the model is shown,
    and for ``zoom`` the enlarged region."""

    error: str | None = None
    image: bytes | None = None


@dataclass
class Observation:
    """What the model is shown before a turn: the screen (PNG, at the size the adapter
    asked for), the accessibility text when the setting has it, and what came of the
    previous turn's actions, in order."""

    image: bytes
    width: int
    height: int
    text: str | None = None
    outcomes: list[ActionOutcome] = field(default_factory=list)


@dataclass
class Turn:
    """One model reply, in the agent API's terms."""

    text: str = ""
    actions: list[dict[str, Any]] = field(default_factory=list)
    done: bool = False
    error: str | None = None  # a refusal or a reply that could not be read
    stop: bool = False  # the error ends the episode whatever ``on_error`` says
    tokens_in: int = 0
    tokens_out: int = 0


class ModelAdapter(Protocol):
    """One conversation with one model about one episode."""

    model: str

    def start(self, instruction: str, screen: tuple[int, int]) -> None: ...

    def screen_size(self) -> tuple[int, int]:
        """The size the screenshot is sent at (the adapter maps coordinates back)."""
        ...

    def next_turn(self, observation: Observation) -> Turn: ...


def env_value(*names: str, default: str | None = None) -> str | None:
    """The first of ``names`` set in the environment."""
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    return default


def sdk(module: str) -> Any:
    """The official SDK ``module`` (``anthropic``, ``openai``), or a ModelError saying how to
    install it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ModelError(f"the {module} SDK is missing: pip install -e '.[agents]'") from exc


def required_env(name: str, hint: str) -> str:
    """The value of environment variable ``name``, or a ModelError: set it (``hint``)."""
    value = env_value(name)
    if not value:
        raise ModelError(f"set {name} ({hint})")
    return value


def is_retryable(exc: BaseException) -> bool:
    """A rate limit, a server error, a timeout or a dropped connection (any SDK's)."""
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status in RETRY_STATUSES or status >= 500
    name = type(exc).__name__
    return name in ("APITimeoutError", "APIConnectionError", "TimeoutException",
                    "ConnectError", "ReadTimeout", "TimeoutError", "ConnectionError")


def call_with_retries(call: Callable[[], T], settings: ModelSettings,
                      sleep: Callable[[float], None] = time.sleep,
                      stopped: Callable[[], bool] = lambda: False) -> tuple[T, int]:
    """``call()``, again after 429/5xx/timeouts with exponential backoff; returns the
    result and how many retries it took. Anything else, or the last failure, raises
    :class:`ModelError` with the API's message."""
    attempt = 0
    while True:
        try:
            return call(), attempt
        except Exception as exc:  # noqa: BLE001 - every SDK has its own error classes
            if not is_retryable(exc) or attempt >= settings.retries or stopped():
                raise ModelError(_describe(exc, attempt)) from exc
            delay = settings.backoff_s * (2 ** attempt) * (1 + random.random() / 4)
            retry_after = _retry_after(exc)
            if retry_after is not None:
                delay = max(delay, min(retry_after, 60.0))
            attempt += 1
            sleep(delay)


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    try:
        return float(headers.get("retry-after")) if headers is not None else None
    except (TypeError, ValueError):
        return None


def _describe(exc: BaseException, retries: int) -> str:
    status = getattr(exc, "status_code", None)
    what = f"HTTP {status}" if status else type(exc).__name__
    tail = f" (after {retries} retries)" if retries else ""
    return f"the model API failed{tail}: {what}: {str(exc)[:300]}"
