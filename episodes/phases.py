"""Where a start or a reset spends its time: named phases with their start and end.

Phases overlap (an episode starts its parts side by side), so each is kept as a span
``[start, end]`` in seconds from the beginning of the whole (``Phases.t0``), not as a
duration alone; the span that ends last is what the whole waited for. The benchmark
(:mod:`episodes.benchmarks`) gathers the spans of many runs into one table of medians.
"""

from __future__ import annotations

import contextlib
import statistics
import time
from collections.abc import Iterator
from typing import Any


class Phases:
    """Spans of named phases, in seconds since ``t0`` (a ``time.monotonic()`` reading)."""

    def __init__(self, t0: float | None = None) -> None:
        self.t0 = time.monotonic() if t0 is None else t0
        self.spans: dict[str, tuple[float, float]] = {}
        # phases ended by an exception (a start's time limit cancelling it, a wait of its
        # own timing out), innermost first: what the whole was still waiting for
        self.cut: list[str] = []

    def add(self, name: str, began: float, ended: float) -> None:
        """A phase that ran from ``began`` to ``ended`` (monotonic readings)."""
        self.spans[name] = (round(began - self.t0, 3), round(ended - self.t0, 3))

    @contextlib.contextmanager
    def span(self, name: str) -> Iterator[None]:
        """Time the block as phase ``name`` (also around ``await``; kept if it raises)."""
        began = time.monotonic()
        try:
            yield
        except BaseException:
            self.cut.append(name)
            raise
        finally:
            self.add(name, began, time.monotonic())

    def as_dict(self) -> dict[str, dict[str, float]]:
        """``{phase: {"start", "end", "s"}}`` in the order the phases began."""
        ordered = sorted(self.spans.items(), key=lambda item: item[1])
        return {name: {"start": a, "end": b, "s": round(b - a, 3)} for name, (a, b) in ordered}


def summarize(runs: list[dict[str, dict[str, float]]]) -> list[dict[str, Any]]:
    """The median start, end and duration of each phase over runs (``Phases.as_dict``),
    ordered by median start; ``n`` says in how many runs the phase occurred."""
    names: dict[str, list[dict[str, float]]] = {}
    for run in runs:
        for name, span in run.items():
            names.setdefault(name, []).append(span)
    rows = []
    for name, spans in names.items():
        rows.append({"phase": name, "n": len(spans),
                     "start_p50": round(statistics.median(s["start"] for s in spans), 3),
                     "end_p50": round(statistics.median(s["end"] for s in spans), 3),
                     "s_p50": round(statistics.median(s["s"] for s in spans), 3)})
    rows.sort(key=lambda row: (row["start_p50"], row["end_p50"]))
    return rows


def format_phases(title: str, rows: list[dict[str, Any]]) -> str:
    """A small text table: phase, median start and end (s from the beginning), duration."""
    if not rows:
        return f"{title}: no phases recorded"
    width = max(len(r["phase"]) for r in rows)
    lines = [title, f"  {'phase':{width}}  {'start':>6}  {'end':>6}  {'s':>6}"]
    for r in rows:
        lines.append(f"  {r['phase']:{width}}  {r['start_p50']:6.3f}  {r['end_p50']:6.3f}  "
                     f"{r['s_p50']:6.3f}")
    return "\n".join(lines)
