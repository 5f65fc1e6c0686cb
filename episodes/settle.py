"""The first observation of an episode waits until the workstation has settled.

An agent's first screenshot must not depend on how fast this machine happened to be: a
Citrix window still black (its video not yet decoded), a receiver still showing the lossy
video instead of the exact picture, a tab strip still animating, a page still loading its
fonts or running an animation. ``settle_workstation`` runs at the end of
``Episode.start()`` and ``Episode.reset()``; it waits for what it can know by events and
keeps a short quiet window only as the final check:

1. side by side: both windows maximized and the window the task starts in active (the
   Citrix Workspace window for a desktop-EHR task, the browser otherwise) with its taskbar
   button lit; every tab of the browser loaded (its ``load`` event: the tab strip stops
   its throbber then) and the visible one with its fonts ready, no finite animation
   running (``document.getAnimations()``) and two animation frames drawn since;
2. every Citrix Workspace window shows its published app's current picture exactly: the
   app's own display has been quiet for ``APP_QUIET_MS`` (since its last change, which
   may be before the settle began) and the receiver page has drawn the lossless refresh
   of that frame (``pixelStream.lossless`` on the page, see
   docs/pixel-stream.md);
3. then, once Chromium's tab strip has had ``TAB_STRIP_ANIMATION_S`` since a tab last
   opened or closed after its window showed (``Workstation.tabs_changed_at``), no pixel of
   the workstation changed for ``QUIET_MS`` (counted from when the above was done or from
   the last change, whichever is later; ``wait_for_still``: a repaint of the same pixels
   is not a change): what no event tells — the browser's own tab strip and toolbar, the
   taskbar, a paint after the last frame waited for.

Every wait is bounded (``timeout_s``); an episode whose screen never settles (an animation
that never ends) still starts, and ``timed_out`` says so in the episode's timings.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from pixel_stream.xprops import whole_property

log = logging.getLogger(__name__)

QUIET_MS = 100  # the final check: an animation repaints far more often than this
# how long Chromium's tab strip animates after a tab opened or closed (tabs sliding to
# their places: 200 ms, and a frame late on a busy machine)
TAB_STRIP_ANIMATION_S = 0.3
APP_QUIET_MS = 200
TIMEOUT_S = 15.0

# True once the receiver shows the exact picture of capture seq ``seq`` or a newer one.
RECEIVER_SHOWS = """seq => {
  const s = window.pixelStream;
  if (!s || !s.video || s.video.readyState < 2 || !s.video.videoWidth) return false;
  if (!s.lossless || !s.state.lossless) return true;  // a browser without exact tiles
  return s.lossless.settled && s.lossless.exactSeq >= seq;
}"""

# Resolves once the page has loaded and, when it is visible, its fonts are ready, no
# animation that ends is running and two animation frames were drawn after that (a
# hidden page draws none; an animation without an end is left to the quiet window).
PAGE_SETTLED = """async () => {
  if (document.readyState !== 'complete')
    await new Promise(resolve => addEventListener('load', resolve, {once: true}));
  if (document.visibilityState !== 'visible') return 'hidden';
  await document.fonts.ready;
  for (;;) {
    const running = document.getAnimations().filter(a => a.playState === 'running'
      && a.effect && a.effect.getComputedTiming().endTime !== Infinity);
    if (!running.length) break;
    await Promise.race([Promise.all(running.map(a => a.finished.catch(() => null))),
                        new Promise(resolve => setTimeout(resolve, 100))]);
  }
  await new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  return 'visible';
}"""


async def settle_workstation(episode: Any, timeout_s: float = TIMEOUT_S) -> dict[str, Any]:
    """Wait as the module docstring says; returns what was waited for (seconds, timeouts)."""
    started = time.monotonic()
    deadline = started + timeout_s
    report: dict[str, Any] = {"timed_out": []}
    workstation = episode.workstation
    receiver = getattr(workstation, "receiver", None)
    waits = [_windows_in_place(episode, deadline, report)]
    context = getattr(workstation, "context", None)
    if context is not None:
        waits.append(_pages_settled(context, deadline, report))
    await asyncio.gather(*waits)
    report["events_s"] = round(time.monotonic() - started, 3)
    for system, app in episode.apps.items():
        session = getattr(app, "session", None)
        if session is None or session.capture is None or receiver is None:
            continue
        missed = await app_shown(workstation, session.capture, deadline)
        report["timed_out"].extend(f"{system} {part}" for part in missed)
    report["apps_s"] = round(time.monotonic() - started, 3)
    if episode.session is not None and episode.session.capture is not None:
        capture = episode.session.capture
        changed = getattr(workstation, "tabs_changed_at", 0.0) or 0.0
        if changed + TAB_STRIP_ANIMATION_S > time.monotonic():
            await asyncio.sleep(min(changed + TAB_STRIP_ANIMATION_S, deadline)
                                - time.monotonic())
        frame, timed_out = await wait_for_still(capture, QUIET_MS / 1000, deadline)
        if timed_out:
            report["timed_out"].append("workstation")
        elif hasattr(workstation, "note_settled"):
            await workstation.note_settled(frame)  # its tab strip (tab_reset)
    report["settle_s"] = round(time.monotonic() - started, 3)
    if report["timed_out"]:
        log.warning("episode %s: the screen did not settle within %.0f s (%s)",
                    getattr(episode, "episode_id", "?"), timeout_s,
                    ", ".join(report["timed_out"]))
    return report


async def app_quiet(capture: Any, deadline: float) -> Any:
    """The published app's screen once its display has drawn nothing for ``APP_QUIET_MS``
    (``pixel_stream.observe.Observation``; ``timed_out`` at ``deadline``). The quiet counts
    from the display's last change: one that has drawn nothing for that long before the
    settle began is not waited for again."""
    from pixel_stream.observe import wait_for_quiet

    now = time.monotonic()
    last = capture.last_damage_at
    since = min(last, now) if last else now
    return await wait_for_quiet(capture, since, _seq(capture), APP_QUIET_MS,
                                max(0.0, (deadline - since) * 1000))


async def app_shown(workstation: Any, capture: Any, deadline: float) -> list[str]:
    """Until the published app's display is quiet (``app_quiet``) and the Citrix window
    shows that frame exactly; what did not come before ``deadline`` (``app``,
    ``receiver``)."""
    quiet = await app_quiet(capture, deadline)
    missed = ["app"] if quiet.timed_out else []
    if not await _receiver_shows(workstation, quiet.frame.seq, deadline):
        missed.append("receiver")
    return missed


async def wait_for_still(capture: Any, quiet_s: float, deadline: float) -> tuple[Any, bool]:
    """(the screen, timed out): wait until no pixel of the screen changed for ``quiet_s``
    (counted from its last change, which may be before the call). A repaint that draws
    the same pixels again (a window redrawn whole after its page settled) is not a change:
    what a screenshot would show is all that counts."""
    slot = capture.slot
    before = await capture.fresh_frame()
    # counted from the screen's last change when that was before now: a screen that has
    # not changed for ``quiet_s`` already is not waited for again
    now = time.monotonic()
    last = getattr(capture, "last_damage_at", 0.0)
    changed_at = min(max(last, now - quiet_s), now) if last else now
    while True:
        now = time.monotonic()
        if now - changed_at >= quiet_s and not capture.damage_pending:
            frame = await capture.fresh_frame()
            if not _differs(before, frame, slot.damage_since(before.seq)):
                return frame, False
            before, changed_at = frame, frame.damaged_at
            continue
        if now >= deadline:
            return await capture.fresh_frame(), True
        frame = await slot.next_content_async(
            before.seq, max(0.002, min(changed_at + quiet_s, deadline) - now))
        if frame is None:
            continue
        if _differs(before, frame, slot.damage_since(before.seq)):
            changed_at = frame.damaged_at
        before = frame


def _differs(a: Any, b: Any, region: Any) -> bool:
    """Whether frames ``a`` and ``b`` differ inside ``region`` (None: anywhere)."""
    if b.seq == a.seq:
        return False
    if (a.width, a.height) != (b.width, b.height):
        return True
    if region is None:
        return a.pixels != b.pixels
    stride = a.stride
    left, right = region.x * 4, (region.x + region.width) * 4
    for y in range(region.y, region.y + region.height):
        row = y * stride
        if a.pixels[row + left:row + right] != b.pixels[row + left:row + right]:
            return True
    return False


async def _windows_in_place(episode: Any, deadline: float, report: dict[str, Any]) -> None:
    """Both windows maximized and the one the task starts in active, its button lit."""
    workstation = episode.workstation
    if workstation is None or episode.display is None:
        return
    # the window the task starts in is the active one (its taskbar button lit), however
    # the browser's and the Citrix window's start-ups interleaved
    from episodes.taskbar import BROWSER_CLASS, RECEIVER_CLASS

    receiver = getattr(workstation, "receiver", None)
    front = RECEIVER_CLASS if receiver is not None else BROWSER_CLASS
    has_front = receiver is not None or getattr(workstation, "context", None) is not None
    # both windows maximized, as they were asked to start: Chromium's request is now
    # and then not honoured (the window then shows its frame's bottom handle)
    windows = [c for c, up in ((BROWSER_CLASS, getattr(workstation, "context", None)),
                               (RECEIVER_CLASS, receiver)) if up is not None]
    if windows and not await asyncio.to_thread(
            maximize_windows, episode.display.name, windows, deadline):
        report["timed_out"].append("maximizing " + ", ".join(windows))
    if has_front and not await _bring_to_front(episode.display.name, front, deadline):
        report["timed_out"].append(f"activating {front}")


async def _pages_settled(context: Any, deadline: float, report: dict[str, Any]) -> None:
    """``PAGE_SETTLED`` in every tab of the browser, side by side, before ``deadline``."""
    pages = [page for page in list(context.pages) if not page.is_closed()]
    results = await asyncio.gather(*(page_settled(page, deadline) for page in pages))
    for page, done in zip(pages, results, strict=True):
        if not done:
            report["timed_out"].append(f"page {page.url}")


async def page_settled(page: Any, deadline: float) -> bool:
    """Whether ``page`` came to ``PAGE_SETTLED`` before ``deadline`` (monotonic). A page
    that navigates meanwhile is asked again (its new document is what will be seen)."""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        try:
            await asyncio.wait_for(page.evaluate(PAGE_SETTLED), remaining)
            return True
        except TimeoutError:
            return False
        except Exception as exc:  # noqa: BLE001 - navigated (context destroyed) or closed
            if page.is_closed():
                return True  # nothing of it will be seen
            log.debug("page %s: asking again after %s", page.url, exc)
            await asyncio.sleep(0.02)


def maximize_windows(display_name: str, wm_classes: list[str], deadline: float) -> bool:
    """Maximize (``_NET_WM_STATE``) every window of the given classes; True once each one
    of them is maximized, False at ``deadline`` (monotonic)."""
    from Xlib import X
    from Xlib import display as xdisplay
    from Xlib.protocol import event as xevent

    conn = xdisplay.Display(display_name)
    try:
        root = conn.screen().root
        atom = conn.intern_atom
        clients, state = atom("_NET_CLIENT_LIST"), atom("_NET_WM_STATE")
        wanted = {atom("_NET_WM_STATE_MAXIMIZED_VERT"), atom("_NET_WM_STATE_MAXIMIZED_HORZ")}
        while True:
            missing = set(wm_classes)
            prop = whole_property(root, clients, X.AnyPropertyType)
            for wid in list(prop.value) if prop is not None else []:
                window = conn.create_resource_object("window", wid)
                try:
                    cls = window.get_wm_class()
                    current = whole_property(window, state, X.AnyPropertyType)
                    dialog = window.get_wm_transient_for() is not None
                except Exception:  # noqa: BLE001 - gone meanwhile
                    continue
                if not cls or cls[1] not in missing or dialog:
                    continue
                if current is not None and wanted <= set(current.value):
                    missing.discard(cls[1])
                    continue
                vert, horz = sorted(wanted)
                message = xevent.ClientMessage(window=window, client_type=state,
                                               data=(32, [1, vert, horz, 1, 0]))
                root.send_event(message, event_mask=X.SubstructureRedirectMask
                                | X.SubstructureNotifyMask)
                conn.flush()
            if not missing:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)
    finally:
        conn.close()


async def _bring_to_front(display_name: str, wm_class: str, deadline: float) -> bool:
    """Activate the window of ``wm_class`` and wait until the taskbar shows its button
    pressed (the taskbar repaints after the window manager's change, on its own time)."""
    from episodes.taskbar import activate_window, taskbar_state

    if not await asyncio.to_thread(activate_window, display_name, wm_class):
        return False
    while True:
        state = await asyncio.to_thread(taskbar_state, display_name)
        if state.active_class == wm_class and state.lit_class == wm_class:
            return True
        if time.monotonic() >= deadline:
            return False
        if state.active_class != wm_class:
            await asyncio.to_thread(activate_window, display_name, wm_class)
        await asyncio.sleep(0.02)


async def _receiver_shows(workstation: Any, seq: int, deadline: float) -> bool:
    """Whether the Citrix window's page came to show ``seq`` exactly before ``deadline``."""
    try:
        page = workstation.receiver_page
    except Exception:  # noqa: BLE001 - no window (it crashed; the watchdog says so)
        return False
    remaining_ms = max(1.0, (deadline - time.monotonic()) * 1000)
    try:
        await page.wait_for_function(RECEIVER_SHOWS, arg=seq, timeout=remaining_ms,
                                         polling="raf")
    except Exception as exc:  # noqa: BLE001 - a timeout or a page that went away
        log.debug("receiver did not settle: %s", exc)
        return False
    await asyncio.sleep(0)
    return True


def _seq(capture: Any) -> int:
    latest = capture.slot.latest
    return latest.seq if latest is not None else 0
