"""Screenshots at the size a model should see, and coordinates mapped back.

Anthropic's computer-use documentation recommends sending screenshots no larger than the
API would itself accept unscaled (long edge at most 1568 px, about 1.15 megapixels) and
scaling the model's coordinates back to the real screen; at the workstation's 1280x800
(WXGA, a size the documentation recommends) nothing is scaled.
"""

from __future__ import annotations

import io
import math
from typing import Any

MAX_LONG_EDGE = 1568
MAX_PIXELS = 1_150_000
COORDINATE_KEYS = ("coordinate", "start_coordinate")


def model_size(width: int, height: int, long_edge: int = MAX_LONG_EDGE,
               max_pixels: int = MAX_PIXELS) -> tuple[int, int]:
    """The largest size of the same aspect within both limits (never enlarged)."""
    factor = min(1.0, long_edge / max(width, height), math.sqrt(max_pixels / (width * height)))
    return max(1, int(width * factor)), max(1, int(height * factor))


class ScaledScreen:
    """What an adapter knows of the screen: its real size and the size sent to the model."""

    screen: tuple[int, int] = (1280, 800)
    sent: tuple[int, int] = (1280, 800)

    def scale_to(self, screen: tuple[int, int]) -> None:
        self.screen = screen
        self.sent = model_size(*screen)

    def screen_size(self) -> tuple[int, int]:
        return self.sent


def resize_png(png: bytes, size: tuple[int, int]) -> bytes:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        if image.size == size:
            return png
        out = io.BytesIO()
        image.convert("RGB").resize(size, Image.Resampling.LANCZOS).save(out, "PNG")
        return out.getvalue()


def to_screen(point: Any, sent: tuple[int, int], screen: tuple[int, int]) -> list[int]:
    """A model coordinate on the sent image as a pixel of the real screen (clamped)."""
    x, y = float(point[0]), float(point[1])
    sx, sy = screen[0] / sent[0], screen[1] / sent[1]
    return [min(screen[0] - 1, max(0, round(x * sx))), min(screen[1] - 1, max(0, round(y * sy)))]


def map_action(action: dict[str, Any], sent: tuple[int, int],
               screen: tuple[int, int]) -> dict[str, Any]:
    """An action's coordinates (and a zoom region) from the sent image to the screen."""
    out = dict(action)
    for key in COORDINATE_KEYS:
        if isinstance(out.get(key), list | tuple) and len(out[key]) == 2:
            out[key] = to_screen(out[key], sent, screen)
    region = out.get("region")
    if isinstance(region, list | tuple) and len(region) == 4:
        out["region"] = to_screen(region[:2], sent, screen) + to_screen(region[2:], sent, screen)
    return out


def crop_zoom(png: bytes, region: list[int], size: tuple[int, int]) -> bytes:
    """The ``zoom`` action's answer: the region of the screen, enlarged to ``size``'s
    bounds keeping its aspect."""
    from PIL import Image

    x0, y0, x1, y1 = region
    x0, x1 = sorted((x0, x1))
    y0, y1 = sorted((y0, y1))
    with Image.open(io.BytesIO(png)) as image:
        part = image.convert("RGB").crop((x0, y0, max(x1, x0 + 1), max(y1, y0 + 1)))
    factor = min(size[0] / part.width, size[1] / part.height)
    part = part.resize((max(1, int(part.width * factor)), max(1, int(part.height * factor))),
                       Image.Resampling.LANCZOS)
    out = io.BytesIO()
    part.save(out, "PNG")
    return out.getvalue()
