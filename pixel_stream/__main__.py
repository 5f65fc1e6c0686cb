"""Command line: ``python -m pixel_stream {serve,display,replay,bench} ...``.

* ``serve --display :57 --port 8080 --token T`` serves an existing display until Ctrl-C or
  SIGTERM, after printing one JSON line (url, agent_url, token, port) on stdout;
* ``display --size 1280x800`` starts Xvfb + openbox, prints the display name, and keeps it
  until Ctrl-C or SIGTERM;
* ``replay TRACE --display :57 [--pacing settle|recorded]`` re-injects a recorded trace and
  prints a JSON report with the final screen's pixel hash;
* ``bench [--quick] [--json]`` runs the benchmark (``pixel_stream.bench``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
from pathlib import Path


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"size must look like 1280x800, got {text!r}") from exc
    return width, height


async def _wait_for_signal() -> None:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()


async def _serve(args: argparse.Namespace) -> int:
    from pixel_stream.policy import SessionPolicy
    from pixel_stream.session import PixelSession
    from pixel_stream.viewers import ViewerConnection  # noqa: F401 - a server is for viewers:
    # WebRTC is loaded now rather than when the first one connects

    policy = SessionPolicy(
        mode=args.mode,
        idle_timeout_s=args.idle_timeout,
        disconnect_grace_s=args.grace,
        max_fps=args.max_fps,
    )
    session = PixelSession(
        args.display, host=args.host, port=args.port, token=args.token, policy=policy,
        record_dir=args.record, record_screenshots=args.record_screenshots,
    )
    await session.start()
    try:
        print(json.dumps({
            "url": session.url, "agent_url": session.agent_url, "token": session.token,
            "port": session.port, "display": session.display_name,
        }), flush=True)
        waiter = asyncio.create_task(_wait_for_signal())
        ended = asyncio.create_task(session.wait_ended())
        await asyncio.wait({waiter, ended}, return_when=asyncio.FIRST_COMPLETED)
        for task in (waiter, ended):
            task.cancel()
    finally:
        await session.stop()
    return 0


def _display(args: argparse.Namespace) -> int:
    from pixel_stream.display import Display

    width, height = args.size
    with Display(width, height, window_manager=not args.no_wm) as display:
        signals = {signal.SIGINT, signal.SIGTERM}
        signal.pthread_sigmask(signal.SIG_BLOCK, signals)
        print(display.name, flush=True)
        signal.sigwait(signals)
    return 0


def _replay(args: argparse.Namespace) -> int:
    from pixel_stream.replay import replay_trace

    report = asyncio.run(replay_trace(
        args.trace, args.display, pacing=args.pacing, quiet_ms=args.quiet_ms, speed=args.speed,
    ))
    print(json.dumps(report.to_dict(), indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pixel_stream", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-v", "--verbose", action="store_true")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="serve a display to viewers and agents")
    serve.add_argument("--display", required=True, help="X display name, e.g. :57")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=0, help="0 picks a free port")
    serve.add_argument("--token", help="session token (generated when omitted)")
    serve.add_argument("--mode", choices=("desktop", "published"), default="desktop")
    serve.add_argument("--record", type=Path, help="directory for trace.jsonl")
    serve.add_argument("--record-screenshots", action="store_true")
    serve.add_argument("--idle-timeout", type=float, default=None, help="seconds; default none")
    serve.add_argument("--grace", type=float, default=180.0, help="reconnect grace, seconds")
    serve.add_argument("--max-fps", type=float, default=30.0)

    disp = sub.add_parser("display", help="start Xvfb + openbox and keep it running")
    disp.add_argument("--size", type=_size, default=(1280, 800))
    disp.add_argument("--no-wm", action="store_true", help="no window manager")

    rep = sub.add_parser("replay", help="replay a trace.jsonl against a display")
    rep.add_argument("trace", type=Path)
    rep.add_argument("--display", required=True)
    rep.add_argument("--pacing", choices=("settle", "recorded"), default="settle")
    rep.add_argument("--quiet-ms", type=float, default=200.0)
    rep.add_argument("--speed", type=float, default=1.0)

    bench = sub.add_parser("bench", help="run the benchmark (see pixel_stream.bench)")
    bench.add_argument("rest", nargs=argparse.REMAINDER)

    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING)
    try:
        if args.command == "serve":
            return asyncio.run(_serve(args))
        if args.command == "display":
            return _display(args)
        if args.command == "replay":
            return _replay(args)
        from pixel_stream import bench as bench_module

        return bench_module.main(args.rest)
    except (ValueError, RuntimeError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
