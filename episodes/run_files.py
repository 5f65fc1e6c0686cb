"""The files of an episode's run directory: preparing it, putting it back to the seed on
reset, keeping each attempt's trace and report, and counting the trace's steps."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from sandbox.catalog import TaskSpec
from sandbox.clock import SandboxClock
from sandbox.seeding import restore, seed_task, task_inputs

EPISODE_SUBDIRS = ("home", "logs", "trace")
ATTEMPT_FILES = ("trace", "report.json", "final.png", "extract", "result.json")
EMPTIED_ON_RESET = ("output", "downloads", "fax_sink")


class RunDirError(ValueError):
    """The run directory belongs to another task or variant."""


def prepare_run_dir(spec: TaskSpec, variant: str, run_dir: Path, episode_id: str) -> None:
    """Seed the run directory unless it is seeded already, make the episode's folders, keep
    a pristine copy of the inputs and start the sandbox clock."""
    if not (run_dir / "run.json").exists():
        seed_task(spec, variant, run_dir, episode_id=episode_id)
    run = json.loads((run_dir / "run.json").read_text())
    if run.get("task") != spec.id or run.get("variant") != variant:
        raise RunDirError(f"{run_dir} holds {run.get('task')} variant "
                          f"{run.get('variant')}, not {spec.id} {variant}")
    run["episode_id"] = episode_id
    (run_dir / "run.json").write_text(json.dumps(run, indent=2) + "\n")
    for sub in EPISODE_SUBDIRS:
        (run_dir / sub).mkdir(parents=True, exist_ok=True)
    pristine = run_dir / "home" / ".pristine-input"
    if not pristine.exists():
        shutil.copytree(run_dir / "input", pristine)
    SandboxClock(start=spec.clock).run().save(run_dir / "clock.json")


def reset_files_and_stores(spec: TaskSpec, variant: str, run_dir: Path) -> None:
    """Stores back to the seed in place, Output/Downloads/fax sink emptied, the inputs as
    seeded (changed ones restored, added ones removed), the clock started again."""
    restore(run_dir)
    for sub in EMPTIED_ON_RESET:
        folder = run_dir / sub
        for path in folder.iterdir() if folder.is_dir() else []:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    pristine = run_dir / "home" / ".pristine-input"
    wanted = {i.path for i in task_inputs(spec, variant)}
    input_dir = run_dir / "input"
    for path in sorted(input_dir.rglob("*"), reverse=True):
        rel = path.relative_to(input_dir)
        if path.is_file() and (str(rel) not in wanted or not (pristine / rel).is_file()):
            path.unlink()
    for src in pristine.rglob("*"):
        if src.is_file():
            dst = input_dir / src.relative_to(pristine)
            if not dst.is_file() or dst.read_bytes() != src.read_bytes():
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)
    SandboxClock(start=spec.clock).run().save(run_dir / "clock.json")


def archive_attempt(run_dir: Path, attempt: int) -> bool:
    """Move a finished attempt's trace, report and extract under ``attempts/N/``; returns
    whether there was anything to move."""
    present = [n for n in ATTEMPT_FILES if (run_dir / n).exists()]
    if not present:
        return False
    target = run_dir / "attempts" / str(attempt)
    target.mkdir(parents=True, exist_ok=True)
    for name in present:
        shutil.move(str(run_dir / name), str(target / name))
    (run_dir / "trace").mkdir(exist_ok=True)
    return True


def count_steps(trace: Path) -> int:
    """Inputs of a trace: agent actions, and presses (not motion) of viewers."""
    if not trace.exists():
        return 0
    count = 0
    for line in trace.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        event = entry.get("event") or {}
        if entry.get("kind") == "action" and event.get("action") != "mouse_move":
            count += 1
        elif entry.get("kind") == "input" and event.get("down") and event.get("t") in (
                "button", "key"):
            count += 1
    return count
