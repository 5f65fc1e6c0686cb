"""Judges for the free-text parts the seeds grade by rubric (appeal arguments, SOAP notes).

A :class:`Rubric` lists required facts (each with the values that show it, as literal text or
regular expressions) and forbidden fabrications. The default :class:`RubricJudge` decides
them deterministically by matching. The optional :class:`LLMJudge` asks an OpenAI-compatible
chat endpoint the rubric's questions three times and takes the majority per item; its raw
answers go into the report. It is chosen through the environment::

    EHR_SANDBOX_JUDGE=llm            # or "rubric" (the default when no URL is set)
    EHR_SANDBOX_JUDGE_URL=http://host:8000/v1
    EHR_SANDBOX_JUDGE_MODEL=model-name
    EHR_SANDBOX_JUDGE_KEY=...        # optional bearer token, never reported

A judge that cannot decide (endpoint down, no majority, a fact with no pattern for the
deterministic judge) raises :class:`~verifier.errors.CouldNotGrade`: the check is reported
as "could not grade", never as 0 or 1.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from verifier.checks import Result
from verifier.errors import CouldNotGrade, VerifyError
from verifier.values import normalize_text

JUDGE_ENV = "EHR_SANDBOX_JUDGE"
URL_ENV = "EHR_SANDBOX_JUDGE_URL"
MODEL_ENV = "EHR_SANDBOX_JUDGE_MODEL"
KEY_ENV = "EHR_SANDBOX_JUDGE_KEY"
VOTES = 3


def _tuple(value: str | tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


@dataclass(frozen=True)
class Fact:
    """One rubric item: shown by any of ``text`` (normalised substring) or ``regex``."""

    name: str
    text: tuple[str, ...] = ()
    regex: tuple[str, ...] = ()
    question: str = ""  # how the LLM judge is asked; defaults to the name

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", _tuple(self.text))
        object.__setattr__(self, "regex", _tuple(self.regex))
        for pattern in self.regex:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"fact {self.name!r}: bad regex {pattern!r}: {exc}") from exc

    @property
    def deterministic(self) -> bool:
        return bool(self.text or self.regex)

    def shown_in(self, text: str) -> bool:
        plain = normalize_text(text)
        if any(normalize_text(t) in plain for t in self.text):
            return True
        return any(re.search(p, text, re.IGNORECASE | re.DOTALL) for p in self.regex)


@dataclass(frozen=True)
class Rubric:
    """Required facts and forbidden fabrications for one piece of free text."""

    name: str
    required: tuple[Fact, ...]
    forbidden: tuple[Fact, ...] = ()
    context: str = ""  # for the LLM judge: what the text is and what it should contain

    def __post_init__(self) -> None:
        object.__setattr__(self, "required", tuple(self.required))
        object.__setattr__(self, "forbidden", tuple(self.forbidden))
        names = [f.name for f in (*self.required, *self.forbidden)]
        if len(set(names)) != len(names):
            raise ValueError(f"rubric {self.name!r}: item names must be unique")


@dataclass
class Verdict:
    """A judge's decision on each rubric item, with its raw answers."""

    judge: str
    rubric: str
    required: dict[str, bool]
    forbidden: dict[str, bool]  # True = the fabrication is present
    raw: list[Any] = field(default_factory=list)

    @property
    def found(self) -> list[str]:
        return [n for n, ok in self.required.items() if ok]

    @property
    def missing(self) -> list[str]:
        return [n for n, ok in self.required.items() if not ok]

    @property
    def fabrications(self) -> list[str]:
        return [n for n, present in self.forbidden.items() if present]

    def facts(self) -> Result:
        """Fraction of required facts present."""
        total = len(self.required)
        fraction = len(self.found) / total if total else 1.0
        return Result(fraction, {"judge": self.judge, "rubric": self.rubric,
                                 "found": self.found, "missing": self.missing})

    def no_fabrication(self) -> Result:
        """1 when no forbidden item is present, else 0."""
        return Result(0.0 if self.fabrications else 1.0,
                      {"judge": self.judge, "rubric": self.rubric,
                       "fabrications": self.fabrications})

    def to_json(self) -> dict[str, Any]:
        return {"judge": self.judge, "rubric": self.rubric, "required": self.required,
                "forbidden": self.forbidden, "raw": self.raw}


class Judge(Protocol):
    name: str

    def evaluate(self, text: str, rubric: Rubric) -> Verdict: ...

    def describe(self) -> dict[str, Any]: ...


class RubricJudge:
    """Deterministic: a fact is present when one of its strings or patterns matches."""

    name = "rubric"

    def evaluate(self, text: str, rubric: Rubric) -> Verdict:
        undecidable = [f.name for f in (*rubric.required, *rubric.forbidden)
                       if not f.deterministic]
        if undecidable:
            raise CouldNotGrade(
                f"rubric {rubric.name!r}: items {undecidable} have no text or regex, so only "
                f"an LLM judge can decide them (set {URL_ENV} and {MODEL_ENV})")
        return Verdict(
            judge=self.name, rubric=rubric.name,
            required={f.name: f.shown_in(text) for f in rubric.required},
            forbidden={f.name: f.shown_in(text) for f in rubric.forbidden})

    def describe(self) -> dict[str, Any]:
        return {"name": self.name}


class LLMJudge:
    """An OpenAI-compatible chat endpoint, asked ``votes`` times; majority per item."""

    def __init__(self, url: str, model: str, key: str | None = None, *, votes: int = VOTES,
                 timeout: float = 60.0, temperature: float = 0.7):
        if votes < 1 or votes % 2 == 0:
            raise ValueError("the LLM judge needs an odd number of votes")
        self.url = url if url.rstrip("/").endswith("/chat/completions") else \
            url.rstrip("/") + "/chat/completions"
        self.model = model
        self._key = key
        self.votes = votes
        self.timeout = timeout
        self.temperature = temperature
        self.name = f"llm:{model}"

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "url": self.url, "model": self.model, "votes": self.votes}

    # -- asking --------------------------------------------------------------------------
    def _items(self, rubric: Rubric) -> list[tuple[str, Fact]]:
        return ([(f"R{i}", f) for i, f in enumerate(rubric.required, 1)]
                + [(f"F{i}", f) for i, f in enumerate(rubric.forbidden, 1)])

    def _messages(self, text: str, rubric: Rubric) -> list[dict[str, str]]:
        lines = []
        for label, fact in self._items(rubric):
            question = fact.question or fact.name
            if label.startswith("F"):
                question = f"Does the document state this (it would be a fabrication): {question}"
            lines.append(f"{label}. {question}")
        keys = ", ".join(f'"{label}": "yes" or "no"' for label, _ in self._items(rubric))
        return [
            {"role": "system", "content": (
                "You grade a document for a clinical-operations benchmark. Judge only from the "
                "document. Answer every item with yes or no. Reply with one JSON object and "
                "nothing else.")},
            {"role": "user", "content": (
                f"{rubric.context}\n\nDocument:\n<<<\n{text}\n>>>\n\nItems:\n"
                + "\n".join(lines) + f"\n\nReply as JSON: {{{keys}}}")},
        ]

    def _ask(self, client: httpx.Client, messages: list[dict[str, str]]) -> str:
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        response = client.post(self.url, headers=headers, json={
            "model": self.model, "messages": messages, "temperature": self.temperature})
        response.raise_for_status()
        return str(response.json()["choices"][0]["message"]["content"])

    @staticmethod
    def parse(answer: str, labels: list[str]) -> dict[str, bool] | None:
        """Item label → yes/no from one answer, or ``None`` when it is not usable."""
        match = re.search(r"\{.*\}", answer, re.DOTALL)
        if match is None:
            return None
        try:
            data = json.loads(match.group(0))
        except json.JSONDecodeError:
            return None
        if not isinstance(data, Mapping):
            return None
        votes = {}
        for label in labels:
            value = data.get(label)
            if isinstance(value, bool):
                votes[label] = value
            elif isinstance(value, str) and value.strip().lower() in ("yes", "y", "true"):
                votes[label] = True
            elif isinstance(value, str) and value.strip().lower() in ("no", "n", "false"):
                votes[label] = False
            else:
                return None
        return votes

    def evaluate(self, text: str, rubric: Rubric) -> Verdict:
        items = self._items(rubric)
        labels = [label for label, _ in items]
        messages = self._messages(text, rubric)
        raw: list[Any] = []
        ballots: list[dict[str, bool]] = []
        with httpx.Client(timeout=self.timeout, trust_env=False) as client:
            for vote in range(self.votes):
                try:
                    answer = self._ask(client, messages)
                except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError) as exc:
                    raw.append({"vote": vote + 1, "error": f"{type(exc).__name__}: {exc}"})
                    continue
                parsed = self.parse(answer, labels)
                raw.append({"vote": vote + 1, "answer": answer, "usable": parsed is not None})
                if parsed is not None:
                    ballots.append(parsed)
        if not ballots and all("error" in r for r in raw):
            raise CouldNotGrade(f"LLM judge unavailable at {self.url}: {raw[0]['error']}",
                                {"raw": raw})
        need = self.votes // 2 + 1
        decided: dict[str, bool] = {}
        for label in labels:
            yes = sum(1 for b in ballots if b[label])
            no = len(ballots) - yes
            if yes >= need:
                decided[label] = True
            elif no >= need:
                decided[label] = False
            else:
                raise CouldNotGrade(
                    f"LLM judge at {self.url} gave no majority on item {label} "
                    f"({len(ballots)} usable of {self.votes} answers)", {"raw": raw})
        by_label = dict(items)
        return Verdict(
            judge=self.name, rubric=rubric.name, raw=raw,
            required={by_label[k].name: v for k, v in decided.items() if k.startswith("R")},
            forbidden={by_label[k].name: v for k, v in decided.items() if k.startswith("F")})


def judge_from_env(choice: str | None = None, env: Mapping[str, str] | None = None) -> Judge:
    """The judge chosen by ``choice`` or the environment (LLM only when configured)."""
    env = os.environ if env is None else env
    url = env.get(URL_ENV, "").strip()
    choice = (choice or env.get(JUDGE_ENV) or ("llm" if url else "rubric")).strip().lower()
    if choice == "rubric":
        return RubricJudge()
    if choice == "llm":
        model = env.get(MODEL_ENV, "").strip()
        if not url or not model:
            raise VerifyError(f"the LLM judge needs {URL_ENV} (an OpenAI-compatible base URL) "
                              f"and {MODEL_ENV}; or use the default rubric judge")
        return LLMJudge(url, model, env.get(KEY_ENV) or None)
    raise VerifyError(f"unknown judge {choice!r} (from {JUDGE_ENV} or --judge); use rubric "
                      "or llm")
