"""The episode commands of ``ehr-sandbox``: ``run``, ``bench`` and ``up``; user errors raise
``UsageError`` (exit 2)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from episodes.cli.model_options import add_model_options, with_model_settings
from episodes.cli.usage import UsageError, catalog, output_folder, tasks_dirs


def _agent(text: str):
    from episodes.agents import AgentSpec, AgentSpecError

    try:
        return AgentSpec.parse(text)
    except AgentSpecError as exc:
        raise UsageError(str(exc)) from exc


# -- run ----------------------------------------------------------------------------------------
def cmd_run(args: argparse.Namespace) -> int:
    from episodes.episode import new_episode_id
    from episodes.runner import run_episode, run_until_signalled
    from sandbox.seeding import SeedError, check_variant

    spec = catalog(args).get(args.task)
    try:
        variant = check_variant(spec, args.variant)
    except SeedError as exc:
        raise UsageError(str(exc)) from exc
    agent = with_model_settings(_agent(args.agent), args, grade_on_interrupt=True)
    if args.save_gold_trace and args.agent != "gold":
        raise UsageError("--save-gold-trace needs --agent gold (it keeps the oracle's trace)")
    out = Path(args.out) if args.out else Path("runs") / f"{spec.alias}-{variant}-" \
        f"{new_episode_id()[3:]}"
    output_folder(out)
    if not args.json:
        print(f"{spec.alias} ({spec.id}) variant {variant}: starting the episode in {out} …",
              file=sys.stderr)
    try:
        result = run_until_signalled(run_episode(
            spec, variant, agent, out, measure_reset=not args.no_reset))
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("ehr-sandbox: interrupted; the episode was stopped", file=sys.stderr)
        return 130
    row = result.row()
    if args.json:
        print(json.dumps({**row, "report": result.report_json}, indent=2))
    else:
        report_json = Path(result.run_dir) / "report.json"
        if result.report_text:
            print(result.report_text)
        score = "–" if result.score is None else f"{result.score:.3f}"
        print(f"{spec.alias} {variant} agent {agent}: {result.status}, score {score}, "
              f"{result.steps} steps, {result.duration_s:.1f} s "
              f"(start {row.get('ready_s')} s, reset {row.get('reset_s')} s)")
        if agent.is_model:
            cost = "–" if result.cost_usd is None else f"${result.cost_usd:.4f}"
            print(f"model {result.model}: ended by {result.ended_by}, tokens "
                  f"{result.tokens_in} in / {result.tokens_out} out, cost {cost}, model "
                  f"{result.model_s} s, env {result.env_s} s, observe {result.observe}")
        if result.error:
            print(f"error: {result.error}")
        if report_json.exists():
            print(f"report: {report_json}")
    if args.save_gold_trace:
        return _save_gold_trace(spec, result, json_output=args.json)
    return 0 if result.status == "graded" and not result.error else 1


def _save_gold_trace(spec, result, json_output: bool) -> int:
    """Keep a gold run's trace as the task's gold trace of its variant, only if it scored
    1.0."""
    from episodes.oracle import gold_trace_path

    trace = Path(result.run_dir) / "trace" / "trace.jsonl"
    target = gold_trace_path(spec.folder, result.variant)
    if result.status != "graded" or result.score != 1.0 or not trace.is_file():
        print(f"gold trace not saved: the run ended {result.status} with score "
              f"{result.score}; only a run that scores 1.0 replaces {target}", file=sys.stderr)
        return 1
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_bytes(trace.read_bytes())
    tmp.replace(target)
    if not json_output:
        print(f"gold trace: {target} ({sum(1 for _ in trace.open()) - 1} inputs)")
    return 0


def register_run(p: argparse.ArgumentParser) -> None:
    """run one episode of a task with an agent and print its report"""
    p.add_argument("task", help="task id or alias, e.g. ord-01")
    p.add_argument("--variant", help="twin fixture name (see 'tasks')")
    p.add_argument("--agent", default="none",
                   help="none | gold | replay:PATH (a trace.jsonl) | anthropic:MODEL | "
                        "openai:MODEL | openai-compatible:MODEL — default none")
    p.add_argument("--out", help="new folder for the run (default runs/<alias>-…)")
    p.add_argument("--json", action="store_true", help="print the result and report as JSON")
    p.add_argument("--no-reset", action="store_true",
                   help="skip the reset measured before the agent starts")
    p.add_argument("--save-gold-trace", action="store_true",
                   help="with --agent gold: when the run scores 1.0, write its trace to the "
                        "task's gold.trace.jsonl")
    add_model_options(p)
    p.set_defaults(func=cmd_run)


# -- bench --------------------------------------------------------------------------------------
def cmd_bench(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from episodes.bench_jobs import bench, bench_jobs
    from episodes.result_files import load_results, summarize
    from episodes.runner import RunnerError

    known = catalog(args)
    specs = known.select(args.tasks)
    if not specs:
        raise UsageError(f"no tasks match {args.tasks!r}; try all, ord, pa or a list of ids")
    jobs = bench_jobs(specs, args.variants)
    agent = with_model_settings(_agent(args.agent), args)
    if args.backend == "ray":
        from episodes.bench_ray import check_address, import_ray

        try:
            import_ray()
            check_address(args.address)
        except RunnerError as exc:
            raise UsageError(str(exc)) from exc
    elif args.address or args.artifacts:
        raise UsageError("--address and --artifacts go with --backend ray")
    if args.parallel < 1:
        raise UsageError(f"--parallel must be at least 1, got {args.parallel}")
    out = output_folder(Path(args.out), may_hold_results=True)
    console = Console(stderr=True)
    progress = Progress(TextColumn("[bold]bench[/]"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), TextColumn("{task.description}"),
                        console=console)

    with progress:
        bar = progress.add_task("", total=len(jobs))
        running: set[str] = set()

        def on_event(kind, job, row) -> None:
            if kind == "start":
                running.add(job.key)
            else:
                running.discard(job.key)
                score = "–" if row.get("score") is None else f"{row['score']:.3f}"
                progress.console.print(
                    f"{job.spec.alias:8} {job.variant:10} {row.get('status'):11} "
                    f"{score:>6}  {row.get('duration_s') or 0:6.1f} s"
                    + (f"  {str(row.get('error'))[:90]}" if row.get("error") else ""))
                progress.advance(bar)
            progress.update(bar, description=", ".join(sorted(running))[:60])

        if args.resume:
            done = {(r.get("task"), r.get("variant")) for r in load_results(out)
                    if r.get("agent") == str(agent)}
            progress.update(bar, completed=sum((j.spec.id, j.variant) in done for j in jobs))
        try:
            rows = asyncio.run(bench(jobs, agent, out, parallel=args.parallel,
                                     resume=args.resume, tasks_dirs=tasks_dirs(args),
                                     on_event=on_event, backend=args.backend,
                                     address=args.address,
                                     artifacts=Path(args.artifacts) if args.artifacts
                                     else None,
                                     warm_pool={"on": True, "off": False}.get(args.warm_pool)))
        except RunnerError as exc:
            raise UsageError(str(exc)) from exc
        except KeyboardInterrupt:
            console.print(f"interrupted: every episode was stopped; continue with "
                          f"'ehr-sandbox bench … --out {out} --resume'")
            return 130
    summary = summarize(rows)
    mean = summary["mean_score"]
    print(f"{summary['jobs']} episodes, mean score {mean if mean is not None else '–'}, "
          f"{summary['perfect']} at 1.0, {summary['statuses']}")
    print(f"results: {out / 'results.jsonl'}, {out / 'results.csv'}, {out / 'report.html'}")
    return 0


def register_bench(p: argparse.ArgumentParser) -> None:
    """run many tasks with an agent, in parallel, into results.jsonl/csv and report.html"""
    p.add_argument("--agent", default="gold",
                   help="none | gold | replay:PATH | anthropic:MODEL | openai:MODEL | "
                        "openai-compatible:MODEL (default gold)")
    p.add_argument("--tasks", default="all", help="all | ord | pa | comma-separated ids")
    p.add_argument("--variants", choices=("default", "all"), default="default",
                   help="the default fixture only, or every twin too")
    p.add_argument("--parallel", type=int, default=1, help="episodes at a time (default 1)")
    p.add_argument("--out", required=True, help="results folder")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted bench in --out (skips finished jobs)")
    p.add_argument("--warm-pool", choices=("auto", "on", "off"), default="auto",
                   help="fork every episode's portal and apps from a pool of interpreters "
                        "that imported them (warm starts), or start each anew (off: cold "
                        "starts); auto (default): on for 3 jobs or more")
    add_model_options(p)
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local child processes (default), or Ray tasks across a cluster "
                        "(pip install -e '.[ray]'; docs/cluster.md)")
    p.add_argument("--address",
                   help="with --backend ray: auto | ray://HOST:PORT | HOST:PORT (default: a "
                        "local one-node cluster)")
    p.add_argument("--artifacts", metavar="DIR",
                   help="with --backend ray: a folder every node shares; run folders come "
                        "back through it instead of the object store")
    p.set_defaults(func=cmd_bench)


# -- up -----------------------------------------------------------------------------------------
def cmd_up(args: argparse.Namespace) -> int:
    if not 1 <= args.port <= 65535:
        raise UsageError(f"--port must be 1..65535, got {args.port}")
    if args.max_episodes < 1:
        raise UsageError(f"--max-episodes must be at least 1, got {args.max_episodes}")
    check_listen(args.host, args.port)
    from episodes.hub.app import serve_hub

    return serve_hub(host=args.host, port=args.port, tasks_dirs=tasks_dirs(args),
                     runs_dir=Path(args.runs_dir), max_episodes=args.max_episodes,
                     public_hosts=args.public_host or [], tls=args.behind_tls)


def check_listen(host: str, port: int) -> None:
    """Refuse, before anything starts, an address this machine cannot listen on."""
    import socket

    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        raise UsageError(f"--host {host!r} is not an address of this machine ({exc}); "
                         "use 127.0.0.1, or 0.0.0.0 for every interface") from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            raise UsageError(f"cannot listen on {host}:{port} ({exc.strerror or exc}); "
                             "choose another --port or --host") from None


def register_up(p: argparse.ArgumentParser) -> None:
    """start the hub: browse tasks, run episodes in your browser, record, grade"""
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (0.0.0.0 to reach it from other machines)")
    p.add_argument("--port", type=int, default=8600)
    p.add_argument("--runs-dir", default="runs/hub", help="where episode folders go")
    p.add_argument("--max-episodes", type=int, default=4,
                   help="episodes that may run at once (default 4)")
    p.add_argument("--public-host", action="append", metavar="NAME",
                   help="a host name users reach the hub by (repeatable); other Host "
                        "headers than these and loopback are refused")
    p.add_argument("--behind-tls", action="store_true",
                   help="the hub is served through a TLS terminator: Secure cookies, "
                        "https Origins only")
    p.set_defaults(func=cmd_up)


# -- hub-user -----------------------------------------------------------------------------------
def cmd_hub_user(args: argparse.Namespace) -> int:
    import getpass
    import sys

    from episodes.hub.auth import Accounts, AuthError

    accounts = Accounts(Path(args.runs_dir))
    if args.action == "list":
        for user in accounts.users():
            print(f"{user.name}\t{user.role}")
        return 0
    if not args.name:
        raise UsageError(f"hub-user {args.action} needs an account NAME")
    if args.action == "remove":
        if not accounts.remove(args.name):
            raise UsageError(f"there is no account {args.name!r}")
        print(f"removed {args.name}")
        return 0
    if sys.stdin.isatty():
        password = getpass.getpass(f"password for {args.name}: ")
        if getpass.getpass("again: ") != password:
            raise UsageError("the two passwords differ")
    else:
        password = sys.stdin.readline().rstrip("\r\n")
    try:
        accounts.add(args.name, args.role, password)
    except AuthError as exc:
        raise UsageError(str(exc)) from None
    print(f"{args.name} ({args.role}) can sign in to the hub on {args.runs_dir}")
    return 0


def register_hub_user(p: argparse.ArgumentParser) -> None:
    """manage the hub's accounts (the password is read from the terminal or stdin)"""
    p.add_argument("action", choices=("add", "remove", "list"))
    p.add_argument("name", nargs="?", help="account name (lower-case, e.g. dana)")
    p.add_argument("--role", choices=("annotator", "reviewer", "admin"), default="annotator")
    p.add_argument("--runs-dir", default="runs/hub", help="the hub's --runs-dir")
    p.set_defaults(func=cmd_hub_user)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the episode commands to the ``ehr-sandbox`` parser."""
    from episodes.cli.serve_command import register_serve

    for name, add in (("run", register_run), ("bench", register_bench), ("up", register_up),
                      ("serve", register_serve), ("hub-user", register_hub_user)):
        add(sub.add_parser(name, help=add.__doc__))
