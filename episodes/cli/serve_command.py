"""``ehr-sandbox serve TASK``: an episode for your own agent (docs/agents.md)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from episodes.cli.usage import UsageError, catalog, output_folder


def cmd_serve(args: argparse.Namespace) -> int:
    from episodes.episode import EpisodeError, new_episode_id
    from episodes.runner import run_until_signalled
    from episodes.serve import serve_episode
    from sandbox.seeding import SeedError, check_variant

    spec = catalog(args).get(args.task)
    try:
        variant = check_variant(spec, args.variant)
    except SeedError as exc:
        raise UsageError(str(exc)) from exc
    if args.max_seconds is not None and args.max_seconds <= 0:
        raise UsageError(f"--max-seconds must be positive, got {args.max_seconds}")
    out = Path(args.out) if args.out else Path("runs") / f"{spec.alias}-{variant}-" \
        f"serve-{new_episode_id()[3:]}"
    output_folder(out)
    print(f"{spec.alias} ({spec.id}) variant {variant}: starting the episode in {out} …",
          file=sys.stderr)

    def ready(info: dict) -> None:
        print(json.dumps(info), flush=True)
        print("waiting for the agent's done (op \"done\" on the agent API); Ctrl-C stops",
              file=sys.stderr, flush=True)

    try:
        result = run_until_signalled(serve_episode(spec, variant, out, on_ready=ready,
                                                   max_seconds=args.max_seconds))
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("ehr-sandbox: interrupted; the episode was stopped", file=sys.stderr)
        return 130
    except EpisodeError as exc:
        print(f"ehr-sandbox: the episode failed: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({**result.row(), "report": result.report_json}))
    else:
        if result.report_text:
            print(result.report_text)
        score = "–" if result.score is None else f"{result.score:.3f}"
        print(f"{spec.alias} {variant} agent {result.agent}: {result.status}, score {score}, "
              f"{result.steps} steps, {result.duration_s:.1f} s, ended by {result.ended_by}")
        print(f"report: {Path(result.run_dir) / 'report.json'}")
    return 0 if result.status == "graded" else 1


def register_serve(p: argparse.ArgumentParser) -> None:
    """start an episode for your own agent: print how to connect, grade on its done"""
    p.add_argument("task", help="task id or alias, e.g. ord-01")
    p.add_argument("--variant", help="twin fixture name (see 'tasks')")
    p.add_argument("--out", help="new folder for the run (default runs/<alias>-…-serve-…)")
    p.add_argument("--max-seconds", type=float,
                   help="grade after this many seconds even without the agent's done")
    p.add_argument("--json", action="store_true",
                   help="print the result and report as one JSON line at the end")
    p.set_defaults(func=cmd_serve)
