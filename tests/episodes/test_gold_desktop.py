"""The seven desktop-EHR tasks end to end (marked slow): in one real episode per task —
the client published behind its own display and reached only through the Citrix receiver
window on the workstation — grading the untouched episode gives the seed's own score,
below one half, and after a reset the task's gold.py, acting through the agent API only,
scores 1.0.

The untouched score is not written down here: it is what the verifier gives a freshly
seeded run directory that no episode touched, so an episode whose start-up wrote anything
would differ from it.
"""

from __future__ import annotations

import asyncio

import pytest

from episodes.episode import Episode
from episodes.oracle import run_oracle
from sandbox.catalog import load_catalog
from sandbox.seeding import seed_task

pytestmark = pytest.mark.slow

DESKTOP_TASKS = ["ord-06", "ord-07", "ord-10", "ord-12", "ord-15", "ord-17", "ord-20"]


def seeded_score(spec, run_dir) -> float:
    """The verifier's score of a freshly seeded, untouched run directory."""
    from verifier.engine import grade

    report = grade(spec, seed_task(spec, None, run_dir), judge="rubric")
    assert report.score is not None, [(c.name, c.status, c.evidence) for c in report.checks]
    return report.score


def failed_checks(result) -> list[tuple]:
    checks = (result.report or {}).get("checks", [])
    return [(c.get("name"), c.get("fraction"), c.get("evidence")) for c in checks
            if c.get("fraction") != 1.0] or [result.error or result.status]


@pytest.mark.parametrize("alias", DESKTOP_TASKS)
def test_desktop_gold_scores_one_and_untouched_scores_the_seed(alias, tmp_path, no_leaks):
    spec = load_catalog().get(alias)
    untouched = seeded_score(spec, tmp_path / "seeded")

    async def scenario():
        episode = Episode(spec, run_dir=tmp_path / "run")
        await episode.start()
        try:
            assert set(episode.apps) == set(spec.systems) & {"hyperspace", "powerchart"}
            nothing_done = await episode.finish()
            await episode.reset()
            oracle = await run_oracle(episode)
            gold = await episode.finish()
        finally:
            await episode.stop()
        return nothing_done, oracle, gold

    nothing_done, oracle, gold = asyncio.run(scenario())
    assert nothing_done.status == "graded", nothing_done.error
    assert nothing_done.score == pytest.approx(untouched)
    assert nothing_done.score < 0.5
    assert gold.status == "graded", gold.error
    assert gold.score == 1.0, failed_checks(gold)
    # the oracle acted through the agent API: its actions are the trace's steps (pointer
    # motion of a drag is in the trace but not counted as a step)
    assert oracle.actions >= gold.steps > 0
