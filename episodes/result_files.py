"""The files a bench writes: ``results.jsonl`` (one row a finished job, appended), and from
it ``results.csv`` and a self-contained ``report.html`` (latest row per job)."""

from __future__ import annotations

import contextlib
import csv
import functools
import json
from pathlib import Path
from typing import Any

RESULT_FIELDS = ("task", "alias", "variant", "agent", "status", "score", "duration_s",
                 "reset_s", "steps", "ready_s", "error", "run_dir")
# what a model agent adds to a row (null for none/gold/replay)
MODEL_FIELDS = ("observe", "model", "tokens_in", "tokens_out", "cost_usd", "model_s", "env_s",
                "ended_by", "retries")


def load_results(out: Path) -> list[dict[str, Any]]:
    path = out / "results.jsonl"
    rows = []
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                with contextlib.suppress(json.JSONDecodeError):
                    rows.append(json.loads(line))
    return rows


def write_tables(out: Path, add_wall_s: float | None = None,
                 tasks_dirs: list[Path] | None = None) -> None:
    """``results.csv`` and ``report.html`` from ``results.jsonl`` (latest row per job)."""
    rows = latest_rows(load_results(out))
    with open(out / "results.csv", "w", newline="", encoding="utf-8") as fh:
        fields = [*RESULT_FIELDS, *(f for f in MODEL_FIELDS if f not in RESULT_FIELDS)]
        writer = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: row.get(k) for k in fields})
    meta = read_meta(out)
    if add_wall_s is not None:  # a resumed bench adds its time to the earlier sessions'
        meta = set_meta(out, wall_s=round(meta.get("wall_s", 0.0) + add_wall_s, 3),
                        sessions=meta.get("sessions", 0) + 1)
    (out / "report.html").write_text(render_report(rows, out, meta.get("wall_s"),
                                                   tasks_dirs),
                                     encoding="utf-8")


def read_meta(out: Path) -> dict[str, Any]:
    """The bench's ``bench.json`` (its wall time, sessions, warm pool), {} before one."""
    meta_path = out / "bench.json"
    return json.loads(meta_path.read_text()) if meta_path.exists() else {}


def set_meta(out: Path, **values: Any) -> dict[str, Any]:
    """Record ``values`` in the bench's ``bench.json``; returns all of it."""
    meta = {**read_meta(out), **values}
    (out / "bench.json").write_text(json.dumps(meta, indent=2) + "\n")
    return meta


def latest_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    latest: dict[tuple, dict[str, Any]] = {}
    for row in rows:
        latest[(row.get("task"), row.get("variant"), row.get("agent"))] = row
    return list(latest.values())


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    scores = [r["score"] for r in rows if r.get("score") is not None]
    statuses: dict[str, int] = {}
    for r in rows:
        statuses[r.get("status", "?")] = statuses.get(r.get("status", "?"), 0) + 1
    return {
        "jobs": len(rows),
        "mean_score": round(sum(scores) / len(scores), 4) if scores else None,
        "perfect": sum(1 for s in scores if s >= 0.9999),
        "statuses": statuses,
        "total_duration_s": round(sum(r.get("duration_s") or 0 for r in rows), 3),
    }


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Cost and time of a bench: sums of the rows that have each field (``None`` when no
    row has it), and how many rows of a model had no price."""
    def total(field: str, digits: int = 3) -> float | None:
        values = [r[field] for r in rows if isinstance(r.get(field), int | float)]
        return round(sum(values), digits) if values else None

    return {
        "tokens_in": total("tokens_in", 0), "tokens_out": total("tokens_out", 0),
        "cost_usd": total("cost_usd", 4), "model_s": total("model_s"),
        "env_s": total("env_s"), "duration_s": total("duration_s"), "steps": total("steps", 0),
        "unpriced": sum(1 for r in rows if r.get("model") and r.get("cost_usd") is None),
    }


def group_table(rows: list[dict[str, Any]], tasks_dirs: list[Path] | None = None
                ) -> list[dict[str, Any]]:
    """Success rate and mean score with bootstrap intervals per family, system and
    difficulty (from the task catalog), and per agent/observation setting when a bench
    mixes them."""
    from episodes.bench_stats import group_stats

    specs = _specs(rows, tasks_dirs)

    def of(row: dict[str, Any], attr: str) -> list[str]:
        spec = specs.get(row.get("task") or "")
        if spec is None:
            return ["(not in the catalog)"]
        value = getattr(spec, attr)
        return [str(v) for v in value] if isinstance(value, list) else [str(value)]

    stats = [*group_stats(rows, "all", lambda r: ["all episodes"])]
    settings = {(r.get("agent"), r.get("observe") or "screenshot") for r in rows}
    if len(settings) > 1:
        stats += group_stats(rows, "agent · observe", lambda r: [
            f"{r.get('agent')} · {r.get('observe') or 'screenshot'}"])
    for dimension, attr in (("family", "family"), ("system", "systems"),
                            ("difficulty", "difficulty")):
        stats += group_stats(rows, dimension, functools.partial(of, attr=attr))
    return [s.to_json() for s in stats]


def _specs(rows: list[dict[str, Any]], tasks_dirs: list[Path] | None) -> dict[str, Any]:
    from sandbox.catalog import load_catalog
    from sandbox.errors import SandboxError

    try:
        catalog = load_catalog(tasks_dirs)
    except (SandboxError, OSError):
        return {}
    return {spec.id: spec for spec in catalog}


def render_report(rows: list[dict[str, Any]], out: Path, wall_s: float | None,
                  tasks_dirs: list[Path] | None = None) -> str:
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    from episodes.trajectory import episode_view, run_folder, thumbnail
    from verifier.report import summarize as evidence_line

    templates = Path(__file__).parent / "hub" / "templates"
    env = Environment(loader=FileSystemLoader(str(templates)),
                      autoescape=select_autoescape(["html"]))
    entries, views = [], []
    for row in sorted(rows, key=lambda r: (r.get("alias") or "", r.get("variant") or "",
                                           r.get("agent") or "")):
        run_dir = run_folder(row, out)
        report = None
        if (run_dir / "report.json").is_file():
            with contextlib.suppress(ValueError, OSError):
                report = json.loads((run_dir / "report.json").read_text())
        view = episode_view(row, out, report)
        for check in view["checks"]:
            check["line"] = evidence_line(check.get("evidence") or {})
        view["final"]["thumb"] = thumbnail(run_dir / "final.png")
        fields = {k: row.get(k) for k in (*RESULT_FIELDS, *MODEL_FIELDS)}
        views.append({**fields, **view, "title": (report or {}).get("title")})
        entries.append({**fields, "checks": view["checks"]})
    data = json.dumps(views, ensure_ascii=False, default=str).replace("<", "\\u003c")
    settings = sorted({row.get("observe") or "screenshot" for row in rows})
    return env.get_template("bench_report.html").render(
        rows=entries, summary=summarize(rows), totals=totals(rows), wall_s=wall_s,
        groups=group_table(rows, tasks_dirs), out=str(out), episodes_json=data,
        settings=settings, agents=sorted({str(r.get("agent")) for r in rows}))
