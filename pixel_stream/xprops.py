"""Reading a window property whole, in one request.

python-xlib's ``get_full_property`` reads a property in two requests when it is longer
than its first guess (40 bytes): the first 40 bytes, then the rest. A property rewritten
between the two (the taskbar's button list as a window is activated, the window list as a
window maps) comes back torn: the head of one value joined to the tail of the next, e.g. a
JSON text that no longer parses. One GetProperty request is answered from one value.
"""

from __future__ import annotations

from typing import Any

# the longest value read, in 4-byte units (the X protocol's unit for property lengths)
WHOLE = 1 << 22


def whole_property(window: Any, atom: int, property_type: int = 0) -> Any:
    """The property ``atom`` of ``window`` read in one request (its reply, with ``value``),
    or None when the window does not have it. ``property_type`` 0 is AnyPropertyType."""
    return window.get_property(atom, property_type, 0, WHOLE)


def wait_for_root_property(display_name: str, name: str, timeout: float, what: str, *,
                           alive: Any = None, recheck_s: float = 0.1) -> None:
    """Until the root window of ``display_name`` has a non-empty property ``name``
    (``_NET_CLIENT_LIST``: the window manager manages a window; ``_NET_SUPPORTING_WM_CHECK``:
    it runs). One X connection that sleeps until the root window's properties change
    (PropertyNotify), rather than a new connection every poll (2 ms of CPU each, while
    everything else of an episode's start wants the CPU too). ``alive`` (a
    ``ManagedProcess``) is looked at every ``recheck_s``: its death ends the wait.
    ``TimeoutError`` and ``ProcessError`` as ``pixel_stream.procs.wait_until`` raises them."""
    import select
    import time

    from Xlib import X
    from Xlib import display as xdisplay

    from pixel_stream.procs import time_left

    deadline = time.monotonic() + timeout
    conn = None
    while conn is None:
        try:
            conn = xdisplay.Display(display_name)
        except Exception:  # noqa: BLE001 - the display is not up yet
            time.sleep(min(0.02, time_left(deadline, timeout, what, alive)))
    try:
        root = conn.screen().root
        atom = conn.intern_atom(name)
        # selected before the first look: a change after that look wakes the wait
        root.change_attributes(event_mask=X.PropertyChangeMask)
        conn.sync()
        while True:
            prop = whole_property(root, atom, X.AnyPropertyType)
            if prop is not None and len(prop.value) > 0:
                return
            left = time_left(deadline, timeout, what, alive)
            if not conn.pending_events():
                select.select([conn.fileno()], [], [], min(recheck_s, left))
            while conn.pending_events():
                conn.next_event()
    finally:
        conn.close()
