"""The client as a process: launch, inspector ping, clean SIGTERM, and a kill mid-sign."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from desktop_ehr.app import parse_args
from sandbox.stores import open_store

ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    return env


def wait_for(condition, timeout: float, what: str, proc: subprocess.Popen | None = None):
    """Poll ``condition`` until true (the process's own readiness, not a fixed sleep)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"client exited ({proc.returncode}) while waiting for {what}: "
                                 f"{proc.stderr.read().decode()[-2000:]}")
        time.sleep(0.05)
    raise TimeoutError(f"no {what} within {timeout:.0f} s")


def ping(path: Path) -> dict | None:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(5)
            sock.connect(str(path))
            sock.sendall(b'{"op": "ping"}\n')
            return json.loads(sock.makefile("rb").readline())
    except (FileNotFoundError, ConnectionRefusedError, json.JSONDecodeError):
        return None


def test_options_reject_unknown_personas():
    with pytest.raises(SystemExit):
        parse_args(["--persona", "cerner", "--run-dir", "x"])
    options = parse_args(["--persona", "hyperspace", "--run-dir", "r", "--user", "EPICTRN01"])
    assert (options.persona, options.user, options.inspector_socket) == \
        ("hyperspace", "EPICTRN01", None)


def test_launch_ping_and_sigterm(pc_run):
    folder = Path(tempfile.mkdtemp(prefix="ehr-app-"))
    sock = folder / "inspector.sock"
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop_ehr", "--persona", "powerchart", "--run-dir",
         str(pc_run), "--inspector-socket", str(sock), "--user", "PCTRAIN01"],
        env=_env(), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        reply = wait_for(lambda: ping(sock), 60, "inspector ping", proc)
        assert reply["ok"] and reply["screen"] == "login" and reply["persona"] == "powerchart"
        assert reply["pid"] == proc.pid
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        assert not sock.exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
        shutil.rmtree(folder, ignore_errors=True)


def test_missing_store_is_a_clear_error(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "desktop_ehr", "--persona", "hyperspace", "--run-dir",
         str(tmp_path)], env=_env(), cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "has no hyperspace store" in result.stderr and "seed the task" in result.stderr


KILL_MID_SIGN = textwrap.dedent("""
    import os, signal, sys
    from sqlalchemy.orm import Session
    from desktop_ehr.services.auth import authenticate
    from desktop_ehr.services.catalog import load_reference
    from desktop_ehr.services.orders import draft_for
    from desktop_ehr.services.signing import sign_orders
    from desktop_ehr.session import EhrContext

    def die_before_commit(self):
        self.flush()  # every order row and audit entry is written, not committed
        os.kill(os.getpid(), signal.SIGKILL)

    ctx = EhrContext.from_run_dir("hyperspace", sys.argv[1])
    ctx.user = authenticate(ctx, "EPICTRN01", "Hyperspace#2026")
    ref = load_reference(ctx)
    admit = draft_for(ref.orderables[300], ctx.now(), ref)
    admit.department_id = 2
    drafts = [admit] + [draft_for(ref.orderables[i], ctx.now(), ref) for i in (101, 102, 200)]
    Session.commit = die_before_commit
    sign_orders(ctx, 1, 1, drafts, ref)
""")


def test_killing_the_process_mid_sign_leaves_the_store_consistent(hs_run):
    path = hs_run / "stores" / "hyperspace.sqlite"
    store = open_store("hyperspace", path)
    m = __import__("sandbox.stores.hyperspace", fromlist=["Order"])
    with store.reader() as s:
        before = s.scalar(select(func.count()).select_from(m.Order))
    store.dispose()
    result = subprocess.run([sys.executable, "-c", KILL_MID_SIGN, str(hs_run)], env=_env(),
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == -signal.SIGKILL, result.stderr
    store = open_store("hyperspace", path)
    try:
        with store.reader() as s:
            assert s.scalar(select(func.count()).select_from(m.Order)) == before
        report = store.verify_audit()
        assert report.ok, report
    finally:
        store.dispose()
