"""The files a bench writes: ``results.jsonl`` (one row a finished job, appended), and from
it ``results.csv`` and a self-contained ``report.html`` (latest row per job)."""

from __future__ import annotations

import base64
import contextlib
import csv
import io
import json
from pathlib import Path
from typing import Any

RESULT_FIELDS = ("task", "alias", "variant", "agent", "status", "score", "duration_s",
                 "reset_s", "steps", "ready_s", "retries", "error", "run_dir")


def load_results(out: Path) -> list[dict[str, Any]]:
    path = out / "results.jsonl"
    rows = []
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                with contextlib.suppress(json.JSONDecodeError):
                    rows.append(json.loads(line))
    return rows


def write_tables(out: Path, add_wall_s: float | None = None) -> None:
    """``results.csv`` and ``report.html`` from ``results.jsonl`` (latest row per job)."""
    rows = latest_rows(load_results(out))
    with open(out / "results.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(RESULT_FIELDS), extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: row.get(k) for k in RESULT_FIELDS})
    meta_path = out / "bench.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    if add_wall_s is not None:  # a resumed bench adds its time to the earlier sessions'
        meta["wall_s"] = round(meta.get("wall_s", 0.0) + add_wall_s, 3)
        meta["sessions"] = meta.get("sessions", 0) + 1
        meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    (out / "report.html").write_text(render_report(rows, out, meta.get("wall_s")),
                                     encoding="utf-8")


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


def _thumbnail(path: Path) -> str | None:
    """The final screenshot as a small JPEG data URL (keeps report.html self-contained)."""
    if not path.is_file():
        return None
    try:
        from PIL import Image

        with Image.open(path) as opened:
            image = opened.convert("RGB")
            image.thumbnail((640, 400))
            buf = io.BytesIO()
            image.save(buf, "JPEG", quality=70)
    except OSError:
        return None
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode()


def render_report(rows: list[dict[str, Any]], out: Path, wall_s: float | None) -> str:
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    templates = Path(__file__).parent / "hub" / "templates"
    env = Environment(loader=FileSystemLoader(str(templates)),
                      autoescape=select_autoescape(["html"]))
    entries = []
    for row in sorted(rows, key=lambda r: (r.get("alias") or "", r.get("variant") or "")):
        run_dir = Path(row.get("run_dir") or "")
        report_path = run_dir / "report.json"
        checks = row.get("checks") or []
        if report_path.is_file():
            with contextlib.suppress(ValueError, OSError):
                checks = json.loads(report_path.read_text()).get("checks", checks)
        entries.append({**row, "checks": checks,
                        "screenshot": _thumbnail(run_dir / "final.png")})
    return env.get_template("bench_report.html").render(
        rows=entries, summary=summarize(rows), wall_s=wall_s, out=str(out))


