"""Bench output folders written by hand in the record format of model-driven episodes
(results.jsonl rows, steps.jsonl, step screenshots, report.json, a trace), for the tests of
report.html and ``compare``; no episode runs."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from sandbox.catalog import load_catalog

# three real tasks of the catalog, so the report's groups come from task.yaml
TASKS = {
    "ord-01": ("R09.03.01.02-T01", ["correct encounter", "six values (proportional)",
                                    "no stray writes"], [30, 50, 20]),
    "pa-01": ("R09.03.01.04-T01", ["correct codes", "questionnaire answers", "attachments",
                                   "reference recorded in EHR"], [25, 25, 25, 25]),
    "pa-02": ("R09.03.01.04-T02", ["cases 1-2 fully recorded", "cases 3-4",
                                   "case 5 (equal share per case)"], [40, 40, 20]),
}

@functools.cache
def _catalog():
    return load_catalog()


STEP_ACTIONS = [
    [{"action": "left_click", "coordinate": [640, 362]}],
    [{"action": "type", "text": "Hernandez"}, {"action": "key", "text": "Return"}],
    [{"action": "scroll", "coordinate": [700, 500], "scroll_direction": "down",
      "scroll_amount": 5}],
    [{"action": "left_click_drag", "start_coordinate": [200, 300], "coordinate": [520, 330]}],
]
STEP_COLORS = ["#e8eef5", "#f5ecd9", "#dff2e4", "#efe1f3"]


def screen(path: Path, label: str, color: str) -> None:
    """A 1280×800 image that looks like an app screen, with a label to tell it apart."""
    image = Image.new("RGB", (1280, 800), color)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 1280, 40), fill="#25405f")
    draw.text((16, 12), f"Web EHR · {label}", fill="white")
    for i in range(8):
        draw.rectangle((60, 90 + 70 * i, 1220, 140 + 70 * i), outline="#8aa0b8", fill="white")
        draw.text((80, 105 + 70 * i), f"row {i + 1} of {label}", fill="#1d2733")
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path)


def model_run(run_dir: Path, alias: str, *, missing_step: int | None = None) -> None:
    """steps.jsonl with four steps and their screenshots (one left out if asked)."""
    lines = []
    for index, actions in enumerate(STEP_ACTIONS, start=1):
        shot = f"steps/{index:04d}.png"
        if index != missing_step:
            screen(run_dir / shot, f"{alias} step {index}", STEP_COLORS[index - 1])
        lines.append({"step": index, "t": round(2.5 * (index - 1), 1),
                      "text": f"Step {index}: I look for the patient and act on the form.",
                      "actions": actions, "screenshot": shot, "tokens_in": 1000 + index,
                      "tokens_out": 40 + index, "model_s": 1.5, "action_s": 0.3,
                      "error": "could not parse the reply" if index == 4 else None})
    (run_dir / "steps.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def trace_run(run_dir: Path) -> None:
    """A trace of a replayed agent: a header and three inputs."""
    entries = [{"kind": "header", "version": 2, "width": 1280, "height": 800},
               {"n": 1, "t": 0.1, "client": "replay", "kind": "action",
                "event": {"action": "left_click", "coordinate": [940, 292]}},
               {"n": 2, "t": 0.2, "client": "replay", "kind": "action",
                "event": {"action": "mouse_move", "coordinate": [10, 10]}},
               {"n": 3, "t": 0.6, "client": "replay", "kind": "action",
                "event": {"action": "type", "text": "riverside.pa"}},
               {"n": 4, "t": 0.9, "client": "viewer", "kind": "input",
                "event": {"t": "key", "key": "Enter", "down": True}}]
    (run_dir / "trace").mkdir(parents=True, exist_ok=True)
    (run_dir / "trace" / "trace.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in entries))


def make_bench(out: Path, agent: str, scores: dict[str, float | None], *,
               steps: bool = True, missing_step: int | None = None) -> Path:
    """A bench folder of ``scores`` (alias → score; ``None`` is a failed episode)."""
    rows = []
    for alias, score in scores.items():
        task, names, percents = TASKS[alias]
        run_dir = out / "runs" / f"{alias}__default"
        run_dir.mkdir(parents=True)
        screen(run_dir / "final.png", f"{alias} final", "#dde6ef")
        with_steps = steps and alias != "pa-02"
        if with_steps:
            model_run(run_dir, alias, missing_step=missing_step if alias == "ord-01" else None)
        else:
            trace_run(run_dir)
        checks = [{"name": n, "percent": p, "weight": p / 100, "status": "graded",
                   "fraction": 1.0 if i else (score if score is not None else 0.0),
                   "evidence": {"expected": f"{n} as ordered", "found": f"{n} seen",
                                "rows": [f"{alias}-row-{i}"]}}
                   for i, (n, p) in enumerate(zip(names, percents, strict=True))]
        if score is not None:
            (run_dir / "report.json").write_text(json.dumps(
                {"task": task, "alias": alias, "title": _catalog().get(alias).title,
                 "score": score,
                 "status": "graded", "checks": checks, "veto": None, "notes": []}))
        model = agent if ":" in agent and not agent.startswith("replay") else None
        row: dict[str, Any] = {
            "task": task, "alias": alias, "variant": "default", "agent": agent,
            "status": "graded" if score is not None else "failed", "score": score,
            "duration_s": 12.5, "reset_s": 0.8, "steps": 4 if with_steps else 3,
            "ready_s": 6.0, "error": None if score is not None else "the app exited",
            "run_dir": str(run_dir), "observe": "screenshot", "model": model,
            "tokens_in": 4010 if model else None, "tokens_out": 170 if model else None,
            "cost_usd": 0.0146 if model else None, "model_s": 6.0 if model else None,
            "env_s": 4.2 if model else None, "ended_by": "done" if model else None,
            "retries": 0, "files": {"steps": "steps.jsonl"} if with_steps else {},
            "checks": [{k: c[k] for k in ("name", "percent", "status", "fraction")}
                       for c in checks] if score is not None else None}
        rows.append(row)
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return out
