"""The Playwright driver an event loop's episodes share (``episodes.driver``): one per loop,
started again when it died, gone when its loop ends — also on Ctrl-C, also when the
interruption comes while it is still starting. Real Node.js drivers, no browser."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from episodes.driver import driver_pid, shared_playwright, stop_driver
from episodes.processes import alive


async def _answers(playwright) -> None:
    """A round trip to the driver (an API request context: no browser)."""
    request = await playwright.request.new_context()
    await request.dispose()


def test_one_driver_per_loop_shared_and_stopped_with_the_loop(no_leaks):
    async def one_loop() -> int:
        first, second = await shared_playwright(), await shared_playwright()
        assert first is second
        pid = driver_pid()
        assert pid is not None and alive(pid)
        await _answers(second)
        assert driver_pid() == pid
        return pid

    pid = asyncio.run(one_loop())
    assert not alive(pid)
    assert asyncio.run(one_loop()) != pid  # another loop, another driver
    assert not no_leaks()


def test_a_driver_that_died_is_started_again(no_leaks):
    async def scenario() -> list[int]:
        old = await shared_playwright()
        dead = driver_pid()
        assert dead is not None
        os.kill(dead, signal.SIGKILL)
        for _ in range(200):
            if driver_pid() is None:
                break
            await asyncio.sleep(0.05)
        assert driver_pid() is None
        new = await shared_playwright()
        assert new is not old and driver_pid() not in (None, dead)
        await _answers(new)
        pids = [dead, driver_pid()]
        await stop_driver()
        assert driver_pid() is None
        return pids

    for pid in asyncio.run(scenario()):
        assert not alive(pid)
    assert not no_leaks()


@pytest.mark.parametrize("when", ["started", "starting"])
def test_ctrl_c_leaves_no_driver(no_leaks, when):
    async def interrupted() -> None:
        if when == "started":
            await shared_playwright()
        else:
            starting = asyncio.ensure_future(shared_playwright())
            for _ in range(1000):  # until its process is there (Node.js starting up)
                if driver_pid() is not None or starting.done():
                    break
                await asyncio.sleep(0.01)
            assert driver_pid() is not None
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        asyncio.run(interrupted())
    assert not no_leaks()
