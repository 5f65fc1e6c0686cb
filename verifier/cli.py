"""``ehr-sandbox verify TASK EXTRACT_DIR [--variant V] [--json] [--sensitivity]``.

Exit status: 0 a complete report; 1 a report with items that could not be graded (or whose
check failed); 2 input that cannot be graded (the message names the file). Never a traceback.
With ``--sensitivity`` (on a 1.0 extract, e.g. a gold run's): every value the task's
``GRADED`` list declares is changed in turn in a copy and graded (:mod:`verifier.sensitivity`);
exit 0 when each moved the score by its share and every value the run wrote is accounted for.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
from pathlib import Path

from sandbox.catalog import CatalogError, load_catalog
from sandbox.clock import ClockError
from sandbox.stores import StoreError
from verifier.engine import grade
from verifier.errors import VerifyError
from verifier.sensitivity import run_sensitivity


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ehr-sandbox verify",
        description="Grade an extract (or a run directory) of a task with its checks.")
    parser.add_argument("task", help="task id or alias, e.g. ord-01")
    parser.add_argument("extract_dir", help="directory made by 'ehr-sandbox extract'")
    parser.add_argument("--variant", help="the twin fixture the extract was seeded as "
                        "(default: the one in run.json)")
    parser.add_argument("--json", action="store_true", help="print the JSON report")
    parser.add_argument("--judge", choices=("rubric", "llm"),
                        help="judge for free-text items (default: llm when "
                             "EHR_SANDBOX_JUDGE_URL is set, else rubric)")
    parser.add_argument("--tasks-dir", action="append", metavar="DIR",
                        help="another folder of task folders (e.g. a held-out pack)")
    parser.add_argument("--sensitivity", action="store_true",
                        help="on a 1.0 extract: change each value verify.py's GRADED list "
                             "declares, in copies, and check each moves the score by its "
                             "share")
    return parser


def verify_main(argv: list[str] | None = None) -> int:
    """Run the verify command; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        catalog = load_catalog([Path(d) for d in (args.tasks_dir or [])])
        spec = catalog.get(args.task)
        if args.sensitivity:
            with tempfile.TemporaryDirectory(prefix="sensitivity-") as work:
                found = run_sensitivity(spec, Path(args.extract_dir), work,
                                        variant=args.variant)
            print(found.render(everything=True))
            return 0 if found.ok else 1
        report = grade(spec, Path(args.extract_dir), args.variant, judge=args.judge)
    except (VerifyError, CatalogError, StoreError, ClockError) as exc:
        print(f"ehr-sandbox verify: error: {exc}", file=sys.stderr)
        return 2
    except sqlite3.DatabaseError as exc:
        print(f"ehr-sandbox verify: error: {args.extract_dir}: a store is not readable "
              f"SQLite ({exc})", file=sys.stderr)
        return 2
    if args.json:
        print(report.to_json_text())
    else:
        print(report.render_text(), end="")
    return 0 if report.complete else 1


def main() -> None:
    raise SystemExit(verify_main(sys.argv[1:]))


if __name__ == "__main__":
    main()
