"""Fresh episodes show the agent the same first screen, and the Citrix window is exact.

The first observation waits until the workstation has settled (``episodes.settle``), and the
receiver refreshes a settled picture losslessly, so two fresh episodes of a desktop task
give byte-identical first screenshots whose Citrix window equals the published app's own
framebuffer pixel for pixel.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest

from episodes.bench_identity import diff_box, first_screens, locate
from sandbox.catalog import load_catalog


def test_locate_finds_a_picture_and_counts_what_differs() -> None:
    rng = np.random.default_rng(7)
    screen = rng.integers(0, 256, (60, 50, 3), dtype=np.uint8)
    picture = screen[9:49, 3:43].copy()
    assert locate(screen, picture) == (3, 9, 0)
    picture[5, 5] = picture[5, 5] ^ 1  # one pixel off by one level
    assert locate(screen, picture) == (3, 9, 1)


def test_diff_box_reports_the_bounding_box() -> None:
    a = np.zeros((20, 30, 3), dtype=np.uint8)
    b = a.copy()
    assert diff_box(a, b) == {"pixels": 0, "box": None}
    b[4, 7] = 1
    b[10, 20, 2] = 9
    assert diff_box(a, b) == {"pixels": 2, "box": [7, 4, 14, 7]}


@pytest.mark.slow
def test_two_fresh_desktop_episodes_show_one_exact_first_screen(tmp_path: Path) -> None:
    spec = load_catalog().get("ord-06")  # Hyperspace in the Citrix window, a browser tab
    result = asyncio.run(first_screens(spec, 2, tmp_path, keep_dir=tmp_path / "kept"))
    assert result["failures"] == []
    # the Citrix window shows the app's framebuffer exactly, in both episodes
    assert [c["diff_pixels"] for c in result["citrix_vs_app"]] == [0, 0], result["citrix_vs_app"]
    assert result["identical"], (result["differences"], sorted((tmp_path / "kept").iterdir()))
