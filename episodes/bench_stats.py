"""The statistics of a bench: bootstrap confidence intervals of a mean, the paired test of
two benches, and success rate / mean score per group (family, system, difficulty).

Every random draw comes from ``numpy.random.default_rng(seed)``, so a report or a
comparison computed twice from the same rows prints the same numbers. A task counts as a
success when it scored 1.0; the mean score is over graded episodes only (an episode that
failed or could not be graded has no score, and is counted apart as ``ungraded``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

SEED = 20261202
RESAMPLES = 10_000
SUCCESS = 0.9999
EXACT_UP_TO = 14  # sign flips of at most 2**14 patterns are enumerated, not sampled


@dataclass(frozen=True)
class Interval:
    """A mean with the percentile bootstrap interval around it."""

    mean: float
    low: float
    high: float
    n: int

    def to_json(self) -> dict[str, Any]:
        return {k: round(v, 6) if isinstance(v, float) else v for k, v in asdict(self).items()}


def bootstrap_ci(values: Sequence[float], *, level: float = 0.95, resamples: int = RESAMPLES,
                 seed: int = SEED) -> Interval | None:
    """The mean of ``values`` and its percentile bootstrap interval (``None`` if empty)."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return None
    mean = float(data.mean())
    if data.size == 1 or np.all(data == data[0]):
        return Interval(mean, mean, mean, int(data.size))
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, data.size, size=(resamples, data.size))
    means = data[picks].mean(axis=1)
    tail = (1.0 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return Interval(mean, float(low), float(high), int(data.size))


@dataclass(frozen=True)
class PairedTest:
    """Mean of B − A over tasks both ran, its bootstrap interval, and the two-sided p-value
    of a sign-flip permutation test (exact for up to ``EXACT_UP_TO`` pairs)."""

    n: int
    mean_diff: float
    low: float
    high: float
    p_value: float
    exact: bool
    alpha: float = 0.05

    @property
    def significant(self) -> bool:
        return self.p_value < self.alpha

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "mean_diff": round(self.mean_diff, 6), "ci_low": round(self.low, 6),
                "ci_high": round(self.high, 6), "p_value": round(self.p_value, 6),
                "exact": self.exact, "alpha": self.alpha, "significant": self.significant}


def paired_test(a: Sequence[float], b: Sequence[float], *, resamples: int = RESAMPLES,
                seed: int = SEED, alpha: float = 0.05) -> PairedTest | None:
    """Is the mean of ``b`` different from the mean of ``a`` (same tasks, same order)?"""
    if len(a) != len(b):
        raise ValueError(f"paired samples differ in length ({len(a)} and {len(b)})")
    diffs = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    if diffs.size == 0:
        return None
    observed = float(diffs.mean())
    ci = bootstrap_ci(diffs.tolist(), resamples=resamples, seed=seed)
    assert ci is not None
    exact = diffs.size <= EXACT_UP_TO
    if exact:  # every assignment of signs, as rows of a ±1 matrix
        codes = np.arange(2 ** diffs.size)[:, None] >> np.arange(diffs.size)
        signs = 1 - 2 * (codes & 1)
        flipped = (signs * diffs).mean(axis=1)
        extreme = np.abs(flipped) >= abs(observed) - 1e-12
        p_value = float(extreme.mean())
    else:
        rng = np.random.default_rng(seed)
        signs = rng.choice(np.array([-1.0, 1.0]), size=(resamples, diffs.size))
        flipped = (signs * diffs).mean(axis=1)
        extreme = np.abs(flipped) >= abs(observed) - 1e-12
        p_value = float((extreme.sum() + 1) / (resamples + 1))
    return PairedTest(int(diffs.size), observed, ci.low, ci.high, min(p_value, 1.0), exact,
                      alpha)


# -- groups of a bench ----------------------------------------------------------------------
@dataclass(frozen=True)
class GroupStats:
    """Success rate and mean score of the episodes of one group, with intervals."""

    dimension: str
    group: str
    episodes: int
    graded: int
    success: Interval | None
    score: Interval | None

    @property
    def ungraded(self) -> int:
        return self.episodes - self.graded

    def to_json(self) -> dict[str, Any]:
        return {"dimension": self.dimension, "group": self.group, "episodes": self.episodes,
                "graded": self.graded,
                "success": self.success.to_json() if self.success else None,
                "score": self.score.to_json() if self.score else None}


def is_success(row: dict[str, Any]) -> bool:
    score = row.get("score")
    return score is not None and score >= SUCCESS


def group_stats(rows: Iterable[dict[str, Any]], dimension: str,
                keys_of: Callable[[dict[str, Any]], Iterable[str]], *,
                seed: int = SEED) -> list[GroupStats]:
    """One :class:`GroupStats` per key; a row counts in every key ``keys_of`` gives it (a
    task that uses three systems counts in each). Success is over all episodes of the
    group, the mean score over the graded ones."""
    members: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        for key in keys_of(row):
            members.setdefault(str(key), []).append(row)
    stats = []
    for key in sorted(members, key=_natural):
        group = members[key]
        scores = [float(r["score"]) for r in group if r.get("score") is not None]
        successes = [1.0 if is_success(r) else 0.0 for r in group]
        stats.append(GroupStats(dimension, key, len(group), len(scores),
                                bootstrap_ci(successes, seed=seed),
                                bootstrap_ci(scores, seed=seed)))
    return stats


def _natural(key: str) -> tuple[int, str]:
    return (int(key), "") if key.isdigit() else (10**6, key)
