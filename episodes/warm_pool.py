"""A fork server for episodes (a warm pool), from the command line::

    python -m episodes.warm_pool --socket PATH [--warm MODULE]...
    EHR_SANDBOX_FORKSERVER=PATH ehr-sandbox bench ...    # its episodes fork from it

It imports what an episode's ``portal_web`` (every site), taskbar and desktop apps import
(``episodes.episode.warm_pool_modules``) and any ``--warm`` module, then serves forks
(:mod:`episodes.forkserver`). It is a module of its own because it knows the episode:
``episodes.forkserver`` sits below the episode (``prestart`` uses it), so it cannot import
``episodes.episode`` without an import circle.
"""

from __future__ import annotations

import argparse
import sys

from episodes import forkserver
from episodes.episode import warm_pool_modules


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m episodes.warm_pool",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--socket", required=True, help="the Unix socket to listen on")
    parser.add_argument("--warm", action="append", default=[],
                        help="another module to import")
    args = parser.parse_args(argv)
    return forkserver.serve(args.socket, [*warm_pool_modules(), *args.warm])


if __name__ == "__main__":
    sys.exit(main())
