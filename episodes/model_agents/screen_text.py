"""What ``--observe screenshot+a11y`` and ``--observe som`` add to the screenshot (never the
default: pixel-only scores are the benchmark's; these are for ablations).

* the front browser tab's accessibility tree, as Playwright's ARIA snapshot (YAML text);
* the desktop EHR's widget tree, from its inspector socket (the one the oracle locates
  with), one line a widget: class, accessible name, text, enabled;
* for ``som``, numbered boxes of the interactive elements of both, in workstation pixels,
  drawn on the screenshot (:func:`draw_marks`) with a legend the model reads.

The front window is the one the window manager says is active.
"""

from __future__ import annotations

import asyncio
import io
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from episodes.episode import Episode

log = logging.getLogger(__name__)

MAX_TEXT = 12_000
MAX_MARKS = 120
INTERACTIVE_JS = """() => {
  const sel = 'a[href],button,input,select,textarea,summary,[role=button],[role=link],' +
              '[role=tab],[role=menuitem],[role=checkbox],[role=radio],[role=option],' +
              '[role=combobox],[contenteditable=true]';
  const out = [];
  for (const el of document.querySelectorAll(sel)) {
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2 || r.bottom < 0 || r.right < 0 ||
        r.top > innerHeight || r.left > innerWidth) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none') continue;
    const name = (el.getAttribute('aria-label') || el.labels?.[0]?.innerText ||
                  el.innerText || el.placeholder || el.title || el.value || '').trim();
    out.push({role: el.getAttribute('role') || el.tagName.toLowerCase(),
              name: name.slice(0, 60), x: r.left, y: r.top, w: r.width, h: r.height});
  }
  return out;
}"""
CLICKABLE_CLASSES = ("Button", "LineEdit", "ComboBox", "CheckBox", "RadioButton", "TextEdit",
                     "TabBar", "TreeView", "TableView", "ListView", "DateEdit", "SpinBox")


@dataclass
class Mark:
    number: int
    label: str
    box: tuple[int, int, int, int]  # x, y, w, h on the workstation screen


@dataclass
class ScreenText:
    text: str = ""
    marks: list[Mark] = field(default_factory=list)


async def _front(episode: Episode) -> str:
    from episodes.taskbar import RECEIVER_CLASS, taskbar_state

    try:
        state = await asyncio.to_thread(taskbar_state, episode.display.name)
    except Exception:  # noqa: BLE001 - a window going away meanwhile
        return "browser"
    return "desktop" if state.active_class == RECEIVER_CLASS else "browser"


async def _front_page(episode: Episode) -> Any:
    from episodes.oracle.locators import is_front

    workstation = episode.workstation
    if workstation is None or workstation.context is None:
        return None
    for page in workstation.context.pages:
        if await is_front(page):
            return page
    return None


async def _browser(episode: Episode, marks: bool) -> tuple[str, list[tuple[str, tuple]]]:
    from episodes.oracle.locators import content_origin

    page = await _front_page(episode)
    if page is None:
        return "", []
    try:
        snapshot = await page.locator("body").aria_snapshot(timeout=3000)
    except Exception as exc:  # noqa: BLE001 - a page navigating
        snapshot = f"(no accessibility tree: {str(exc)[:100]})"
    text = f"Browser tab {page.url}:\n{snapshot}"
    boxes: list[tuple[str, tuple]] = []
    if marks:
        try:
            x0, y0 = await content_origin(page)
            for el in await page.evaluate(INTERACTIVE_JS):
                boxes.append((f"{el['role']} {el['name']!r}",
                              (int(x0 + el["x"]), int(y0 + el["y"]), int(el["w"]),
                               int(el["h"]))))
        except Exception as exc:  # noqa: BLE001 - a page navigating
            log.debug("no marks for the page: %s", exc)
    return text, boxes


async def _desktop(episode: Episode, marks: bool) -> tuple[str, list[tuple[str, tuple]]]:
    from episodes.inspector import InspectorClient
    from episodes.oracle.locators import content_origin

    lines: list[str] = []
    boxes: list[tuple[str, tuple]] = []
    for system, app in episode.apps.items():
        if app.inspector is None:
            continue
        try:
            widgets = (await asyncio.to_thread(InspectorClient(app.inspector, 3.0).request,
                                               "tree"))["widgets"]
            page = episode.workstation.receiver_page  # type: ignore[union-attr]
            box = await page.locator("#screen").bounding_box()
            x0, y0 = await content_origin(page)
        except Exception as exc:  # noqa: BLE001 - the app restarting
            lines.append(f"Desktop EHR ({system}): no widget tree ({str(exc)[:100]})")
            continue
        ox, oy = x0 + (box or {}).get("x", 0), y0 + (box or {}).get("y", 0)
        lines.append(f"Desktop EHR ({system}) widgets:")
        for w in widgets:
            name = w.get("accessibleName") or w.get("objectName")
            text = str(w.get("text") or "")[:60]
            state = "" if w.get("enabled", True) else " (disabled)"
            lines.append(f"- {w.get('class')} {name!r}{': ' + repr(text) if text else ''}"
                         f"{state}")
            if marks and any(c in str(w.get("class")) for c in CLICKABLE_CLASSES):
                boxes.append((f"{w.get('class')} {name!r}",
                              (int(ox + w["x"]), int(oy + w["y"]), int(w["w"]), int(w["h"]))))
    return "\n".join(lines), boxes


async def screen_text(episode: Episode, marks: bool) -> ScreenText:
    """The front window's accessibility text (and, with ``marks``, its numbered boxes)."""
    front = await _front(episode)
    if front == "desktop" and episode.apps:
        text, boxes = await _desktop(episode, marks)
    else:
        text, boxes = await _browser(episode, marks)
    result = ScreenText(text=text[:MAX_TEXT])
    width, height = episode.config.screen
    for label, (x, y, w, h) in boxes:
        if len(result.marks) >= MAX_MARKS:
            break
        if x >= width or y >= height or x + w <= 0 or y + h <= 0:
            continue
        result.marks.append(Mark(len(result.marks) + 1, label, (x, y, w, h)))
    if marks:
        legend = [f"[{m.number}] {m.label} at ({m.box[0] + m.box[2] // 2}, "
                  f"{m.box[1] + m.box[3] // 2})" for m in result.marks]
        result.text = "Marked elements (number, what, centre):\n" + "\n".join(legend)
    return result


def draw_marks(png: bytes, marks: list[Mark]) -> bytes:
    """The screenshot with each mark's box outlined and numbered."""
    from PIL import Image, ImageDraw

    with Image.open(io.BytesIO(png)) as opened:
        image = opened.convert("RGB")
    draw = ImageDraw.Draw(image)
    for mark in marks:
        x, y, w, h = mark.box
        draw.rectangle((x, y, x + w - 1, y + h - 1), outline=(255, 0, 160), width=2)
        label = str(mark.number)
        tw = 7 * len(label) + 4
        draw.rectangle((x, max(0, y - 12), x + tw, max(12, y)), fill=(255, 0, 160))
        draw.text((x + 2, max(0, y - 12)), label, fill=(255, 255, 255))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()
