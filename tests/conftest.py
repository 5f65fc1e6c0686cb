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
        try:
            exe = os.readlink(entry / "exe")
        except OSError:  # exiting: what it was is still worth saying
            exe = "?"
        state, parent = stat[stat.rfind(")") + 2:].split()[:2]
        if state not in "ZX":
            # the program and the parent too: a confined browser's command line starts with
            # unshare and its launcher's plan, which is all 160 characters show
            found.append((int(entry.name), f"{cmdline} [{exe}, parent {parent}]"))
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


# -- a hang the time limit cannot break ------------------------------------------------------
# pytest-timeout raises in the main thread from a SIGALRM handler; a test blocked in native
# code that never returns to Python (a Qt modal loop) does not see it, and asyncio swallows it
# when it lands in a callback (logged as "Exception in callback"); the worker would then sit
# there until CI's own limit ends the run with no word of which test it was.
# faulthandler's watchdog is a C thread: past the limit plus a grace it prints every thread's
# stack to the real stderr and ends the worker, which xdist reports as that test's failure.
HANG_GRACE_S = float(os.environ.get("EHR_TEST_HANG_GRACE_S", "90"))
_stderr_fd: int | None = None


def _time_limit(item) -> float:
    marker = item.get_closest_marker("timeout")
    if marker and marker.args:
        return float(marker.args[0])
    given = item.config.getoption("timeout", None)  # --timeout, else the ini's
    return float(given if given is not None else item.config.getini("timeout") or 0)


def pytest_configure(config):
    global _stderr_fd
    # between tests the output capture is suspended: fd 2 is the terminal (or CI's log) here
    _stderr_fd = os.dup(2)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    import faulthandler

    limit = _time_limit(item)
    if limit > 0 and _stderr_fd is not None:
        faulthandler.dump_traceback_later(limit + HANG_GRACE_S, exit=True, file=_stderr_fd)
    try:
        yield
    finally:
        if limit > 0:
            faulthandler.cancel_dump_traceback_later()


def pytest_collection_modifyitems(items):
    """The tests given a longer time limit than the default (the long gold runs and
    replays) go first, longest first: workers share them out at the start instead of one
    worker starting a ten-minute episode when the rest of the suite is done."""
    items.sort(key=lambda item: -_time_limit(item))


def pytest_runtest_setup(item):
    """A test marked ``requirement(available=False, reason=...)`` is skipped, or failed
    under ``CI=true`` (tests/requirements.py)."""
    from tests.requirements import missing

    for mark in item.iter_markers("requirement"):
        if not mark.kwargs["available"]:
            missing(mark.kwargs["reason"])
