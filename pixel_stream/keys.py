"""Key names, X keysyms and Unicode characters.

Agents name keys the way the Anthropic computer-use tool does (xdotool syntax:
``Return``, ``ctrl+shift+t``, ``alt+Tab``); browsers name them the DOM way (``Enter``,
``ArrowLeft``, ``Control``). Both end up as X keysyms here. Any single character is a key
too: its keysym is the Latin-1 code or the X Unicode keysym (``0x1000000 + code point``),
so typing never depends on what the keyboard map happens to contain.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from Xlib import XK

for _group in ("latin2", "latin3", "latin4", "greek", "cyrillic", "xkb", "technical",
               "publishing", "special", "xf86"):
    XK.load_keysym_group(_group)

ACCEPTED_FORMS = (
    "a single character (a, Z, 7, é, ß, 中), an X keysym name (Return, BackSpace, Tab, "
    "Escape, Delete, Home, End, Page_Up, Page_Down, Left, Up, F1..F24, KP_Enter, "
    "adiaeresis), an alias (enter, esc, backspace, del, pageup, pagedown, arrowleft, "
    "ctrl, alt, shift, super, cmd, win, meta, space), or U+00E9; join keys pressed "
    "together with '+' (ctrl+shift+t) and separate successive presses with spaces "
    "(ctrl+a Delete)"
)

# Lower-case aliases -> X keysym names. Covers xdotool habits and DOM KeyboardEvent.key.
ALIASES: dict[str, str] = {
    "ctrl": "Control_L", "control": "Control_L", "ctl": "Control_L", "lctrl": "Control_L",
    "rctrl": "Control_R", "control_l": "Control_L", "control_r": "Control_R",
    "shift": "Shift_L", "lshift": "Shift_L", "rshift": "Shift_R",
    "shift_l": "Shift_L", "shift_r": "Shift_R",
    "alt": "Alt_L", "option": "Alt_L", "lalt": "Alt_L", "ralt": "Alt_R",
    "alt_l": "Alt_L", "alt_r": "Alt_R", "altgr": "ISO_Level3_Shift",
    "altgraph": "ISO_Level3_Shift",
    "super": "Super_L", "win": "Super_L", "windows": "Super_L", "meta": "Super_L",
    "cmd": "Super_L", "command": "Super_L", "os": "Super_L", "super_l": "Super_L",
    "super_r": "Super_R",
    "enter": "Return", "return": "Return", "ret": "Return", "kp_enter": "KP_Enter",
    "esc": "Escape", "escape": "Escape",
    "tab": "Tab", "backspace": "BackSpace", "back_space": "BackSpace", "bs": "BackSpace",
    "delete": "Delete", "del": "Delete", "insert": "Insert", "ins": "Insert",
    "home": "Home", "end": "End",
    "pageup": "Prior", "page_up": "Prior", "pgup": "Prior", "prior": "Prior",
    "pagedown": "Next", "page_down": "Next", "pgdn": "Next", "next": "Next",
    "up": "Up", "down": "Down", "left": "Left", "right": "Right",
    "arrowup": "Up", "arrowdown": "Down", "arrowleft": "Left", "arrowright": "Right",
    "space": "space", "spacebar": "space",
    "capslock": "Caps_Lock", "caps_lock": "Caps_Lock", "numlock": "Num_Lock",
    "scrolllock": "Scroll_Lock", "printscreen": "Print", "print": "Print",
    "prtsc": "Print", "pause": "Pause", "break": "Break", "menu": "Menu",
    "contextmenu": "Menu", "apps": "Menu", "minus": "minus", "plus": "plus",
    "equal": "equal", "comma": "comma", "period": "period", "slash": "slash",
    "backslash": "backslash", "semicolon": "semicolon", "apostrophe": "apostrophe",
    "grave": "grave", "bracketleft": "bracketleft", "bracketright": "bracketright",
}
for _n in range(1, 25):
    ALIASES[f"f{_n}"] = f"F{_n}"

MODIFIER_KEYSYMS = frozenset(
    XK.string_to_keysym(n)
    for n in ("Control_L", "Control_R", "Shift_L", "Shift_R", "Alt_L", "Alt_R",
              "Super_L", "Super_R", "Meta_L", "Meta_R", "ISO_Level3_Shift", "Hyper_L")
)

# DOM KeyboardEvent.key values that are not single characters.
DOM_KEYS: dict[str, str] = {
    "Enter": "Return", "Tab": "Tab", "Backspace": "BackSpace", "Escape": "Escape",
    "Delete": "Delete", "Insert": "Insert", "Home": "Home", "End": "End",
    "PageUp": "Prior", "PageDown": "Next", "ArrowUp": "Up", "ArrowDown": "Down",
    "ArrowLeft": "Left", "ArrowRight": "Right", "CapsLock": "Caps_Lock",
    "NumLock": "Num_Lock", "ScrollLock": "Scroll_Lock", "PrintScreen": "Print",
    "Pause": "Pause", "ContextMenu": "Menu", "AltGraph": "ISO_Level3_Shift",
    "Clear": "Clear", "Help": "Help",
}
# Modifiers are told apart by DOM ``code`` (left/right).
DOM_MODIFIER_CODES: dict[str, str] = {
    "ControlLeft": "Control_L", "ControlRight": "Control_R",
    "ShiftLeft": "Shift_L", "ShiftRight": "Shift_R",
    "AltLeft": "Alt_L", "AltRight": "Alt_R",
    "MetaLeft": "Super_L", "MetaRight": "Super_R", "OSLeft": "Super_L", "OSRight": "Super_R",
}
DOM_MODIFIER_KEYS: dict[str, str] = {
    "Control": "Control_L", "Shift": "Shift_L", "Alt": "Alt_L", "Meta": "Super_L",
    "OS": "Super_L", "Super": "Super_L",
}

_UNICODE_NAME = re.compile(r"[Uu]\+[0-9A-Fa-f]{2,6}")
SPECIAL_CHARS = {"\n": "Return", "\r": "Return", "\t": "Tab", "\b": "BackSpace"}


class KeyNameError(ValueError):
    """A key name that is none of the accepted forms."""

    def __init__(self, name: str, detail: str = "") -> None:
        self.name = name
        why = f" ({detail})" if detail else ""
        super().__init__(f"unknown key name {name!r}{why}; accepted forms: {ACCEPTED_FORMS}")


@dataclass(frozen=True)
class Combo:
    """Keys pressed together: modifiers first, then the main key (keysym numbers)."""

    keysyms: tuple[int, ...]
    text: str

    @property
    def modifiers(self) -> tuple[int, ...]:
        return self.keysyms[:-1]

    @property
    def key(self) -> int:
        return self.keysyms[-1]


def char_to_keysym(char: str) -> int:
    """The X keysym of one Unicode character (control characters by their key)."""
    if len(char) != 1:
        raise ValueError(f"expected one character, got {char!r}")
    if char in SPECIAL_CHARS:
        return XK.string_to_keysym(SPECIAL_CHARS[char])
    code = ord(char)
    if code < 0x20 or code == 0x7F:
        raise ValueError(f"control character U+{code:04X} cannot be typed")
    if 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xFF:
        return code
    return 0x1000000 | code


_LOWER_NAMES: dict[str, str] | None = None


def _keysym_names_lower() -> dict[str, str]:
    global _LOWER_NAMES
    if _LOWER_NAMES is None:
        names: dict[str, str] = {}
        for attr in dir(XK):
            if attr.startswith("XK_"):
                names.setdefault(attr[3:].lower(), attr[3:])
        _LOWER_NAMES = names
    return _LOWER_NAMES


def keysym_from_name(name: str) -> int:
    """Resolve one key name (no '+') to a keysym; raises ``KeyNameError``."""
    if not name:
        raise KeyNameError(name, "empty")
    if len(name) == 1:
        try:
            return char_to_keysym(name)
        except ValueError as exc:
            raise KeyNameError(name, str(exc)) from exc
    if name.upper().startswith("U+"):
        try:
            return char_to_keysym(chr(int(name[2:], 16)))
        except (ValueError, OverflowError) as exc:
            raise KeyNameError(name, "not a Unicode code point") from exc
    keysym = XK.string_to_keysym(name)
    if keysym:
        return keysym
    alias = ALIASES.get(name.lower())
    if alias:
        return XK.string_to_keysym(alias)
    exact = _keysym_names_lower().get(name.lower())
    if exact:
        return XK.string_to_keysym(exact)
    raise KeyNameError(name)


def _split_combo(text: str) -> list[str]:
    """Split on '+' separators; a '+' where a key is expected is the plus key itself."""
    tokens: list[str] = []
    current = ""
    i = 0
    while i < len(text):
        if not current:
            match = _UNICODE_NAME.match(text, i)
            if match:
                current = match.group(0)
                i = match.end()
                continue
        char = text[i]
        i += 1
        if char != "+":
            current += char
            continue
        if current:
            tokens.append(current)
            current = ""
            if i == len(text):
                raise KeyNameError(text, "nothing after the last '+'")
            continue
        tokens.append("+")
        if i < len(text) and text[i] == "+":
            i += 1  # the separator after a literal plus
    if current:
        tokens.append(current)
    return tokens


def parse_combo(text: str) -> Combo:
    """``ctrl+shift+t`` -> Combo. A literal plus is ``plus``, ``+`` or ``ctrl++``."""
    if not text:
        raise KeyNameError(text, "empty")
    keysyms = tuple(keysym_from_name(name) for name in _split_combo(text))
    return Combo(keysyms=keysyms, text=text)


def parse_key_sequence(text: str) -> list[Combo]:
    """Space-separated combos, pressed one after another (xdotool ``key`` syntax)."""
    if not isinstance(text, str) or not text.strip():
        raise KeyNameError(str(text), "empty key text")
    if text == " ":
        return [parse_combo("space")]
    return [parse_combo(chunk) for chunk in text.split()]


def dom_key_to_keysym(key: str, code: str = "") -> int:
    """Keysym for a browser ``KeyboardEvent`` (``key`` value, ``code`` for modifiers)."""
    if key == "AltGraph":
        return XK.string_to_keysym("ISO_Level3_Shift")
    if key in DOM_MODIFIER_KEYS:
        return XK.string_to_keysym(DOM_MODIFIER_CODES.get(code, DOM_MODIFIER_KEYS[key]))
    if key in DOM_KEYS:
        return XK.string_to_keysym(DOM_KEYS[key])
    if len(key) == 1:
        return char_to_keysym(key)
    if key in ("Dead", "Unidentified", "Process"):
        raise KeyNameError(key, "the browser did not say which character this key makes")
    return keysym_from_name(key)


_NAME_BY_KEYSYM: dict[int, str] | None = None


def keysym_name(keysym: int) -> str:
    """A readable name for a keysym (for traces and errors)."""
    global _NAME_BY_KEYSYM
    if _NAME_BY_KEYSYM is None:
        names: dict[int, str] = {}
        for attr in sorted(dir(XK)):
            if attr.startswith("XK_"):
                names.setdefault(getattr(XK, attr), attr[3:])
        _NAME_BY_KEYSYM = names
    if keysym in _NAME_BY_KEYSYM:
        return _NAME_BY_KEYSYM[keysym]
    if keysym & 0xFF000000 == 0x1000000:
        return f"U+{keysym & 0xFFFFFF:04X}"
    return hex(keysym)
