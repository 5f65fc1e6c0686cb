"""Where things are on the workstation screen: boxes, the browser viewport's origin, and a
locator's box in screen pixels (the oracle's driver side; gold code never calls these)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from episodes.oracle.errors import OracleError


@dataclass(frozen=True)
class Box:
    """A rectangle in some screen's pixels."""

    x: float
    y: float
    width: float
    height: float

    @property
    def center(self) -> tuple[int, int]:
        return int(self.x + self.width / 2), int(self.y + self.height / 2)


WINDOW_METRICS = "() => [screenX, screenY, outerWidth, outerHeight, innerWidth, innerHeight]"


async def content_origin(page: Any) -> tuple[float, float]:
    """Screen position of the page's viewport: window position plus the browser chrome
    above it (tab strip, toolbar, title bar), the side borders being equal."""
    return _origin(await page.evaluate(WINDOW_METRICS))


def _origin(metrics: list[float]) -> tuple[float, float]:
    sx, sy, ow, oh, iw, ih = metrics
    border = (ow - iw) / 2
    return sx + border, sy + (oh - ih) - border


# Whether a bar that stays put while the page scrolls (a sticky header or footer, a fixed
# toolbar) covers the element's centre, where a click on it lands.
COVERED_BY_A_BAR = """el => {
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  if (!hit || el === hit || el.contains(hit)) return false;
  for (let n = hit; n && n !== document.body; n = n.parentElement) {
    const position = getComputedStyle(n).position;
    if (position === 'fixed' || position === 'sticky') return !n.contains(el);
  }
  return false;
}"""


# The window's metrics and the bar check in one round trip (a page's top frame only: in a
# frame, the element's window is not the browser's)
PLACE = f"""el => {{
  if (window.top !== window) return null;
  return {{metrics: {WINDOW_METRICS[6:]}, covered: ({COVERED_BY_A_BAR})(el)}};
}}"""


async def covered_by_a_bar(locator: Any) -> bool:
    """Whether a sticky or fixed bar of the page covers where a click on ``locator`` lands
    (scrolled into view "if needed", an element can end under a page's sticky footer)."""
    try:
        return bool(await locator.evaluate(COVERED_BY_A_BAR, timeout=2000))
    except Exception:  # noqa: BLE001 - gone or navigating: the next look tells
        return False


async def screen_box(locator: Any, timeout_s: float):
    """(box in viewport pixels, (viewport w, h, screen x0, y0), whether a bar covers its
    centre) or None."""
    try:
        await locator.wait_for(state="visible", timeout=timeout_s * 1000)
    except Exception as exc:  # noqa: BLE001 - Playwright's timeouts and strictness errors
        message = str(exc).split("Call log:")[0].strip()
        raise OracleError(f"cannot locate {locator}: {message}") from exc
    box = await locator.bounding_box()
    if box is None:
        return None
    try:
        place = await locator.evaluate(PLACE, timeout=2000)
    except Exception:  # noqa: BLE001 - gone or navigating: the page's own look below
        place = None
    if place is None:
        metrics = await locator.page.evaluate(WINDOW_METRICS)
        covered = await covered_by_a_bar(locator)
    else:
        metrics, covered = place["metrics"], bool(place["covered"])
    x0, y0 = _origin(metrics)
    return (Box(box["x"], box["y"], box["width"], box["height"]),
            (metrics[4], metrics[5], x0, y0), covered)


async def has_focus(locator: Any) -> bool:
    """Whether the element (or one inside it) has the page's keyboard focus."""
    try:
        return bool(await locator.evaluate(
            "e => e === document.activeElement || e.contains(document.activeElement)",
            timeout=2000))
    except Exception:  # noqa: BLE001 - gone, navigating, or not one element
        return True  # nothing to correct: the keys go where the click put them


async def is_front(page: Any) -> bool:
    try:
        return await page.evaluate("() => document.visibilityState") == "visible"
    except Exception:  # noqa: BLE001 - navigating
        return False
