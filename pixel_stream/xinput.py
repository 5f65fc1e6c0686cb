"""Input injection into an X display through one persistent XTEST connection.

Everything a viewer or an agent does arrives here as pointer motion, button presses,
wheel clicks and key presses by keysym. XTEST events go through the server's normal input
path (the "Virtual core XTEST" devices), so toolkits that read XInput2 (Qt 6, Chromium)
see them like a real keyboard and mouse.

Typing any Unicode text: characters whose keysym the keyboard map has at level 1 or 2 are
typed on their key (with Shift when needed). For the rest a spare keycode (one with no
symbols) is remapped to the keysym, both levels, and pressed. Spare keycodes are used
round-robin and keep their mapping until they are needed again, so repeated characters
cause no further remapping; after each remapping the injector waits ``REMAP_SETTLE_S`` so
toolkits see the change before the key arrives. The original (empty) mapping is restored
on ``close()``.

The connection is libX11's, driven through ctypes (``pixel_stream.xtest_c``): a typed key
costs two XTEST requests and two round trips, built and parsed in C, not in Python.

Every public call ends with a round trip to the server, so it returns only once the server
has processed its events. Flushing is not enough: with Xvfb 21.1, fake-input requests
flushed on this connection sometimes stayed unprocessed (an XI2 raw-event listener saw
none of them) until the same connection sent something more; a request from another
connection did not release them. The tail of a typed text then waited, seen by no
application, for as long as nobody touched the keyboard or mouse again.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator

from Xlib import XK, X

from pixel_stream.keys import (
    MODIFIER_KEYSYMS,
    Combo,
    char_to_keysym,
    keysym_name,
)
from pixel_stream.xtest_c import XConnection, XConnectionError

BUTTONS = {"left": 1, "middle": 2, "right": 3}
WHEEL_BUTTONS = {"up": 4, "down": 5, "left": 6, "right": 7}
SHIFT_L = XK.string_to_keysym("Shift_L")
SHIFT_R = XK.string_to_keysym("Shift_R")
# A remapped keycode that is reused for another keysym waits this long first, so a
# toolkit that is still behind (re-reading the keymap) cannot mistake the old key press.
REMAP_REUSE_PAUSE_S = 0.03
# Between the clicks of a double or triple click. Sent back to back, a Qt 6 widget
# missed one press of a double click about once in 50; with this gap (xdotool's default
# click delay is 12 ms), none in 50.
CLICK_GAP_S = 0.02
# After remapping a keycode, before pressing it (see ``_remap``).
REMAP_SETTLE_S = 0.05
# ... and after remapping a keycode that held another character: a client still behind
# would type that character instead of dropping the key. Under a full test run's load the
# receiver's Chromium once typed the old "€" for a new "Σ" after 0.05 s. Reuse comes only
# after more different characters than there are spare keycodes (18 on Xvfb).
REMAP_REUSE_SETTLE_S = 0.15


class InputError(ValueError):
    """An input request that cannot be carried out (off screen, unknown button, the display
    gone...)."""


@contextlib.contextmanager
def _x_errors() -> Iterator[None]:
    """The connection's errors (display gone, protocol error) as ``InputError``."""
    try:
        yield
    except XConnectionError as exc:
        raise InputError(str(exc)) from None


class InputInjector:
    """Mouse and keyboard of one X display, driven through XTEST."""

    def __init__(self, display_name: str) -> None:
        self.display_name = display_name
        self._lock = threading.RLock()
        with _x_errors():
            self._conn = XConnection(display_name)
        self.width = self._conn.width
        self.height = self._conn.height
        self._min_kc = self._conn.min_keycode
        self._max_kc = self._conn.max_keycode
        self._remapped: OrderedDict[int, int] = OrderedDict()  # keycode -> keysym
        self._held_keys: dict[int, int] = {}  # keycode -> press count
        self._held_buttons: set[int] = set()
        self._batch_depth = 0
        self._closed = False
        try:
            with _x_errors():
                self._load_keymap()
                # Key repeat belongs to the client (a browser repeats keydown itself). Left
                # on, a press whose release is delayed by load or network becomes a burst
                # of repeats.
                self._autorepeat_was_on = self._conn.auto_repeat()
                self._conn.set_auto_repeat(False)
                self._conn.sync()
        except InputError:
            self._conn.close()
            raise

    # -- keymap ----------------------------------------------------------------------
    def _load_keymap(self) -> None:
        mapping = self._conn.keyboard_mapping()
        self._keymap: dict[int, tuple[int, int]] = {}  # keysym -> (keycode, level)
        self._spare: list[int] = []
        rows: list[tuple[int, tuple[int, ...]]] = []
        for offset, syms in enumerate(mapping):
            keycode = self._min_kc + offset
            if not any(syms):
                self._spare.append(keycode)
                continue
            rows.append((keycode, syms))
        for level in (0, 1):  # a symbol on a key's first level wins over a shifted one
            for keycode, syms in rows:
                if level < len(syms) and syms[level]:
                    self._keymap.setdefault(syms[level], (keycode, level))
        self._shift_codes = {
            self._keymap[sym][0] for sym in (SHIFT_L, SHIFT_R) if sym in self._keymap
        }
        # Keep the high keycodes (usually unused by layouts) and avoid 8..10.
        self._spare = [kc for kc in self._spare if kc > 10][::-1]
        self._spare_cursor = 0
        if not self._spare:
            raise InputError(
                f"display {self.display_name} has no spare keycode for typing characters "
                "missing from its keymap"
            )

    def has_key_for(self, keysym: int) -> bool:
        """A key already makes ``keysym``: pressing it needs no remapping (which waits)."""
        return keysym in self._keymap or keysym in self._remapped.values()

    def _keycode_for(self, keysym: int) -> tuple[int, bool]:
        """(keycode, needs_shift) for ``keysym``, remapping a spare keycode if needed."""
        found = self._keymap.get(keysym)
        if found is not None:
            return found[0], found[1] == 1
        for keycode, mapped in self._remapped.items():
            if mapped == keysym:
                self._remapped.move_to_end(keycode)
                return keycode, False
        return self._remap(keysym), False

    def _remap(self, keysym: int) -> int:
        settle_s = REMAP_SETTLE_S
        if len(self._remapped) < len(self._spare):
            keycode = self._spare[len(self._remapped)]
        else:
            settle_s = REMAP_REUSE_SETTLE_S
            # the oldest remapped keycode not held down (a held one keeps its symbol until
            # it is released, and stays known for that release)
            keycode = next((kc for kc in self._remapped if kc not in self._held_keys), 0)
            if not keycode:
                raise InputError("too many different held keys; release some first")
            del self._remapped[keycode]
            with _x_errors():  # the old symbol's last press and release go out first
                self._conn.sync()
            time.sleep(REMAP_REUSE_PAUSE_S)
        with _x_errors():
            self._conn.change_keyboard_mapping(keycode, (keysym, keysym))
            self._conn.sync()
        # Clients learn of the change from a MappingNotify and re-read the keymap while
        # the key may already be on its way: Chromium then reports the old symbol (or
        # none) and Qt can drop the key. A short wait, paid once per new character on
        # this display, lets them catch up.
        time.sleep(settle_s)
        self._remapped[keycode] = keysym
        return keycode

    # -- pointer ---------------------------------------------------------------------
    def check_point(self, x: int, y: int) -> None:
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise InputError(
                f"coordinate ({x}, {y}) is outside the {self.width}x{self.height} screen; "
                f"x must be 0..{self.width - 1} and y 0..{self.height - 1}"
            )

    def move(self, x: int, y: int) -> None:
        """Move the pointer to (x, y) (absolute)."""
        self.check_point(x, y)
        with self._lock, _x_errors():
            self._conn.fake_motion(x, y)
            self._delivered()

    def button(self, button: int, down: bool) -> None:
        """Press or release mouse button 1..9 (4-7 are wheel clicks)."""
        with self._lock:
            self._button(button, down)
            self._delivered()

    def _button(self, button: int, down: bool) -> None:
        if not 1 <= button <= 9:
            raise InputError(f"mouse button must be 1..9, got {button!r}")
        if down:
            self._held_buttons.add(button)
        else:
            self._held_buttons.discard(button)
        with _x_errors():
            self._conn.fake_button(button, down)

    def click(self, button: int = 1, count: int = 1) -> None:
        """``count`` presses and releases, ``CLICK_GAP_S`` apart."""
        with self._lock:
            for i in range(count):
                if i:
                    self._delivered(pause=True)
                    time.sleep(CLICK_GAP_S)
                self._button(button, True)
                self._button(button, False)
            self._delivered()

    def scroll(self, direction: str, amount: int = 1) -> None:
        """``amount`` wheel clicks up/down/left/right."""
        if direction not in WHEEL_BUTTONS:
            raise InputError(
                f"scroll direction must be one of {', '.join(WHEEL_BUTTONS)}, got {direction!r}"
            )
        if not isinstance(amount, int) or not 0 <= amount <= 100:
            raise InputError(f"scroll amount must be an integer 0..100, got {amount!r}")
        with self._lock:
            for _ in range(amount):  # wheel clicks go together, with no click gap
                self._button(WHEEL_BUTTONS[direction], True)
                self._button(WHEEL_BUTTONS[direction], False)
            self._delivered()

    def cursor_position(self) -> tuple[int, int]:
        with self._lock, _x_errors():
            return self._conn.query_pointer()

    # -- keyboard --------------------------------------------------------------------
    def key(self, keysym: int, down: bool) -> int:
        """Press or release the key for ``keysym`` (no automatic Shift); returns the keycode."""
        with self._lock:
            keycode, _shift = self._keycode_for(keysym)
            self._key_code(keycode, down)
            self._delivered()
            return keycode

    def press_symbol(self, keysym: int) -> int:
        """Press the key that makes ``keysym``, whatever Shift state is held; returns keycode.

        A receiver forwards the character a key produced (DOM ``key``), so the character
        decides: Shift is added or lifted around the press when the keymap needs it
        (x11vnc calls this "modtweak"). Keys that are not characters (Tab, arrows, F-keys)
        are pressed as they are, so Shift+Tab and Shift+arrow keep their meaning.
        """
        with self._lock:
            keycode, needs_shift = self._keycode_for(keysym)
            is_character = keysym < 0xFF00 or keysym & 0xFF000000 == 0x1000000
            held_shifts = [kc for kc in self._held_keys if self._is_shift_code(kc)]
            remapped = keycode in self._remapped
            if not is_character or remapped or needs_shift == bool(held_shifts):
                self._key_code(keycode, True)
            elif needs_shift:
                shift = self._keymap[SHIFT_L][0]
                self._fake(shift, True)
                self._key_code(keycode, True)
                self._fake(shift, False)
            else:
                for kc in held_shifts:
                    self._fake(kc, False)
                self._key_code(keycode, True)
                for kc in held_shifts:
                    self._fake(kc, True)
            self._delivered()
            return keycode

    def _fake(self, keycode: int, down: bool) -> None:
        """A press or release that does not change what this injector thinks is held."""
        with _x_errors():
            self._conn.fake_key(keycode, down)

    def key_code(self, keycode: int, down: bool) -> None:
        """Press or release a keycode obtained from ``key``."""
        with self._lock:
            self._key_code(keycode, down)
            self._delivered()

    def _key_code(self, keycode: int, down: bool) -> None:
        if down:
            self._held_keys[keycode] = self._held_keys.get(keycode, 0) + 1
        else:
            self._held_keys.pop(keycode, None)
        with _x_errors():
            self._conn.fake_key(keycode, down)

    def press_combo(self, combo: Combo) -> None:
        """Press modifiers, tap the key (adding Shift if its symbol needs it), release."""
        with self.batch():
            pressed: list[int] = []
            try:
                for keysym in combo.modifiers:
                    pressed.append(self.key(keysym, True))
                keycode, needs_shift = self._keycode_for(combo.key)
                shift_held = any(self._is_shift_code(kc) for kc in pressed)
                if needs_shift and not shift_held and combo.key not in MODIFIER_KEYSYMS:
                    pressed.append(self.key(SHIFT_L, True))
                self._key_code(keycode, True)
                self._key_code(keycode, False)
            finally:
                for kc in reversed(pressed):
                    self._key_code(kc, False)

    def hold_combo(self, combo: Combo, down: bool) -> None:
        """Press (or release, in reverse order) every key of ``combo``."""
        with self.batch():
            order = combo.keysyms if down else tuple(reversed(combo.keysyms))
            for keysym in order:
                self.key(keysym, down)

    def _is_shift_code(self, keycode: int) -> bool:
        return keycode in self._shift_codes

    def type_text(self, text: str, delay_s: float = 0.0) -> None:
        """Type ``text`` character by character (any Unicode; newline is Return)."""
        keysyms = [char_to_keysym(ch) for ch in text]  # validate everything first
        with self._lock:
            for keysym in keysyms:
                keycode, needs_shift = self._keycode_for(keysym)
                shift_down = needs_shift and not any(
                    self._is_shift_code(kc) for kc in self._held_keys
                )
                if shift_down:
                    self._key_code(self._keymap[SHIFT_L][0], True)
                self._key_code(keycode, True)
                self._key_code(keycode, False)
                if shift_down:
                    self._key_code(self._keymap[SHIFT_L][0], False)
                if delay_s:
                    self._delivered(pause=True)
                    time.sleep(delay_s)
            self._delivered()

    # -- housekeeping ----------------------------------------------------------------
    @property
    def held(self) -> dict[str, list]:
        """Keys and buttons currently held down (for diagnostics)."""
        return {
            "buttons": sorted(self._held_buttons),
            "keycodes": sorted(self._held_keys),
        }

    def release_all(self) -> None:
        """Release every key and button this injector pressed (a client went away)."""
        with self.batch():
            for keycode in list(self._held_keys):
                self._key_code(keycode, False)
            for button in list(self._held_buttons):
                self.button(button, False)

    def _delivered(self, pause: bool = False) -> None:
        """Wait until the server has processed everything sent so far (see the module
        docstring: a flush alone can leave events waiting in the server). Inside
        ``batch()`` nothing, unless a pause follows (``pause``): the requests go out with
        the round trip at its end, one write instead of one per call."""
        if self._batch_depth and not pause:
            return
        with _x_errors():
            self._conn.sync()

    @contextlib.contextmanager
    def batch(self) -> Iterator[InputInjector]:
        """Calls made inside go out at once and share one round trip at the end, which
        holds the lock meanwhile (receiver input that queued up is injected this way)."""
        with self._lock:
            self._batch_depth += 1
            try:
                yield self
            finally:
                self._batch_depth -= 1
                if self._batch_depth == 0 and not self._closed:
                    with _x_errors():
                        self._conn.sync()

    def sync(self) -> None:
        """Round trip: every event injected so far has been processed by the server."""
        with self._lock, _x_errors():
            self._conn.sync()

    def close(self) -> None:
        """Release held input, restore remapped keycodes, close the connection."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                self.release_all()
                for keycode in self._remapped:
                    self._conn.change_keyboard_mapping(keycode, (X.NoSymbol, X.NoSymbol))
                self._remapped.clear()
                if self._autorepeat_was_on:
                    self._conn.set_auto_repeat(True)
                self._conn.sync()
            except Exception:  # noqa: BLE001 - the display may already be gone
                pass
            finally:
                try:
                    self._conn.close()
                except Exception:  # noqa: BLE001 - ditto
                    pass

    def __enter__(self) -> InputInjector:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def describe_keysym(self, keysym: int) -> str:
        return keysym_name(keysym)
