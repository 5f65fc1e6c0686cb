"""The price table: dollars per million input and output tokens, per model.

A small YAML (``prices.yaml`` beside this module, or the file named by ``--prices`` or
``EHR_SANDBOX_PRICES``) keyed by the agent string (``anthropic:claude-sonnet-4-5``) or
the bare model name; a key ending in ``*`` matches by prefix (dated model versions).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import yaml

DEFAULT_TABLE = Path(__file__).with_name("prices.yaml")


class PriceTableError(ValueError):
    """A price table that cannot be read; the message names the file and the entry."""


@dataclass(frozen=True)
class Price:
    input: float   # $ per million input tokens
    output: float  # $ per million output tokens

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        return (tokens_in * self.input + tokens_out * self.output) / 1_000_000


def load_prices(path: str | Path | None = None) -> dict[str, Price]:
    source = Path(path or os.environ.get("EHR_SANDBOX_PRICES") or DEFAULT_TABLE)
    try:
        data = yaml.safe_load(source.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise PriceTableError(f"cannot read the price table {source}: {exc}") from exc
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, dict) or set(data) - {"models"}:
        raise PriceTableError(f"{source}: expected one key 'models:' mapping model to "
                              "{input: $/Mtok, output: $/Mtok}")
    table = {}
    for name, entry in models.items():
        if (not isinstance(entry, dict) or set(entry) != {"input", "output"}
                or not all(isinstance(v, int | float) and v >= 0 for v in entry.values())):
            raise PriceTableError(f"{source}: {name}: write {{input: N, output: N}} "
                                  "(dollars per million tokens)")
        table[str(name)] = Price(float(entry["input"]), float(entry["output"]))
    return table


def price_for(agent: str, table: dict[str, Price]) -> Price | None:
    """The entry for ``adapter:model``, else for ``model``, else a prefix entry."""
    model = agent.partition(":")[2] or agent
    for key in (agent, model):
        if key in table:
            return table[key]
    for key, price in sorted(table.items(), key=lambda kv: -len(kv[0])):
        if key.endswith("*") and (agent.startswith(key[:-1]) or model.startswith(key[:-1])):
            return price
    return None
