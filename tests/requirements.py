"""What a test needs from the machine (Chromium, a Qt library, mount namespaces …): a
missing requirement skips the test on a developer's machine and fails it under ``CI=true``,
where everything is installed and a skip would hide a whole area."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def in_ci() -> bool:
    """True when ``CI`` is ``true`` (GitHub Actions, GitLab and most others set it)."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def missing(reason: str) -> None:
    """Skip the running test (locally) or fail it (under ``CI=true``) for ``reason``."""
    if in_ci():
        pytest.fail(f"{reason} (CI=true: a missing requirement fails)", pytrace=False)
    pytest.skip(reason)


def requires(available: bool, reason: str) -> pytest.MarkDecorator:
    """A mark: the test runs when ``available``; otherwise ``missing(reason)`` at setup
    (tests/conftest.py)."""
    return pytest.mark.requirement(available=available, reason=reason)


def import_or_missing(name: str) -> ModuleType:
    """``importlib.import_module(name)``, or ``missing`` naming the import error."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        missing(f"{name} cannot be imported: {exc}")
        raise  # not reached: missing() raises
