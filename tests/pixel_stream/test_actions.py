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

        call.__name__ = name  # as a bound method of the real injector is named
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


def test_a_cancelled_type_stops_between_chunks():
    """What an agent that disconnects leaves running is cancelled (agent_api): the rest of
    a long text is not typed for nobody."""
    injector = RecordingInjector()
    typed = asyncio.Event()

    async def busy_run(fn, *args):
        result = fn(*args)
        typed.set()
        await asyncio.sleep(3600)  # the input thread is busy until cancelled
        return result

    async def scenario():
        task = asyncio.create_task(perform_action(
            parse_action({"action": "type", "text": "x" * 1000}, W, H), injector, busy_run))
        await typed.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    assert injector.calls == [("type_text", "x" * 32)]


def test_what_an_agent_holds_is_released_even_if_cancelled_while_pressing():
    from pixel_stream.agent_api import HeldInput

    injector = RecordingInjector()
    pressing = asyncio.Event()

    class Session:
        accepts_input = True

        def __init__(self):
            self.injector = injector

        async def run_input(self, fn, *args):
            return fn(*args)

    async def busy_run(fn, *args):
        result = fn(*args)
        if args[-1] is True:
            pressing.set()
            await asyncio.sleep(3600)  # cancelled before perform_action's try/finally
        return result

    async def scenario():
        held = HeldInput()
        await held.runner(run)(injector.button, 1, True)
        await held.runner(run)(injector.button, 1, False)
        assert held.buttons == set()  # pressed and released: nothing held
        run_tracked = held.runner(busy_run)
        mouse = asyncio.create_task(perform_action(
            parse_action({"action": "left_mouse_down"}, W, H), injector, run_tracked))
        await pressing.wait()
        mouse.cancel()
        pressing.clear()
        hold = asyncio.create_task(perform_action(
            parse_action({"action": "hold_key", "text": "shift", "duration": 100}, W, H),
            injector, run_tracked))
        await pressing.wait()
        hold.cancel()
        for task in (mouse, hold):
            with pytest.raises(asyncio.CancelledError):
                await task
        injector.calls.clear()
        await held.release(Session())
        assert [(c[0], c[-1]) for c in injector.calls] == [("button", False),
                                                            ("hold_combo", False)]

    asyncio.run(scenario())
