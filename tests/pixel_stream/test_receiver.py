"""The receiver page in headless Chromium: video 1:1, input forwarding, view-only, and
no clipboard in either direction."""

import pytest
from playwright.sync_api import sync_playwright

from pixel_stream.session import SessionThread

from .conftest import CHROMIUM, CHROMIUM_ARGS

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def session(display, board, tmp_path_factory):
    with SessionThread(display, token="receiver-test-token",
                       record_dir=tmp_path_factory.mktemp("trace")) as running:
        yield running


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def open_receiver(browser, url):
    page = browser.new_page(viewport={"width": 1300, "height": 860})
    page.goto(url)
    page.wait_for_function("() => pixelStream.state.timeline.first_frame_presented !== undefined",
                           timeout=20000)
    page.wait_for_function(
        "() => pixelStream.state.channel && pixelStream.state.channel.readyState === 'open'")
    return page


@pytest.fixture(scope="module")
def page(browser, session):
    page = open_receiver(browser, session.url)
    yield page
    page.close()


def screen_point(page, x, y):
    box = page.locator("#screen").bounding_box()
    return box["x"] + x, box["y"] + y


def test_stream_plays_one_to_one(page):
    size = page.evaluate("() => { const v = document.getElementById('screen');"
                         " return [v.videoWidth, v.videoHeight, v.clientWidth, v.clientHeight]; }")
    assert size == [1280, 800, 1280, 800]
    assert page.evaluate("() => pixelStream.state.role") == "controller"
    assert page.locator("#codec").text_content() == "H264"


def test_connection_strength_is_shown_without_repainting_every_second(page):
    page.wait_for_function("() => pixelStream.state.rttMs !== null", timeout=5000)
    pill = page.locator("#latency")
    assert pill.text_content() in ("Excellent", "Good", "Poor")
    assert pill.get_attribute("title").endswith(" ms")
    # a new round trip in the same band keeps the word (and the window's pixels): the pill
    # changes only when the word does
    first = pill.text_content()
    texts = page.evaluate("""async () => {
        const pill = document.getElementById("latency");
        const seen = [];
        const watcher = new MutationObserver(() => seen.push(pill.textContent));
        watcher.observe(pill, {childList: true, characterData: true, subtree: true});
        await new Promise(r => setTimeout(r, 2500));
        watcher.disconnect();
        return seen;
    }""")
    words = [first, *texts]
    assert all(a != b for a, b in zip(words, words[1:], strict=False)), words


def test_mouse_and_keyboard_reach_the_app(page, board):
    presses = board.status()["presses"]
    page.mouse.click(*screen_point(page, *board.center("patch")))
    board.wait_for(lambda s: s["presses"] == presses + 1, "the click to reach the patch")

    page.mouse.click(*screen_point(page, *board.center("entry")))
    page.keyboard.press("Control+a")
    page.keyboard.press("Backspace")
    board.wait_for(lambda s: s["text"] == "", "the entry to be cleared")
    page.keyboard.type("Hello, World 42!")
    # characters no US key makes arrive as DOM key events too (e.g. from another layout)
    for char in "éß中":
        page.evaluate("(c) => { for (const t of ['keydown', 'keyup']) window.dispatchEvent("
                      "new KeyboardEvent(t, {key: c, code: 'KeyQ', bubbles: true})); }", char)
    board.wait_for(lambda s: s["text"] == "Hello, World 42!éß中", "typed text to arrive")
    # Shift stays a modifier for keys that are not characters
    page.keyboard.press("Shift+Tab")
    board.wait_for(lambda s: not s["entry_focus"], "Shift+Tab to move the focus away")
    page.mouse.click(*screen_point(page, *board.center("entry")))
    board.wait_for(lambda s: s["entry_focus"], "a click to bring the focus back")


def test_view_only_viewer_cannot_act(browser, session, board):
    viewer = open_receiver(browser, session.url + "&view_only=1")
    try:
        assert viewer.evaluate("() => pixelStream.state.role") == "viewer"
        assert viewer.locator("#role").text_content() == "view only"
        presses = board.status()["presses"]
        viewer.mouse.click(*screen_point(viewer, *board.center("patch")))
        # and even a hand-made input message is refused by the server
        reply = viewer.evaluate("""() => new Promise((resolve) => {
            const ch = pixelStream.state.channel;
            ch.addEventListener('message', (e) => {
                const m = JSON.parse(e.data); if (m.t === 'error') resolve(m); });
            ch.send(JSON.stringify({t: 'button', button: 1, down: true, x: 5, y: 5}));
        })""")
        assert reply["code"] == "view_only"
        assert board.status()["presses"] == presses
    finally:
        viewer.close()


def test_local_paste_is_not_forwarded(page, board, session):
    page.mouse.click(*screen_point(page, *board.center("entry")))
    page.keyboard.press("End")
    before = board.status()["text"]
    page.evaluate("""() => {
        const data = new DataTransfer();
        data.setData('text/plain', 'LOCAL-SECRET');
        document.getElementById('screen').dispatchEvent(
            new ClipboardEvent('paste', {clipboardData: data, bubbles: true, cancelable: true}));
    }""")
    page.wait_for_function("() => document.getElementById('notice').textContent.includes("
                           "'Clipboard is disabled')")
    page.keyboard.type("!")  # a later key still arrives, so the paste had its chance
    board.wait_for(lambda s: s["text"] == before + "!", "the next key")
    assert "LOCAL-SECRET" not in board.status()["text"]
    trace = (session.session.recorder.path).read_text()
    assert "LOCAL-SECRET" not in trace


def test_clipboard_messages_are_refused_by_the_server(page):
    reply = page.evaluate("""() => new Promise((resolve) => {
        const ch = pixelStream.state.channel;
        ch.addEventListener('message', (e) => {
            const m = JSON.parse(e.data); if (m.t === 'error') resolve(m); });
        ch.send(JSON.stringify({t: 'clipboard', text: 'LOCAL-SECRET'}));
    })""")
    assert reply["code"] == "policy" and "clipboard" in reply["message"]


def test_remote_copy_never_reaches_the_local_clipboard(page, board, session):
    response = page.request.get(session.url)
    assert "clipboard-read=()" in response.headers["permissions-policy"]
    assert "clipboard-write=()" in response.headers["permissions-policy"]
    # the page itself may not touch the clipboard, whatever a script tries
    denied = page.evaluate("""async () => {
        const out = [];
        for (const op of [() => navigator.clipboard.writeText('x'),
                          () => navigator.clipboard.readText()]) {
            try { await op(); out.push('allowed'); } catch (e) { out.push(e.name); }
        }
        return out;
    }""")
    assert "allowed" not in denied
    # copy inside the remote app: nothing about it arrives at the page
    page.evaluate("""() => { window.seen = [];
        pixelStream.state.channel.addEventListener('message', (e) => window.seen.push(e.data));
        pixelStream.state.ws.addEventListener('message', (e) => window.seen.push(e.data)); }""")
    page.mouse.click(*screen_point(page, *board.center("entry")))
    # text of its own: the tests of this module may run on other workers, in any order
    page.keyboard.press("Control+a")
    page.keyboard.type("remote-copy-7301")
    board.wait_for(lambda s: s["text"] == "remote-copy-7301", "the typed text to arrive")
    page.keyboard.press("Control+a")
    page.keyboard.press("Control+c")
    page.wait_for_function("() => pixelStream.state.rttMs !== null")
    page.wait_for_function("() => window.seen.some((m) => m.includes('pong'))", timeout=5000)
    assert not any("remote-copy-7301" in message for message in page.evaluate("window.seen"))


def test_an_ended_session_is_not_shown_as_in_control(browser, display, tmp_path):
    with SessionThread(display, token="ending-test-token", record_dir=tmp_path) as ending:
        page = open_receiver(browser, ending.url)
        assert page.locator("#role").text_content() == "in control"
        ending.call(ending.session.stop)
        page.wait_for_function("() => pixelStream.state.ended", timeout=10000)
    try:
        assert page.locator("#state").text_content().startswith("session ended")
        assert page.locator("#role").text_content() == "no session"
        assert page.evaluate("() => pixelStream.state.role") == "viewer"
    finally:
        page.close()
