"""Shared test setup: Qt runs offscreen unless a test starts its own display; the leak
check every episode test uses; the ``requirement`` mark (tests/requirements.py)."""

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


# -- leak checks (no psutil: a /proc scan) ----------------------------------------------------
def _marked_processes(marker: str) -> list[tuple[int, str]]:
    """Live processes (not zombies) whose environment carries ``marker``, but not us."""
    import os

    found = []
    needle = f"EHR_TEST_MARK={marker}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle not in (entry / "environ").read_bytes():
                continue
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()[:160]
        except OSError:
            continue
        if stat[stat.rfind(")") + 2] not in "ZX":
            found.append((int(entry.name), cmdline))
    return found


@pytest.fixture
def no_leaks(monkeypatch):
    """Marks every process this test starts (an environment variable children inherit)
    and fails the test if any of them is still alive a few seconds after it ends."""
    import time
    import uuid

    marker = uuid.uuid4().hex
    monkeypatch.setenv("EHR_TEST_MARK", marker)

    def leftovers(wait: float = 8.0) -> list[tuple[int, str]]:
        deadline = time.monotonic() + wait
        while True:
            found = _marked_processes(marker)
            if not found or time.monotonic() > deadline:
                return found
            time.sleep(0.1)

    yield leftovers
    left = leftovers()
    assert not left, f"processes left behind: {left}"


def pytest_collection_modifyitems(items):
    """The tests given a longer time limit than the default (the long gold runs and
    replays) go first, longest first: workers share them out at the start instead of one
    worker starting a ten-minute episode when the rest of the suite is done."""
    def limit(item) -> float:
        marker = item.get_closest_marker("timeout")
        return float(marker.args[0]) if marker and marker.args else 0.0

    items.sort(key=lambda item: -limit(item))


def pytest_runtest_setup(item):
    """A test marked ``requirement(available=False, reason=...)`` is skipped, or failed
    under ``CI=true`` (tests/requirements.py)."""
    from tests.requirements import missing

    for mark in item.iter_markers("requirement"):
        if not mark.kwargs["available"]:
            missing(mark.kwargs["reason"])
