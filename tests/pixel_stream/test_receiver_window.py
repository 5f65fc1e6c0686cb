"""The receiver as the workstation shows it: a headful Chromium window on a second display,
typed into through XTEST like an agent types (not through Playwright's keyboard).

This is the path every desktop task's text takes: XTEST on the workstation display,
Chromium's keydown/keypress in the receiver page, the data channel, XTEST on the
published display, the Qt app. The text below holds characters missing from the US
keymap (typed on remapped spare keycodes on both displays), more of them than there are
spare keycodes (so keycodes are reused and a stale keymap would show), capitals and
shifted punctuation, and a paragraph typed at full speed.
"""


import pytest
from playwright.sync_api import sync_playwright

from pixel_stream.display import Display
from pixel_stream.keys import parse_combo
from pixel_stream.session import SessionThread
from pixel_stream.xinput import InputInjector

from .conftest import CHROMIUM, CHROMIUM_ARGS

pytestmark = pytest.mark.slow

TEXTS = [
    "Patient Tomás Ramírez was documented in error; metoprolol 25 mg as before (q12h).",
    # long enough that key messages queue up at the session faster than one round trip
    # each would inject them (they once overflowed a 256-message queue and were dropped)
    "New - spironolactone 25 mg once a day and empagliflozin 10 mg once a day. Stop "
    "diltiazem. Furosemide is now 40 mg once a day. Keep taking atorvastatin, "
    "levothyroxine and metoprolol as before. Call the clinic if you gain 2 kg in 3 days.",
    "Señor Müller: ß ñ Ω € 中文 — naïve café; O'Brien \"quoted\" {x} [y] <z> |~ "
    "àèìòùâêîôûçø ΣΔ done?",
]


@pytest.fixture(scope="module")
def session(display, board):
    with SessionThread(display, token="receiver-window-token") as running:
        yield running


@pytest.fixture(scope="module")
def workstation():
    with Display(1280, 800) as started:
        yield started


@pytest.fixture(scope="module")
def window(session, workstation, tmp_path_factory):
    """The receiver page in a Chromium app window on the workstation display."""
    profile = tmp_path_factory.mktemp("receiver-profile")
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=False, env=workstation.env(),
            no_viewport=True, ignore_default_args=["--enable-automation", "about:blank"],
            args=[*CHROMIUM_ARGS, "--window-position=0,0", "--window-size=1280,800",
                  f"--app={session.url}", "--force-device-scale-factor=1", "--test-type",
                  "--autoplay-policy=no-user-gesture-required"])
        page = context.pages[0]
        page.wait_for_function(
            "() => window.pixelStream && pixelStream.state.channel &&"
            " pixelStream.state.channel.readyState === 'open' &&"
            " pixelStream.state.timeline.first_frame_presented !== undefined", timeout=30000)
        yield page
        context.close()


# true once the screen element is where it was two animation frames ago
STILL = """() => new Promise(done => {
    const where = () => { const r = document.getElementById('screen').getBoundingClientRect();
                          return [r.left, r.top, window.scrollX, window.scrollY].join(); };
    const before = where();
    requestAnimationFrame(() => requestAnimationFrame(() => done(where() === before)));
})"""


def click_remote(page, injector, x, y):
    """Click the published screen's (x, y) through the receiver window."""
    origin = page.evaluate("""() => { const r = document.getElementById('screen')
        .getBoundingClientRect(); return [window.screenX + r.left, window.screenY + r.top]; }""")
    injector.move(round(origin[0] + x), round(origin[1] + y))
    injector.click()


def test_text_typed_into_the_window_arrives_exactly(window, workstation, board):
    keys = InputInjector(workstation.name)
    try:
        # the first click focuses the video (the page may scroll it into view)
        click_remote(window, keys, *board.center("entry"))
        window.wait_for_function("() => document.activeElement.id === 'screen'")
        # the second click waits for the video to hold still (the scroll done), not a delay
        window.wait_for_function(STILL)
        click_remote(window, keys, *board.center("entry"))
        board.wait_for(lambda s: s["entry_focus"], "the entry to take the focus")
        for round_ in range(2):
            for text in TEXTS:
                keys.press_combo(parse_combo("ctrl+a"))
                keys.press_combo(parse_combo("BackSpace"))
                board.wait_for(lambda s: s["text"] == "", "the entry to be cleared")
                keys.type_text(text)
                # nothing else is sent: a key held back anywhere on the way stays missing
                try:
                    board.wait_for(lambda s, t=text: s["text"] == t, "the text", timeout=15)
                except TimeoutError as exc:
                    raise AssertionError(
                        f"round {round_}: typed {text!r}, the app shows "
                        f"{board.status()['text']!r}") from exc
    finally:
        keys.close()
