"""XTEST input reaches a Chromium text field: typed text equals what was sent."""

import pytest
from playwright.sync_api import sync_playwright

from pixel_stream.client import AgentClient
from pixel_stream.session import SessionThread

from .conftest import CHROMIUM, CHROMIUM_ARGS

pytestmark = pytest.mark.slow

TEXT = "Prior auth #4471 — Müller, José; 日本語; Ωmega ✓ (€12.50) ñ"
# More characters missing from the US keymap than the display has spare keycodes: typed
# twice, the second time on keycodes that meant something else a moment before.
MANY = "ñüßΩ€中文—ïéΣΔàèìòùâêîôûçø"


def test_agent_typing_reaches_a_chromium_field(display, tmp_path):
    with sync_playwright() as pw, SessionThread(display) as session:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, headless=False, env=display.env(),
            args=[*CHROMIUM_ARGS, "--window-position=0,0", "--window-size=900,600"],
        )
        try:
            page = browser.new_page()
            page.set_content("<input id=field style='font-size:18px;width:800px'>"
                             "<textarea id=area></textarea>")
            page.bring_to_front()
            page.focus("#field")
            with AgentClient(session.agent_url, session.token, control="take") as agent:
                agent.act({"action": "type", "text": TEXT})
                page.wait_for_function("(t) => document.getElementById('field').value === t",
                                       arg=TEXT, timeout=10000)
                agent.act({"action": "key", "text": "ctrl+a BackSpace"})
                page.wait_for_function("() => document.getElementById('field').value === ''")
                agent.act({"action": "type", "text": "AbC"})
                agent.act({"action": "key", "text": "shift+Home"})
                agent.act({"action": "type", "text": "x"})
                page.wait_for_function("() => document.getElementById('field').value === 'x'")
                for _ in range(2):
                    agent.act({"action": "key", "text": "ctrl+a BackSpace"})
                    page.wait_for_function(
                        "() => document.getElementById('field').value === ''")
                    agent.act({"action": "type", "text": MANY})
                    page.wait_for_function(
                        "(t) => document.getElementById('field').value === t", arg=MANY,
                        timeout=10000)
                page.focus("#area")
                agent.act({"action": "type", "text": "line one\nline two"})
                page.wait_for_function(
                    "() => document.getElementById('area').value === 'line one\\nline two'")
        finally:
            browser.close()
