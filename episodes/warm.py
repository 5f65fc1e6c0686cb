"""Warming a process before it is needed: what ``episodes.prestart`` and the fork server
(``episodes.forkserver``) do with their ``--warm`` entries."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterable

log = logging.getLogger(__name__)


def warm_up(names: Iterable[str]) -> None:
    """Import each ``MODULE`` and call each ``MODULE:FUNCTION`` (no arguments), in order.
    A failure is ignored: the app itself will say what is missing when it runs."""
    for name in names:
        module, _, function = name.partition(":")
        try:
            imported = importlib.import_module(module)
            if function:
                getattr(imported, function)()
        except Exception:  # noqa: BLE001 - the app itself will say what is missing
            log.debug("warming %s failed", name, exc_info=True)
