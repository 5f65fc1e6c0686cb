"""The oracle: gold solutions run through the GUI (:mod:`.driver`), under the rules of
:mod:`.guard`, locating with :mod:`.locators` and the desktop app's inspector."""

from episodes.oracle.driver import ApiReply, Oracle, OracleRun, run_oracle
from episodes.oracle.errors import OracleError, OracleViolation
from episodes.oracle.guard import (
    FORBIDDEN_IMPORTS,
    GOLD_FILE,
    READ_ONLY_METHODS,
    ReadOnly,
    check_gold_source,
    gold_trace_path,
    load_gold,
)
from episodes.oracle.locators import Box, content_origin

__all__ = [
    "FORBIDDEN_IMPORTS", "GOLD_FILE", "READ_ONLY_METHODS", "ApiReply", "Box", "Oracle",
    "OracleError", "OracleRun", "OracleViolation", "ReadOnly", "check_gold_source",
    "content_origin", "gold_trace_path", "load_gold", "run_oracle",
]
