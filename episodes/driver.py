"""One Playwright driver per event loop, shared by the episodes that loop runs.

Playwright's driver is a Node.js process (0.6 s and about 0.5 CPU-seconds to start on
this machine alone, 1-4 s when it is busy). Each episode used to start one and stop it
again; the processes that run many episodes one after the other or side by side (the
hub, ``episodes.env``, the benchmarks, ``run_episode``'s second try) now start it once:

* ``shared_playwright()`` gives the running loop's driver, starting it on first use or
  when it died (its process exited: every later call starts a new one);
* each episode still launches its own Chromium through it and closes it at stop
  (``Episode.stop`` also kills whatever of its browsers is left): the driver keeps no
  browser, page or state of an episode between episodes;
* the driver stops with its loop: it is held by a task that ``asyncio.run`` cancels when
  it ends (normally, on an exception, on Ctrl-C), and that task stops it; ``stop_driver()``
  stops it earlier (``EhrSandboxEnv.close``). A process that dies without stopping it
  closes the driver's standard input, and the driver exits (with its browsers).

Nothing starts it before an episode asks for it: a process's first episode waits for it
(the "fresh process" figure of the benchmark), the next ones do not ("warm process").
``driver_pid()`` is its process id, for tests and footprints.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import weakref
from typing import Any

log = logging.getLogger(__name__)

STOP_TIMEOUT_S = 15.0


class _Driver:
    """The driver of one loop: a task holds it from its start until it is asked to stop
    or the task is cancelled (the loop's end), and then stops it."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.ready: asyncio.Future = loop.create_future()
        self.ready.add_done_callback(_retrieve)
        self.client: Any = None  # Playwright's client of the driver (its pipe and process)
        self.stopping = asyncio.Event()
        self.task = loop.create_task(self._hold(), name="playwright-driver")

    async def _hold(self) -> None:
        try:
            api = await asyncio.to_thread(importlib.import_module, "playwright.async_api")
            client_module = importlib.import_module("playwright._impl.out_of_process")
            # the client itself rather than async_playwright(): when a loop ends while the
            # driver starts, asyncio.run cancels Playwright's tasks too, and only the client
            # still knows the process to stop then
            self.client = client_module.PlaywrightClient()
            impl = await asyncio.shield(self.client._playwright)
        except BaseException as exc:
            if not self.ready.done():
                if isinstance(exc, asyncio.CancelledError):
                    self.ready.cancel()
                else:
                    self.ready.set_exception(exc)
            await self._stop()
            raise
        self.ready.set_result(api.Playwright(impl))
        try:
            await self.stopping.wait()
        finally:
            await self._stop()

    async def _stop(self) -> None:
        """End the driver's process: its standard input closed (the driver closes its
        browsers and exits), killed if it does not exit within ``STOP_TIMEOUT_S``."""
        client, self.client = self.client, None
        process = _process(client)
        if process is not None and process.returncode is None:
            try:
                client._transport.request_stop()  # closes its standard input
            except Exception:  # noqa: BLE001 - closed already
                with contextlib.suppress(Exception):
                    process.stdin.close()
            try:
                await asyncio.wait_for(process.wait(), STOP_TIMEOUT_S)
            except BaseException:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                raise
        closed = getattr(client, "_close_promise", None)
        if closed is not None and not closed.done():  # its reader ends with the process
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(closed), 2.0)

    def dead(self) -> bool:
        """True once it failed to start, was stopped, or its process went away."""
        if self.task.done() or self.stopping.is_set():
            return True
        if not self.ready.done():
            return False
        if self.ready.cancelled() or self.ready.exception() is not None:
            return True
        closed = getattr(self.client, "_close_promise", None)
        return closed is None or closed.done()

    def forget(self) -> None:
        """Let a dead driver's task end (it stops what is left of it); the error its pipe
        gave when the process went away is read, not logged as never retrieved."""
        self.stopping.set()
        error = getattr(getattr(self.client, "_transport", None), "on_error_future", None)
        if error is not None and error.done() and not error.cancelled():
            error.exception()

    def pid(self) -> int | None:
        return getattr(_process(self.client), "pid", None)


def _retrieve(future: asyncio.Future) -> None:
    """A start that failed with nobody waiting must not be logged as never retrieved."""
    if not future.cancelled():
        future.exception()


def _process(client: Any) -> Any:
    """The driver's ``asyncio.subprocess.Process`` (None before it was spawned)."""
    return getattr(getattr(client, "_transport", None), "_proc", None)


_drivers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Driver] = (
    weakref.WeakKeyDictionary())


def _current(start: bool) -> _Driver | None:
    loop = asyncio.get_running_loop()
    driver = _drivers.get(loop)
    if (driver is None or driver.dead()) and start:
        if driver is not None:
            log.info("the Playwright driver is gone; starting another")
            driver.forget()
        driver = _drivers[loop] = _Driver(loop)
    return driver


async def shared_playwright() -> Any:
    """This loop's Playwright (``playwright.async_api.Playwright``), started if needed."""
    driver = _current(start=True)
    assert driver is not None
    return await asyncio.shield(driver.ready)


def driver_pid() -> int | None:
    """The process id of this loop's live driver, or None."""
    driver = _current(start=False)
    return None if driver is None or driver.dead() else driver.pid()


async def stop_driver() -> None:
    """Stop this loop's driver (with any browser still open through it) and wait."""
    driver = _current(start=False)
    if driver is None:
        return
    driver.stopping.set()
    with contextlib.suppress(BaseException):
        await asyncio.shield(driver.task)
