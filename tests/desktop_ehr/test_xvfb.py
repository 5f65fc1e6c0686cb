"""The client on a real X display driven by XTEST, located by the inspector only — the way
the oracle works: log in, find the patient, drag the scanned advance directive onto the chart
and file it (ord-17's drag primitive)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from Xlib import XK

from tests.desktop_ehr.conftest import audit_rows, table_counts

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.display]


class Oracle:
    """Locates through the inspector socket, acts through XTEST."""

    def __init__(self, sock: Path, injector) -> None:
        self.sock = sock
        self.x = injector

    def ask(self, request: dict) -> dict:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(10)
            conn.connect(str(self.sock))
            conn.sendall(json.dumps(request).encode() + b"\n")
            return json.loads(conn.makefile("rb").readline())

    def wait(self, condition, what: str, timeout: float = 20.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                value = condition()
            except (FileNotFoundError, ConnectionRefusedError):
                value = None
            if value:
                return value
            time.sleep(0.05)
        raise TimeoutError(f"no {what} within {timeout:.0f} s")

    def visible(self, name: str) -> dict:
        def found():
            widgets = self.ask({"op": "find", "name": name})["widgets"]
            return next((w for w in widgets if w["visible"]), None)
        return self.wait(found, f"visible {name}")

    @staticmethod
    def centre(rect: dict) -> tuple[int, int]:
        return rect["x"] + rect["w"] // 2, rect["y"] + rect["h"] // 2

    def click(self, rect: dict, count: int = 1) -> None:
        self.x.move(*self.centre(rect))
        self.x.click(1, count)
        self.x.sync()

    def focus(self, name: str) -> None:
        """Click a field and wait until it has the keyboard focus (pointer and keyboard
        events reach the toolkit by different paths; typing first would go elsewhere)."""
        self.click(self.visible(name))
        self.wait(lambda: self.visible(name)["focused"], f"focus in {name}")

    def type(self, text: str) -> None:
        self.x.type_text(text)
        self.x.sync()

    def key(self, name: str) -> None:
        keysym = XK.string_to_keysym(name)
        self.x.key(keysym, True)
        self.x.key(keysym, False)
        self.x.sync()

    def drag(self, start: dict, end: dict, steps: int = 12) -> None:
        (x0, y0), (x1, y1) = self.centre(start), self.centre(end)
        self.x.move(x0, y0)
        self.x.button(1, True)
        for i in range(1, steps + 1):
            self.x.move(x0 + (x1 - x0) * i // steps, y0 + (y1 - y0) * i // steps)
            self.x.sync()
            time.sleep(0.02)  # pointer motion events pace like a hand; not a GUI wait
        self.x.button(1, False)
        self.x.sync()


@pytest.fixture
def display():
    from pixel_stream.display import Display

    with Display(1280, 800) as running:
        yield running


def test_drag_to_file_through_xtest(display, tmp_path, seeded_task):
    from pixel_stream.xinput import InputInjector

    _spec, run_dir = seeded_task("ord-17", tmp_path / "run")
    folder = Path(tempfile.mkdtemp(prefix="ehr-x-"))
    sock = folder / "i.sock"
    env = display.env()
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.Popen([sys.executable, "-m", "desktop_ehr", "--persona", "powerchart",
                             "--run-dir", str(run_dir), "--inspector-socket", str(sock)],
                            env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    injector = InputInjector(display.name)
    oracle = Oracle(sock, injector)
    try:
        oracle.wait(lambda: oracle.ask({"op": "ping"})["active"] == "mainWindow",
                    "the window to take keyboard focus")
        oracle.focus("login.username")
        oracle.type("PCTRAIN01")
        oracle.wait(lambda: oracle.visible("login.username")["text"] == "PCTRAIN01",
                    "the user ID typed")
        oracle.focus("login.password")
        oracle.type("PowerChart#2026")
        oracle.wait(lambda: len(oracle.visible("login.password")["text"]) == 15,
                    "the password typed")
        oracle.key("Return")
        oracle.wait(lambda: oracle.ask({"op": "ping"})["screen"] == "workspace", "log-in")

        oracle.focus("patientSearch.query")
        oracle.type("7004639")
        oracle.wait(lambda: oracle.visible("patientSearch.query")["text"] == "7004639",
                    "the MRN typed")
        oracle.key("Return")
        oracle.visible("patientLookup.results")
        oracle.wait(lambda: oracle.ask({"op": "ping"})["active"] == "patientLookup",
                    "the lookup dialog placed and focused")
        rows = oracle.wait(lambda: [r for r in oracle.ask(
            {"op": "items", "name": "patientLookup.results"})["items"]
            if "7004639" in [c["text"] for c in r["cells"]]], "Helen in the results")
        oracle.click(rows[0])
        oracle.wait(lambda: [r for r in oracle.ask(
            {"op": "items", "name": "patientLookup.results"})["items"] if r["selected"]],
            "the row selected")
        oracle.click(oracle.visible("patientLookup.open"))
        oracle.visible("chart.menu")
        menu = oracle.wait(lambda: [r for r in oracle.ask(
            {"op": "items", "name": "chart.menu"})["items"]
            if r["text"] == "Documentation" and r["visible"]], "the chart menu")
        oracle.click(menu[0])
        oracle.visible("documents.inbox")
        scans = oracle.ask({"op": "items", "name": "documents.inbox"})["items"]
        (scan,) = [r for r in scans if r["text"].endswith("scan batch 07:45 (1 of 3)")]
        oracle.drag(scan, oracle.visible("documents.dropZone"))

        oracle.wait(lambda: oracle.ask({"op": "ping"})["active"] == "fileDocument",
                    "the file dialog placed and focused")
        box = oracle.visible("fileDocument.type")
        patient = oracle.visible("fileDocument.patient")
        assert patient["text"].startswith("Zztest, Helen   MRN 7004639")
        oracle.click(box)
        oracle.wait(lambda: oracle.ask({"op": "items", "name": "fileDocument.type"})
                    ["items"][1]["visible"], "the document type list open")
        oracle.type("Advance")
        oracle.key("Return")
        oracle.wait(lambda: oracle.visible("fileDocument.type")["text"] == "Advance Directive",
                    "the document type chosen")
        oracle.click(oracle.visible("fileDocument.accept"))
        oracle.wait(lambda: not [w for w in oracle.ask({"op": "find", "name": "fileDocument"})
                                 ["widgets"] if w["visible"]], "the dialog to close")
        assert oracle.ask({"op": "ping"})["modal"] is None
    finally:
        injector.close()
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        stderr = proc.stderr.read().decode()
        proc.stderr.close()
        shutil.rmtree(folder, ignore_errors=True)
    assert code == 0, stderr[-2000:]
    changes = audit_rows(run_dir, "powerchart")
    assert table_counts(changes) == {("update", "documents"): 1}
    after = changes[0]["after"]
    assert (after["id"], after["patient_id"], after["document_type"], after["status"]) == \
        (1001, 5, "Advance Directive", "filed")
    assert os.path.exists(run_dir / "stores" / "powerchart.sqlite")
