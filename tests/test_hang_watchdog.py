"""A test stuck where the time limit's signal cannot reach it (a Qt modal loop) ends its
worker with every thread's stack printed, instead of holding the run until CI gives up."""

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_a_hang_in_a_qt_modal_loop_ends_the_worker_with_its_stack(tmp_path):
    (tmp_path / "conftest.py").write_text("from tests.conftest import *  # noqa: F403\n")
    (tmp_path / "test_stuck.py").write_text(
        "def test_modal_nobody_closes(qapp):\n"
        "    from PySide6.QtWidgets import QDialog\n"
        "    QDialog().exec()\n"
        "\n"
        "def test_after_it():\n"
        "    pass\n")
    env = dict(os.environ, PYTHONPATH=str(REPO), QT_QPA_PLATFORM="offscreen",
               EHR_TEST_HANG_GRACE_S="1")
    # without the watchdog this run never ends: the subprocess limit is the failure
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "1",
         "--timeout", "2", "-o", "addopts=", str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "crashed while running 'test_stuck.py::test_modal_nobody_closes'" in out, out
    assert 'in test_modal_nobody_closes' in out, out  # the stuck thread's stack
    assert "1 failed, 1 passed" in out, out
