"""Client benchmark: cold start to first interactive frame, sign latency, memory.

``python -m desktop_ehr.bench [--repeat N] [--json PATH]`` (``make bench`` calls
:func:`main`). For each persona it seeds a task (ord-06 Hyperspace, ord-07 PowerChart):

- cold start: launch ``python -m desktop_ehr`` (offscreen, or on ``$DISPLAY`` when set) and
  time until the inspector answers with the log-in field visible — the event loop runs and
  the first frame is up;
- memory: the client's resident set (VmRSS) and peak (VmHWM) at that point, from /proc;
- sign latency: signing the seven-order CAP admission (one transaction with its audit
  entries) on a fresh copy of the store, in process.

Times are medians over ``--repeat`` runs. Numbers are for trend-watching on one machine,
never asserted in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PERSONAS = {"hyperspace": "ord-06", "powerchart": "ord-07"}
START_TIMEOUT_S = 60.0


def _ask(path: Path, request: dict) -> dict | None:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(5)
            sock.connect(str(path))
            sock.sendall(json.dumps(request).encode() + b"\n")
            return json.loads(sock.makefile("rb").readline())
    except (FileNotFoundError, ConnectionRefusedError, TimeoutError, json.JSONDecodeError):
        return None


def _proc_memory_kb(pid: int) -> dict[str, int]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0])
    return out


def cold_start(persona: str, run_dir: Path) -> dict:
    """Seconds from exec to an answering inspector with the log-in field shown, and RSS."""
    folder = Path(tempfile.mkdtemp(prefix="ehr-bench-"))
    sock = folder / "i.sock"
    env = dict(os.environ)
    if env.get("DISPLAY"):
        env["QT_QPA_PLATFORM"] = "xcb"
    else:
        env["QT_QPA_PLATFORM"] = "offscreen"
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "desktop_ehr", "--persona", persona,
                             "--run-dir", str(run_dir), "--inspector-socket", str(sock)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the {persona} client exited with {proc.returncode}")
            if time.perf_counter() - started > START_TIMEOUT_S:
                raise TimeoutError(f"the {persona} client did not answer in "
                                   f"{START_TIMEOUT_S:.0f} s")
            reply = _ask(sock, {"op": "find", "name": "login.username"})
            if reply and reply.get("widgets") and reply["widgets"][0]["visible"]:
                elapsed = time.perf_counter() - started
                break
            time.sleep(0.01)
        memory = _proc_memory_kb(proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(folder, ignore_errors=True)
    return {"cold_start_s": elapsed, "rss_mb": memory.get("VmRSS", 0) / 1024,
            "peak_rss_mb": memory.get("VmHWM", 0) / 1024}


def sign_latency(persona: str, template: Path) -> float:
    """Seconds to sign the CAP admission set (7 orders) on a fresh copy of the store."""
    from desktop_ehr.services.auth import authenticate
    from desktop_ehr.services.catalog import load_reference
    from desktop_ehr.services.order_sets import load_order_set
    from desktop_ehr.services.orders import draft_from_set_item
    from desktop_ehr.services.signing import sign_orders
    from desktop_ehr.session import EhrContext

    folder = Path(tempfile.mkdtemp(prefix="ehr-bench-sign-"))
    try:
        run_dir = folder / "run"
        shutil.copytree(template, run_dir)
        ctx = EhrContext.from_run_dir(persona, run_dir)
        try:
            user = {"hyperspace": ("EPICTRN01", "Hyperspace#2026"),
                    "powerchart": ("PCTRAIN01", "PowerChart#2026")}[persona]
            ctx.user = authenticate(ctx, *user)
            ref = load_reference(ctx)
            info = load_order_set(ctx, 1)
            wanted = (1, 11, 13, 17, 19, 20, 21)
            drafts = [draft_from_set_item(info.item(i), ref.orderables[info.item(i).orderable_id],
                                          info.id, ctx.now(), ref) for i in wanted]
            started = time.perf_counter()
            sign_orders(ctx, 1, None, drafts, ref)
            return time.perf_counter() - started
        finally:
            ctx.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run(repeat: int = 3) -> dict:
    from sandbox.catalog import load_catalog
    from sandbox.seeding import seed_task

    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="ehr-bench-runs-") as tmp:
        for persona, alias in PERSONAS.items():
            run_dir = seed_task(load_catalog().get(alias), None, Path(tmp) / persona)
            starts = [cold_start(persona, run_dir) for _ in range(repeat)]
            signs = [sign_latency(persona, run_dir) for _ in range(repeat)]
            results[persona] = {
                "task": alias,
                "cold_start_s": statistics.median(s["cold_start_s"] for s in starts),
                "rss_mb": statistics.median(s["rss_mb"] for s in starts),
                "peak_rss_mb": max(s["peak_rss_mb"] for s in starts),
                "sign_7_orders_ms": statistics.median(signs) * 1000,
                "repeat": repeat,
            }
    return results


def table(results: dict) -> str:
    lines = [f"{'persona':<12}{'cold start (s)':>16}{'sign 7 orders (ms)':>20}"
             f"{'RSS (MB)':>10}{'peak (MB)':>11}"]
    for persona, r in results.items():
        lines.append(f"{persona:<12}{r['cold_start_s']:>16.2f}{r['sign_7_orders_ms']:>20.1f}"
                     f"{r['rss_mb']:>10.0f}{r['peak_rss_mb']:>11.0f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m desktop_ehr.bench",
                                     description="Benchmark the desktop EHR client.")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (median)")
    parser.add_argument("--json", type=Path, default=None, help="also write the JSON here")
    parser.add_argument("--xvfb", action="store_true",
                        help="start the client on its own 1280x800 Xvfb (as episodes do)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.xvfb:
        from pixel_stream.display import Display

        with Display(1280, 800) as display:
            saved = os.environ.get("DISPLAY")
            os.environ["DISPLAY"] = display.name
            try:
                results = {"desktop_ehr": run(args.repeat), "display": "xvfb"}
            finally:
                if saved is None:
                    os.environ.pop("DISPLAY", None)
                else:
                    os.environ["DISPLAY"] = saved
    else:
        results = {"desktop_ehr": run(args.repeat),
                   "display": "x11" if os.environ.get("DISPLAY") else "offscreen"}
    print(table(results["desktop_ehr"]))
    text = json.dumps(results, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
