"""``grade(spec, extract_dir)``: run a task's checks over an extract and build the report.

The could-not-grade rule: an item is reported as *could not grade* only when the extract
cannot be read (e.g. an input file is missing), the seed lacks what its check needs, or the
configured judge is unavailable. A change the run made to seeded data is the run's doing and
costs the part it touches. The checks grade such changes themselves; as a backstop, when a
check could not grade the run's data, the engine grades it once more on the seeded data as
if nothing had been written (:meth:`Extract.open_untouched`). If it can grade there, the
seed has what the check needs, so the run's own changes removed it: the item is graded 0,
with both reasons in its evidence.
"""

from __future__ import annotations

import time
import traceback
from contextlib import ExitStack
from pathlib import Path

from sandbox.catalog import TaskSpec
from verifier.checks import ERROR, GRADED, NOT_GRADED, Check, Result
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


RUN_CHANGED_SEED = ("the run changed or removed seeded data this check needs; a change the "
                    "run made is graded as a failure of the part it touches")


class _Untouched:
    """The extract as if nothing had been written, opened on first use (rarely needed)."""

    def __init__(self, extract_dir: Path | str, spec: TaskSpec,
                 patients: dict[str, list[str]]):
        self._args = (extract_dir, spec, patients)
        self._stack = ExitStack()
        self._ex: Extract | None = None

    def __enter__(self) -> _Untouched:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def get(self) -> Extract:
        if self._ex is None:
            extract_dir, spec, patients = self._args
            self._ex = self._stack.enter_context(
                Extract.open_untouched(extract_dir, spec, patients=patients))
        return self._ex


def _judge_failures(ex: Extract) -> int:
    return sum(1 for j in ex.judgements if "could_not_grade" in j)


def _seed_rule(chk: Check, result: Result, untouched: _Untouched) -> Result:
    """A "could not grade" the seed does not explain is the run's doing: graded 0."""
    seeded = _run_check(chk, untouched.get())
    untouched.get().take_seen_exclusions()
    if seeded.status != GRADED:
        return result
    return Result(0.0, {"reason": RUN_CHANGED_SEED,
                        "on the run's data": result.evidence.get("reason"),
                        "on the seeded data": f"graded {seeded.fraction:g}",
                        **{k: v for k, v in result.evidence.items() if k != "reason"}},
                  GRADED)


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
                      patients=task_checks.patients) as ex, \
            _Untouched(extract_dir, spec, task_checks.patients) as untouched:
        check_started = time.perf_counter()
        for item, chk in zip(spec.credit, task_checks.checks, strict=True):
            t0 = time.perf_counter()
            judge_failures = _judge_failures(ex)
            result = _run_check(chk, ex)
            if result.status == NOT_GRADED and _judge_failures(ex) == judge_failures:
                result = _seed_rule(chk, result, untouched)
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
