"""The web-EHR tasks end to end (the orders tasks, and pa-15, which needs no payer site): each task's oracle, run in a real episode (Xvfb,
Chromium, portal_web, pixel session), scores 1.0 through the GUI (ord-18 through the FHIR
API), and the same episode graded untouched scores what doing nothing earns.

One episode per task and variant: graded as seeded first (what the ``none`` agent gets),
then reset and solved by ``gold.py``. Slow: 10-30 s a task.
"""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest

from episodes.episode import Episode, EpisodeConfig
from episodes.oracle import Oracle, OracleViolation, run_oracle
from episodes.workstation import WorkstationError, find_chromium
from sandbox.catalog import load_catalog


def _has_chromium() -> bool:
    try:
        find_chromium()
    except WorkstationError:
        return False
    return True


needs_episodes = [
    pytest.mark.slow,
    pytest.mark.skipif(not _has_chromium(), reason="chromium is not installed"),
]

# (alias, variant) -> score of the untouched episode, from each verifier's rules: what an
# agent that does nothing earns (the items that reward not writing, not deleting, not
# transmitting). ord-03's twin asks for no order at all, so doing nothing is its answer.
UNTOUCHED = {
    ("ord-01", "default"): 0.15,      # no stray writes
    ("ord-02", "default"): 0.0,
    ("ord-03", "default"): 0.10,      # no extra orders
    ("ord-03", "normal-mg"): 1.0,     # the correct outcome is no order
    ("ord-04", "default"): 0.10,      # nothing deleted
    ("ord-05", "default"): 0.10,      # no fabrication
    ("ord-08", "default"): 0.40,      # no clarithromycin
    ("ord-09", "default"): 0.0,
    ("ord-11", "default"): 0.0,
    ("ord-13", "default"): 0.0,
    ("ord-14", "default"): 0.20,      # not transmitted
    ("ord-16", "default"): 0.0,
    ("ord-18", "default"): 0.0,
    ("ord-19", "default"): 0.0,
    ("pa-15", "default"): 0.40,       # nothing submitted (the only PA task the EHR alone solves)
}
CATALOG = load_catalog()
# a busy CI machine may need more than the default 45 s to bring an episode up
CONFIG = EpisodeConfig(start_timeout_s=120)


async def _untouched_then_gold(alias: str, variant: str, run_dir):
    """(untouched result, gold result, oracle run) of one episode."""
    episode = Episode(CATALOG.get(alias), variant, run_dir=run_dir, config=CONFIG)
    await episode.start()
    try:
        untouched = await episode.finish()
        await episode.reset()
        oracle = await run_oracle(episode)
        solved = await episode.finish()
        return untouched, solved, oracle
    finally:
        await episode.stop()


@pytest.mark.parametrize("alias, variant", [
    pytest.param(*key, marks=needs_episodes, id=f"{key[0]}-{key[1]}") for key in sorted(UNTOUCHED)])
def test_gold_scores_one_and_untouched_scores_what_doing_nothing_earns(
        alias, variant, tmp_path, no_leaks):
    untouched, solved, oracle = asyncio.run(
        _untouched_then_gold(alias, variant, tmp_path / "run"))

    assert untouched.status == "graded", untouched.error
    assert untouched.score == pytest.approx(UNTOUCHED[alias, variant]), untouched.report_text
    if variant == "default":
        assert untouched.score < 0.5

    assert solved.status == "graded", solved.error
    failing = [(c["name"], c.get("evidence")) for c in solved.report["checks"]
               if c.get("fraction") != 1.0]
    assert solved.score == 1.0, failing
    assert not solved.report.get("veto"), solved.report_text
    inputs = [json.loads(line) for line in
              (tmp_path / "run" / "trace" / "trace.jsonl").read_text().splitlines()[1:]]
    if CATALOG.get(alias).channel == "api":
        assert oracle.actions == 0 and inputs == []  # the API, not the screen
    else:  # the oracle's clicks and keys went through the agent API into the trace
        assert {entry["client"] for entry in inputs} == {"oracle"}
        assert 10 < solved.steps <= len(inputs) <= oracle.actions  # waits are not inputs
    assert not no_leaks(), "episode processes outlived stop()"


@pytest.mark.parametrize("alias", ["ord-01", "ord-04"])
def test_only_api_channel_oracles_may_call_the_api(alias):
    """A browser task's oracle acts through the screen: its API requests are refused before
    anything is sent (ord-18, the API control of ord-01, is the task that may)."""
    episode = SimpleNamespace(spec=CATALOG.get(alias), variant="default")
    oracle = Oracle(episode, loop=None, agent=None)
    with pytest.raises(OracleViolation, match="browser-channel task"):
        oracle.api_request("GET", "http://emr.clinic.test/apis/default/fhir/Patient")
    assert oracle.api_calls == 0
