"""``grade(spec, extract_dir)``: run a task's checks over an extract and build the report."""

from __future__ import annotations

import time
import traceback
from pathlib import Path

from sandbox.catalog import TaskSpec
from verifier.checks import ERROR, Check, Result
from verifier.extract import Extract
from verifier.judges import Judge, judge_from_env
from verifier.report import CheckOutcome, Report
from verifier.taskmodule import load_checks
from verifier.version import ENGINE_VERSION


def _run_check(chk: Check, ex: Extract) -> Result:
    """The check's result; a bug in the check becomes an "error" outcome, not a crash."""
    try:
        return chk(ex)
    except Exception as exc:  # noqa: BLE001 - reported with its place in verify.py
        frames = traceback.extract_tb(exc.__traceback__)
        inner = next((f for f in reversed(frames) if f.filename.endswith("verify.py")), None)
        where = f"{inner.filename}:{inner.lineno}" if inner else chk.where
        return Result(None, {"reason": f"the check raised {type(exc).__name__}: {exc}",
                             "at": where}, ERROR)


def grade(spec: TaskSpec, extract_dir: Path | str, variant: str | None = None, *,
          judge: Judge | str | None = None) -> Report:
    """Grade one extract (or run directory) of ``spec``.

    ``judge`` is a judge object, ``"rubric"``/``"llm"``, or ``None`` for the environment's
    choice. Raises :class:`~verifier.errors.VerifyError` for input that cannot be graded.
    """
    started = time.perf_counter()
    task_checks = load_checks(spec)
    chosen = judge if judge is not None and not isinstance(judge, str) else judge_from_env(judge)
    outcomes: list[CheckOutcome] = []
    with Extract.open(extract_dir, spec, variant=variant, judge=chosen,
                      patients=task_checks.patients) as ex:
        check_started = time.perf_counter()
        for item, chk in zip(spec.credit, task_checks.checks, strict=True):
            t0 = time.perf_counter()
            result = _run_check(chk, ex)
            outcomes.append(CheckOutcome(
                name=item.name, percent=item.percent, status=result.status,
                fraction=result.fraction, evidence=result.evidence,
                excluded=ex.take_seen_exclusions(), seconds=time.perf_counter() - t0,
                veto=result.veto, where=chk.where))
        timings = {**ex.timings, "checks_s": time.perf_counter() - check_started}
        footprint = ex.footprint.to_json()
        channel = {"rule": ex.rule.to_json(),
                   "exclusions": [e.to_json() for e in ex.exclusions()]}
        judge_info = {**ex.describe_judge(), "verdicts": ex.judgements}
        notes = list(ex.footprint.notes)
        run = ex.run
    timings["total_s"] = time.perf_counter() - started
    return Report(
        task=spec.id, alias=spec.alias, title=spec.title, variant=run.variant,
        episode_id=run.episode_id, extract=str(Path(extract_dir)),
        engine_version=ENGINE_VERSION, run_engine_version=run.engine_version,
        checks=outcomes, channel=channel, footprint=footprint, judge=judge_info,
        timings=timings, notes=notes)
