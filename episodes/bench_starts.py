"""What a start costs and what prepared it (the episodes part of ``make bench``).

* CPU-seconds of one start, by kind of process (:mod:`episodes.footprint`): every process
  the episode started (they count from zero), the Playwright driver, a fork server's own
  work and this process's threads, from ``Episode.start()`` until it returned (the screen
  settled). Steadier than wall time on a shared machine: other work on it slows a start
  but does not add to its CPU-seconds.
* the **warm pool**: starts whose ``portal_web`` and desktop apps are forked from a fork
  server (:mod:`episodes.forkserver`) that imported their modules before the episode was
  asked for. Reported apart from the cold starts, with what was prepared and how long the
  server took to start (it is started once, before the first of these starts, and not
  counted in any of them): the wait a user has when such a pool is kept running.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from sandbox.catalog import TaskSpec

WARM_POOL = ("a fork server started before the episode was asked for, with the modules "
             "of portal_web (every site) and of the desktop apps imported; the portal and "
             "the apps are forked from it (episodes.forkserver)")


def start_pids(episode: Any) -> set[int]:
    """The processes a start may have spent CPU in (besides this one)."""
    from episodes import forkserver
    from episodes.footprint import driver_pids

    pids = episode.process_ids() | driver_pids()
    server = forkserver.current()
    if server is not None and server.process is not None:
        pids.add(server.process.pid)
    return pids


def cpu_by_kind(window: Any) -> dict[str, float]:
    """CPU-seconds by kind of process of one ``footprint.Window``."""
    return {kind: row["cpu_s"] for kind, row in window.result["by_kind"].items()
            if not kind.startswith("host: agent")}


def summarize_cpu(runs: list[dict[str, float]]) -> dict[str, Any]:
    """The median CPU-seconds of a start in all and by kind (kinds over 0.01 s)."""
    if not runs:
        return {}
    kinds = sorted({kind for run in runs for kind in run})
    by_kind = {kind: round(statistics.median(run.get(kind, 0.0) for run in runs), 3)
               for kind in kinds}
    return {"p50": round(statistics.median(sum(run.values()) for run in runs), 3),
            "n": len(runs),
            "by_kind_p50": {k: v for k, v in sorted(by_kind.items(), key=lambda kv: -kv[1])
                            if v >= 0.01}}


async def warm_pool_starts(spec: TaskSpec, runs: int, workdir: Path,
                           cold_starts: Callable[..., Awaitable[dict[str, Any]]]
                           ) -> dict[str, Any]:
    """``cold_starts(spec, runs, workdir, label=...)`` with a fork server in use."""
    from episodes import forkserver
    from episodes.episode import warm_pool_modules

    started = time.perf_counter()
    server = await asyncio.to_thread(forkserver.ForkServer.start, warm_pool_modules())
    prepared_s = time.perf_counter() - started
    forkserver.use(server)
    try:
        result = await cold_starts(spec, runs, workdir, label="warm-pool")
    finally:
        forkserver.use(None)
        await asyncio.to_thread(server.stop)
    return {"prepared": WARM_POOL, "fork_server_start_s": round(prepared_s, 3), **result}


def summary_rows(kind: str, entry: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """The table's rows of one kind: CPU of a cold start, the warm pool's figures."""
    rows: list[tuple[str, Any, Any]] = []
    cpu = entry.get("cold_start_cpu_s") or {}
    if cpu.get("n"):
        top = ", ".join(f"{k} {v}" for k, v in list(cpu["by_kind_p50"].items())[:3])
        rows.append((f"  CPU-seconds of a cold start p50, {kind}", cpu["p50"], top))
    pool = entry.get("warm_pool") or {}
    if pool.get("cold_start_s", {}).get("n"):
        rows.append((f"start p50 from a warm pool (not cold), {kind} s",
                     pool["cold_start_s"]["p50"],
                     f"fork server started before (took {pool['fork_server_start_s']} s)"))
        pool_cpu = pool.get("cold_start_cpu_s") or {}
        if pool_cpu.get("n"):
            rows.append((f"  CPU-seconds of a start from the warm pool p50, {kind}",
                         pool_cpu["p50"], ""))
    return rows
