"""What the report's trajectory viewer shows of one episode, read from its run folder.

A model agent writes ``steps.jsonl`` (one object a step: the model's text, its actions,
the screenshot it saw, tokens and timings — the record format in docs/episodes.md). Agents
without steps (none, gold, replay) get the final screenshot and the trace's inputs as a
list. Images are referenced, never copied: by a path relative to ``report.html`` when the
run folder sits under the bench's output folder, else by a ``file:`` URL; the one final
screenshot of a run outside it is embedded as a small JPEG so the page keeps it.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import io
import json
import os
from pathlib import Path
from typing import Any

STEP_FIELDS = ("step", "t", "text", "actions", "tokens_in", "tokens_out", "model_s",
               "action_s", "error")
MAX_TRACE_INPUTS = 2000
MAX_TEXT = 20_000
DEFAULT_SCREEN = (1280, 800)  # the workstation's resolution


def run_folder(row: dict[str, Any], out: Path) -> Path:
    """The run folder of a row: as recorded, or ``out/runs/<name>`` when the bench folder
    was moved since."""
    recorded = Path(row.get("run_dir") or "")
    if recorded.name and not recorded.is_dir():
        moved = out / "runs" / recorded.name
        if moved.is_dir():
            return moved
    return recorded


def image_ref(path: Path, out: Path, *, embed: bool = False) -> dict[str, Any]:
    """``{"src": …}`` for an image that exists, ``{"src": None, "missing": path}`` else."""
    if not path.is_file():
        return {"src": None, "missing": str(path)}
    try:
        rel = Path(os.path.relpath(path.resolve(), out.resolve()))
    except ValueError:  # another drive
        rel = Path("..")
    if rel.parts and rel.parts[0] != "..":
        return {"src": rel.as_posix()}
    if embed:
        thumb = thumbnail(path)
        if thumb:
            return {"src": thumb, "embedded": True}
    return {"src": path.resolve().as_uri(), "outside": True}


def thumbnail(path: Path, size: tuple[int, int] = (640, 400)) -> str | None:
    """A small JPEG data URL of an image (bounded: one a run, for runs kept elsewhere).

    Kept per file and version (size, modification time): a bench writes its report again
    after every job, and decoding and scaling every run's final screen each time cost it
    30 ms a run, a second at 40 runs."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return _thumbnail(str(path.resolve()), stat.st_mtime_ns, stat.st_size, size)


@functools.lru_cache(maxsize=256)
def _thumbnail(path: str, mtime_ns: int, file_size: int, size: tuple[int, int]) -> str | None:
    try:
        from PIL import Image

        with Image.open(path) as opened:
            image = opened.convert("RGB")
            image.thumbnail(size)
            buf = io.BytesIO()
            image.save(buf, "JPEG", quality=70)
    except OSError:
        return None
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode()


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    entries = []
    with contextlib.suppress(OSError):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            with contextlib.suppress(json.JSONDecodeError):
                entry = json.loads(line)
                if isinstance(entry, dict):
                    entries.append(entry)
    return entries


def model_steps(run_dir: Path, out: Path, steps_file: str = "steps.jsonl"
                ) -> list[dict[str, Any]] | None:
    """The steps of ``steps.jsonl`` for the viewer, or ``None`` when the agent wrote none."""
    path = run_dir / steps_file
    if not path.is_file():
        return None
    steps = []
    for index, entry in enumerate(read_jsonl(path)):
        step: dict[str, Any] = {k: entry.get(k) for k in STEP_FIELDS}
        step["step"] = step["step"] if step["step"] is not None else index + 1
        actions = step["actions"] if isinstance(step["actions"], list) else []
        step["actions"] = [a for a in actions if isinstance(a, dict)]
        if isinstance(step["text"], str) and len(step["text"]) > MAX_TEXT:
            step["text"] = step["text"][:MAX_TEXT] + " …"
        shot = entry.get("screenshot")
        step["image"] = (image_ref(run_dir / shot, out) if isinstance(shot, str) and shot
                         else {"src": None, "missing": "no screenshot recorded"})
        steps.append(step)
    return steps


def trace_inputs(trace: Path, limit: int = MAX_TRACE_INPUTS) -> tuple[list[dict[str, Any]], int]:
    """The inputs of a trace (actions and viewer presses), first ``limit``; and how many."""
    inputs: list[dict[str, Any]] = []
    total = 0
    for entry in read_jsonl(trace):
        kind = entry.get("kind")
        event = entry.get("event") or {}
        if kind == "action" and event.get("action") != "mouse_move":
            what = describe_action(event)
        elif kind == "input" and event.get("down") and event.get("t") in ("button", "key"):
            what = (f"press {event.get('key') or event.get('code') or '?'}"
                    if event.get("t") == "key" else
                    f"button {event.get('button', '?')} at ({event.get('x')}, {event.get('y')})")
        else:
            continue
        total += 1
        if len(inputs) < limit:
            inputs.append({"n": entry.get("n"), "t": entry.get("t"),
                           "client": entry.get("client"), "what": what})
    return inputs, total


def screen_size(trace: Path) -> list[int]:
    """The screen's size from the trace's header (what actions' coordinates refer to)."""
    with contextlib.suppress(OSError, ValueError), open(trace, encoding="utf-8") as fh:
        header = json.loads(fh.readline() or "{}")
        if isinstance(header, dict):
            width, height = int(header.get("width") or 0), int(header.get("height") or 0)
            if width > 0 and height > 0:
                return [width, height]
    return list(DEFAULT_SCREEN)


def describe_action(action: dict[str, Any]) -> str:
    """One line for an agent-API action: ``left_click (940, 292)``, ``type "riverside"``."""
    name = str(action.get("action", "?"))
    parts = [name]
    if action.get("start_coordinate"):
        parts.append("from ({}, {})".format(*action["start_coordinate"][:2]))
    if action.get("coordinate"):
        parts.append("({}, {})".format(*action["coordinate"][:2]))
    if action.get("scroll_direction"):
        parts.append(f"{action['scroll_direction']} ×{action.get('scroll_amount', 1)}")
    if action.get("text") is not None:
        text = str(action["text"])
        parts.append(json.dumps(text if len(text) <= 80 else text[:79] + "…",
                                ensure_ascii=False))
    if action.get("duration") is not None:
        parts.append(f"{action['duration']} s")
    return " ".join(parts)


def episode_view(row: dict[str, Any], out: Path, report: dict[str, Any] | None
                 ) -> dict[str, Any]:
    """Everything the viewer shows of one episode (serialised into report.html)."""
    run_dir = run_folder(row, out)
    files = row.get("files") or {}
    steps = model_steps(run_dir, out, files.get("steps") or "steps.jsonl")
    view: dict[str, Any] = {
        "steps": steps,
        "final": image_ref(run_dir / "final.png", out, embed=True),
        "inputs": [], "inputs_total": 0,
        "checks": (report or {}).get("checks") or row.get("checks") or [],
        "veto": (report or {}).get("veto"),
        "notes": (report or {}).get("notes") or [],
    }
    trace = Path(files["trace"]) if files.get("trace") else run_dir / "trace" / "trace.jsonl"
    if not trace.is_file():
        trace = run_dir / "trace" / "trace.jsonl"
    view["screen"] = screen_size(trace)
    if steps is None:
        view["inputs"], view["inputs_total"] = trace_inputs(trace)
    for step in steps or []:
        for action in step["actions"]:
            action["label"] = describe_action(action)
    return view
