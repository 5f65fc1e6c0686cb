"""What the hub remembers across restarts, in its ``hub.sqlite``: episodes it started,
recordings, their replay checks and reviews, task assignments; and the coverage board's
gold status of each task and variant.

A recording's trace file stays in its episode's run folder; an accepted one is copied to
``<task folder>/human/<n>-<annotator>.trace.jsonl`` with ``<n>-<annotator>.json`` beside it
(annotator, date, inputs, live score, replay score, reviewer). ``gold.trace.jsonl`` is never
written here.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

from verifier.report import summarize

SCHEMA = """
CREATE TABLE IF NOT EXISTS episodes (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, task TEXT NOT NULL, alias TEXT NOT NULL,
    variant TEXT NOT NULL, run_dir TEXT NOT NULL, created REAL NOT NULL,
    status TEXT NOT NULL, score REAL);
CREATE TABLE IF NOT EXISTS recordings (
    n INTEGER PRIMARY KEY AUTOINCREMENT, episode_id TEXT NOT NULL, task TEXT NOT NULL,
    alias TEXT NOT NULL, variant TEXT NOT NULL, annotator TEXT NOT NULL,
    path TEXT NOT NULL, inputs INTEGER NOT NULL, partial INTEGER NOT NULL,
    created REAL NOT NULL, live_score REAL, live_checks TEXT, replay_score REAL,
    replay_checks TEXT,
    replay_error TEXT, status TEXT NOT NULL DEFAULT 'recorded', reviewer TEXT, note TEXT,
    accepted_path TEXT);
CREATE TABLE IF NOT EXISTS assignments (
    task TEXT NOT NULL, variant TEXT NOT NULL, annotator TEXT NOT NULL,
    PRIMARY KEY (task, variant));
"""
# recording status: recorded -> checking -> checked -> accepted | rejected (partial: recorded)
GOLD_STATES = ("none", "oracle only", "human pending", "human accepted")


class Records:
    def __init__(self, path: Path):
        self.path = path
        with self._db() as db:
            db.executescript(SCHEMA)

    def _db(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        db.row_factory = sqlite3.Row
        return db

    # -- episodes -------------------------------------------------------------------------
    def episode_started(self, episode_id: str, owner: str, task: str, alias: str,
                        variant: str, run_dir: Path) -> None:
        with self._db() as db:
            db.execute("INSERT OR REPLACE INTO episodes VALUES (?,?,?,?,?,?,?,?,NULL)",
                       (episode_id, owner, task, alias, variant, str(run_dir), time.time(),
                        "starting"))

    def episode_status(self, episode_id: str, status: str, score: float | None = None) -> None:
        with self._db() as db:
            db.execute("UPDATE episodes SET status = ?, score = COALESCE(?, score) "
                       "WHERE id = ?", (status, score, episode_id))

    def past_episodes(self) -> list[dict[str, Any]]:
        with self._db() as db:
            return [dict(r) for r in db.execute("SELECT * FROM episodes ORDER BY created")]

    def past_episode(self, episode_id: str) -> dict[str, Any] | None:
        with self._db() as db:
            row = db.execute("SELECT * FROM episodes WHERE id = ?", (episode_id,)).fetchone()
        return dict(row) if row else None

    def end_orphans(self) -> None:
        """At start-up: episodes of an earlier hub run ended with it."""
        with self._db() as db:
            db.execute("UPDATE episodes SET status = 'ended with the hub' WHERE status NOT IN "
                       "('stopped', 'failed', 'ended with the hub')")

    # -- recordings -----------------------------------------------------------------------
    def add_recording(self, **row: Any) -> int:
        keys = ("episode_id", "task", "alias", "variant", "annotator", "path", "inputs",
                "partial", "live_score")
        with self._db() as db:
            cur = db.execute(
                f"INSERT INTO recordings ({', '.join(keys)}, created) VALUES "
                f"({', '.join('?' * len(keys))}, ?)", (*[row.get(k) for k in keys],
                                                      time.time()))
            return int(cur.lastrowid or 0)

    def update(self, n: int, **fields: Any) -> None:
        allowed = {"live_score", "live_checks", "replay_score", "replay_checks", "replay_error", "status",
                   "reviewer", "note", "accepted_path", "partial"}
        if not fields or set(fields) - allowed:
            raise ValueError(f"cannot update {sorted(set(fields) - allowed)}")
        with self._db() as db:
            db.execute(f"UPDATE recordings SET {', '.join(f'{k} = ?' for k in fields)} "
                       "WHERE n = ?", (*fields.values(), n))

    def recording(self, n: int) -> dict[str, Any] | None:
        with self._db() as db:
            row = db.execute("SELECT * FROM recordings WHERE n = ?", (n,)).fetchone()
        return _recording(row) if row else None

    def recordings(self, task: str | None = None, episode_id: str | None = None,
                   annotator: str | None = None) -> list[dict[str, Any]]:
        where, args = [], []
        for column, value in (("task", task), ("episode_id", episode_id),
                              ("annotator", annotator)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        sql = "SELECT * FROM recordings" + (f" WHERE {' AND '.join(where)}" if where else "")
        with self._db() as db:
            return [_recording(r) for r in db.execute(sql + " ORDER BY n", args)]

    def accept(self, n: int, task_folder: Path, reviewer: str, note: str) -> Path:
        """Copy the trace to ``<task folder>/human/`` with its metadata; mark it accepted."""
        rec = self.recording(n)
        if rec is None:
            raise KeyError(n)
        human = task_folder / "human"
        human.mkdir(parents=True, exist_ok=True)
        stem = f"{n}-{rec['annotator']}"
        target = human / f"{stem}.trace.jsonl"
        shutil.copyfile(rec["path"], target)
        meta = {"task": rec["task"], "alias": rec["alias"], "variant": rec["variant"],
                "annotator": rec["annotator"],
                "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(rec["created"])),
                "inputs": rec["inputs"], "live_score": rec["live_score"],
                "replay_score": rec["replay_score"], "reviewer": reviewer, "note": note,
                "accepted": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        (human / f"{stem}.json").write_text(json.dumps(meta, indent=1) + "\n")
        self.update(n, status="accepted", reviewer=reviewer, note=note,
                    accepted_path=str(target))
        return target

    # -- assignments and the board --------------------------------------------------------
    def assign(self, task: str, variant: str, annotator: str) -> None:
        with self._db() as db:
            if annotator:
                db.execute("INSERT OR REPLACE INTO assignments VALUES (?, ?, ?)",
                           (task, variant, annotator))
            else:
                db.execute("DELETE FROM assignments WHERE task = ? AND variant = ?",
                           (task, variant))

    def assignments(self) -> dict[tuple[str, str], str]:
        with self._db() as db:
            return {(r["task"], r["variant"]): r["annotator"]
                    for r in db.execute("SELECT * FROM assignments")}

    def gold_status(self, spec: Any, variant: str, human_folder: Path) -> str:
        """none / oracle only / human pending / human accepted, for one task variant."""
        folder = getattr(spec, "folder", None)
        human = human_folder / "human"
        if human is not None and human.is_dir():
            for meta in human.glob("*.json"):
                try:
                    if json.loads(meta.read_text()).get("variant") == variant:
                        return "human accepted"
                except (OSError, ValueError):
                    continue
        states = {r["status"] for r in self.recordings(task=spec.id)
                  if r["variant"] == variant and not r["partial"]}
        if "accepted" in states:
            return "human accepted"
        if states & {"recorded", "checking", "checked"}:
            return "human pending"
        if folder is not None and ((folder / "gold.py").is_file()
                                   or (folder / "gold.trace.jsonl").is_file()):
            return "oracle only"
        return "none"


def check_rows(report: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The grade table's rows, evidence included (what the verifier expected and found)."""
    rows = []
    for c in (report or {}).get("checks", []):
        evidence = c.get("evidence") or {}
        text = summarize(evidence) if isinstance(evidence, dict) else str(evidence)
        rows.append({"name": c.get("name"), "percent": c.get("percent"),
                     "status": c.get("status"), "fraction": c.get("fraction"),
                     "evidence": text})
    return rows


def _recording(row: sqlite3.Row) -> dict[str, Any]:
    data = dict(row)
    data["partial"] = bool(data["partial"])
    for key in ("live_checks", "replay_checks"):
        data[key] = json.loads(data[key]) if data[key] else []
    data["download"] = (f"{data['alias']}-{data['variant']}-{data['n']}-"
                        f"{data['annotator']}.trace.jsonl")
    return data
