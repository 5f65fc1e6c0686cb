"""The computer-use action vocabulary: validation and what gets injected."""

import asyncio

import pytest

from pixel_stream.actions import ACTIONS, ActionError, parse_action, perform_action

W, H = 1280, 800


class RecordingInjector:
    """Stands in for InputInjector: records calls instead of talking to X."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []
        self.position = (10, 20)

    def __getattr__(self, name):
        def call(*args):
            self.calls.append((name, *args))
            if name == "cursor_position":
                return self.position
            return None

        return call


async def run(fn, *args):
    return fn(*args)


def perform(data: dict) -> tuple[dict, list[tuple]]:
    injector = RecordingInjector()
    output = asyncio.run(perform_action(parse_action(data, W, H), injector, run))
    return output, injector.calls


def test_vocabulary_is_anthropics():
    assert set(ACTIONS) == {
        "screenshot", "cursor_position", "mouse_move", "left_click", "right_click",
        "middle_click", "double_click", "triple_click", "left_click_drag", "left_mouse_down",
        "left_mouse_up", "scroll", "type", "key", "hold_key", "wait",
    }


@pytest.mark.parametrize(
    ("data", "code", "fragment"),
    [
        ({"action": "fly"}, "unknown_action", "known actions"),
        ("left_click", "bad_request", "JSON object"),
        ({"action": "mouse_move"}, "bad_request", "needs coordinate"),
        ({"action": "left_click", "coordinate": [1280, 5]}, "bad_coordinate", "0..1279"),
        ({"action": "left_click", "coordinate": [-1, 5]}, "bad_coordinate", "outside"),
        ({"action": "left_click", "coordinate": [1.5, 5]}, "bad_request", "two integers"),
        ({"action": "left_click", "coordinate": [1, 2], "speed": 3}, "bad_request", "does not take"),
        ({"action": "key", "text": "ctrl+bogus"}, "bad_key", "accepted forms"),
        ({"action": "scroll", "scroll_direction": "sideways", "scroll_amount": 1}, "bad_request",
         "scroll_direction"),
        ({"action": "scroll", "scroll_direction": "up", "scroll_amount": -1}, "bad_request",
         "scroll_amount"),
        ({"action": "wait", "duration": 1000}, "bad_request", "duration"),
        ({"action": "type", "text": 42}, "bad_request", "string"),
        ({"action": "type", "text": "a\x07b"}, "bad_request", "cannot type"),
    ],
)
def test_bad_actions_are_refused_before_anything_is_injected(data, code, fragment):
    with pytest.raises(ActionError) as info:
        parse_action(data, W, H)
    assert info.value.code == code
    assert fragment in str(info.value)


def test_click_moves_then_clicks():
    _, calls = perform({"action": "double_click", "coordinate": [5, 6]})
    assert calls == [("move", 5, 6), ("click", 1, 2)]


def test_click_with_modifier_holds_it():
    _, calls = perform({"action": "left_click", "coordinate": [5, 6], "text": "shift"})
    assert calls[0] == ("move", 5, 6)
    assert calls[1][0] == "hold_combo" and calls[1][2] is True
    assert calls[2] == ("click", 1, 1)
    assert calls[3][0] == "hold_combo" and calls[3][2] is False


def test_drag_presses_moves_releases():
    _, calls = perform({"action": "left_click_drag", "start_coordinate": [10, 10],
                        "coordinate": [70, 40]})
    assert calls[0] == ("move", 10, 10)
    assert calls[1] == ("button", 1, True)
    assert calls[-2] == ("move", 70, 40)
    assert calls[-1] == ("button", 1, False)


def test_drag_without_start_uses_the_cursor():
    _, calls = perform({"action": "left_click_drag", "coordinate": [70, 40]})
    assert calls[0] == ("cursor_position",)
    assert calls[-1] == ("button", 1, False)


def test_scroll_key_type_and_cursor():
    _, calls = perform({"action": "scroll", "coordinate": [1, 2], "scroll_direction": "down",
                        "scroll_amount": 3})
    assert calls == [("move", 1, 2), ("scroll", "down", 3)]
    _, calls = perform({"action": "key", "text": "ctrl+a Delete"})
    assert [c[0] for c in calls] == ["press_combo", "press_combo"]
    _, calls = perform({"action": "type", "text": "héllo"})
    assert calls == [("type_text", "héllo")]
    output, _ = perform({"action": "cursor_position"})
    assert output == {"x": 10, "y": 20}


def test_hold_key_releases_after_duration():
    _, calls = perform({"action": "hold_key", "text": "shift", "duration": 0})
    assert [(c[0], c[2]) for c in calls] == [("hold_combo", True), ("hold_combo", False)]
