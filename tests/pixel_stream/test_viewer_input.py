"""Receiver input messages: checked, clipboard and files refused by policy."""

import pytest

from pixel_stream.viewer_input import ViewerInputError, parse_viewer_input


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
