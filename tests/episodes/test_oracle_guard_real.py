"""The oracle guard against what gold code could really do: ``load_gold`` refuses a
``gold.py`` that reaches for code execution, imports or namespaces (and never runs it), and
the read-only proxies refuse every acting method of real Chromium pages and locators while
their reads work."""

from __future__ import annotations

import asyncio
import contextlib
import inspect

import pytest

from episodes.lockdown import find_chromium
from episodes.oracle import READ_ONLY_METHODS, OracleViolation, ReadOnly, load_gold
from episodes.oracle.guard import READ_ONLY_PROPERTIES
from tests.requirements import requires

# each line would run or import code, or reach a namespace, around the guard
BAD_GOLD = {
    "exec": "exec('import os')",
    "exec-alias": "run = exec\nrun('x = 1')",
    "eval": "eval('1 + 1')",
    "eval-alias": "ev = eval",
    "__import__": "__import__('os')",
    "__import__-alias": "imp = __import__",
    "__builtins__": "__builtins__['exec']('x = 1')",
    "importlib": "import importlib",
    "importlib-from": "from importlib import import_module",
    "subprocess": "import subprocess",
    "subprocess-from": "from subprocess import run",
    "os": "import os",
    "os.path": "import os.path as p",
    "os-from": "from os import system",
    "vars()": "vars()",
    "vars-alias": "v = vars",
    "__dict__": "d = solve.__dict__",
    "__globals__": "g = solve.__globals__",
    "globals": "g = globals",
    "breakpoint": "breakpoint()",
    "compile": "c = compile('1', 'x', 'eval')",
    "__loader__": "loader = __loader__",
    "__spec__": "spec = __spec__",
}


@pytest.mark.parametrize("line", BAD_GOLD.values(), ids=BAD_GOLD.keys())
def test_load_gold_refuses_a_gold_py_that_reaches_around_the_guard(tmp_path, line):
    task = tmp_path / "T-01"
    task.mkdir()
    # were it imported, the module would fail with SystemExit, not an OracleViolation
    (task / "gold.py").write_text(f"def solve(o):\n    pass\n\n\n{line}\n"
                                  "raise SystemExit('the bad gold.py was run')\n")
    with pytest.raises(OracleViolation, match="gold code acts around the agent API"):
        load_gold(task)


PAGE = """<title>form</title><label>Name <input id=n value=Ann></label>
<button onclick="document.title = 'clicked'">Go</button><p>hello</p>"""


def _chromium() -> str | None:
    try:
        return find_chromium()
    except Exception:  # noqa: BLE001 - absent
        return None


@pytest.mark.slow
@requires(_chromium() is not None, "chromium is not installed")
def test_read_only_proxies_of_real_chromium_pages_read_and_refuse_every_acting_method():
    from playwright.async_api import async_playwright

    async def scenario() -> dict[str, object]:
        loop = asyncio.get_running_loop()

        def run(coro):
            return asyncio.run_coroutine_threadsafe(coro, loop).result(timeout=20)

        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=_chromium(),
                                               args=["--no-sandbox"])
            try:
                real = await browser.new_page()
                await real.set_content(PAGE)
                page = ReadOnly(real, run, "tab('ehr')")

                def as_gold() -> dict[str, object]:
                    # reading works on the real page
                    button = page.get_by_role("button", name="Go")
                    box = button.bounding_box()
                    seen = {"title": page.title(), "visible": button.is_visible(),
                            "value": page.get_by_label("Name").input_value(),
                            "box": box, "text": page.locator("p").first.inner_text(),
                            "count": page.locator("input").count(), "refused": []}
                    # every public method of a real Page and Locator that is not a read
                    for target, proxy in ((real, page), (real.locator("#n"),
                                                         page.locator("#n"))):
                        for name, _ in inspect.getmembers(type(target)):
                            if name.startswith("_") or name in READ_ONLY_METHODS \
                                    or name in READ_ONLY_PROPERTIES:
                                continue
                            with pytest.raises(OracleViolation):
                                getattr(proxy, name)
                            seen["refused"].append(name)
                    return seen

                seen = await asyncio.to_thread(as_gold)
                seen["after"] = (await real.title(), await real.locator("#n").input_value())
                return seen
            finally:
                await browser.close()

    seen = asyncio.run(scenario())
    assert seen["title"] == "form" and seen["visible"] is True and seen["value"] == "Ann"
    assert seen["text"] == "hello" and seen["count"] == 1 and seen["box"]
    refused = set(seen["refused"])
    assert {"click", "fill", "type", "press", "evaluate", "goto", "set_input_files",
            "dispatch_event", "keyboard", "mouse", "context", "set_content",
            "element_handle", "select_option", "check"} <= refused
    assert seen["after"] == ("form", "Ann")  # nothing acted on the page


BARRED = """<style>body { margin: 0 } .bar { position: sticky; bottom: 0; height: 60px;
background: #eee } header { position: fixed; top: 0; height: 40px; width: 100%;
background: #ddd }</style><header>Top bar <button id=menu>Menu</button></header>
<div style="height: 700px"></div><label id=caption for=s>Type of document</label>
<select id=s><option>- Select -</option></select><div style="height: 900px"></div>
<div class=bar><button id=save>Save draft</button></div>"""


@contextlib.asynccontextmanager
async def _barred_page():
    """A headless page showing ``BARRED`` at 800x740."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=_chromium(), args=["--no-sandbox"])
        try:
            page = await browser.new_page(viewport={"width": 800, "height": 740})
            await page.set_content(BARRED)
            yield page
        finally:
            await browser.close()


@pytest.mark.slow
@requires(_chromium() is not None, "chromium is not installed")
def test_an_element_under_a_sticky_or_fixed_bar_is_covered_and_one_in_it_is_not():
    from episodes.oracle.locators import covered_by_a_bar

    async def scenario() -> list[bool]:
        async with _barred_page() as page:
            caption = page.locator("#caption")
            seen = [await covered_by_a_bar(caption)]  # under the sticky footer
            await page.evaluate("scrollBy(0, 300)")
            seen.append(await covered_by_a_bar(caption))  # in the open
            await page.evaluate("scrollTo(0, 690)")
            seen.append(await covered_by_a_bar(caption))  # under the fixed header
            seen += [await covered_by_a_bar(page.locator("#save")),  # in the bars
                     await covered_by_a_bar(page.locator("#menu"))]
            return seen

    assert asyncio.run(scenario()) == [True, False, True, False, False]


@pytest.mark.slow
@requires(_chromium() is not None, "chromium is not installed")
def test_screen_box_reads_the_window_and_the_bars_in_one_look_as_the_separate_reads_do():
    """One evaluate gives the window's metrics and the bar check (two round trips fewer per
    located element); in a frame it falls back to the page's own reads."""
    from episodes.oracle.locators import PLACE, content_origin, covered_by_a_bar, screen_box

    async def both(page, locator):
        box, (width, height, x0, y0), covered = await screen_box(locator, 5)
        separate = (await page.evaluate("() => [innerWidth, innerHeight]"),
                    await content_origin(page), await covered_by_a_bar(locator))
        return (box.y, [width, height], (x0, y0), covered), separate

    async def scenario():
        async with _barred_page() as page:
            # the one look itself works in the top frame (not a fallback every time)
            assert (await page.locator("#caption").evaluate(PLACE))["covered"] is True
            seen = [await both(page, page.locator("#caption"))]
            await page.evaluate("scrollBy(0, 300)")
            seen.append(await both(page, page.locator("#caption")))
            await page.set_content('<p>Before</p><iframe srcdoc="<button>In a frame'
                                   '</button>"></iframe>')
            inside = page.frame_locator("iframe").get_by_role("button")
            assert await inside.evaluate(PLACE) is None
            seen.append(await both(page, inside))
            return seen

    seen = asyncio.run(scenario())
    for one_look, separate in seen:
        assert one_look[1:] == tuple(separate)
    assert [s[0][3] for s in seen] == [True, False, False]
    assert seen[2][0][0] > 0  # the frame's offset is in the box (Playwright's own box)
