"""``python -m portal_web --fd N`` serves on a listening socket it inherits (an episode binds
it first, so its browser can be launched before the portal answers)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

from sandbox.catalog import Catalog
from sandbox.paths import FIXTURES_DIR
from sandbox.seeding import seed_task


def test_the_portal_serves_on_the_socket_it_is_given(tmp_path):
    run = seed_task(Catalog([FIXTURES_DIR / "demo"]).get("demo-01"), None, tmp_path / "run")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    port, fd = listener.getsockname()[1], listener.fileno()
    os.set_inheritable(fd, True)
    portal = subprocess.Popen(
        [sys.executable, "-m", "portal_web", "--run-dir", str(run), "--fd", str(fd),
         "--port", str(port), "--sites", "workspace"], pass_fds=(fd,),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    listener.close()
    try:
        # connected before the portal accepts: the request waits in the socket's queue
        with socket.create_connection(("127.0.0.1", port), timeout=60) as conn:
            conn.sendall(b"GET / HTTP/1.0\r\nHost: workspace.local\r\n\r\n")
            reply = conn.recv(64)
        assert reply.startswith(b"HTTP/1.1 ") and b" 500" not in reply[:13], reply
    finally:
        portal.terminate()
        out = portal.communicate(timeout=30)[0].decode(errors="replace")
    assert "Traceback" not in out, out
