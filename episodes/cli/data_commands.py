"""The data commands of ``ehr-sandbox``: ``tasks``, ``seed``, ``fingerprint``, ``extract``,
``audit verify`` and ``verify`` — the kernel and the verifier, no episode."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from episodes.cli.usage import UsageError, catalog


# -- commands ----------------------------------------------------------------------------
def cmd_tasks(args: argparse.Namespace) -> int:
    tasks = catalog(args)
    specs = tasks.select(args.select) if args.select else list(tasks)
    if args.json:
        print(json.dumps([s.summary() for s in specs], indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"EHR Sandbox tasks ({len(specs)})", show_lines=False)
    for col in ("alias", "id", "title", "systems", "channel", "diff.", "variants"):
        table.add_column(col, overflow="fold")
    for s in specs:
        table.add_row(s.alias, s.id, s.title, ",".join(s.systems), s.channel,
                      str(s.difficulty), ",".join(s.variant_names))
    Console(width=160).print(table)
    return 0


def cmd_seed(args: argparse.Namespace) -> int:
    from sandbox.fingerprint import fingerprint
    from sandbox.seeding import seed_task

    spec = catalog(args).get(args.task)
    try:
        out = seed_task(spec, args.variant, Path(args.out))
        digest, _ = fingerprint(out)
    except OSError as exc:
        raise UsageError(f"cannot seed into {args.out}: {exc.strerror or exc}"
                         f"{f' ({exc.filename})' if exc.filename else ''}; "
                         "choose a new folder you can write") from None
    print(f"seeded {spec.alias} ({spec.id}) variant {args.variant or 'default'} into {out}")
    print(digest)
    return 0


def cmd_fingerprint(args: argparse.Namespace) -> int:
    from sandbox.fingerprint import fingerprint

    run_dir = Path(args.dir)
    if not (run_dir / "stores").is_dir():
        raise UsageError(f"{run_dir} has no stores/ folder; give a seeded run or an extract")
    digest, parts = fingerprint(run_dir)
    for name, part in parts:
        print(f"{part}  {name}")
    print(digest)
    return 0


def cmd_extract(args: argparse.Namespace) -> int:
    from sandbox.extract import extract_run

    try:
        out = extract_run(Path(args.run_dir), Path(args.out))
    except OSError as exc:
        raise UsageError(f"cannot extract into {args.out}: {exc.strerror or exc}"
                         f"{f' ({exc.filename})' if exc.filename else ''}; "
                         "choose a new folder you can write") from None
    print(f"extracted {args.run_dir} into {out}")
    return 0


def cmd_audit_verify(args: argparse.Namespace) -> int:
    from sandbox.stores import open_store

    base = Path(args.dir)
    folder = base / "stores" if (base / "stores").is_dir() else base
    stores = sorted(folder.glob("*.sqlite"))
    if not stores:
        raise UsageError(f"no stores (*.sqlite) in {folder}; give a run, extract or stores dir")
    broken = 0
    for path in stores:
        store = open_store(path.stem, path, readonly=True)
        try:
            report = store.verify_audit()
        finally:
            store.dispose()
        if report.ok:
            print(f"ok      {path.name}: {report.entries} entries, {report.rows_checked} rows")
        else:
            broken += 1
            print(f"BROKEN  {report.problems[0]}")
            for extra in report.problems[1:4]:
                print(f"        {extra}")
    return 1 if broken else 0


def cmd_verify(args: argparse.Namespace) -> int:
    from verifier.cli import verify_main

    argv = [args.task, args.extract_dir]
    if args.variant:
        argv += ["--variant", args.variant]
    if args.json:
        argv.append("--json")
    if args.judge:
        argv += ["--judge", args.judge]
    for d in args.tasks_dir or []:
        argv += ["--tasks-dir", d]
    return verify_main(argv)



def register(sub: argparse._SubParsersAction) -> None:
    """Add the data commands to the ``ehr-sandbox`` parser."""

    p = sub.add_parser("tasks", help="list the tasks")
    p.add_argument("select", nargs="?", help="all | ord | pa | comma-separated ids or aliases")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=cmd_tasks)

    p = sub.add_parser("seed", help="build a task's stores and input files into a directory")
    p.add_argument("task", help="task id or alias, e.g. ord-01")
    p.add_argument("--variant", help="twin fixture name (see 'tasks')")
    p.add_argument("--out", required=True, help="new run directory")
    p.set_defaults(func=cmd_seed)

    p = sub.add_parser("fingerprint", help="digest of a run's tables and input files")
    p.add_argument("dir", help="a seeded run directory or an extract")
    p.set_defaults(func=cmd_fingerprint)

    p = sub.add_parser("extract", help="consistent copy of a run for grading")
    p.add_argument("run_dir")
    p.add_argument("--out", required=True, help="new extract directory")
    p.set_defaults(func=cmd_extract)

    p = sub.add_parser("audit", help="audit chain tools")
    audit_sub = p.add_subparsers(dest="audit_command", metavar="ACTION")
    audit_sub.required = True
    v = audit_sub.add_parser("verify", help="check every store's hash chain and rows")
    v.add_argument("dir", help="run directory, extract or folder of *.sqlite stores")
    v.set_defaults(func=cmd_audit_verify)

    p = sub.add_parser("verify", help="grade an extract")
    p.add_argument("task")
    p.add_argument("extract_dir")
    p.add_argument("--variant")
    p.add_argument("--json", action="store_true")
    p.add_argument("--judge", choices=("rubric", "llm"),
                   help="judge for free-text items (default: llm when EHR_SANDBOX_JUDGE_URL "
                        "is set, else rubric)")
    p.add_argument("--tasks-dir", action="append", metavar="DIR", default=argparse.SUPPRESS,
                   help="another folder of task folders (as before the command)")
    p.set_defaults(func=cmd_verify)

