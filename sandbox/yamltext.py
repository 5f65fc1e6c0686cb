"""YAML as the sandbox reads it: parsed by libyaml when PyYAML has it (its wheels do).

libyaml's parser is 10-20 times faster than PyYAML's pure-Python one, and the values come
out the same: the same Python resolver and constructor (PyYAML's safe ones) turn its nodes
into data. The catalog (40 ``task.yaml`` files), the seed files of every episode start
and the verifier's roster are read through it. Without libyaml it falls back to the
pure-Python parser.
"""

from __future__ import annotations

from typing import Any

import yaml

SAFE_LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    """``yaml.safe_load(text)``, through libyaml when available."""
    return yaml.load(text, Loader=SAFE_LOADER)  # noqa: S506 - a safe loader


def compose(text: str) -> yaml.Node | None:
    """The node tree of ``text`` (its marks give each key's line)."""
    return yaml.compose(text, Loader=SAFE_LOADER)
