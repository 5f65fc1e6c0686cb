"""Key names: xdotool/computer-use syntax, DOM keys, Unicode characters."""

import pytest

from pixel_stream.keys import (
    KeyNameError,
    char_to_keysym,
    dom_key_to_keysym,
    keysym_from_name,
    keysym_name,
    parse_combo,
    parse_key_sequence,
)


def names(text: str) -> list[list[str]]:
    return [[keysym_name(k) for k in combo.keysyms] for combo in parse_key_sequence(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Return", [["Return"]]),
        ("enter", [["Return"]]),
        ("ctrl+shift+t", [["Control_L", "Shift_L", "t"]]),
        ("alt+Tab", [["Alt_L", "Tab"]]),
        ("ctrl+a Delete", [["Control_L", "a"], ["Delete"]]),
        ("ctrl++", [["Control_L", "plus"]]),
        ("+", [["plus"]]),
        ("a++b", [["a", "plus", "b"]]),
        ("super", [["Super_L"]]),
        ("cmd+c", [["Super_L", "c"]]),
        ("F5", [["F5"]]),
        ("f12", [["F12"]]),
        ("KP_Enter", [["KP_Enter"]]),
        ("page_down", [["Next"]]),
        ("BACKSPACE", [["BackSpace"]]),
    ],
)
def test_key_sequences(text, expected):
    assert names(text) == expected


def test_unicode_characters_are_keys():
    assert keysym_from_name("é") == 0xE9
    assert keysym_from_name("U+00E9") == 0xE9
    assert keysym_from_name("中") == 0x1000000 | ord("中")
    assert parse_combo("ctrl+U+00E9").keysyms[-1] == 0xE9


def test_char_to_keysym_covers_text():
    assert char_to_keysym("a") == ord("a")
    assert char_to_keysym("ß") == 0xDF
    assert char_to_keysym("Ω") == 0x1000000 | 0x3A9
    assert keysym_name(char_to_keysym("\n")) == "Return"
    with pytest.raises(ValueError):
        char_to_keysym("\x07")


@pytest.mark.parametrize("bad", ["ctrl+bogus", "ctrl+", "hyperdrive", "", "   "])
def test_unknown_key_names_list_accepted_forms(bad):
    with pytest.raises(KeyNameError) as info:
        parse_key_sequence(bad)
    message = str(info.value)
    assert "accepted forms" in message
    assert "ctrl+shift+t" in message  # an example of each form is given


def test_dom_keys_map_to_keysyms():
    assert keysym_name(dom_key_to_keysym("Enter", "Enter")) == "Return"
    assert keysym_name(dom_key_to_keysym("Shift", "ShiftRight")) == "Shift_R"
    assert keysym_name(dom_key_to_keysym("Control", "ControlLeft")) == "Control_L"
    assert keysym_name(dom_key_to_keysym("ArrowLeft", "ArrowLeft")) == "Left"
    assert dom_key_to_keysym("ü", "BracketLeft") == 0xFC
    with pytest.raises(KeyNameError):
        dom_key_to_keysym("Dead", "BracketLeft")
