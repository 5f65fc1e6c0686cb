"""How many episodes a machine holds, and what one episode costs (``make bench`` parts).

``find_ceiling`` adds episodes one at a time; at each level every episode's agent acts and
takes screenshots at once (``screenshot_round``, at least ``MIN_SAMPLES`` screenshots a
round). It stops at the first level that fails — screenshot p95 at or over the limit in two
rounds in a row (one round is easily spoiled by other users of the machine), an episode
that does not start, or too little memory left to start another one — so the maximum it
reports is a real ceiling, and says which level failed and why. ``footprint`` measures one episode's processes idle and while its
agent acts (:mod:`episodes.footprint`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import random
import statistics
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from episodes import footprint

P95_LIMIT_MS = 100.0
# memory kept free for everything else on the machine, and what one more episode is
# assumed to take before two levels have been measured
RESERVE_MB = 1024
FIRST_EPISODE_MB = 800
SAFETY_CAP = 64
MIN_SAMPLES = 40  # a level this high means the stopping rule is broken: stop anyway

# Workspace folder links (Documents, Output) on the 1280x800 workstation: clicking them in
# turn changes the page, so every timed screenshot is of a new frame (no cached encoding).
FOLDER_LINKS = ([64, 159], [47, 204])


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def stats_ms(values: list[float]) -> dict[str, Any]:
    """p50/p95/max in ms of latencies in seconds."""
    if not values:
        return {"n": 0}
    return {"n": len(values), "p50": round(statistics.median(values) * 1000, 3),
            "p95": round((percentile(values, 95) or 0.0) * 1000, 3),
            "max": round(max(values) * 1000, 3)}


def mem_available_mb() -> int | None:
    with contextlib.suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    return None


# -- the agents' work ------------------------------------------------------------------------
def think_times(think_s: float, shots: int, seed: int) -> list[float]:
    """An agent's pauses after each action: ``think_s`` on average, each drawn between half
    and one and a half of it (seeded): the step times of a model vary, so agents started
    together drift apart instead of acting in lockstep. Zero: no pause."""
    if think_s <= 0:
        return [0.0] * shots
    rng = random.Random(seed)
    return [think_s * rng.uniform(0.5, 1.5) for _ in range(shots)]


def agent_work(connection: dict[str, Any], shots: int, think_s: float = 0.0,
               seed: int = 0) -> list[float]:
    """One agent: act (and wait for the screen to settle, which returns a JPEG), then take
    the PNG screenshot an agent would — only that is timed (seconds) — then think for
    ``think_s`` (a model's turn; 0: act back to back, the worst case)."""
    from pixel_stream.client import AgentClient

    mine = []
    pauses = think_times(think_s, shots, seed)
    with AgentClient(connection["agent_url"], connection["token"], control="take") as a:
        for i in range(shots):
            a.act_and_observe({"action": "left_click", "coordinate": FOLDER_LINKS[i % 2]},
                              quiet_ms=100, timeout_ms=3000, format="jpeg")
            started = time.perf_counter()
            a.screenshot(format="png", fresh=True)
            mine.append(time.perf_counter() - started)
            if pauses[i] > 0:
                time.sleep(pauses[i])
    return mine


def screenshot_round(connections: list[dict[str, Any]], shots: int,
                     think_s: float = 0.0, seed: int = 0) -> list[float]:
    """Every episode's agent works at once (one thread each, named ``agent-N``)."""
    latencies: list[float] = []
    lock = threading.Lock()

    def agent(connection: dict[str, Any], i: int) -> None:
        mine = agent_work(connection, shots, think_s, seed + i)
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=agent, args=(c, i), name=f"agent-{i}")
               for i, c in enumerate(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies


# -- the ceiling --------------------------------------------------------------------------------
async def find_ceiling(start_episode: Callable[[int], Awaitable[Any]],
                       measure: Callable[[list[Any]], Awaitable[list[float]]],
                       memory_mb: Callable[[], int | None] = mem_available_mb, *,
                       p95_limit_ms: float = P95_LIMIT_MS, reserve_mb: int = RESERVE_MB,
                       first_episode_mb: int = FIRST_EPISODE_MB,
                       cap: int = SAFETY_CAP) -> dict[str, Any]:
    """Add episodes until a level fails: too little memory left to start one more (the
    memory taken so far per episode, ``first_episode_mb`` before one is measured, plus
    ``reserve_mb``), a start that fails, or screenshot p95 >= ``p95_limit_ms`` in two
    rounds in a row. ``start_episode(n)`` returns the n-th started episode (an object with
    ``stop()``; it may raise); ``measure(episodes)`` returns every agent's screenshot
    latencies (seconds) with all of them working; ``memory_mb()`` is the memory available
    now. Every episode is stopped before returning."""
    episodes: list[Any] = []
    levels: list[dict[str, Any]] = []
    held, failed = 0, None
    baseline = memory_mb()
    try:
        for n in range(1, cap + 1):
            available = memory_mb()
            per_episode = first_episode_mb
            if n > 1 and baseline is not None and available is not None:
                per_episode = max(1, round((baseline - available) / (n - 1)))
            if available is not None and available - per_episode < reserve_mb:
                failed = {"episodes": n, "reason": "memory",
                          "detail": f"{available} MB available; one more episode takes about "
                                    f"{per_episode} MB and {reserve_mb} MB stay free"}
                break
            try:
                episodes.append(await start_episode(n))
            except Exception as exc:  # noqa: BLE001 - that level failed; the report says so
                failed = {"episodes": n, "reason": "start",
                          "detail": f"episode {n} did not start: {exc}"}
                break
            level = await _measure_level(measure, episodes, p95_limit_ms)
            level["mem_available_mb"] = memory_mb()
            levels.append(level)
            if level["failed"]:
                failed = {"episodes": n, "reason": "p95", "detail": level["failed"]}
                break
            held = n
        else:
            failed = {"episodes": cap, "reason": "cap",
                      "detail": f"stopped at the safety cap of {cap} episodes"}
    finally:
        await asyncio.gather(*(e.stop() for e in episodes), return_exceptions=True)
    return {"max_concurrent_p95_under_100ms": held, "failed_level": failed,
            "levels": levels, "p95_limit_ms": p95_limit_ms, "reserve_mb": reserve_mb}


async def _measure_level(measure: Callable[[list[Any]], Awaitable[list[float]]],
                         episodes: list[Any], p95_limit_ms: float) -> dict[str, Any]:
    """One level: every agent works at once; a round whose p95 fails is run once more
    (other users of the machine make single rounds noisy), and the level fails only if
    that one fails too. Both rounds are kept."""
    rounds: list[dict[str, Any]] = []
    failure: str | None = None
    for _attempt in (1, 2):
        latencies = await measure(list(episodes))
        stats = stats_ms(latencies)
        rounds.append({**stats, "load_avg_1m": round(os.getloadavg()[0], 2)})
        _say(f"  {len(episodes)} concurrent: screenshot p50 {stats.get('p50')} ms, "
             f"p95 {stats.get('p95')} ms (load {rounds[-1]['load_avg_1m']})")
        if latencies and stats["p95"] < p95_limit_ms:
            failure = None
            break
        failure = (f"screenshot p95 {stats['p95']} ms >= {p95_limit_ms:g} ms" if latencies
                   else "no screenshot was taken")
    if failure is not None:
        failure += f" in two rounds (p95 {', '.join(str(r.get('p95')) for r in rounds)} ms)"
    return {"episodes": len(episodes), "screenshot_png_ms": rounds[-1], "rounds": rounds,
            "failed": failure}


async def concurrency(spec: Any, workdir: Path, shots: int, in_process: bool = False,
                      think_s: float = 0.0) -> dict[str, Any]:
    """``find_ceiling`` with real episodes of ``spec``, each agent thinking ``think_s``
    between its actions (0: back to back). Each episode and its agent run in a
    process of their own (``EpisodeProcess``), as each job of ``ehr-sandbox bench`` does;
    ``in_process`` runs them all in this one (as the hub does), sharing one interpreter."""
    from episodes.episode import Episode

    async def start(n: int) -> Any:
        run_dir = workdir / f"{spec.alias}-concurrent-{n}"
        if not in_process:
            return await EpisodeProcess(spec.alias, run_dir).start()
        episode = Episode(spec, run_dir=run_dir)
        try:
            await episode.start()
        except BaseException:
            await episode.stop()
            raise
        return episode

    rounds_run = [0]  # seeds the agents' pauses: each round its own, reproducibly

    async def measure(episodes: list[Any]) -> list[float]:
        # at least MIN_SAMPLES screenshots a round, so that p95 is not just the slowest one
        each = max(shots, math.ceil(MIN_SAMPLES / len(episodes)))
        if not in_process:
            rounds_run[0] += 1
            seed = rounds_run[0] * 1000
            rounds = await asyncio.gather(*(e.round(each, think_s, seed + i)
                                            for i, e in enumerate(episodes)))
            return [latency for mine in rounds for latency in mine]
        rounds_run[0] += 1
        return await asyncio.to_thread(screenshot_round, [e.connection() for e in episodes],
                                       each, think_s, rounds_run[0] * 1000)

    result = await find_ceiling(start, measure)
    return {**result, "task": spec.alias, "shots_per_agent": shots, "think_s": think_s,
            "episodes_run": "in this process" if in_process else "one process each"}


class EpisodeProcess:
    """An episode and its agent in a child process (``python -m episodes.bench_capacity
    ALIAS RUN_DIR``), driven by JSON lines on its standard input and output: ``start()``,
    ``round(shots)`` (the agent's screenshot latencies), ``stop()``. Its standard error is
    ``RUN_DIR.log``; the child stops its episode when its input closes."""

    def __init__(self, alias: str, run_dir: Path, start_timeout_s: float = 300.0) -> None:
        self.alias, self.run_dir, self.start_timeout_s = alias, run_dir, start_timeout_s
        self._process: asyncio.subprocess.Process | None = None

    async def _reply(self, timeout: float | None = None) -> dict[str, Any]:
        assert self._process is not None and self._process.stdout is not None
        line = await asyncio.wait_for(self._process.stdout.readline(), timeout)
        if not line:
            raise RuntimeError(f"the episode process ended (see {self.run_dir}.log)")
        return json.loads(line)

    async def _send(self, message: dict[str, Any]) -> None:
        assert self._process is not None and self._process.stdin is not None
        self._process.stdin.write((json.dumps(message) + "\n").encode())
        await self._process.stdin.drain()

    async def start(self) -> EpisodeProcess:
        self.run_dir.parent.mkdir(parents=True, exist_ok=True)
        with open(f"{self.run_dir}.log", "ab") as log:
            self._process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "episodes.bench_capacity", self.alias, str(self.run_dir),
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=log)
        try:
            reply = await self._reply(self.start_timeout_s)
        except BaseException:
            await self.stop()
            raise
        if "error" in reply:
            await self.stop()
            raise RuntimeError(reply["error"])
        return self

    async def round(self, shots: int, think_s: float = 0.0, seed: int = 0) -> list[float]:
        await self._send({"round": shots, "think_s": think_s, "seed": seed})
        reply = await self._reply()
        if "error" in reply:
            raise RuntimeError(f"the agent of {self.run_dir.name} failed: {reply['error']}")
        return [float(x) for x in reply["latencies"]]

    async def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()  # the child stops its episode and exits
        try:
            await asyncio.wait_for(process.wait(), 60)
        except TimeoutError:
            process.kill()
            await process.wait()


async def serve_episode(alias: str, run_dir: Path) -> None:
    """The child of ``EpisodeProcess``: start the episode, then run a round of the agent
    for each ``{"round": shots}`` line until the input closes."""
    from episodes.episode import Episode
    from sandbox.catalog import CatalogError, load_catalog
    from sandbox.paths import FIXTURES_DIR

    def tell(message: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    try:  # the bench's tasks: the catalog and the demo pack
        spec = load_catalog([FIXTURES_DIR / "demo"]).get(alias)
    except CatalogError:
        spec = None
    if spec is None:
        tell({"error": f"no task {alias!r} in the catalog"})
        return
    episode = Episode(spec, run_dir=run_dir)
    try:
        try:
            await episode.start()
        except Exception as exc:  # noqa: BLE001 - told to the parent
            tell({"error": str(exc)})
            return
        tell({"ready": True})
        while line := await asyncio.to_thread(sys.stdin.readline):
            try:
                order = json.loads(line)
                latencies = await asyncio.to_thread(agent_work, episode.connection(),
                                                    int(order["round"]),
                                                    float(order.get("think_s", 0.0)),
                                                    int(order.get("seed", 0)))
            except Exception as exc:  # noqa: BLE001 - told to the parent
                tell({"error": str(exc)})
                continue
            tell({"latencies": latencies})
    finally:
        await episode.stop()


# -- one episode's footprint ----------------------------------------------------------------------
async def footprint_of(spec: Any, workdir: Path, idle_s: float, shots: int,
                       settle_s: float = 3.0) -> dict[str, Any]:
    """One episode of ``spec``: its processes by kind, idle for ``idle_s`` after
    ``settle_s``, then while one agent clicks and takes ``shots`` screenshots."""
    from episodes.episode import Episode

    episode = Episode(spec, run_dir=workdir / f"{spec.alias}-footprint")
    started = time.perf_counter()
    await episode.start()
    try:
        start_s = time.perf_counter() - started
        await asyncio.sleep(settle_s)

        def pids() -> set[int]:
            return episode.process_ids() | footprint.driver_pids()

        with footprint.Window(pids) as idle:
            await asyncio.sleep(idle_s)
        with footprint.Window(pids) as acting:
            latencies = await asyncio.to_thread(screenshot_round, [episode.connection()],
                                                shots)
        return {"task": spec.alias, "start_s": round(start_s, 3), "idle": idle.result,
                "acting": {**acting.result, "screenshots": len(latencies),
                           "screenshot_png_ms": stats_ms(latencies)}}
    finally:
        await episode.stop()


def format_footprint(result: dict[str, Any]) -> str:
    parts = []
    for window in ("idle", "acting"):
        if window in result:
            parts.append(footprint.format_table(f"{result['task']} {window}", result[window]))
    return "\n".join(parts)


if __name__ == "__main__":
    asyncio.run(serve_episode(sys.argv[1], Path(sys.argv[2])))
