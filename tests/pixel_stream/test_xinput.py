"""The XTEST injector on a bare Xvfb: what it injects arrives as the right keys and pointer
positions, characters missing from the keymap are remapped and restored, and X errors (a
bad request, the display gone) are ``InputError``s, never the end of the process."""

import pytest
from Xlib import XK, X
from Xlib import display as xdisplay

from pixel_stream.display import Display
from pixel_stream.xinput import InputError, InputInjector

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bare_display():
    with Display(320, 240, window_manager=False) as started:
        yield started


@pytest.fixture
def listener(bare_display):
    """A python-xlib client with a focused window that records its key presses."""
    conn = xdisplay.Display(bare_display.name)
    root = conn.screen().root
    win = root.create_window(0, 0, 320, 240, 0, conn.screen().root_depth,
                             event_mask=X.KeyPressMask | X.KeyReleaseMask)
    win.map()
    conn.sync()
    win.set_input_focus(X.RevertToParent, X.CurrentTime)
    conn.sync()
    yield conn
    win.destroy()
    conn.close()


def _typed(conn) -> list[tuple[str, int]]:
    """("press"/"release", keysym at level 0 or 1 by the Shift state) of the queued events."""
    conn.sync()
    out = []
    while conn.pending_events():
        ev = conn.next_event()
        if ev.type == X.MappingNotify:
            conn.refresh_keyboard_mapping(ev)
            continue
        if ev.type in (X.KeyPress, X.KeyRelease):
            sym = conn.keycode_to_keysym(ev.detail, 1 if ev.state & X.ShiftMask else 0)
            out.append(("press" if ev.type == X.KeyPress else "release", sym))
    return out


def test_typed_text_arrives_as_its_keys(bare_display, listener):
    with InputInjector(bare_display.name) as inj:
        inj.type_text("aB")
        presses = [sym for kind, sym in _typed(listener) if kind == "press"]
    shift = XK.string_to_keysym("Shift_L")
    assert [s for s in presses if s != shift] == [XK.string_to_keysym("a"),
                                                  XK.string_to_keysym("B")]


def test_a_missing_character_is_remapped_and_restored(bare_display, listener):
    e_acute = XK.string_to_keysym("eacute")
    with InputInjector(bare_display.name) as inj:
        assert not inj.has_key_for(e_acute)
        keycode = inj.press_symbol(e_acute)
        inj.key_code(keycode, False)
        assert inj.has_key_for(e_acute)
        assert ("press", e_acute) in _typed(listener)
    listener.sync()
    assert listener.get_keyboard_mapping(keycode, 1)[0][0] == X.NoSymbol


def test_a_held_remapped_key_keeps_its_symbol_when_the_spares_run_out(bare_display, listener):
    """With every spare keycode remapped, a new character takes the oldest one not held:
    the character held down (the oldest) keeps its keycode and symbol until released."""
    with InputInjector(bare_display.name) as inj:
        spares = len(inj._spare)
        symbols = [0x1000100 + n for n in range(spares + 1)]  # Unicode keysyms U+0100...
        held = inj.press_symbol(symbols[0])
        for sym in symbols[1:spares]:
            inj.key_code(inj.press_symbol(sym), False)
        newest = inj.press_symbol(symbols[spares])  # one more than there are spares
        inj.key_code(newest, False)
        assert newest != held and inj.has_key_for(symbols[0])
        assert not inj.has_key_for(symbols[1])  # the oldest not held gave its keycode
        listener.sync()
        assert listener.get_keyboard_mapping(held, 1)[0][0] == symbols[0]
        inj.key_code(held, False)
        assert inj.held == {"buttons": [], "keycodes": []}
    _typed(listener)


def test_pointer_moves_and_is_read_back(bare_display):
    with InputInjector(bare_display.name) as inj:
        inj.move(123, 45)
        assert inj.cursor_position() == (123, 45)
        conn = xdisplay.Display(bare_display.name)
        try:
            pointer = conn.screen().root.query_pointer()
            assert (pointer.root_x, pointer.root_y) == (123, 45)
        finally:
            conn.close()
        with pytest.raises(InputError, match="outside the 320x240 screen"):
            inj.move(320, 0)


def test_a_refused_request_is_an_input_error_and_the_injector_goes_on(bare_display):
    with InputInjector(bare_display.name) as inj:
        with pytest.raises(InputError, match="BadValue"):
            inj.key_code(3, True)  # below the server's smallest keycode
        inj.move(10, 10)
        assert inj.cursor_position() == (10, 10)


def test_a_display_that_went_away_is_an_input_error():
    display = Display(320, 240, window_manager=False).start()
    try:
        inj = InputInjector(display.name)
    finally:
        display.stop()
    for _ in range(2):  # and again: the process is still here, the error the same
        with pytest.raises(InputError, match=f"display {display.name} is gone"):
            inj.type_text("a")
    inj.close()  # closing a dead injector is quiet


def test_no_display_is_an_input_error():
    with pytest.raises(InputError, match="cannot open display :12345"):
        InputInjector(":12345")


def test_a_batch_goes_out_with_its_one_round_trip(bare_display, listener):
    with InputInjector(bare_display.name) as inj:
        calls: list[str] = []
        for name in ("flush", "sync"):
            real = getattr(inj._conn, name)
            setattr(inj._conn, name, lambda real=real, name=name: (calls.append(name), real()))
        with inj.batch():
            keycode = inj.press_symbol(XK.string_to_keysym("a"))
            inj.key_code(keycode, False)
            inj.move(5, 5)
        assert calls == ["sync"]
        assert [kind for kind, _sym in _typed(listener)] == ["press", "release"]
        calls.clear()
        with inj.batch():
            inj.click(1, count=2)  # the first click is processed before the gap
        assert calls == ["sync", "sync"]
