"""The grade of one extract: JSON for machines, a table for people.

The score is Σ weight × fraction over the task's credit items. When any item could not be
graded (or its check failed), ``score`` is ``null`` and ``graded_score`` / ``ungraded_weight``
say how much is known; a vetoed task (a seed's "hard fail") scores 0 with the reason.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.table import Table

from verifier.checks import GRADED, NOT_GRADED, GradeStatus
from verifier.values import jsonable


@dataclass
class CheckOutcome:
    """One credit item as graded."""

    name: str
    percent: int
    status: GradeStatus
    fraction: float | None
    evidence: dict[str, Any]
    excluded: list[dict[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    veto: str | None = None
    where: str = ""

    @property
    def weight(self) -> float:
        return self.percent / 100

    @property
    def points(self) -> float | None:
        if self.status != GRADED or self.fraction is None:
            return None
        return round(self.percent * self.fraction / 100, 6)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name, "weight": self.weight, "percent": self.percent,
            "status": self.status, "fraction": self.fraction, "points": self.points,
            "evidence": jsonable(self.evidence), "check": self.where,
        }
        if self.excluded:
            data["excluded_rows"] = self.excluded
        if self.veto:
            data["veto"] = self.veto
        return data


@dataclass
class Report:
    """Everything one grading produced."""

    task: str
    alias: str
    title: str
    variant: str
    episode_id: str
    extract: str
    engine_version: str
    run_engine_version: str
    checks: list[CheckOutcome]
    channel: dict[str, Any]
    footprint: dict[str, Any]
    judge: dict[str, Any]
    timings: dict[str, float]
    notes: list[str] = field(default_factory=list)

    # -- the numbers ---------------------------------------------------------------------
    @property
    def veto(self) -> str | None:
        for outcome in self.checks:
            if outcome.veto and outcome.status == GRADED:
                return f"{outcome.name}: {outcome.veto}"
        return None

    @property
    def complete(self) -> bool:
        return all(c.status == GRADED for c in self.checks)

    @property
    def graded_score(self) -> float:
        """Points earned by the items that were graded."""
        return round(sum(c.points or 0.0 for c in self.checks), 6)

    @property
    def ungraded_weight(self) -> float:
        return round(sum(c.weight for c in self.checks if c.status != GRADED), 6)

    @property
    def score(self) -> float | None:
        """Σ weight × fraction; ``None`` when an item could not be graded; 0 when vetoed."""
        if self.veto:
            return 0.0
        if not self.complete:
            return None
        return self.graded_score

    @property
    def status(self) -> GradeStatus:
        """``graded`` when there is a score; else ``error`` if a check failed, or ``could
        not grade``."""
        if self.score is not None:
            return GRADED
        return "error" if any(c.status == "error" for c in self.checks) else NOT_GRADED

    # -- output --------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task, "alias": self.alias, "title": self.title,
            "variant": self.variant, "episode_id": self.episode_id, "extract": self.extract,
            "score": self.score, "status": self.status, "complete": self.complete, "graded_score": self.graded_score,
            "ungraded_weight": self.ungraded_weight, "veto": self.veto,
            "checks": [c.to_json() for c in self.checks],
            "channel": jsonable(self.channel), "footprint": jsonable(self.footprint),
            "judge": jsonable(self.judge),
            "timings": {k: round(v, 6) for k, v in self.timings.items()},
            "engine_version": self.engine_version,
            "run_engine_version": self.run_engine_version,
            "notes": self.notes,
        }

    def to_json_text(self) -> str:
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False)

    def render_text(self, width: int = 110) -> str:
        """A readable table of the checks, then channel, footprint and judge lines."""
        buffer = io.StringIO()
        console = Console(file=buffer, width=width, no_color=True, highlight=False,
                          emoji=False)
        title = f"{self.alias} {self.task} · variant {self.variant} · {self.title}"
        table = Table(title=title, title_justify="left", expand=False)
        table.add_column("check")
        table.add_column("weight", justify="right")
        table.add_column("fraction", justify="right")
        table.add_column("points", justify="right")
        table.add_column("status")
        table.add_column("evidence", overflow="fold", max_width=52)
        for c in self.checks:
            table.add_row(c.name, f"{c.percent}%",
                          "—" if c.fraction is None else f"{c.fraction:.3f}",
                          "—" if c.points is None else f"{c.points:.3f}",
                          c.status, summarize(c.evidence))
        console.print(table)
        if self.score is not None:
            console.print(f"score {self.score:.3f}" + (f"  (vetoed: {self.veto})"
                                                       if self.veto else ""))
        else:
            console.print(f"score incomplete: {self.graded_score:.3f} graded, "
                          f"{self.ungraded_weight:.2f} of the weight could not be graded")
        rule = self.channel.get("rule", {})
        console.print(f"channel rule: accepts {', '.join(rule.get('accepted', []))}; "
                      f"episode {rule.get('episode_id', '?')}")
        for ex in self.channel.get("exclusions", []):
            console.print(f"  excluded {ex['rows']} row(s) of {ex['system']}.{ex['table']}: "
                          f"{ex['reason']}")
        counts = self.footprint.get("counts", {})
        console.print(f"footprint: {counts.get('insert', 0)} inserted, "
                      f"{counts.get('update', 0)} updated, {counts.get('delete', 0)} deleted; "
                      f"{counts.get('stray', 0)} stray")
        for change in self.footprint.get("changes", []):
            if change.get("flags"):
                flags = "; ".join(f"{k} ({v})" for k, v in change["flags"].items())
                console.print(f"  {change['action']} {change['row']}: {flags}")
        console.print(f"judge: {self.judge.get('name', 'rubric')}"
                      f" · {len(self.judge.get('verdicts', []))} verdict(s)")
        for note in self.notes:
            console.print(f"note: {note}")
        console.print(f"engine {self.engine_version} · graded in "
                      f"{self.timings.get('total_s', 0.0) * 1000:.0f} ms")
        return buffer.getvalue()


def summarize(evidence: dict[str, Any], limit: int = 160) -> str:
    """One line of evidence for the table (the JSON report has all of it)."""
    if not evidence:
        return ""
    if "reason" in evidence and "parts" not in evidence:
        text = str(evidence["reason"])
    elif "parts" in evidence:
        parts = evidence["parts"]
        failed = [p["part"] for p in parts if p.get("fraction") != 1.0]
        text = f"{sum(1 for p in parts if p.get('fraction') == 1.0)}/{len(parts)} parts ok"
        if failed:
            text += "; not: " + ", ".join(failed)
    elif evidence.get("problems"):
        text = "; ".join(str(p) for p in evidence["problems"])
    elif "expected" in evidence or "found" in evidence:
        text = (f"expected {json.dumps(jsonable(evidence.get('expected')))}, "
                f"found {json.dumps(jsonable(evidence.get('found')))}")
    else:
        text = json.dumps(jsonable(evidence), ensure_ascii=False)
    return text if len(text) <= limit else text[:limit - 1] + "…"
