"""First-screen identity: fresh episodes of a task show the agent the same first screen.

    python -m episodes.benchmarks --only identity [--quick] [--identity-runs N]

For every desktop-EHR task (``--quick``: one per persona), start ``runs`` fresh episodes one
after the other and take the agent's first observation (the workstation's screen as the
agent API serves it, PNG). Fresh episodes of one task must give the same PNG (sha256).
For each episode the Citrix Workspace window's picture is also compared pixel for pixel
with the published app's own framebuffer: the receiver shows the app at 1:1, so once the
stream has refreshed the settled screen losslessly the two are equal.

Results per task: the distinct first-screen hashes, where two first screens differed (the
bounding box of the differing pixels, and how many), and per episode how many pixels of
the Citrix window differ from the app's framebuffer. Differing screenshots are kept under
``keep_dir`` for a look.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Collection
from pathlib import Path
from typing import Any

import numpy as np

from sandbox.catalog import TaskSpec


def rgb(frame: Any) -> np.ndarray:
    """A captured frame (BGRX rows) as an H x W x 3 array (BGR order; only compared)."""
    pixels = np.frombuffer(bytes(frame.pixels), dtype=np.uint8)
    return pixels.reshape(frame.height, frame.width, 4)[:, :, :3]


def locate(screen: np.ndarray, picture: np.ndarray) -> tuple[int, int, int]:
    """Where ``picture`` sits in ``screen`` (x, y) and how many of its pixels differ there.

    The offset with the fewest differing pixels on a sample of rows wins; the count is then
    taken over the whole picture. ``screen`` must be at least as large as ``picture``."""
    height, width = picture.shape[:2]
    sample = picture[::16]
    best: tuple[int, int, int] | None = None
    for y in range(screen.shape[0] - height + 1):
        rows = screen[y:y + height:16]
        for x in range(screen.shape[1] - width + 1):
            off = int(np.count_nonzero((rows[:, x:x + width] != sample).any(axis=2)))
            if best is None or off < best[2]:
                best = (x, y, off)
                if off == 0:
                    break
        if best is not None and best[2] == 0:
            break
    assert best is not None
    x, y, _ = best
    region = screen[y:y + height, x:x + width]
    return x, y, int(np.count_nonzero((region != picture).any(axis=2)))


def diff_box(a: np.ndarray, b: np.ndarray) -> dict[str, Any]:
    """How many pixels differ between two screens of one size, and their bounding box."""
    mask = (a != b).any(axis=2)
    ys, xs = np.nonzero(mask)
    if len(ys) == 0:
        return {"pixels": 0, "box": None}
    return {"pixels": int(len(ys)),
            "box": [int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1),
                    int(ys.max() - ys.min() + 1)]}


async def first_screens(spec: TaskSpec, runs: int, workdir: Path,
                        keep_dir: Path | None = None,
                        forked_runs: Collection[int] = ()) -> dict[str, Any]:
    """``runs`` fresh episodes of ``spec``: their first screens compared (module docstring).
    The runs in ``forked_runs`` fork their portal and apps from a fork server (a warm
    pool, ``episodes.forkserver``), the others start them as new interpreters: the first
    screen must not tell the two apart."""
    from episodes import forkserver
    from episodes.episode import warm_pool_modules

    server = (await asyncio.to_thread(forkserver.ForkServer.start, warm_pool_modules())
              if forked_runs else None)
    try:
        return await _first_screens(spec, runs, workdir, keep_dir, forked_runs, server)
    finally:
        if server is not None:
            await asyncio.to_thread(server.stop)


async def _first_screens(spec: TaskSpec, runs: int, workdir: Path, keep_dir: Path | None,
                         forked_runs: Collection[int], server: Any) -> dict[str, Any]:
    from episodes import forkserver
    from episodes.episode import Episode, EpisodeError
    from pixel_stream.imaging import encode_frame

    hashes: list[str] = []
    citrix: list[dict[str, Any]] = []
    diffs: list[dict[str, Any]] = []
    failures: list[str] = []
    first: np.ndarray | None = None
    settle_s: list[float] = []
    forked: list[int] = []  # the runs whose portal, apps and taskbar were all forked
    for i in range(runs):
        episode = Episode(spec, run_dir=workdir / f"{spec.alias}-identity-{i}")
        forkserver.use(server if i in forked_runs else None)
        try:
            await episode.start()
            processes = [episode.portal, *(a.process for a in episode.apps.values()),
                         *(episode.workstation.processes() if episode.workstation else [])]
            if all(isinstance(p, forkserver.ForkedProcess) for p in processes):
                forked.append(i)
            frame = await episode.session.capture.fresh_frame()
            screen = rgb(frame)
            png = encode_frame(frame, "png")
            settle_s.append(episode.settled.get("settle_s", 0.0))
            for system, app in episode.apps.items():
                published = rgb(await app.session.capture.fresh_frame())
                x, y, off = locate(screen, published)
                citrix.append({"run": i, "system": system, "at": [x, y],
                               "diff_pixels": off})
        except EpisodeError as exc:
            failures.append(f"run {i}: {exc}")
            continue
        finally:
            forkserver.use(None)
            await episode.stop()
        digest = hashlib.sha256(png).hexdigest()
        if first is None:
            first = screen
        elif digest not in hashes:
            diffs.append({"run": i, **diff_box(first, screen)})
        if keep_dir is not None and digest not in hashes:
            keep_dir.mkdir(parents=True, exist_ok=True)
            (keep_dir / f"{spec.alias}-{i}-{digest[:12]}.png").write_bytes(png)
        hashes.append(digest)
    distinct = sorted(set(hashes))
    return {
        "task": spec.alias, "runs": len(hashes), "failures": failures,
        "distinct_first_screens": len(distinct),
        "identical": len(hashes) == runs and len(distinct) == 1,
        "sha256": distinct[0] if len(distinct) == 1 else distinct,
        "differences": diffs,
        "citrix_vs_app": citrix,
        "citrix_exact": all(c["diff_pixels"] == 0 for c in citrix) and bool(citrix),
        "settle_s_max": max(settle_s) if settle_s else None,
        "forked_runs": forked,
    }


async def identity_bench(specs: list[TaskSpec], runs: int, workdir: Path,
                         keep_dir: Path | None = None, say=print) -> dict[str, Any]:
    """``first_screens`` for every task; a summary over all of them."""
    started = time.perf_counter()
    tasks = []
    for spec in specs:
        entry = await first_screens(spec, runs, workdir, keep_dir)
        say(f"  {spec.alias}: {entry['distinct_first_screens']} distinct first screen(s) "
            f"in {entry['runs']} runs; Citrix window exact: {entry['citrix_exact']}")
        tasks.append(entry)
    return {
        "runs_per_task": runs, "tasks": tasks,
        "tasks_identical": sum(t["identical"] for t in tasks),
        "tasks_citrix_exact": sum(t["citrix_exact"] for t in tasks),
        "tasks_total": len(tasks),
        "wall_s": round(time.perf_counter() - started, 1),
    }
