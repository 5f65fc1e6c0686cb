"""What one episode produced: the verifier's :class:`~verifier.Report`, unchanged, with the
facts of the run around it (agent, timings, steps, files).

The report travels as the object the verifier made; :meth:`EpisodeResult.row` is the one
place it becomes a ``results.jsonl`` row, and every front end (CLI, bench, hub, Gym env)
reads the same fields. Statuses are the verifier's :data:`~verifier.GradeStatus`, plus
``failed`` for an episode that ended before it could be graded (an app crashed, it did not
start).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import verifier
from sandbox.catalog import TaskSpec
from verifier import ERROR, NOT_GRADED, GradeStatus, Report, VerifyError

RunStatus = GradeStatus | Literal["failed"]
FAILED: Literal["failed"] = "failed"


@dataclass
class EpisodeResult:
    """One ``results.jsonl`` row plus the full report."""

    task: str
    alias: str
    variant: str
    episode_id: str
    agent: str
    status: RunStatus
    score: float | None
    duration_s: float
    reset_s: float | None
    steps: int
    run_dir: str
    report: Report | None = None
    error: str | None = None
    files: dict[str, str] = field(default_factory=dict)
    ready_s: float | None = None
    # a model agent's run (docs/agents.md); None for none, gold and replay
    observe: str | None = None
    model: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    model_s: float | None = None
    env_s: float | None = None
    ended_by: str | None = None
    retries: int = 0  # Ray backend: times the episode was run again after its node died

    @classmethod
    def from_grading(cls, grading: Grading, **facts: Any) -> EpisodeResult:
        """The result of a graded episode."""
        report = grading.report
        return cls(status=grading.status, score=report.score if report else None,
                   report=report, error=grading.error, **facts)

    def add_model_run(self, agent: str, observe: str, totals: Any) -> None:
        """The model's totals (:class:`episodes.model_agents.Totals`) into the row."""
        self.observe, self.model = observe, agent
        for key, value in totals.row().items():
            setattr(self, key, value)
        if totals.steps:
            self.files["steps"] = "steps.jsonl"
        if totals.error and not self.error:
            self.error = f"{agent} agent: {totals.error}"

    @property
    def report_json(self) -> dict[str, Any] | None:
        return self.report.to_json() if self.report is not None else None

    @property
    def report_text(self) -> str:
        """The report's table, or the reason there is none."""
        if self.report is not None:
            return self.report.render_text()
        return self.error or ""

    def row(self) -> dict[str, Any]:
        """The ``results.jsonl`` row: every fact, and each check's name, share and status."""
        row = {k: v for k, v in self.__dict__.items() if k != "report"}
        if self.report is not None:
            row["checks"] = [{"name": c.name, "percent": c.percent, "status": c.status,
                              "fraction": c.fraction} for c in self.report.checks]
        return row


@dataclass(frozen=True)
class Grading:
    """The verifier's report on an extract, or why there is none."""

    report: Report | None
    status: GradeStatus
    error: str | None = None


def grade_extract(spec: TaskSpec, extract_dir: Path, variant: str) -> Grading:
    """Grade an extract. A task the verifier cannot grade (no verify.py, an extract that
    cannot be trusted) is ``could not grade``, never a score of 0; a crash is ``error``."""
    try:
        report = verifier.grade(spec, extract_dir, variant)
    except VerifyError as exc:
        return Grading(None, NOT_GRADED, f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # noqa: BLE001 - reported in the result, not raised
        return Grading(None, ERROR, f"{type(exc).__name__}: {exc}")
    return Grading(report, report.status)
