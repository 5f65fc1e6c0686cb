"""How many episodes a machine holds, and what one episode costs (``make bench`` parts).

``find_ceiling`` adds episodes one at a time; at each level every episode's agent acts and
takes screenshots at once (``screenshot_round``). It stops at the first level that fails —
screenshot p95 at or over the limit, an episode that does not start, or too little memory
left to start another one — so the maximum it reports is a real ceiling, and says which
level failed and why. ``footprint`` measures one episode's processes idle and while its
agent acts (:mod:`episodes.footprint`).
"""

from __future__ import annotations

import asyncio
import contextlib
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
SAFETY_CAP = 64  # a level this high means the stopping rule is broken: stop anyway

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
def agent_work(connection: dict[str, Any], shots: int) -> list[float]:
    """One agent: act (and wait for the screen to settle, which returns a JPEG), then take
    the PNG screenshot an agent would — only that is timed (seconds)."""
    from pixel_stream.client import AgentClient

    mine = []
    with AgentClient(connection["agent_url"], connection["token"], control="take") as a:
        for i in range(shots):
            a.act_and_observe({"action": "left_click", "coordinate": FOLDER_LINKS[i % 2]},
                              quiet_ms=100, timeout_ms=3000, format="jpeg")
            started = time.perf_counter()
            a.screenshot(format="png", fresh=True)
            mine.append(time.perf_counter() - started)
    return mine


def screenshot_round(connections: list[dict[str, Any]], shots: int) -> list[float]:
    """Every episode's agent works at once (one thread each, named ``agent-N``)."""
    latencies: list[float] = []
    lock = threading.Lock()

    def agent(connection: dict[str, Any]) -> None:
        mine = agent_work(connection, shots)
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=agent, args=(c,), name=f"agent-{i}")
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
    """Add episodes until a level fails. ``start_episode(n)`` returns the n-th started
    episode (an object with ``stop()``; it may raise); ``measure(episodes)`` returns every
    agent's screenshot latencies (seconds) with all of them working; ``memory_mb()`` is
    the memory available now. Every episode is stopped before returning."""
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
            latencies = await measure(list(episodes))
            stats = stats_ms(latencies)
            levels.append({"episodes": n, "screenshot_png_ms": stats,
                           "mem_available_mb": memory_mb()})
            _say(f"  {n} concurrent: screenshot p50 {stats.get('p50')} ms, "
                 f"p95 {stats.get('p95')} ms")
            if not latencies or stats["p95"] >= p95_limit_ms:
                failed = {"episodes": n, "reason": "p95",
                          "detail": f"screenshot p95 {stats.get('p95')} ms >= {p95_limit_ms:g} ms"
                          if latencies else "no screenshot was taken"}
                break
            held = n
        else:
            failed = {"episodes": cap, "reason": "cap",
                      "detail": f"stopped at the safety cap of {cap} episodes"}
    finally:
        await asyncio.gather(*(e.stop() for e in episodes), return_exceptions=True)
    return {"max_concurrent_p95_under_100ms": held, "failed_level": failed,
            "levels": levels, "p95_limit_ms": p95_limit_ms, "reserve_mb": reserve_mb}


async def concurrency(spec: Any, workdir: Path, shots: int) -> dict[str, Any]:
    """``find_ceiling`` with real episodes of ``spec``."""
    from episodes.episode import Episode

    async def start(n: int) -> Episode:
        episode = Episode(spec, run_dir=workdir / f"{spec.alias}-concurrent-{n}")
        try:
            await episode.start()
        except BaseException:
            await episode.stop()
            raise
        return episode

    async def measure(episodes: list[Episode]) -> list[float]:
        return await asyncio.to_thread(screenshot_round, [e.connection() for e in episodes],
                                       shots)

    result = await find_ceiling(start, measure)
    return {**result, "task": spec.alias, "shots_per_agent": shots}


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
