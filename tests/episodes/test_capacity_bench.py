"""The concurrency bench's stopping rule (fake episodes, no processes) and the footprint's
classification of an episode's processes (command lines as /proc shows them)."""

from __future__ import annotations

import asyncio
import os
import threading

import pytest

from episodes import bench_capacity, footprint
from episodes.benchmarks import summary_rows


class FakeEpisode:
    def __init__(self, n: int, stopped: list[int]):
        self.n, self._stopped = n, stopped

    async def stop(self) -> None:
        self._stopped.append(self.n)


def run_ceiling(latency_ms_at, memory=lambda: None, fail_start_at=None, **kwargs):
    """find_ceiling over fake episodes: at level n every agent's screenshot takes
    ``latency_ms_at(n)`` ms; returns (result, episodes stopped)."""
    stopped: list[int] = []

    async def start(n: int) -> FakeEpisode:
        if n == fail_start_at:
            raise RuntimeError("timed out while starting the episode's processes")
        return FakeEpisode(n, stopped)

    async def measure(episodes: list[FakeEpisode]) -> list[float]:
        n = len(episodes)
        return [latency_ms_at(n) / 1000] * (10 * n)

    result = asyncio.run(bench_capacity.find_ceiling(start, measure, memory, **kwargs))
    return result, stopped


def test_the_ceiling_search_goes_past_any_fixed_limit_until_p95_fails():
    result, stopped = run_ceiling(lambda n: 15.0 * n)  # 90 ms at 6, 105 ms at 7
    assert result["max_concurrent_p95_under_100ms"] == 6
    assert result["failed_level"]["episodes"] == 7
    assert result["failed_level"]["reason"] == "p95"
    assert result["failed_level"]["detail"] == ("screenshot p95 105.0 ms >= 100 ms in two "
                                                "rounds (p95 105.0, 105.0 ms)")
    assert [level["episodes"] for level in result["levels"]] == [1, 2, 3, 4, 5, 6, 7]
    assert sorted(stopped) == [1, 2, 3, 4, 5, 6, 7]  # every episode is stopped


def test_one_slow_round_is_measured_again_before_the_level_fails():
    rounds: list[int] = []
    stopped: list[int] = []

    async def start(n: int) -> FakeEpisode:
        return FakeEpisode(n, stopped)

    async def measure(episodes):
        n = len(episodes)
        rounds.append(n)
        # level 2's first round is spoiled (someone else's build); level 4 is really slow
        slow = (n == 2 and rounds.count(2) == 1) or n == 4
        return [0.150 if slow else 0.020] * 20

    result = asyncio.run(bench_capacity.find_ceiling(start, measure, lambda: None))
    assert rounds == [1, 2, 2, 3, 4, 4]
    assert result["max_concurrent_p95_under_100ms"] == 3
    assert result["failed_level"]["episodes"] == 4
    level2 = result["levels"][1]
    assert [r["p95"] for r in level2["rounds"]] == [150.0, 20.0] and level2["failed"] is None
    assert all("load_avg_1m" in r for r in level2["rounds"])


def test_the_ceiling_search_stops_when_memory_runs_short():
    # 10 GB free, each episode takes 1 GB, 1 GB stays free: the 10th cannot start
    started: list[int] = []
    free = {"mb": 10_240}

    def memory() -> int:
        return free["mb"] - 1024 * len(started)

    stopped: list[int] = []

    async def start(n: int) -> FakeEpisode:
        started.append(n)
        return FakeEpisode(n, stopped)

    async def measure(episodes):
        return [0.01] * len(episodes)

    result = asyncio.run(bench_capacity.find_ceiling(start, measure, memory, reserve_mb=1024,
                                                     first_episode_mb=1024))
    failed = result["failed_level"]
    assert failed["reason"] == "memory" and failed["episodes"] == 10
    assert result["max_concurrent_p95_under_100ms"] == 9
    assert "1024 MB" in failed["detail"]
    assert len(started) == 9 and sorted(stopped) == list(range(1, 10))


def test_the_ceiling_search_reports_an_episode_that_does_not_start():
    result, stopped = run_ceiling(lambda n: 10.0, fail_start_at=3)
    assert result["max_concurrent_p95_under_100ms"] == 2
    assert result["failed_level"] == {"episodes": 3, "reason": "start", "detail":
                                      "episode 3 did not start: timed out while starting "
                                      "the episode's processes"}
    assert sorted(stopped) == [1, 2]


def test_the_ceiling_search_has_a_safety_cap_and_the_table_names_the_failed_level():
    result, _ = run_ceiling(lambda n: 1.0, cap=5)
    assert result["max_concurrent_p95_under_100ms"] == 5
    assert result["failed_level"]["reason"] == "cap"
    paced = {**result, "think_s": 2.0}
    rows = {name: (value, target) for name, value, target in summary_rows(
        {"episodes": {"concurrency": result, "concurrency_model_pace": paced}})}
    value, target = rows["concurrent episodes, screenshot p95 < 100 ms, agents back to back"]
    assert value == 5 and "level 5: stopped at the safety cap" in target
    assert rows["concurrent episodes, screenshot p95 < 100 ms, agents thinking 2 s"][0] == 5


# -- footprint ----------------------------------------------------------------------------------
CHROMIUM = "/usr/lib/chromium/chromium"


@pytest.mark.parametrize(("argv", "kind"), [
    (["/usr/bin/Xvfb", "-displayfd", "14", "-screen", "0", "1280x800x24"], "Xvfb"),
    (["/usr/bin/openbox", "--config-file", "/tmp/x/openbox-rc.xml"], "openbox"),
    (["/w/.venv/bin/python", "-m", "episodes.taskbar", "--clock", "c.json"], "taskbar"),
    (["/w/.venv/bin/python", "-m", "portal_web", "--run-dir", "r", "--port", "1"],
     "portal_web"),
    (["/w/.venv/bin/python", "-m", "desktop_ehr", "--persona", "hyperspace"], "desktop app"),
    # prestarted (episodes.prestart): named by what they run
    (["/w/.venv/bin/python", "-m", "episodes.prestart", "--go", "7", "--warm", "uvicorn", "--",
      "-m", "portal_web", "--run-dir", "r"], "portal_web"),
    (["/w/.venv/bin/python", "-m", "episodes.prestart", "--go", "7", "--", "-m",
      "desktop_ehr", "--persona", "hyperspace"], "desktop app"),
    (["/w/.venv/bin/python", "/w/tests/episodes/published_app.py", "--x"], "desktop app"),
    (["/w/playwright/driver/node", "/w/playwright/driver/package/cli.js", "run-driver"],
     "playwright driver"),
    (["unshare", "--mount", "--pid", "--fork", "/w/.venv/bin/python"],
     "confinement launcher"),
    # the browser keeps its command line
    ([CHROMIUM, "--no-sandbox", "--remote-debugging-pipe",
      "--user-data-dir=/r/home/.config/chromium"], "chromium browser"),
    ([CHROMIUM, "--remote-debugging-pipe",
      "--user-data-dir=/r/home/.config/citrix-workspace", "--app=http://x/"],
     "chromium browser, Citrix window"),
    ([CHROMIUM, "--type=renderer", "--renderer-client-id=4"], "chromium renderer"),
    ([CHROMIUM, "--type=utility",
      "--utility-sub-type=network.mojom.NetworkService"], "chromium utility (network)"),
    (["/usr/lib/chromium/chrome_crashpad_handler", "--monitor-self"], "chromium crashpad"),
    # a zygote's children rewrite their title into one string, without --type=
    (["chromium --change-stack-guard-on-fork=enable --no-sandbox --remote-debugging-pipe "
      "--renderer-client-id=8 --launch-time-ticks=1"], "chromium renderer"),
    (["citrix-workspace --change-stack-guard-on-fork=enable --no-sandbox "
      "--renderer-client-id=5"], "chromium renderer, Citrix window"),
    (["chromium --change-stack-guard-on-fork=enable --gpu-preferences=YAAA --use-gl=angle"],
     "chromium gpu"),
    (["chromium --change-stack-guard-on-fork=enable --shared-files=v8:100 "
      "--metrics-shmem-handle=4,i,1 --field-trial-handle=3,i,1"], "chromium utility"),
    (["chromium --change-stack-guard-on-fork=enable"], "chromium zygote"),
    (["/usr/bin/sleep", "5"], "other (sleep)"),
])
def test_footprint_names_each_kind_of_process(argv, kind):
    assert footprint.classify(argv) == kind


def test_footprint_names_a_fork_servers_children_by_their_process_name():
    server = ["/w/.venv/bin/python", "-m", "episodes.forkserver", "--socket", "/t/s"]
    assert footprint.classify(server, "python") == "fork server"
    assert footprint.classify(server, "portal_web") == "portal_web"
    assert footprint.classify(server, "hyperspace app") == "desktop app"
    assert footprint.classify(server, "taskbar") == "taskbar"


def test_footprint_names_the_hosts_threads():
    assert footprint.classify_thread("capture:12") == "pixel capture"
    assert footprint.classify_thread("pixel-input_0") == "pixel input"
    assert footprint.classify_thread("agent-3") == "agent (bench, not the episode)"
    assert footprint.classify_thread("MainThread").startswith("event loop")
    assert footprint.classify_thread("asyncio_2").startswith("worker threads")


def test_footprint_sums_a_window_by_kind_and_leaves_the_agent_out():
    sample = footprint.ProcSample
    before = {1: sample("chromium renderer", 1.0, 0, 0), 2: sample("chromium renderer", 2.0, 0, 0),
              3: sample("Xvfb", 5.0, 0, 0)}
    after = {1: sample("chromium renderer", 1.5, 10_240, 20_480, 4_096),
             2: sample("chromium renderer", 2.5, 10_240, 20_480, 4_096),
             3: sample("Xvfb", 5.25, 5_120, 8_192),
             4: sample("portal_web", 0.25, 1_024, 2_048)}  # started within the window
    result = footprint.summarize(before, after, {"pixel capture": 1.0, "agent (bench, not "
                                                 "the episode)": 0.0},
                                 {"pixel capture": 1.5, "agent (bench, not the episode)": 2.0},
                                 seconds=2.0)
    table = result["by_kind"]
    assert table["chromium renderer"] == {"processes": 2, "cpu_s": 1.0, "cpu_pct": 50.0,
                                          "pss_mb": 20.0, "rss_mb": 40.0, "uss_mb": 8.0}
    assert table["Xvfb"]["cpu_s"] == 0.25 and table["portal_web"]["cpu_s"] == 0.25
    assert table["host: pixel capture"]["cpu_s"] == 0.5
    assert table["host: agent (bench, not the episode)"]["cpu_s"] == 2.0
    assert result["episode_cpu_pct"] == 100.0  # 1.0 + 0.25 + 0.25 + 0.5 s in 2 s
    assert result["episode_pss_mb"] == 26.0 and result["processes"] == 4
    assert list(table)[0] == "host: agent (bench, not the episode)"  # by CPU, largest first
    assert "chromium renderer" in footprint.format_table("idle", result)
    rows = {name: (value, target) for name, value, target in summary_rows(
        {"footprint": {"browser": {"task": "ord-01", "idle": result}}})}
    assert rows["one browser episode idle: CPU % of a core / USS MB"] == (100.0, "8.0 MB")


def test_footprint_reads_this_process_as_the_host_and_its_threads():
    own = footprint.sample(os.getpid())
    assert own is not None and own.kind == footprint.HOST
    assert own.rss_kb >= own.pss_kb >= own.uss_kb > 0
    done = threading.Event()
    worker = threading.Thread(target=lambda: done.wait(5), name="capture:99")
    worker.start()
    try:
        parts = footprint.host_threads()
    finally:
        done.set()
        worker.join()
    assert "pixel capture" in parts and "event loop (session servers, Playwright client)" in parts


def test_an_episode_process_that_cannot_start_says_why(tmp_path):
    """The child process of the bench's one-process-per-episode mode answers with the
    reason, and the parent raises it (no episode is started: the task is unknown)."""
    child = bench_capacity.EpisodeProcess("no-such-task", tmp_path / "run")
    with pytest.raises(RuntimeError, match="no task 'no-such-task' in the catalog"):
        asyncio.run(child.start())


def test_agents_pause_around_the_think_time_and_drift_apart() -> None:
    from episodes.bench_capacity import think_times

    assert think_times(0.0, 3, seed=1) == [0.0, 0.0, 0.0]
    one = think_times(2.0, 50, seed=1)
    assert one == think_times(2.0, 50, seed=1)  # seeded
    assert all(1.0 <= t <= 3.0 for t in one) and 1.7 < sum(one) / len(one) < 2.3
    assert one != think_times(2.0, 50, seed=2)  # two agents do not act in lockstep
