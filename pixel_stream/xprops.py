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
