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


def test_the_wait_for_a_root_property_wakes_when_another_client_sets_it(display):
    import threading

    from pixel_stream.xprops import wait_for_root_property

    writer = xdisplay.Display(display.name)
    root = writer.screen().root
    atom = writer.intern_atom("_EHR_TEST_READY")

    def set_later():
        root.change_property(atom, Xatom.STRING, 8, b"yes")
        writer.sync()

    timer = threading.Timer(0.3, set_later)
    timer.start()
    try:
        # its process check every 30 s: only the property change can end this wait in time
        wait_for_root_property(display.name, "_EHR_TEST_READY", 10.0, "the test's property",
                               recheck_s=30.0)
        assert whole_property(root, atom).value == b"yes"
    finally:
        timer.cancel()
        root.delete_property(atom)
        writer.sync()
        writer.close()


def test_the_wait_for_a_root_property_says_what_it_waited_for(display):
    from pixel_stream.xprops import wait_for_root_property

    with pytest.raises(TimeoutError, match="waiting for nothing that comes"):
        wait_for_root_property(display.name, "_EHR_TEST_NEVER", 0.3, "nothing that comes")


def test_the_wait_for_a_root_property_ends_when_its_process_dies(display, tmp_path):
    from pixel_stream.procs import ManagedProcess, ProcessError
    from pixel_stream.xprops import wait_for_root_property

    process = ManagedProcess(["sh", "-c", "echo gone >&2; exit 3"], name="the app",
                             log_path=tmp_path / "app.log").start()
    with pytest.raises(ProcessError, match="the app exited with status 3 while waiting for "
                                           "the app's window"):
        wait_for_root_property(display.name, "_EHR_TEST_NEVER", 30.0, "the app's window",
                               alive=process)
