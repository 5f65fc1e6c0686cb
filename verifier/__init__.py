"""The grading engine: extracts, weighted checks, channel rule, footprint, judges, reports.

A task's ``verify.py`` uses::

    from verifier import Extract, Result, check, equal_share, expect

and the runner calls :func:`grade` (or ``ehr-sandbox verify``). The verifier reads only an
extract; it never imports an app (``portal_web``, ``desktop_ehr``, ``pixel_stream``).
"""

from verifier.checks import (
    ERROR,
    GRADE_STATUSES,
    GRADED,
    NOT_GRADED,
    Check,
    GradeStatus,
    Result,
    check,
    equal_share,
    expect,
    proportional,
    row_ref,
)
from verifier.declarations import Graded, Ungraded
from verifier.engine import grade
from verifier.errors import CouldNotGrade, VerifyError
from verifier.extract import Extract
from verifier.footprint import DUPLICATE, OTHER_PATIENT, OUTSIDE_SCOPE, Footprint, RowChange
from verifier.judges import Fact, LLMJudge, Rubric, RubricJudge, Verdict, judge_from_env
from verifier.report import CheckOutcome, Report
from verifier.run import RunInfo
from verifier.version import ENGINE_VERSION

__version__ = ENGINE_VERSION

__all__ = [
    "DUPLICATE", "ENGINE_VERSION", "ERROR", "GRADED", "GRADE_STATUSES", "GradeStatus", "NOT_GRADED", "OTHER_PATIENT",
    "OUTSIDE_SCOPE", "Check", "CheckOutcome", "CouldNotGrade", "Extract", "Fact", "Footprint",
    "Graded", "LLMJudge", "Report", "Result", "Rubric", "RubricJudge", "RowChange", "RunInfo", "Ungraded", "Verdict",
    "VerifyError", "check", "equal_share", "expect", "grade", "judge_from_env", "proportional",
    "row_ref",
]
