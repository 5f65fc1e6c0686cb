"""Two benches side by side: the score of each task in both, B − A, and whether the mean
difference is more than chance (:func:`episodes.bench_stats.paired_test`).

A task is the pair (task id, variant). Pairs where either bench has no score (the episode
failed or could not be graded) are listed apart and left out of the test, as are tasks only
one bench ran.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from episodes.bench_stats import PairedTest, paired_test
from episodes.result_files import latest_rows, load_results

Key = tuple[str, str]


class CompareError(ValueError):
    """A folder that is not a bench's output, or two benches with nothing to compare."""


@dataclass(frozen=True)
class Bench:
    path: Path
    agents: list[str]
    rows: dict[Key, dict[str, Any]]


def load_bench(path: Path) -> Bench:
    """The latest row of each (task, variant) of a bench's ``results.jsonl``."""
    if not path.is_dir():
        raise CompareError(f"{path} is not a folder (give a bench's --out folder)")
    if not (path / "results.jsonl").is_file():
        raise CompareError(f"{path} has no results.jsonl (give a bench's --out folder)")
    rows = latest_rows(load_results(path))
    if not rows:
        raise CompareError(f"{path}/results.jsonl holds no results")
    agents = sorted({str(r.get("agent")) for r in rows})
    by_task: dict[Key, dict[str, Any]] = {}
    for row in rows:
        key = (str(row.get("task")), str(row.get("variant") or "default"))
        if key in by_task:
            raise CompareError(f"{path} holds {key[0]} {key[1]} for several agents "
                               f"({', '.join(agents)}); compare one agent's bench folders")
        by_task[key] = row
    return Bench(path, agents, by_task)


@dataclass
class Comparison:
    a: Bench
    b: Bench
    pairs: list[dict[str, Any]] = field(default_factory=list)
    ungraded: list[dict[str, Any]] = field(default_factory=list)
    only_a: list[Key] = field(default_factory=list)
    only_b: list[Key] = field(default_factory=list)
    test: PairedTest | None = None

    def to_json(self) -> dict[str, Any]:
        def mean(side: str) -> float | None:
            values = [p[side] for p in self.pairs]
            return round(sum(values) / len(values), 6) if values else None

        return {
            "a": {"path": str(self.a.path), "agents": self.a.agents, "tasks": len(self.a.rows),
                  "mean_paired": mean("score_a")},
            "b": {"path": str(self.b.path), "agents": self.b.agents, "tasks": len(self.b.rows),
                  "mean_paired": mean("score_b")},
            "pairs": self.pairs,
            "ungraded": self.ungraded,
            "only_a": [{"task": t, "variant": v} for t, v in self.only_a],
            "only_b": [{"task": t, "variant": v} for t, v in self.only_b],
            "test": self.test.to_json() if self.test else None,
        }


def compare(path_a: Path, path_b: Path, *, seed: int | None = None) -> Comparison:
    """Per-task differences B − A and the paired test of their mean."""
    a, b = load_bench(path_a), load_bench(path_b)
    result = Comparison(a, b)
    result.only_a = sorted(set(a.rows) - set(b.rows))
    result.only_b = sorted(set(b.rows) - set(a.rows))
    for key in sorted(set(a.rows) & set(b.rows)):
        ra, rb = a.rows[key], b.rows[key]
        entry = {"task": key[0], "variant": key[1], "alias": ra.get("alias") or rb.get("alias"),
                 "score_a": ra.get("score"), "score_b": rb.get("score")}
        if entry["score_a"] is None or entry["score_b"] is None:
            entry["status_a"], entry["status_b"] = ra.get("status"), rb.get("status")
            result.ungraded.append(entry)
            continue
        entry["diff"] = round(float(entry["score_b"]) - float(entry["score_a"]), 6)
        result.pairs.append(entry)
    if not result.pairs:
        raise CompareError(f"{path_a} and {path_b} have no task scored in both "
                           f"({len(result.only_a)} only in A, {len(result.only_b)} only in B, "
                           f"{len(result.ungraded)} without a score)")
    kwargs = {} if seed is None else {"seed": seed}
    result.test = paired_test([p["score_a"] for p in result.pairs],
                              [p["score_b"] for p in result.pairs], **kwargs)
    result.pairs.sort(key=lambda p: (p["diff"], p["alias"] or p["task"], p["variant"]))
    return result


def render_table(result: Comparison) -> str:
    """The comparison as a plain-text table and a verdict line."""
    from rich.console import Console
    from rich.table import Table

    console = Console(width=110, record=True, no_color=True, highlight=False, emoji=False,
                      file=io.StringIO())
    table = Table(title=f"A = {result.a.path} ({', '.join(result.a.agents)})\n"
                        f"B = {result.b.path} ({', '.join(result.b.agents)})",
                  title_justify="left")
    table.add_column("task")
    table.add_column("variant")
    for name in ("A", "B", "B − A"):
        table.add_column(name, justify="right")
    for p in result.pairs:
        table.add_row(p["alias"] or p["task"], p["variant"], f"{p['score_a']:.3f}",
                      f"{p['score_b']:.3f}", f"{p['diff']:+.3f}")
    for p in result.ungraded:
        table.add_row(p["alias"] or p["task"], p["variant"], _score(p["score_a"], p.get("status_a")),
                      _score(p["score_b"], p.get("status_b")), "not paired")
    console.print(table)
    data = result.to_json()
    test = result.test
    assert test is not None
    console.print(f"paired tasks {test.n}: mean A {data['a']['mean_paired']:.3f}, "
                  f"mean B {data['b']['mean_paired']:.3f}, mean B − A {test.mean_diff:+.3f} "
                  f"[95% CI {test.low:+.3f}, {test.high:+.3f}]")
    method = "exact" if test.exact else "10,000 random"
    verdict = "significant" if test.significant else "not significant"
    console.print(f"sign-flip permutation test ({method} sign flips): p = {test.p_value:.4f}, "
                  f"{verdict} at {test.alpha}")
    for label, keys in (("only in A", result.only_a), ("only in B", result.only_b)):
        if keys:
            console.print(f"{label} ({len(keys)}): " + ", ".join(f"{t} {v}" for t, v in keys))
    return console.export_text()


def _score(score: float | None, status: str | None) -> str:
    return f"{score:.3f}" if score is not None else (status or "–")

