"""Where an episode's CPU and memory go, by kind of process (``--only footprint``).

Every process of an episode (``Episode.process_ids()`` plus the Playwright driver, which is
a child of the process that runs the episode) is read from ``/proc``: CPU-seconds from
``stat`` (user + system), memory from ``smaps_rollup``: PSS (a shared page is split among
the processes that map it, so the kinds add up; it moves with whatever else on the machine
maps the same libraries, e.g. other episodes' Chromium), USS (private pages: what ending the
process frees, steadier for before/after) and RSS. The process that
runs the episode (the pixel sessions' capture, server and encoders, the Playwright client)
is split by thread (``/proc/self/task``) using Python's thread names, so the bench's own
agent threads are counted apart and not charged to the episode.

``classify`` names a process from its command line; ``measure`` takes two samples around a
window (idle, or while an agent acts) and returns the per-kind table.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
HOST = "episode host (pixel sessions, Playwright client)"

# Chromium's helper processes by --type= (and the utility processes by their service)
CHROMIUM_TYPES = {"renderer": "chromium renderer", "gpu-process": "chromium gpu",
                  "zygote": "chromium zygote", "utility": "chromium utility",
                  "broker": "chromium broker", "ppapi": "chromium plugin",
                  "crashpad-handler": "chromium crashpad"}
UTILITY_SERVICES = {"network.mojom.NetworkService": "network",
                    "storage.mojom.StorageService": "storage",
                    "audio.mojom.AudioService": "audio",
                    "video_capture.mojom.VideoCaptureService": "video capture",
                    "data_decoder.mojom.DataDecoderService": "data decoder"}


def _switch(argv: list[str], name: str) -> str | None:
    prefix = f"--{name}="
    for part in argv:
        if part.startswith(prefix):
            return part[len(prefix):]
    return None


def _python_module(argv: list[str]) -> str | None:
    """``M`` of ``python … -m M …`` (or the script's name), else None; for a prestarted
    interpreter (``python -m episodes.prestart … -- COMMAND``), COMMAND's."""
    if not argv or "python" not in Path(argv[0]).name:
        return None
    if "episodes.prestart" in argv and "--" in argv:
        argv = [argv[0], *argv[argv.index("--") + 1:]]
    for i, part in enumerate(argv[1:], 1):
        if part == "-m" and i + 1 < len(argv):
            return argv[i + 1]
        if not part.startswith("-"):
            return Path(part).stem
    return None


CHROMIUM_NAMES = ("chromium", "chrome", "google-chrome", "chromium-browser",
                  "chrome_crashpad_handler", "citrix-workspace")
# a Chromium child whose title was rewritten (a zygote's child: its --type= is gone) still
# has one of these
CHILD_MARKERS = ("--metrics-shmem-handle=", "--field-trial-handle=", "--shared-files")


def chromium_kind(args: list[str]) -> str:
    """Chromium's process type from its (possibly rewritten) switches."""
    kind = _switch(args, "type")
    if kind is None:
        if any(a.startswith("--renderer-client-id=") for a in args):
            kind = "renderer"
        elif any(a.startswith(("--gpu-preferences=", "--use-gl=")) for a in args):
            kind = "gpu-process"
        elif _switch(args, "utility-sub-type") or any(a.startswith(CHILD_MARKERS)
                                                       for a in args):
            kind = "utility"
        elif "--remote-debugging-pipe" in args or any(a.startswith("--user-data-dir=")
                                                     for a in args):
            return "chromium browser"
        else:  # the title of a zygote, rewritten: "chromium --change-stack-guard-on-fork=…"
            kind = "zygote"
    label = CHROMIUM_TYPES.get(kind, f"chromium {kind}")
    if kind == "utility":
        service = _switch(args, "utility-sub-type")
        if service:
            label += f" ({UTILITY_SERVICES.get(service, service.split('.')[-1])})"
    return label


def classify(argv: list[str], comm: str = "") -> str:
    """The kind of an episode's process, from its command line (``comm`` when it has
    none, e.g. a zombie): Xvfb, openbox, taskbar, portal_web, desktop app, Chromium's
    browser and each helper type (the Citrix receiver window's marked as such), the
    Playwright driver, the confinement launcher."""
    if len(argv) == 1 and " " in argv[0]:  # a title set by the process itself
        argv = argv[0].split(" ")
    exe = Path(argv[0]).name if argv else comm
    if exe == "Xvfb":
        return "Xvfb"
    if exe == "openbox":
        return "openbox"
    if exe in CHROMIUM_NAMES:
        if "crashpad" in exe or _switch(argv, "type") == "crashpad-handler":
            return "chromium crashpad"
        label = chromium_kind(argv[1:])
        receiver = exe == "citrix-workspace" or any("/citrix-workspace" in a for a in argv)
        return f"{label}, Citrix window" if receiver else label
    if exe == "node" and any(part.endswith("cli.js") for part in argv) and "run-driver" in argv:
        return "playwright driver"
    if exe == "unshare" or any("confine_exec" in part for part in argv):
        return "confinement launcher"
    module = _python_module(argv)
    if module == "episodes.forkserver":  # the server, or a child named by its request
        if comm in ("portal_web", "taskbar"):
            return comm
        if comm.endswith(" app"):
            return "desktop app"
        return "fork server"
    if module == "episodes.taskbar":
        return "taskbar"
    if module == "portal_web":
        return "portal_web"
    if (module or "").startswith("desktop_ehr") or module == "published_app":
        return "desktop app"
    if exe.startswith("python"):
        return f"python {module or '?'}"
    return f"other ({exe or comm or '?'})"


def classify_thread(name: str) -> str:
    """The part of the episode host a Python thread belongs to, by its name."""
    if name.startswith("capture"):
        return "pixel capture"
    if name.startswith("pixel-input"):
        return "pixel input"
    if name.startswith("agent"):
        return "agent (bench, not the episode)"
    if name == "MainThread":
        return "event loop (session servers, Playwright client)"
    if name.startswith(("asyncio", "ThreadPoolExecutor")):
        return "worker threads (encoding, X calls)"
    return "other threads"


# -- /proc ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class ProcSample:
    kind: str
    cpu_s: float
    pss_kb: int
    rss_kb: int
    uss_kb: int = 0  # private pages: what ending the process gives back


def _cpu_s(stat_text: str) -> float:
    fields = stat_text.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def _rollup(pid: int | str) -> tuple[int, int, int]:
    """(PSS, RSS, USS) in kB from ``smaps_rollup`` (zeros when unreadable)."""
    values = {"Pss:": 0, "Rss:": 0, "Private_Clean:": 0, "Private_Dirty:": 0}
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0, 0, 0
    for line in text.splitlines():
        key, _, rest = line.partition(" ")
        if key in values:
            values[key] = int(rest.split()[0])
    return (values["Pss:"], values["Rss:"],
            values["Private_Clean:"] + values["Private_Dirty:"])


def sample(pid: int) -> ProcSample | None:
    """The process's kind, CPU-seconds so far and memory, or None when it is gone. This
    process is the episode host: its memory only (its CPU is counted by thread)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
        comm = Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None
    argv = [part.decode(errors="replace") for part in raw.split(b"\0") if part]
    pss, rss, uss = _rollup(pid)
    if pid == os.getpid():
        return ProcSample(HOST, 0.0, pss, rss, uss)
    return ProcSample(classify(argv, comm), _cpu_s(stat), pss, rss, uss)


def host_threads() -> dict[str, float]:
    """CPU-seconds of this process by thread part (``classify_thread``)."""
    names = {t.native_id: t.name for t in threading.enumerate() if t.native_id}
    parts: dict[str, float] = {}
    for task in Path("/proc/self/task").iterdir():
        try:
            cpu = _cpu_s((task / "stat").read_text())
        except OSError:
            continue
        part = classify_thread(names.get(int(task.name), "other"))
        parts[part] = parts.get(part, 0.0) + cpu
    return parts


def driver_pids(host_pid: int | None = None) -> set[int]:
    """The Playwright driver processes that are children of ``host_pid`` (this one)."""
    host = host_pid or os.getpid()
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == host and b"run-driver" in argv:
            found.add(int(entry.name))
    return found


# -- a window ---------------------------------------------------------------------------------
def snapshot(pids: Iterable[int]) -> dict[int, ProcSample]:
    return {pid: s for pid in pids if (s := sample(pid)) is not None}


def summarize(before: Mapping[int, ProcSample], after: Mapping[int, ProcSample],
              threads_before: Mapping[str, float], threads_after: Mapping[str, float],
              seconds: float) -> dict[str, Any]:
    """Per kind: processes, CPU % of a core over the window, PSS and RSS (MB) at its end;
    the host's threads as ``host: …`` rows (no memory: the host is one process)."""
    kinds: dict[str, dict[str, Any]] = {}
    for pid, end in after.items():
        row = kinds.setdefault(end.kind, {"processes": 0, "cpu_s": 0.0, "pss_kb": 0,
                                          "rss_kb": 0, "uss_kb": 0})
        start = before.get(pid)
        row["processes"] += 1
        row["cpu_s"] += end.cpu_s - (start.cpu_s if start else 0.0)
        row["pss_kb"] += end.pss_kb
        row["rss_kb"] += end.rss_kb
        row["uss_kb"] += end.uss_kb
    for part, cpu in threads_after.items():
        row = kinds.setdefault(f"host: {part}", {"processes": 0, "cpu_s": 0.0})
        row["cpu_s"] += cpu - threads_before.get(part, 0.0)
    table = {}
    for kind, row in sorted(kinds.items(), key=lambda kv: -kv[1]["cpu_s"]):
        entry: dict[str, Any] = {"processes": row["processes"],
                                 "cpu_s": round(row["cpu_s"], 3),
                                 "cpu_pct": round(100 * row["cpu_s"] / seconds, 2)}
        if "pss_kb" in row:
            entry["pss_mb"] = round(row["pss_kb"] / 1024, 1)
            entry["rss_mb"] = round(row["rss_kb"] / 1024, 1)
            entry["uss_mb"] = round(row["uss_kb"] / 1024, 1)
        table[kind] = entry
    episode_cpu = sum(r["cpu_s"] for k, r in table.items() if not k.startswith("host: agent"))
    return {"seconds": round(seconds, 2), "by_kind": table,
            "episode_cpu_pct": round(100 * episode_cpu / seconds, 2),
            "episode_pss_mb": round(sum(r.get("pss_mb", 0.0) for r in table.values()), 1),
            "episode_uss_mb": round(sum(r.get("uss_mb", 0.0) for r in table.values()), 1),
            "processes": sum(r["processes"] for r in table.values())}


class Window:
    """Samples every process of ``pids()`` (called at both ends: processes that appear
    meanwhile count from zero) and this process's threads around a window."""

    def __init__(self, pids: Any, own_host: bool = True) -> None:
        self._pids = pids
        self._own_host = own_host

    def _all(self) -> set[int]:
        return {*self._pids(), *([os.getpid()] if self._own_host else [])}

    def __enter__(self) -> Window:
        # this process's threads are read last going in and first going out, so finding
        # and reading the processes (a /proc scan) is not charged to the episode
        self._before = snapshot(self._all())
        self._threads = host_threads() if self._own_host else {}
        self._started = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        seconds = time.perf_counter() - self._started
        threads = host_threads() if self._own_host else {}
        self.result = summarize(self._before, snapshot(self._all()), self._threads, threads,
                                seconds)


def format_table(title: str, result: Mapping[str, Any]) -> str:
    lines = [f"{title} ({result['seconds']} s): episode CPU {result['episode_cpu_pct']} % of "
             f"a core, PSS {result['episode_pss_mb']} MB, USS {result['episode_uss_mb']} MB, "
             f"{result['processes']} processes",
             f"  {'kind':52} {'n':>3} {'CPU %':>7} {'CPU s':>7} {'PSS MB':>7} {'USS MB':>7} "
             f"{'RSS MB':>7}"]
    for kind, row in result["by_kind"].items():
        lines.append(f"  {kind:52} {row['processes']:>3} {row['cpu_pct']:>7} "
                     f"{row['cpu_s']:>7} {row.get('pss_mb', ''):>7} {row.get('uss_mb', ''):>7} "
                     f"{row.get('rss_mb', ''):>7}")
    return "\n".join(lines)
