"""The inspector protocol on a live window: find, tree, items, ping, reset over the socket."""

from __future__ import annotations

import json
import shutil
import socket
import tempfile
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication

from desktop_ehr.inspector import Inspector
from desktop_ehr.models.order_set import OrderSetModel
from desktop_ehr.personas.vocabulary import HYPERSPACE
from desktop_ehr.services.order_sets import load_order_set
from desktop_ehr.widgets.order_set_dialog import OrderSetDialog


@pytest.fixture
def socket_path():
    folder = Path(tempfile.mkdtemp(prefix="insp-"))  # short: Unix socket paths are limited
    yield folder / "inspector.sock"
    shutil.rmtree(folder, ignore_errors=True)


def converse(qtbot, path: Path, requests: list[dict]) -> list[dict]:
    """Send requests from a client thread while the Qt loop serves them."""
    replies: list[dict] = []
    errors: list[BaseException] = []

    def client() -> None:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(20)
                sock.connect(str(path))
                reader = sock.makefile("rb")
                for request in requests:
                    sock.sendall(json.dumps(request).encode() + b"\n")
                    replies.append(json.loads(reader.readline()))
        except BaseException as exc:  # surfaced in the test below
            errors.append(exc)

    thread = threading.Thread(target=client)
    thread.start()
    qtbot.waitUntil(lambda: not thread.is_alive(), timeout=20000)
    thread.join()
    if errors:
        raise errors[0]
    return replies


def centre(info: dict) -> QPoint:
    return QPoint(info["x"] + info["w"] // 2, info["y"] + info["h"] // 2)


def test_find_tree_items_and_reset(qtbot, hs_window, socket_path):
    inspector = Inspector(socket_path, hs_window)
    try:
        hs_window.logout(ask=False)
        ping, found, by_accessible, tree, bad = converse(qtbot, socket_path, [
            {"op": "ping"}, {"op": "find", "name": "login.username"},
            {"op": "find", "name": "Password"}, {"op": "tree"}, {"op": "jump"}])
        assert ping["ok"] and ping["screen"] == "login" and ping["persona"] == "hyperspace"
        (username,) = found["widgets"]
        assert username["class"] == "QLineEdit" and username["visible"]
        assert QApplication.widgetAt(centre(username)).objectName() == "login.username"
        assert by_accessible["widgets"][0]["objectName"] == "login.password"
        names = {w["objectName"] for w in tree["widgets"]}
        assert {"login.username", "login.password", "login.submit"} <= names
        assert not bad["ok"] and "unknown op" in bad["error"]

        from tests.desktop_ehr.conftest import login

        login(hs_window, "hyperspace")
        chart = hs_window.shell.open_patient(1)
        dialog = OrderSetDialog(OrderSetModel(load_order_set(chart.ctx, 1), chart.ref,
                                              chart.ctx.now()), lambda d: None, HYPERSPACE,
                                hs_window)
        dialog.show()
        qtbot.waitExposed(dialog)
        items, tabs, glob, sections = converse(qtbot, socket_path, [
            {"op": "items", "name": "orderSet.tree"},
            {"op": "items", "name": "activity.tabs"},
            {"op": "find", "name": "orderSet.*"},
            {"op": "items", "name": "navigator.sections"}])
        assert [r["text"].strip() for r in sections["items"]][:3] == \
            ["Problem List", "Order Cleanup", "Discharge Med Rec"]
        rows = items["items"]
        assert items["kind"] == "rows"
        sections = [r["text"] for r in rows if r["depth"] == 0]
        assert sections[0] == "Admission (choose one)"
        sputum = next(r for r in rows if r["text"] == "Sputum culture and Gram stain")
        assert sputum["depth"] == 1 and sputum["checked"] is True
        cell = sputum["cells"][0]
        if sputum["visible"]:
            viewport = dialog.tree.viewport()
            assert QApplication.widgetAt(centre(cell)) is viewport
        assert [t["text"] for t in tabs["items"]][:4] == ["Chart Review", "Results Review",
                                                          "Problem List", "Orders"]
        assert {"orderSet.tree", "orderSet.accept", "orderSet.cancel"} <= \
            {w["objectName"] for w in glob["widgets"]}
        dialog.close()

        (reset,) = converse(qtbot, socket_path, [{"op": "reset"}])
        assert reset == {"ok": True, "op": "reset", "screen": "login"}
        assert hs_window.screen_name == "login"
    finally:
        inspector.close()
    assert not socket_path.exists()


def test_inspector_never_acts(hs_window, socket_path):
    """Every op but reset leaves the window as it was."""
    inspector = Inspector(socket_path, hs_window)
    try:
        before = hs_window.screen_name
        for request in ({"op": "tree"}, {"op": "find", "name": "*"},
                        {"op": "items", "name": "workspace.tabs"}):
            assert inspector.answer(request)["ok"]
        assert hs_window.screen_name == before and len(hs_window.shell.charts) == 0
        with pytest.raises(ValueError, match="needs a non-empty 'name'"):
            inspector.answer({"op": "find"})
    finally:
        inspector.close()
