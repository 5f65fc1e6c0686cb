"""A property read while another client rewrites it comes back whole (one value), not the
head of one value joined to the tail of the next."""

import json

import pytest
from Xlib import X, Xatom
from Xlib import display as xdisplay
from Xlib.xobject.drawable import Window

from episodes.taskbar import BUTTONS_PROPERTY, taskbar_state
from pixel_stream.xprops import whole_property

pytestmark = pytest.mark.slow


def _buttons(n, lit):
    return json.dumps([{"window": 0x400000 + i, "box": [100 * i, 770, 96, 30],
                        "lit": i == lit} for i in range(n)]).encode()


@pytest.fixture
def rewritten_after_each_read(display, monkeypatch):
    """Every GetProperty of the taskbar's list is followed, before the reader's next
    request, by another client writing a different list (as the taskbar does when a
    window is activated)."""
    writer = xdisplay.Display(display.name)
    root = writer.screen().root
    atom = writer.intern_atom(BUTTONS_PROPERTY)
    values = [_buttons(3, 0), _buttons(4, 3)]
    root.change_property(atom, Xatom.STRING, 8, values[0])
    writer.sync()
    reads = []
    original = Window.get_property

    def get_property(self, prop, prop_type, offset, length, delete=False):
        reply = original(self, prop, prop_type, offset, length, delete)
        if prop == atom:
            reads.append(offset)
            root.change_property(atom, Xatom.STRING, 8, values[len(reads) % 2])
            writer.sync()
        return reply

    monkeypatch.setattr(Window, "get_property", get_property)
    yield atom, values, reads
    root.delete_property(atom)
    writer.sync()
    writer.close()


def test_the_taskbar_list_is_read_whole_while_it_changes(display, rewritten_after_each_read):
    _atom, _values, reads = rewritten_after_each_read
    for _ in range(3):
        state = taskbar_state(display.name)  # raised JSONDecodeError on a torn read
        assert state.buttons == {}  # the listed windows do not exist on this display
    assert reads == [0, 0, 0]  # one request per read


def test_whole_property_returns_one_value(display, rewritten_after_each_read):
    atom, values, _reads = rewritten_after_each_read
    conn = xdisplay.Display(display.name)
    try:
        root = conn.screen().root
        seen = [whole_property(root, atom, X.AnyPropertyType).value for _ in range(4)]
        assert all(value in values for value in seen)
        assert seen[0] != seen[1]  # it did change between reads
        assert whole_property(root, conn.intern_atom("_EHR_NOT_SET"), X.AnyPropertyType) \
            is None
    finally:
        conn.close()
