"""Personas: a theme, a vocabulary and a layout composition over the shared widgets."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from desktop_ehr.personas.theme import stylesheet
from desktop_ehr.personas.vocabulary import HYPERSPACE, POWERCHART, Vocabulary


@dataclass(frozen=True)
class Persona:
    name: str
    vocab: Vocabulary
    stylesheet: str
    shell_factory: Callable  # (ctx, ref, persona) -> ShellBase

    def build_shell(self, ctx, ref, parent=None):
        return self.shell_factory(ctx, ref, self, parent)


def get_persona(name: str) -> Persona:
    """The persona by name ('hyperspace' or 'powerchart')."""
    if name == "hyperspace":
        from desktop_ehr.personas.hyperspace import HyperspaceShell

        return Persona("hyperspace", HYPERSPACE, stylesheet("hyperspace"), HyperspaceShell)
    if name == "powerchart":
        from desktop_ehr.personas.powerchart import PowerChartShell

        return Persona("powerchart", POWERCHART, stylesheet("powerchart"), PowerChartShell)
    raise ValueError(f"unknown persona {name!r}; choose hyperspace or powerchart")
