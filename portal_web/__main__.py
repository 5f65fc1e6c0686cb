"""``python -m portal_web --run-dir DIR --port N [--episode-id ID]``: serve an episode's web
systems with uvicorn for manual use (point the browser's host names at 127.0.0.1)."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m portal_web", description=__doc__)
    parser.add_argument("--run-dir", type=Path, required=True,
                        help="an episode run directory (made by `ehr-sandbox seed`)")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--fd", type=int, default=None,
                        help="serve on this inherited listening socket instead of --port "
                             "(an episode binds it first, so its browser can start at once)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--episode-id", default="local")
    parser.add_argument("--sites", nargs="*", default=None,
                        help="serve only these site names (default: every site)")
    args = parser.parse_args(argv)
    run_dir = args.run_dir.resolve()
    if not (run_dir / "clock.json").exists():
        print(f"error: {run_dir} is not a run directory (no clock.json); seed one first with "
              "`ehr-sandbox seed <task> --out DIR`", file=sys.stderr)
        return 2

    import uvicorn

    from portal_web import SiteError, create_app

    logging.basicConfig(level=logging.INFO)
    try:
        app = create_app({"run_dir": run_dir, "episode_id": args.episode_id,
                          "sites": args.sites})
    except SiteError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    hosts = ", ".join(sorted(app.sites))
    print(f"serving {hosts} on http://{args.host}:{args.port} (send the Host header, e.g. "
          f"chromium --host-resolver-rules='MAP emr.clinic.test {args.host}:{args.port}')")
    if args.fd is not None:
        import socket

        # family and type come from the descriptor (uvicorn's own fd= takes a Unix socket)
        listener = socket.socket(fileno=args.fd)
        uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[listener])
    else:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
