"""The slow half of the conformance suite: every task with a ``gold.py``, every variant, in
real episodes (Xvfb, Chromium, portal_web, the published desktop app behind the Citrix
window, pixel sessions).

In one episode: graded as seeded first (what the ``none`` agent gets: the score
``task.yaml`` declares), then reset and solved by the oracle through the agent API only
(1.0; an API-channel oracle over HTTP, with nothing on the screen). In a test of its own
(so that another worker can run it beside the gold run), the task's recorded gold trace of
that variant, replayed by coordinates in a fresh episode, as it was recorded, scores 1.0 too.
(Not after a reset of the same episode: the browser keeps what it learnt before the reset,
such as a field's earlier entries offered under it, so the screens a replay waits for
differ.)

The sensitivity suite runs on the oracle's 1.0 extract, in the same test and without another
episode (:mod:`verifier.sensitivity`): every value the task's ``verify.py`` declares in
``GRADED`` is changed in turn in a copy of the extract, through the audited writer, and the
score must drop by exactly that value's share; every value the gold wrote must be graded or
declared ``UNGRADED`` with a reason (every task with a gold declares both).
"""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from episodes.agents import AgentSpec
from episodes.episode import DESKTOP_SYSTEMS, Episode, EpisodeConfig
from episodes.oracle import gold_trace_path, run_oracle
from episodes.runner import run_episode
from episodes.workstation import WorkstationError, find_chromium
from pixel_stream.replay import LOST_AFTER_MISSES
from sandbox.catalog import load_catalog
from tests.requirements import requires
from verifier.sensitivity import run_sensitivity

CATALOG = load_catalog()
CASES = [(spec, variant) for spec in CATALOG if (spec.folder / "gold.py").is_file()
         for variant in spec.variant_names]
TRACED = [(spec, variant) for spec, variant in CASES
          if gold_trace_path(spec.folder, variant).is_file()]
# `make test` replays one short trace per system, which together reach every site, both
# desktop personas, the fax viewer, downloads and uploads: the replay machinery is checked
# end to end on each kind of screen in minutes. `make replays` (EHR_REPLAY_ALL=1) replays
# every recorded trace, about 40 minutes of episodes; run it after changing an app's screens.
REPLAY_SAMPLE = {"ord-15", "ord-16", "ord-17", "pa-12", "pa-15", "pa-17", "pa-20"}
REPLAYS = TRACED if os.environ.get("EHR_REPLAY_ALL") == "1" else [
    (spec, variant) for spec, variant in TRACED if spec.alias in REPLAY_SAMPLE]


def _recorded_seconds(spec, variant) -> float:
    """How long the gold trace took to record (0 for an API task): the yardstick of how
    long its gold run and its replay take."""
    trace = gold_trace_path(spec.folder, variant)
    if not trace.is_file():
        return 0.0
    last = trace.read_text().rstrip().rsplit("\n", 1)[-1]
    return float(json.loads(last).get("t", 0.0))


def _params(cases, per_recorded_second: float):
    """Each case with a time limit scaled by its recorded length (pa-14's 700 inputs take
    minutes where ord-15's 30 take seconds, and a busy CI machine doubles either); the
    longest first, so that no worker starts one when the others are nearly done."""
    timed = sorted(cases, key=lambda c: -_recorded_seconds(*c))
    return [pytest.param(spec, variant, id=f"{spec.alias}-{variant}",
                         marks=pytest.mark.timeout(
                             300 + per_recorded_second * _recorded_seconds(spec, variant)))
            for spec, variant in timed]

# a busy CI machine may need more than the default 45 s to bring an episode up
CONFIG = EpisodeConfig(start_timeout_s=120)


def _has_chromium() -> bool:
    try:
        find_chromium()
    except WorkstationError:
        return False
    return True


pytestmark = [pytest.mark.slow, requires(_has_chromium(), "chromium is not installed")]


def _failing(result) -> list[tuple]:
    if result.report is None:
        return [(result.status, result.error)]
    return [(c.name, c.fraction, c.evidence) for c in result.report.checks
            if c.fraction != 1.0]


def _inputs(run_dir) -> list[dict]:
    lines = (run_dir / "trace" / "trace.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines[1:]]


async def _untouched_then_gold(spec, variant, run_dir):
    """(untouched result, gold result, oracle run, the gold attempt's inputs, sensitivity of
    the gold extract or None)."""
    episode = Episode(spec, variant, run_dir=run_dir, config=CONFIG, agent="gold")
    await episode.start()
    try:
        assert set(episode.apps) == set(spec.systems) & set(DESKTOP_SYSTEMS)
        untouched = await episode.finish()
        await episode.reset()
        oracle = await run_oracle(episode)
        solved = await episode.finish()
        sensitivity = None
        if solved.score == 1.0:
            sensitivity = await asyncio.to_thread(
                run_sensitivity, spec, solved.files["extract"], run_dir.parent / "sensitivity",
                variant=variant)
        return untouched, solved, oracle, _inputs(run_dir), sensitivity
    finally:
        await episode.stop()


@pytest.mark.parametrize(("spec", "variant"), _params(CASES, 3.0))
def test_gold_scores_one_and_untouched_scores_as_declared(spec, variant, tmp_path, no_leaks):
    untouched, solved, oracle, inputs, sensitivity = asyncio.run(
        _untouched_then_gold(spec, variant, tmp_path / "run"))

    assert untouched.status == "graded", untouched.error
    assert untouched.score == pytest.approx(spec.untouched[variant], abs=1e-6), \
        untouched.report_text

    assert solved.status == "graded", solved.error
    assert solved.score == 1.0, _failing(solved)
    assert solved.report.veto is None, solved.report_text

    print(sensitivity.render())
    assert sensitivity.declared and sensitivity.ok, sensitivity.render()
    if spec.channel == "api":
        assert oracle.actions == 0 and inputs == []  # the API, not the screen
    else:  # the oracle's clicks and keys went through the agent API into the trace
        assert {entry["client"] for entry in inputs} == {"oracle"}
        assert 0 < solved.steps <= len(inputs) <= oracle.actions  # waits are not inputs
    assert not no_leaks(), "episode processes outlived stop()"


@pytest.mark.parametrize(("spec", "variant"), _params(REPLAYS, 3.0))
def test_recorded_gold_trace_replays_to_one(spec, variant, tmp_path, no_leaks):
    trace = gold_trace_path(spec.folder, variant)
    replayed = asyncio.run(run_episode(spec, variant, AgentSpec("replay", trace),
                                       tmp_path / "replay", CONFIG, measure_reset=True))
    replay = json.loads((tmp_path / "replay" / "logs" / "replay.json").read_text())
    # A replay whose recorded screens stopped coming runs on nearly unguarded, and scores
    # 1.0 or not as the machine's load decides: its trace shows screens the apps no longer
    # draw, or it went astray. A few screens may not come (a file chooser's path bar shows
    # where the run's folders are), and the replay must find its screens again after them.
    missed = [n for n, _ in replay["unmatched"]]
    assert len(missed) <= max(LOST_AFTER_MISSES, replay["checkpoints"] // 10) \
        and len(replay["found_again_at"]) == len(replay["lost_at"]), (
        f"the recorded screens of {len(missed)} of {replay['checkpoints']} inputs never came "
        f"({replay['unmatched']}; lost at {replay['lost_at']}, found again at "
        f"{replay['found_again_at']}); if the screens changed on purpose, record the trace "
        f"again: ehr-sandbox run {spec.alias} --variant {variant} --agent gold "
        f"--save-gold-trace")
    assert replayed.score == 1.0, _failing(replayed)
    assert {e["client"] for e in _inputs(tmp_path / "replay")} == {"replay"}
    assert not no_leaks(), "episode processes outlived stop()"
