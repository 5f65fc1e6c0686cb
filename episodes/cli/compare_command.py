"""``ehr-sandbox compare RUN_A RUN_B``: per-task score differences of two benches and whether
the mean difference is significant (:mod:`episodes.compare`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from episodes.cli.usage import UsageError


def cmd_compare(args: argparse.Namespace) -> int:
    from episodes.compare import CompareError, compare, render_table

    try:
        result = compare(Path(args.run_a), Path(args.run_b), seed=args.seed)
    except CompareError as exc:
        raise UsageError(str(exc)) from exc
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        print(render_table(result), end="")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``compare`` to the ``ehr-sandbox`` parser."""
    p = sub.add_parser("compare", help="per-task score differences of two bench folders and "
                                       "whether the mean difference is significant")
    p.add_argument("run_a", metavar="RUN_A", help="a bench's --out folder (the baseline)")
    p.add_argument("run_b", metavar="RUN_B", help="another bench's --out folder")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--seed", type=int, help="seed of the bootstrap and permutation draws")
    p.set_defaults(func=cmd_compare)
