"""Receiver input messages: checked, clipboard and files refused by policy."""

import contextlib

import pytest

from pixel_stream.session import INLINE_INPUT
from pixel_stream.viewer_input import ViewerInput, ViewerInputError, parse_viewer_input


@pytest.mark.parametrize("kind", ["clipboard", "paste", "copy", "file", "upload", "download"])
def test_clipboard_and_file_messages_are_refused(kind):
    with pytest.raises(ViewerInputError) as info:
        parse_viewer_input({"t": kind, "text": "secret"}, 1280, 800)
    assert info.value.code == "policy"
    assert "disabled" in str(info.value)


def test_unknown_and_malformed_messages():
    with pytest.raises(ViewerInputError) as info:
        parse_viewer_input({"t": "teleport"}, 1280, 800)
    assert info.value.code == "unknown_type"
    with pytest.raises(ViewerInputError):
        parse_viewer_input([1, 2], 1280, 800)
    with pytest.raises(ViewerInputError) as info:
        parse_viewer_input({"t": "move", "x": 2000, "y": 1}, 1280, 800)
    assert info.value.code == "bad_coordinate"
    with pytest.raises(ViewerInputError):
        parse_viewer_input({"t": "button", "x": 1, "y": 1, "button": 7, "down": True}, 1280, 800)


def test_key_events_carry_keysyms():
    event = parse_viewer_input({"t": "key", "key": "é", "code": "KeyE", "down": True}, 10, 10)
    assert event["keysym"] == 0xE9 and event["down"] is True


def test_wheel_is_clamped():
    event = parse_viewer_input({"t": "wheel", "x": 1, "y": 1, "dx": 0, "dy": 500}, 10, 10)
    assert event["dy"] == 20


class _RecordingInjector:
    def __init__(self) -> None:
        self.calls: list[tuple] = []

    @contextlib.contextmanager
    def batch(self):
        yield self
        self.calls.append(("round_trip",))

    def move(self, x: int, y: int) -> None:
        self.calls.append(("move", x, y))

    def button(self, button: int, down: bool) -> None:
        self.calls.append(("button", button, down))

    def has_key_for(self, keysym: int) -> bool:
        return keysym < 0x100  # Latin-1 is on this keymap; anything else needs a remap

    def press_symbol(self, keysym: int) -> int:
        self.calls.append(("press", keysym))
        return keysym

    def key_code(self, keycode: int, down: bool) -> None:
        self.calls.append(("key_code", keycode, down))


def test_a_batch_of_pointer_messages_may_be_injected_on_the_event_loop():
    injector = _RecordingInjector()
    viewer = ViewerInput(injector, run=None)  # type: ignore[arg-type]
    events = [parse_viewer_input({"t": "button", "x": 3, "y": 4, "button": 1, "down": down},
                                 10, 10) for down in (True, False)]
    # the session runs these without a hand-over to the input thread
    assert viewer.apply_pointer.__name__ in INLINE_INPUT
    assert viewer.apply_pointer(events) == []
    assert injector.calls == [("move", 3, 4), ("button", 1, True), ("move", 3, 4),
                              ("button", 1, False), ("round_trip",)]
    # typing may block (a keycode remapping waits): never on the event loop
    key = parse_viewer_input({"t": "key", "key": "a", "code": "KeyA", "down": True}, 10, 10)
    with pytest.raises(ValueError):
        viewer.apply_pointer([*events, key])
    assert viewer.apply_all.__name__ not in INLINE_INPUT


def test_keys_on_the_keymap_may_be_injected_on_the_event_loop():
    """A typed letter is XTEST writes and one round trip: injected without a hand-over to
    the input thread; a character that needs a keycode remapped (which waits) is not."""
    injector = _RecordingInjector()
    viewer = ViewerInput(injector, run=None)  # type: ignore[arg-type]
    keys = [parse_viewer_input({"t": "key", "key": "a", "code": "KeyA", "down": down}, 10, 10)
            for down in (True, False)]
    assert viewer.apply_inline.__name__ in INLINE_INPUT
    assert viewer.never_blocks(keys)
    assert viewer.apply_inline(keys) == []
    assert injector.calls == [("press", 0x61), ("key_code", 0x61, False), ("round_trip",)]
    remapped = parse_viewer_input({"t": "key", "key": "€", "code": "", "down": True}, 10, 10)
    assert not viewer.never_blocks([*keys, remapped])
    with pytest.raises(ValueError):
        viewer.apply_inline([remapped])
