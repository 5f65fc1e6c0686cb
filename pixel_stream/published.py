"""Published-app mode: the application's main window is the whole session.

A Citrix "published application" shows one application window without a desktop around
it. Here a small thread watches the window manager's client list; every top-level
application window (a normal window that is not a dialog of another) loses its decoration
(``_MOTIF_WM_HINTS``) and is maximized (``_NET_WM_STATE``), so it fills the display the
way a seamless published app fills its frame. Dialogs keep their frames and float above.
"""

from __future__ import annotations

import logging
import os
import select
import threading

from Xlib import X
from Xlib import display as xdisplay
from Xlib import error as xerror
from Xlib.protocol import event as xevent

from pixel_stream.xprops import whole_property

log = logging.getLogger(__name__)

MWM_HINTS_DECORATIONS = 2
NET_WM_STATE_ADD = 1


class PublishedWindowKeeper:
    """Keeps every main application window undecorated and maximized."""

    def __init__(self, display_name: str) -> None:
        self.display_name = display_name
        self._conn = xdisplay.Display(display_name)
        self._root = self._conn.screen().root
        atom = self._conn.intern_atom
        self._client_list = atom("_NET_CLIENT_LIST")
        self._motif = atom("_MOTIF_WM_HINTS")
        self._wm_state = atom("_NET_WM_STATE")
        self._max_v = atom("_NET_WM_STATE_MAXIMIZED_VERT")
        self._max_h = atom("_NET_WM_STATE_MAXIMIZED_HORZ")
        self._type = atom("_NET_WM_WINDOW_TYPE")
        self._type_normal = atom("_NET_WM_WINDOW_TYPE_NORMAL")
        self._handled: set[int] = set()
        self._stop = threading.Event()
        self._wake_r, self._wake_w = os.pipe()
        self._thread: threading.Thread | None = None
        self.published: list[int] = []

    def start(self) -> PublishedWindowKeeper:
        self._root.change_attributes(event_mask=X.PropertyChangeMask)
        self._apply()
        self._thread = threading.Thread(target=self._run, name="published-app", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        os.write(self._wake_w, b"x")
        if self._thread is not None:
            self._thread.join(2.0)
            self._thread = None
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)
        try:
            self._conn.close()
        except Exception:  # noqa: BLE001 - display may be gone
            pass

    def _run(self) -> None:
        fd = self._conn.fileno()
        try:
            while not self._stop.is_set():
                readable, _, _ = select.select([fd, self._wake_r], [], [])
                if self._stop.is_set():
                    return
                changed = False
                while self._conn.pending_events():
                    ev = self._conn.next_event()
                    if ev.type == X.PropertyNotify and ev.atom == self._client_list:
                        changed = True
                if changed:
                    self._apply()
        except (xerror.ConnectionClosedError, OSError) as exc:
            # the display stopped before the keeper did (an episode ending): nothing to keep
            if not self._stop.is_set():
                log.info("published-app keeper: display %s closed (%s)", self.display_name, exc)
        except Exception:  # noqa: BLE001 - anything else is a defect worth its traceback
            if not self._stop.is_set():
                log.exception("published-app keeper stopped")

    def _is_main_window(self, window) -> bool:
        if window.get_wm_transient_for():
            return False
        kinds = whole_property(window, self._type, X.AnyPropertyType)
        return kinds is None or self._type_normal in list(kinds.value)

    def _apply(self) -> None:
        prop = whole_property(self._root, self._client_list, X.AnyPropertyType)
        ids = list(prop.value) if prop is not None else []
        for wid in ids:
            if wid in self._handled:
                continue
            self._handled.add(wid)
            window = self._conn.create_resource_object("window", wid)
            try:
                if not self._is_main_window(window):
                    continue
                window.change_property(
                    self._motif, self._motif, 32, [MWM_HINTS_DECORATIONS, 0, 0, 0, 0]
                )
                message = xevent.ClientMessage(
                    window=window,
                    client_type=self._wm_state,
                    data=(32, [NET_WM_STATE_ADD, self._max_v, self._max_h, 1, 0]),
                )
                self._root.send_event(
                    message, event_mask=X.SubstructureRedirectMask | X.SubstructureNotifyMask
                )
                self.published.append(wid)
            except xerror.XError:
                continue  # the window vanished meanwhile
        self._handled &= set(ids)
        self._conn.flush()
